"""tf.keras.utils.image_dataset_from_directory: a labelled tf.data.Dataset of the images of a folder.

The files, their order, labels, class names and splits follow Keras 3 (see dataset_utils). Each
image is read with tf.io.read_file, decoded with tf.image.decode_image (Pillow underneath) and
resized with tf.image.resize, as Keras' TensorFlow pipeline does, so pixels agree with Keras'
within the codecs' tolerance. minitf's `Dataset.shuffle` draws its own order, so a shuffled
dataset yields the same elements as Keras' in another order; `dataset.file_paths` (before that
buffer shuffle) is Keras' list exactly.
"""
import numpy as np

from minitf.errors import errors
from minitf.data.dataset import AUTOTUNE
from minitf.keras_core import config as keras_config
from minitf.ops import io_ops
from minitf.ops.image import resize, resize_with_pad
from minitf.ops.shaping import transpose
from minitf.utils import dataset_utils
from minitf.api_export import export

__all__ = ["image_dataset_from_directory", "ALLOWLIST_FORMATS"]

ALLOWLIST_FORMATS = (".bmp", ".gif", ".jpeg", ".jpg", ".png")
_INTERPOLATIONS = ("bilinear", "nearest", "bicubic", "area", "lanczos3", "lanczos5", "gaussian",
                   "mitchellcubic")
_CHANNELS = {"rgb": 3, "rgba": 4, "grayscale": 1}


def _image_size(image_size):
    if isinstance(image_size, int):
        return (image_size, image_size)
    if not isinstance(image_size, (list, tuple)) or len(image_size) != 2:
        raise ValueError(f"Invalid `image_size` value. Expected a tuple of 2 integers. "
                         f"Received: image_size={image_size}")
    return tuple(int(s) for s in image_size)


def _data_format(data_format):
    value = keras_config.image_data_format() if data_format is None else str(data_format).lower()
    if value not in ("channels_last", "channels_first"):
        raise ValueError("The `data_format` argument must be one of {'channels_first', 'channels_last'}. "
                         f"Received: data_format={data_format}")
    return value


def _center_crop_box(height, width, target_height, target_width):
    """Keras' smart_resize crop: the largest centred window with the target's aspect ratio
    (float32 arithmetic, truncated, as in its TensorFlow branch)."""
    f32 = np.float32
    crop_height = int(f32(width * target_height) / f32(target_width))
    crop_height = max(min(height, crop_height), 1)
    crop_width = int(f32(height * target_width) / f32(target_height))
    crop_width = max(min(width, crop_width), 1)
    top = int(f32(height - crop_height) / f32(2))
    left = int(f32(width - crop_width) / f32(2))
    return top, left, crop_height, crop_width


def _decode(path, num_channels):
    """The decoded uint8 image at `path`, with errors that name the file."""
    name = path.numpy().decode() if hasattr(path, "numpy") else str(path)
    try:
        contents = io_ops.read_file(path)
    except PermissionError:
        raise errors.PermissionDeniedError(None, None, f"image_dataset_from_directory: cannot read {name}: "
                                                       f"permission denied [Op:ReadFile]") from None
    try:
        return io_ops.decode_image(contents, channels=num_channels, expand_animations=False)
    except errors.InvalidArgumentError as e:
        # Keras lets TF's decode error stop the iteration; say which file it was and what to do
        raise errors.InvalidArgumentError(
            None, None, f"image_dataset_from_directory: {name} is not a readable BMP/GIF/JPEG/PNG image "
                        f"({e}). Remove or fix the file, or move it out of the directory.") from None


