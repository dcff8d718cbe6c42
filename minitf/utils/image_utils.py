"""tf.keras.utils image helpers: load_img, save_img, img_to_array, array_to_img (Pillow images).

They follow Keras 3: arrays are float32 [height, width, channels] (channels_last) unless told
otherwise, images are PIL images, and `array_to_img` rescales to [0, 255] by default. Pillow is
optional (the `examples` extra); each function that needs it says so when it is missing.
"""
import io
import os
import pathlib
import warnings

import numpy as np
from minitf.api_export import export

__all__ = ["load_img", "save_img", "img_to_array", "array_to_img"]

_RESAMPLING = ("nearest", "bilinear", "bicubic", "hamming", "box", "lanczos")
_DATA_FORMATS = ("channels_last", "channels_first")


def _pillow(function):
    try:
        from PIL import Image  # lazy: Pillow is optional (the `examples` extra)
    except ImportError:
        raise ImportError(f"tf.keras.utils.{function} needs Pillow: pip install pillow "
                          f"(or pip install 'minitf[examples]')") from None
    return Image


def _data_format(data_format):
    data_format = "channels_last" if data_format is None else str(data_format).lower()
    if data_format not in _DATA_FORMATS:
        raise ValueError(f"data_format must be 'channels_last' or 'channels_first', got {data_format!r}")
    return data_format


@export("utils.img_to_array", "keras.utils.img_to_array", "keras.preprocessing.image.img_to_array")
def img_to_array(img, data_format=None, dtype=None):
    """A PIL image (or anything array-like) as a 3-D numpy array, float32 unless `dtype` says.

    A grey image gets a channel axis of 1; `data_format='channels_first'` puts channels first.

    Raises:
      ValueError: an array that is not 2-D or 3-D.
    """
    data_format = _data_format(data_format)
    x = np.asarray(img, dtype=dtype or "float32")
    if x.ndim == 2:
        x = x[None] if data_format == "channels_first" else x[:, :, None]
    elif x.ndim == 3:
        if data_format == "channels_first":
            x = x.transpose(2, 0, 1)
    else:
        raise ValueError(f"img_to_array: unsupported image shape {x.shape}; expected (height, width) "
                         f"or (height, width, channels)")
    return x


@export("utils.array_to_img", "keras.utils.array_to_img", "keras.preprocessing.image.array_to_img")
def array_to_img(x, data_format=None, scale=True, dtype=None):
    """A PIL image from a 3-D array with 1 (L, or I beyond 255), 3 (RGB) or 4 (RGBA) channels.

    With `scale=True` the values are shifted and stretched to span [0, 255] first; otherwise they
    are truncated to uint8 as they are.

    Raises:
      ValueError: an array that is not 3-D, or a channel count other than 1, 3 or 4.
      ImportError: Pillow is not installed.
    """
    data_format = _data_format(data_format)
    image_module = _pillow("array_to_img")
    x = np.array(x, dtype=dtype or "float32")
    if x.ndim != 3:
        raise ValueError(f"array_to_img expects one image of rank 3 (height, width, channels); got an "
                         f"array of shape {x.shape}")
    if data_format == "channels_first":
        x = x.transpose(1, 2, 0)
    if scale:
        x = x - np.min(x)
        top = np.max(x)
        if top != 0:
            x = x / top
        x = x * 255
    channels = x.shape[2]
    if channels == 4:
        return image_module.fromarray(x.astype("uint8"), "RGBA")
    if channels == 3:
        return image_module.fromarray(x.astype("uint8"), "RGB")
    if channels == 1:
        if np.max(x) > 255:
            return image_module.fromarray(x[:, :, 0].astype("int32"), "I")
        return image_module.fromarray(x[:, :, 0].astype("uint8"), "L")
    raise ValueError(f"array_to_img: unsupported number of channels {channels}; use 1, 3 or 4")


@export("utils.save_img", "keras.utils.save_img", "keras.preprocessing.image.save_img")
def save_img(path, x, data_format=None, file_format=None, scale=True, **kwargs):
    """Write the image array `x` to `path` (a path or a file object; then give `file_format`).

    The format comes from the file's extension unless `file_format` names it ('jpg' means JPEG);
    an RGBA image saved as JPEG loses its alpha channel, with a warning.
    Extra keyword arguments go to `PIL.Image.save` (for example `quality`).
    """
    if file_format is None and isinstance(path, (str, os.PathLike)):
        file_format = pathlib.Path(path).suffix[1:].lower() or None
    if file_format and file_format.lower() == "jpg":
        file_format = "jpeg"
    img = array_to_img(x, data_format=data_format, scale=scale)
    if img.mode == "RGBA" and file_format == "jpeg":
        warnings.warn("save_img: JPEG has no alpha channel; the RGBA image is saved as RGB", stacklevel=2)
        img = img.convert("RGB")
    img.save(path, format=file_format, **kwargs)


@export("utils.load_img", "keras.utils.load_img", "keras.preprocessing.image.load_img")
def load_img(path, color_mode="rgb", target_size=None, interpolation="nearest", keep_aspect_ratio=False):
    """Read an image file (a path or an io.BytesIO) into a PIL image.

    Args:
      color_mode: 'rgb' (default), 'rgba' or 'grayscale'.
      target_size: None to keep the size, or (height, width) to resize to.
      interpolation: the resampling filter for resizing: 'nearest' (default), 'bilinear',
        'bicubic', 'hamming', 'box' or 'lanczos'.
      keep_aspect_ratio: crop the centre to the target's aspect ratio before resizing.

    Raises:
      ValueError: an unknown color_mode or interpolation.
      TypeError: `path` is neither path-like nor io.BytesIO.
      ImportError: Pillow is not installed.
    """
    image_module = _pillow("load_img")
    if color_mode not in ("rgb", "rgba", "grayscale"):
        raise ValueError(f"load_img: color_mode must be 'grayscale', 'rgb' or 'rgba', got {color_mode!r}")
    if isinstance(path, io.BytesIO):
        img = image_module.open(path)
    elif isinstance(path, (str, bytes, os.PathLike)):
        with open(path, "rb") as f:
            img = image_module.open(io.BytesIO(f.read()))
    else:
        raise TypeError(f"load_img: path should be path-like or io.BytesIO, not {type(path).__name__}")
    wanted = {"grayscale": ("L", "I;16", "I"), "rgba": ("RGBA",), "rgb": ("RGB",)}[color_mode]
    if img.mode not in wanted:
        img = img.convert(wanted[0])
    if target_size is None:
        return img
    size = (int(target_size[1]), int(target_size[0]))  # PIL sizes are (width, height)
    if img.size == size:
        return img
    if interpolation not in _RESAMPLING:
        raise ValueError(f"load_img: invalid interpolation {interpolation!r}; supported: "
                         f"{', '.join(_RESAMPLING)}")
    resample = getattr(image_module.Resampling, interpolation.upper())
    if not keep_aspect_ratio:
        return img.resize(size, resample)
    width, height = img.size
    crop_height = min(height, (width * size[1]) // size[0])
    crop_width = min(width, (height * size[0]) // size[1])
    top, left = (height - crop_height) // 2, (width - crop_width) // 2
    return img.resize(size, resample, box=(left, top, left + crop_width, top + crop_height))
