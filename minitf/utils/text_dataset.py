"""tf.keras.utils.text_dataset_from_directory: a labelled tf.data.Dataset of the .txt files of a folder.

Files, order, labels, class names and splits follow Keras 3 (see dataset_utils). Each element
is the file's raw bytes as a tf.string scalar, cut to `max_length` bytes when given (as
tf.strings.substr does in Keras' pipeline).
"""
import numpy as np

from minitf.errors import errors
from minitf.data.dataset import AUTOTUNE
from minitf.ops import io_ops
from minitf.ops.string_ops import substr
from minitf.utils import dataset_utils
from minitf.api_export import export

__all__ = ["text_dataset_from_directory"]


def _read_text(path, max_length):
    try:
        txt = io_ops.read_file(path)
    except PermissionError:
        name = path.numpy().decode()
        raise errors.PermissionDeniedError(None, None, f"text_dataset_from_directory: cannot read {name}: "
                                                       f"permission denied [Op:ReadFile]") from None
    if max_length is not None:
        txt = substr(txt, 0, max_length)
    return txt


def _paths_and_labels_to_dataset(file_paths, labels, label_mode, num_classes, max_length, shuffle=False,
                                 shuffle_buffer_size=None, seed=None):
    ds = dataset_utils.paths_and_labels(file_paths, labels, label_mode, num_classes, shuffle,
                                        shuffle_buffer_size, seed)
    if label_mode:
        return ds.map(lambda x, y: (_read_text(x, max_length), y), num_parallel_calls=AUTOTUNE)
    return ds.map(lambda x: _read_text(x, max_length), num_parallel_calls=AUTOTUNE)


def _finish(ds, batch_size, class_names):
    if batch_size is not None:
        ds = ds.batch(batch_size)
    ds = ds.prefetch(AUTOTUNE)
    ds.class_names = class_names
    return ds


@export("utils.text_dataset_from_directory", "keras.preprocessing.text_dataset_from_directory",
        "keras.utils.text_dataset_from_directory")
def text_dataset_from_directory(directory, labels="inferred", label_mode="int", class_names=None, batch_size=32,
                                max_length=None, shuffle=True, seed=None, validation_split=None, subset=None,
                                follow_links=False, format="tf", verbose=True):  # noqa: A002
    """A `tf.data.Dataset` of the .txt files in `directory`, one class per sub-directory.

    With `main/neg/*.txt` and `main/pos/*.txt` the dataset yields `(texts, labels)` batches:
    tf.string texts of shape (batch,) and labels 0 for neg, 1 for pos.

    Args:
        directory: The folder. With `labels='inferred'` it holds one sub-directory per class.
        labels: 'inferred', None (texts only), or a list of integer labels, one per file in the
            sorted order of the file paths.
        label_mode: 'int', 'categorical', 'binary' (exactly two classes) or None.
        class_names: With inferred labels, which sub-directories to use and their label order.
        batch_size: Texts per batch (None: single texts).
        max_length: Keep at most this many bytes of each text.
        shuffle: Shuffle the files (otherwise sorted by path).
        seed: Seed of the shuffle; required with `validation_split` and `shuffle`.
        validation_split: Fraction of the files kept for validation, taken from the end.
        subset: 'training', 'validation' or 'both' (a list [train, validation]).
        follow_links: Walk symlinked sub-directories.
        format: 'tf' only (Keras' 'grain' is not available).
        verbose: Print how many files and classes were found.

    Returns:
        A `tf.data.Dataset` with a `class_names` attribute, or a list of two for `subset='both'`.

    Raises:
        ValueError: Any argument Keras refuses, or no text files found.
    """
    labels, label_mode = dataset_utils.check_labels_arg(labels, label_mode, class_names, "text")
    dataset_utils.check_format(format)
    dataset_utils.check_validation_split_arg(validation_split, subset, shuffle, seed)
    if seed is None:
        seed = np.random.randint(1e6)
    file_paths, labels, class_names = dataset_utils.index_directory(
        directory, labels, formats=(".txt",), class_names=class_names, shuffle=shuffle, seed=seed,
        follow_links=follow_links, verbose=verbose)
    if label_mode == "binary" and len(class_names) != 2:
        raise ValueError(f"When passing `label_mode=\"binary\"`, there must be exactly 2 class_names. "
                         f"Received: class_names={class_names}")
    num_classes = len(class_names) if class_names else 0
    buffer_size = dataset_utils.shuffle_buffer_size(batch_size)
    split = dataset_utils.get_training_or_validation_split
    if subset == "both":
        train_paths, train_labels = split(file_paths, labels, validation_split, "training")
        val_paths, val_labels = split(file_paths, labels, validation_split, "validation")
        if not train_paths:
            raise ValueError(f"No training text files found in directory {directory}. Allowed format: .txt")
        if not val_paths:
            raise ValueError(f"No validation text files found in directory {directory}. Allowed format: .txt")
        train = _paths_and_labels_to_dataset(train_paths, train_labels, label_mode, num_classes, max_length,
                                             shuffle=shuffle, shuffle_buffer_size=buffer_size, seed=seed)
        val = _paths_and_labels_to_dataset(val_paths, val_labels, label_mode, num_classes, max_length)
        return [_finish(train, batch_size, class_names), _finish(val, batch_size, class_names)]
    file_paths, labels = split(file_paths, labels, validation_split, subset)
    if not file_paths:
        raise ValueError(f"No text files found in directory {directory}. Allowed format: .txt")
    ds = _paths_and_labels_to_dataset(file_paths, labels, label_mode, num_classes, max_length, shuffle=shuffle,
                                      shuffle_buffer_size=buffer_size, seed=seed)
    return _finish(ds, batch_size, class_names)