def load_image(path, image_size, num_channels, interpolation, data_format, crop_to_aspect_ratio=False,
               pad_to_aspect_ratio=False):
    """One image file as a float32 tensor of `image_size` with `num_channels` channels."""
    if pad_to_aspect_ratio and crop_to_aspect_ratio:
        raise ValueError("Only one of `pad_to_aspect_ratio`, `crop_to_aspect_ratio` can be set to `True`.")
    img = _decode(path, num_channels)
    if crop_to_aspect_ratio:
        height, width = int(img.shape[0]), int(img.shape[1])
        top, left, crop_height, crop_width = _center_crop_box(height, width, *image_size)
        img = img[top:top + crop_height, left:left + crop_width, :]
        img = resize(img, image_size, method=interpolation)
    elif pad_to_aspect_ratio:
        img = resize_with_pad(img, image_size[0], image_size[1], method=interpolation)
    else:
        img = resize(img, image_size, method=interpolation)
    if data_format == "channels_first":
        img = transpose(img, (2, 0, 1))
    return img


def _paths_and_labels_to_dataset(image_paths, labels, label_mode, num_classes, load_args, shuffle=False,
                                 shuffle_buffer_size=None, seed=None):
    ds = dataset_utils.paths_and_labels(image_paths, labels, label_mode, num_classes, shuffle,
                                        shuffle_buffer_size, seed)
    if label_mode:
        return ds.map(lambda x, y: (load_image(x, *load_args), y), num_parallel_calls=AUTOTUNE)
    return ds.map(lambda x: load_image(x, *load_args), num_parallel_calls=AUTOTUNE)


def _finish(ds, batch_size, class_names, file_paths):
    if batch_size is not None:
        ds = ds.batch(batch_size)
    ds = ds.prefetch(AUTOTUNE)
    ds.class_names = class_names
    ds.file_paths = file_paths
    return ds


@export("utils.image_dataset_from_directory", "keras.preprocessing.image_dataset_from_directory",
        "keras.utils.image_dataset_from_directory")
