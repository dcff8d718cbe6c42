"""The shared half of the *_dataset_from_directory utilities (listing files, labels, splits), and
tf.keras.utils.split_dataset.

Everything here follows Keras 3 so that the same folder gives the same file list, labels, class
names and training/validation split in Keras and minitf:

- classes are the sub-directories of `directory` in sorted order (hidden ones skipped), or the
  `class_names` given, which must name existing sub-directories;
- inside each class directory files are walked with `os.walk` (roots sorted, names sorted) and
  kept when their extension, lower-cased, is allowed;
- with `shuffle`, the list is permuted by `np.random.RandomState(seed).shuffle`, labels alike;
- a validation split takes the last `int(validation_split * n)` files of that list.

Paths never leave `directory` by name: class names are checked against its listing. With
`follow_links=False` (the default) symbolic links to directories below the class folders are not
walked; a symlinked file or class folder is read as it is in Keras.
"""
import os
import random

import numpy as np

from minitf.dtypes import dtypes
from minitf.nest import nest
from minitf.data.dataset import AUTOTUNE, Dataset
from minitf.ops.constant import cast
from minitf.ops.creation import one_hot
from minitf.ops.shaping import expand_dims
from minitf.api_export import export

__all__ = ["index_directory", "get_training_or_validation_split", "labels_to_dataset", "paths_and_labels",
           "check_validation_split_arg", "check_labels_arg",
           "shuffle_buffer_size", "check_format", "split_dataset"]

_LABEL_MODES = ("int", "categorical", "binary", None)


def check_labels_arg(labels, label_mode, class_names, what):
    """Keras' checks of `labels`, `label_mode` and `class_names`; `what` says 'image' or 'text'.

    Returns:
        (labels, label_mode), both None when either asks for no labels.
    """
    if labels not in ("inferred", None):
        if not isinstance(labels, (list, tuple)):
            raise ValueError(
                "`labels` argument should be a list/tuple of integer labels, of the same size as the "
                f"number of {what} files in the target directory. If you wish to infer the labels from "
                "the subdirectory names in the target directory, pass `labels=\"inferred\"`. If you wish "
                f"to get a dataset that only contains {what}s (no labels), pass `labels=None`. "
                f"Received: labels={labels}")
        if class_names:
            raise ValueError(f"You can only pass `class_names` if `labels=\"inferred\"`. "
                             f"Received: labels={labels}, and class_names={class_names}")
    if label_mode not in _LABEL_MODES:
        raise ValueError("`label_mode` argument must be one of \"int\", \"categorical\", \"binary\", "
                         f"or None. Received: label_mode={label_mode}")
    if labels is None or label_mode is None:
        return None, None
    return labels, label_mode


def check_validation_split_arg(validation_split, subset, shuffle, seed):
    """Raise ValueError for a split Keras would refuse (bad fraction, subset without split and
    the reverse, unknown subset, or a shuffled split without a seed, which could overlap)."""
    if validation_split and not 0 < validation_split < 1:
        raise ValueError(f"`validation_split` must be between 0 and 1, received: {validation_split}")
    if (validation_split or subset) and not (validation_split and subset):
        raise ValueError("If `subset` is set, `validation_split` must be set, and inversely.")
    if subset not in ("training", "validation", "both", None):
        raise ValueError(f"`subset` must be either \"training\", \"validation\" or \"both\", "
                         f"received: {subset}")
    if validation_split and shuffle and seed is None:
        raise ValueError("If using `validation_split` and shuffling the data, you must provide a `seed` "
                         "argument, to make sure that there is no overlap between the training and "
                         "validation subset.")


def _class_subdirs(directory, class_names):
    """The class directories: all visible sub-directories sorted, or `class_names` in its order."""
    try:
        entries = sorted(os.listdir(directory))
    except FileNotFoundError:
        raise FileNotFoundError(f"*_dataset_from_directory: directory {directory!r} does not exist; pass "
                                f"the folder that holds one sub-directory per class.") from None
    except NotADirectoryError:
        raise NotADirectoryError(f"*_dataset_from_directory: {directory!r} is a file, not a directory; pass "
                                 f"the folder that holds one sub-directory per class.") from None
    subdirs = [entry.rstrip("/") for entry in entries
               if os.path.isdir(os.path.join(directory, entry)) and not entry.startswith(".")]
    if class_names is not None:
        if not set(class_names).issubset(set(subdirs)):
            raise ValueError("The `class_names` passed did not match the names of the subdirectories of the "
                             f"target directory. Expected: {subdirs} (or a subset of it), but received: "
                             f"class_names={class_names}")
        subdirs = list(class_names)  # the order given decides the label numbers
    return subdirs


