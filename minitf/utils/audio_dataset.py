"""tf.keras.utils.audio_dataset_from_directory: a labelled tf.data.Dataset of the .wav files of a folder.

Files, order, labels, class names and splits follow Keras 3 (see dataset_utils). Each element
is the file decoded by `tf.audio.decode_wav`: float32 [samples, channels], cut or zero-padded
to `output_sequence_length` when given; without it, batches are padded to their longest file.
"""
import numpy as np

from minitf.errors import errors
from minitf.data.dataset import AUTOTUNE
from minitf.ops import audio_ops, io_ops
from minitf.ragged.ragged_tensor import RaggedTensor
from minitf.utils import dataset_utils
from minitf.api_export import export

__all__ = ["audio_dataset_from_directory"]

ALLOWED_FORMATS = (".wav",)


def _read_audio(path, output_sequence_length):
    try:
        contents = io_ops.read_file(path)
    except PermissionError:
        name = path.numpy().decode()
        raise errors.PermissionDeniedError(None, None, f"audio_dataset_from_directory: cannot read {name}: "
                                                       f"permission denied [Op:ReadFile]") from None
    audio, _ = audio_ops.decode_wav(contents, desired_samples=-1 if output_sequence_length is None
                                    else output_sequence_length)
    return audio


def _paths_and_labels_to_dataset(file_paths, labels, label_mode, num_classes, output_sequence_length, ragged,
                                 shuffle=False, shuffle_buffer_size=None, seed=None):
    ds = dataset_utils.paths_and_labels(file_paths, labels, label_mode, num_classes, shuffle,
                                        shuffle_buffer_size, seed)
    if label_mode:
        ds = ds.map(lambda x, y: (_read_audio(x, output_sequence_length), y), num_parallel_calls=AUTOTUNE)
        if ragged:
            ds = ds.map(lambda x, y: (RaggedTensor.from_tensor(x), y), num_parallel_calls=AUTOTUNE)
    else:
        ds = ds.map(lambda x: _read_audio(x, output_sequence_length), num_parallel_calls=AUTOTUNE)
        if ragged:
            ds = ds.map(RaggedTensor.from_tensor, num_parallel_calls=AUTOTUNE)
    return ds


def _finish(ds, batch_size, class_names, output_sequence_length, ragged):
    ds = ds.prefetch(AUTOTUNE)
    if batch_size is not None:
        if output_sequence_length is None and not ragged:
            ds = ds.padded_batch(batch_size)
        else:
            ds = ds.batch(batch_size)
    ds.class_names = class_names
    return ds


def _check_sampling_rate(sampling_rate):
    if sampling_rate is None:
        return
    if not isinstance(sampling_rate, int) or isinstance(sampling_rate, bool):
        raise ValueError(f"`sampling_rate` should have an integer value. Received: sampling_rate={sampling_rate}")
    if sampling_rate <= 0:
        raise ValueError(f"`sampling_rate` should be higher than 0. Received: sampling_rate={sampling_rate}")
    raise NotImplementedError("audio_dataset_from_directory: minitf does not resample audio (Keras does it with "
                              "tensorflow_io); resample the files beforehand and pass sampling_rate=None.")


@export("utils.audio_dataset_from_directory", "keras.utils.audio_dataset_from_directory")
def audio_dataset_from_directory(directory, labels="inferred", label_mode="int", class_names=None, batch_size=32,
                                 sampling_rate=None, output_sequence_length=None, ragged=False, shuffle=True,
                                 seed=None, validation_split=None, subset=None, follow_links=False, verbose=True):
    """A `tf.data.Dataset` of the .wav files in `directory`, one class per sub-directory.

    With `main/no/*.wav` and `main/yes/*.wav` the dataset yields `(audio, labels)` batches:
    float32 audio of shape (batch, samples, channels) and labels 0 for no, 1 for yes.

    Args:
        directory: The folder. With `labels='inferred'` it holds one sub-directory per class.
        labels: 'inferred', None (audio only), or a list of integer labels, one per file in the
            sorted order of the file paths.
        label_mode: 'int', 'categorical', 'binary' (exactly two classes) or None.
        class_names: With inferred labels, which sub-directories to use and their label order.
        batch_size: Files per batch (None: single files).
        sampling_rate: Must be None: minitf does not resample (NotImplementedError otherwise).
        output_sequence_length: Cut or zero-pad every file to this many samples. Without it,
            each batch is padded to its longest file.
        ragged: Yield ragged tensors of each file's own length (not with
            `output_sequence_length`).
        shuffle: Shuffle the files (otherwise sorted by path).
        seed: Seed of the shuffle; required with `validation_split` and `shuffle`.
        validation_split: Fraction of the files kept for validation, taken from the end.
        subset: 'training', 'validation' or 'both' (a tuple (train, validation)).
        follow_links: Walk symlinked sub-directories.
        verbose: Print how many files and classes were found.

    Returns:
        A `tf.data.Dataset` with a `class_names` attribute, or a tuple of two for `subset='both'`.

    Raises:
        ValueError: Any argument Keras refuses, or no .wav files found.
        NotImplementedError: A `sampling_rate` (resampling) was asked for.
    """
    labels, label_mode = dataset_utils.check_labels_arg(labels, label_mode, class_names, "audio")
    if ragged and output_sequence_length is not None:
        raise ValueError("Cannot set both `ragged` and `output_sequence_length`")
    _check_sampling_rate(sampling_rate)
    dataset_utils.check_validation_split_arg(validation_split, subset, shuffle, seed)
    if seed is None:
        seed = np.random.randint(1e6)
    buffer_size = dataset_utils.shuffle_buffer_size(batch_size)
    file_paths, labels, class_names = dataset_utils.index_directory(
        directory, labels, formats=ALLOWED_FORMATS, class_names=class_names, shuffle=shuffle, seed=seed,
        follow_links=follow_links, verbose=verbose)
    if label_mode == "binary" and len(class_names) != 2:
        raise ValueError(f"When passing `label_mode=\"binary\"`, there must be exactly 2 class_names. "
                         f"Received: class_names={class_names}")
    num_classes = len(class_names) if class_names else 0
    split = dataset_utils.get_training_or_validation_split
    build = _paths_and_labels_to_dataset
    if subset == "both":
        train_paths, train_labels = split(file_paths, labels, validation_split, "training")
        if not train_paths:
            raise ValueError(f"No training audio files found in directory {directory}. Allowed format(s): "
                             f"{ALLOWED_FORMATS}")
        val_paths, val_labels = split(file_paths, labels, validation_split, "validation")
        if not val_paths:
            raise ValueError(f"No validation audio files found in directory {directory}. Allowed format(s): "
                             f"{ALLOWED_FORMATS}")
        train = build(train_paths, train_labels, label_mode, num_classes, output_sequence_length, ragged,
                      shuffle=shuffle, shuffle_buffer_size=buffer_size, seed=seed)
        val = build(val_paths, val_labels, label_mode, num_classes, output_sequence_length, ragged)
        return (_finish(train, batch_size, class_names, output_sequence_length, ragged),
                _finish(val, batch_size, class_names, output_sequence_length, ragged))
    file_paths, labels = split(file_paths, labels, validation_split, subset)
    if not file_paths:
        raise ValueError(f"No audio files found in directory {directory}. Allowed format(s): {ALLOWED_FORMATS}")
    ds = build(file_paths, labels, label_mode, num_classes, output_sequence_length, ragged, shuffle=shuffle,
               shuffle_buffer_size=buffer_size, seed=seed)
    return _finish(ds, batch_size, class_names, output_sequence_length, ragged)