def image_dataset_from_directory(directory, labels="inferred", label_mode="int", class_names=None,
                                 color_mode="rgb", batch_size=32, image_size=(256, 256), shuffle=True, seed=None,
                                 validation_split=None, subset=None, interpolation="bilinear",
                                 follow_links=False, crop_to_aspect_ratio=False, pad_to_aspect_ratio=False,
                                 data_format=None, format="tf", verbose=True):  # noqa: A002
    """A `tf.data.Dataset` of the images in `directory`, one class per sub-directory.

    With `main/cat/*.png` and `main/dog/*.png`, the dataset yields `(images, labels)` batches,
    label 0 for cat and 1 for dog (classes sorted by name unless `class_names` orders them).
    Files ending in .bmp, .gif, .jpeg, .jpg or .png (any case) are used; others are ignored.
    Animated GIFs give their first frame. Images are float32 in [0, 255] of shape
    `(batch, height, width, channels)` (uint8 with `interpolation='nearest'`, since
    tf.image.resize keeps the dtype for that method, as in Keras).

    Args:
        directory: The folder. With `labels='inferred'` it holds one sub-directory per class.
        labels: 'inferred', None (images only), or a list of integer labels, one per image in
            the sorted order of the file paths.
        label_mode: 'int' (int32 class index), 'categorical' (float32 one-hot), 'binary'
            (float32 0/1 of shape (1,), exactly two classes) or None (no labels).
        class_names: With inferred labels, which sub-directories to use and their label order.
        color_mode: 'rgb' (3 channels), 'rgba' (4) or 'grayscale' (1).
        batch_size: Images per batch (None: single images).
        image_size: (height, width) every image is resized to (an int for a square).
        shuffle: Shuffle the files (otherwise sorted by path).
        seed: Seed of the shuffle; required with `validation_split` and `shuffle`.
        validation_split: Fraction of the files kept for validation, taken from the end.
        subset: 'training', 'validation' or 'both' (a list [train, validation]).
        interpolation: The resize method: 'bilinear', 'nearest', 'bicubic', 'area', 'lanczos3',
            'lanczos5', 'gaussian' or 'mitchellcubic'.
        follow_links: Walk symlinked sub-directories.
        crop_to_aspect_ratio: Crop the centre to the target aspect ratio before resizing.
        pad_to_aspect_ratio: Pad to the target aspect ratio (zeros) instead of distorting.
        data_format: 'channels_last' or 'channels_first' (None: tf.keras.backend's setting).
        format: 'tf' only (Keras' 'grain' is not available).
        verbose: Print how many files and classes were found.

    Returns:
        A `tf.data.Dataset` with attributes `class_names` and `file_paths`, or a list of two of
        them for `subset='both'`.

    Raises:
        ValueError: Any argument Keras refuses, or no images found.
        InvalidArgumentError: While iterating, a file with an image extension that does not decode.
    """
    labels, label_mode = dataset_utils.check_labels_arg(labels, label_mode, class_names, "image")
    if color_mode not in _CHANNELS:
        raise ValueError(f"`color_mode` must be one of {{\"rgb\", \"rgba\", \"grayscale\"}}. "
                         f"Received: color_mode={color_mode}")
    num_channels = _CHANNELS[color_mode]
    image_size = _image_size(image_size)
    interpolation = str(interpolation).lower()
    if interpolation not in _INTERPOLATIONS:
        raise ValueError(f"Argument `interpolation` should be one of {_INTERPOLATIONS}. "
                         f"Received: interpolation={interpolation}")
    if pad_to_aspect_ratio and crop_to_aspect_ratio:
        raise ValueError("Only one of `pad_to_aspect_ratio`, `crop_to_aspect_ratio` can be set to `True`.")
    dataset_utils.check_format(format)
    dataset_utils.check_validation_split_arg(validation_split, subset, shuffle, seed)
    if seed is None:
        seed = np.random.randint(1e6)
    image_paths, labels, class_names = dataset_utils.index_directory(
        directory, labels, formats=ALLOWLIST_FORMATS, class_names=class_names, shuffle=shuffle, seed=seed,
        follow_links=follow_links, verbose=verbose)
    if label_mode == "binary" and len(class_names) != 2:
        raise ValueError(f"When passing `label_mode=\"binary\"`, there must be exactly 2 class_names. "
                         f"Received: class_names={class_names}")
    load_args = (image_size, num_channels, interpolation, _data_format(data_format), crop_to_aspect_ratio,
                 pad_to_aspect_ratio)
    num_classes = len(class_names) if class_names else 0
    buffer_size = dataset_utils.shuffle_buffer_size(batch_size)
    split = dataset_utils.get_training_or_validation_split
    if subset == "both":
        train_paths, train_labels = split(image_paths, labels, validation_split, "training")
        val_paths, val_labels = split(image_paths, labels, validation_split, "validation")
        if not train_paths:
            raise ValueError(f"No training images found in directory {directory}. "
                             f"Allowed formats: {ALLOWLIST_FORMATS}")
        if not val_paths:
            raise ValueError(f"No validation images found in directory {directory}. "
                             f"Allowed formats: {ALLOWLIST_FORMATS}")
        train = _paths_and_labels_to_dataset(train_paths, train_labels, label_mode, num_classes, load_args,
                                             shuffle=shuffle, shuffle_buffer_size=buffer_size, seed=seed)
        val = _paths_and_labels_to_dataset(val_paths, val_labels, label_mode, num_classes, load_args)
        return [_finish(train, batch_size, class_names, train_paths),
                _finish(val, batch_size, class_names, val_paths)]
    image_paths, labels = split(image_paths, labels, validation_split, subset)
    if not image_paths:
        raise ValueError(f"No images found in directory {directory}. Allowed formats: {ALLOWLIST_FORMATS}")
    ds = _paths_and_labels_to_dataset(image_paths, labels, label_mode, num_classes, load_args, shuffle=shuffle,
                                      shuffle_buffer_size=buffer_size, seed=seed)
    return _finish(ds, batch_size, class_names, image_paths)