def _iter_valid_files(directory, follow_links, formats):
    """(root, file name) of every allowed file under `directory`, roots and names sorted."""
    for root, _, files in sorted(os.walk(directory, followlinks=follow_links), key=lambda x: x[0]):
        for fname in sorted(files):
            if fname.lower().endswith(formats):
                yield root, fname


def _index_subdirectory(directory, label, follow_links, formats):
    """(paths relative to the parent of `directory`, labels) of the allowed files below it."""
    dirname = os.path.basename(directory)
    filenames, labels = [], []
    for root, fname in _iter_valid_files(directory, follow_links, formats):
        filenames.append(os.path.join(dirname, os.path.relpath(os.path.join(root, fname), directory)))
        labels.append(label)
    return filenames, labels


def index_directory(directory, labels, formats, class_names=None, shuffle=True, seed=None,
                    follow_links=False, verbose=True):
    """List the files of `directory` with their labels, in Keras 3's order.

    Args:
        directory: The folder to read.
        labels: 'inferred' (one class per sub-directory), None (no labels), or a list of integer
            labels, one per file in sorted path order.
        formats: Tuple of allowed lower-case extensions, e.g. ('.png', '.jpg').
        class_names: With inferred labels, the sub-directories to use, in label order.
        shuffle: Permute the files (and labels) with `np.random.RandomState(seed)`; otherwise they
            stay in sorted order.
        seed: The permutation's seed (None: a random one from numpy's global generator).
        follow_links: Whether to walk symlinked sub-directories.
        verbose: Print "Found N files belonging to K classes."

    Returns:
        (file_paths, labels, class_names): paths joined onto `directory`, an int32 array of labels
        (or None), and the class names (or None without labels).
    """
    if labels == "inferred":
        subdirs = _class_subdirs(directory, class_names)
    else:
        # explicit labels or none: every file under `directory`, whatever its folder
        subdirs = [""]
        if class_names is not None:
            if labels is None:
                raise ValueError("When `labels=None` (no labels), argument `class_names` cannot be specified.")
            raise ValueError("When argument `labels` is specified, argument `class_names` cannot be specified "
                             "(the `class_names` will be the sorted list of labels).")
    class_names = subdirs
    filenames, label_parts = [], []
    for index, subdir in enumerate(subdirs):
        names, part = _index_subdirectory(os.path.join(directory, subdir), index, follow_links, formats)
        filenames += names
        label_parts += part

    if labels == "inferred":
        labels = np.asarray(label_parts, dtype="int32")
    elif labels is None:
        class_names = None
    else:
        if len(labels) != len(filenames):
            raise ValueError(f"Expected the lengths of `labels` to match the number of files in the target "
                             f"directory. len(labels) is {len(labels)} while we found {len(filenames)} files "
                             f"in directory {directory}.")
        class_names = [str(label) for label in sorted(set(labels))]
        labels = np.asarray(labels, dtype="int32")  # a copy: the caller's list is left unshuffled
    if verbose:
        if labels is None:
            print(f"Found {len(filenames)} files.")
        else:
            print(f"Found {len(filenames)} files belonging to {len(class_names)} classes.")
    file_paths = [os.path.join(directory, fname) for fname in filenames]
    if shuffle:
        # one global permutation, the same for paths and labels, erases the folder structure
        if seed is None:
            seed = np.random.randint(1e6)
        np.random.RandomState(seed).shuffle(file_paths)
        if labels is not None:
            np.random.RandomState(seed).shuffle(labels)
    return file_paths, labels, class_names


def get_training_or_validation_split(samples, labels, validation_split, subset):
    """The training part (all but the last `int(validation_split * n)`) or the validation part
    (those last ones) of `samples` and `labels`, printing how many files it uses."""
    if not validation_split:
        return samples, labels
    num_val_samples = int(validation_split * len(samples))
    if subset == "training":
        print(f"Using {len(samples) - num_val_samples} files for training.")
        # Keras slices with [:-k]: a split that rounds to 0 validation files leaves training empty
        samples = samples[:-num_val_samples]
        labels = None if labels is None else labels[:-num_val_samples]
    elif subset == "validation":
        print(f"Using {num_val_samples} files for validation.")
        samples = samples[-num_val_samples:]
        labels = None if labels is None else labels[-num_val_samples:]
    else:
        raise ValueError(f"`subset` must be either \"training\" or \"validation\", received: {subset}")
    return samples, labels


def paths_and_labels(file_paths, labels, label_mode, num_classes, shuffle=False, shuffle_buffer_size=None,
                     seed=None):
    """The dataset of file paths (zipped with their labels when `label_mode` is set), shuffled as
    Keras' loaders shuffle it when asked; the loaders map their reading function over it."""
    ds = Dataset.from_tensor_slices(list(file_paths))
    if label_mode:
        ds = Dataset.zip((ds, labels_to_dataset(labels, label_mode, num_classes)))
    if shuffle:
        ds = ds.shuffle(buffer_size=shuffle_buffer_size or 1024, seed=seed)
    return ds


def labels_to_dataset(labels, label_mode, num_classes):
    """A dataset of the labels: int32 ('int'), one-hot float32 ('categorical') or a float32
    [1] vector of 0/1 ('binary')."""
    label_ds = Dataset.from_tensor_slices(np.asarray(labels, dtype="int32"))
    if label_mode == "binary":
        return label_ds.map(lambda x: expand_dims(cast(x, dtypes.float32), axis=-1))
    if label_mode == "categorical":
        return label_ds.map(lambda x: one_hot(x, num_classes))
    return label_ds


def shuffle_buffer_size(batch_size):
    """Shuffle buffer size Keras uses: eight batches, or 1024 unbatched."""
    return 1024 if batch_size is None else batch_size * 8


def check_format(format):  # noqa: A002 (Keras' argument name)
    """Only format='tf' (a tf.data.Dataset) exists in minitf."""
    if format not in ("tf", "grain"):
        raise ValueError(f"`format` should be either \"tf\" or \"grain\". Received: format={format}")
    if format == "grain":
        raise ValueError("format='grain' returns a grain dataset in Keras; minitf has no grain support. "
                         "Use format='tf' (the default) for a tf.data.Dataset.")


# --- split_dataset ------------------------------------------------------------------------------

def _rescale_split_sizes(left_size, right_size, total_length):
    """(left, right) sample counts from ints (counts) or floats (fractions), Keras' rules and checks."""
    for name, size in (("left_size", left_size), ("right_size", right_size)):
        if size is not None and type(size) not in (int, float):
            raise TypeError(f"Invalid `{name}` Type. Expected: int or float or None, "
                            f"Received: type({name})={type(size)}.")
    if left_size == 0 and right_size == 0:
        raise ValueError("Both `left_size` and `right_size` are zero. At least one of the split sizes must be "
                         "non-zero.")
    for name, size in (("left_size", left_size), ("right_size", right_size)):
        if type(size) is int and not 0 < size < total_length or type(size) is float and not 0 < size < 1:
            raise ValueError(f"`{name}` should be either a positive integer smaller than {total_length}, or a "
                             f"float within the range `[0, 1]`. Received: {name}={size}")
    if type(left_size) is float and type(right_size) is float and left_size + right_size > 1:
        raise ValueError("The sum of `left_size` and `right_size` is greater than 1. It must be less than or "
                         "equal to 1.")
    left = round(left_size * total_length) if type(left_size) is float else left_size
    right = round(right_size * total_length) if type(right_size) is float else right_size
    if left is None:
        left = total_length - right
    elif right is None:
        right = total_length - left
    if left + right > total_length:
        raise ValueError(f"The sum of `left_size` and `right_size` should be smaller than the {total_length}. "
                         f"Received: left_size + right_size = {left + right} and total_length = {total_length}")
    for split, side in ((left, "left"), (right, "right")):
        if split == 0:
            raise ValueError(f"With `dataset` of length={total_length}, `left_size`={left} and "
                             f"`right_size`={right}. Resulting {side} side dataset split will be empty. "
                             "Adjust any of the aforementioned parameters")
    return int(left), int(right)


def _samples(dataset):
    """The samples of `dataset` as a list, and the batch size to restore (None: unbatched)."""
    if isinstance(dataset, (list, tuple)):
        kind = type(dataset).__name__
        if not dataset:
            raise ValueError(f"Received an empty {kind} dataset. Please provide a non-empty {kind} of arrays.")
        for i, element in enumerate(dataset):
            if not isinstance(element, np.ndarray):
                raise ValueError(f"Expected a {kind} of `numpy.ndarray` objects, Received: {type(element)} "
                                 f"at index {i}.")
            if element.shape[0] != dataset[0].shape[0]:
                raise ValueError(f"Received a {kind} of NumPy arrays with different lengths. Mismatch found at "
                                 f"index {i}, Expected shape={dataset[0].shape} Received shape={element.shape}. "
                                 f"Please provide a {kind} of NumPy arrays of the same length.")
        return list(zip(*dataset)), None
    if isinstance(dataset, np.ndarray):
        return list(dataset), None
    if isinstance(dataset, Dataset):
        # as Keras: only a dataset whose last step is batch() counts as batched (TF's `_batch_size`)
        batch_size = getattr(dataset._node, "_batch_size", None)
        source = dataset.unbatch() if batch_size is not None else dataset
        return [nest.map_structure(lambda t: t.numpy(), element) for element in source], batch_size
    raise TypeError("The `dataset` argument must be either a `tf.data.Dataset` object, or a list/tuple of "
                    f"arrays. Received: dataset={dataset} of type {type(dataset)}")


def _stack(samples):
    """Samples (structures of arrays) stacked into one structure of arrays, lists made tuples."""
    template = samples[0]
    columns = [np.array(column) for column in zip(*[nest.flatten(s) for s in samples])]
    packed = nest.pack_sequence_as(template, columns)
    return tuple(packed) if isinstance(packed, list) else packed


@export("utils.split_dataset", "keras.utils.split_dataset")
def split_dataset(dataset, left_size=None, right_size=None, shuffle=False, seed=None):
    """Split a small in-memory dataset in two `tf.data.Dataset`s (e.g. train and test).

    Args:
        dataset: A `tf.data.Dataset`, a numpy array, or a list/tuple of arrays of one length.
        left_size: Samples in the left part: an int count, or a float fraction in (0, 1).
            None: whatever `right_size` leaves.
        right_size: The same for the right part, taken from the end.
        shuffle: Shuffle the samples first (Python's `random.Random(seed).shuffle`, the same
            permutation as Keras' `random.seed(seed); random.shuffle(...)`, without reseeding
            Python's global generator).
        seed: The shuffle's seed.

    Returns:
        (left, right) datasets; batched like `dataset` when it ends in `batch()`.

    Raises:
        ValueError: Neither size given, sizes out of range or leaving a side empty, or an
            empty dataset or arrays of different lengths.
        TypeError: An unsupported `dataset`, or sizes that are neither int nor float.
    """
    if left_size is None and right_size is None:
        raise ValueError("At least one of the `left_size` or `right_size` must be specified. Received: "
                         "left_size=None and right_size=None")
    samples, batch_size = _samples(dataset)
    if not samples:
        raise ValueError("Received an empty dataset. Argument `dataset` must be a non-empty list/tuple of "
                         "`numpy.ndarray` objects or `tf.data.Dataset` objects.")
    if shuffle:
        if seed is None:
            seed = random.randint(0, int(1e6))
        random.Random(seed).shuffle(samples)
    left, right = _rescale_split_sizes(left_size, right_size, len(samples))
    splits = [Dataset.from_tensor_slices(_stack(part)) for part in (samples[:left], samples[-right:])]
    if batch_size is not None:
        splits = [split.batch(batch_size) for split in splits]
    return tuple(split.prefetch(AUTOTUNE) for split in splits)
