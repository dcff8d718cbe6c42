"""tf.io's file and image-codec ops: read_file, write_file, decode_image/png/jpeg/gif/bmp,
encode_png/jpeg. File contents travel as 0-d tf.string tensors holding bytes, as in TF.

Images are decoded and encoded with Pillow, an optional dependency (the `examples` extra): the
first codec call without it raises ImportError saying how to install it. PNG, GIF and BMP decode
to TF's values exactly (a colour PNG read as grey: within one level); JPEG decoders differ in
their inverse DCT, so a JPEG decodes within a few levels of TF's pixels.
"""
import io
import os

import numpy as np

from minitf import dispatch
from minitf.dtypes import dtypes
from minitf.errors import errors
from minitf.convert import convert_to_tensor
from minitf.ops._core import Tensor, as_tensor
from minitf.ops.image_color import convert_image_dtype
from minitf.api_export import export

__all__ = ["read_file", "write_file", "decode_image", "decode_png", "decode_jpeg", "decode_gif",
           "decode_bmp", "encode_png", "encode_jpeg", "is_jpeg"]


def _bytes_of(value, op):
    """The bytes held by a 0-d string tensor (or bytes/str)."""
    if isinstance(value, (bytes, str)):
        return value.encode() if isinstance(value, str) else value
    t = as_tensor(value)
    if t.dtype != dtypes.string:
        raise errors.invalid_argument(op, f"expected a string tensor, got {t.dtype.name}")
    if t._value.ndim != 0:
        raise errors.invalid_argument(op, f"contents must be scalar, got shape {list(t.shape)}")
    item = t._value.item()
    return item.encode() if isinstance(item, str) else item


def _path_of(filename, op):
    path = _bytes_of(filename, op)
    return os.fsdecode(path)


@export("io.read_file")
@dispatch.stateful_op
def read_file(filename, name=None):
    """The whole content of file `filename` as a 0-d tf.string tensor.

    Raises:
      NotFoundError: the file does not exist.
    """
    path = _path_of(filename, "ReadFile")
    try:
        with open(path, "rb") as f:
            data = f.read()
    except FileNotFoundError:
        raise errors.NotFoundError(None, None, f"{path}; No such file or directory [Op:ReadFile]") from None
    except IsADirectoryError:
        raise errors.FailedPreconditionError(None, None, f"{path}; Is a directory [Op:ReadFile]") from None
    return convert_to_tensor(data)


@export("io.write_file")
@dispatch.stateful_op
def write_file(filename, contents, name=None):
    """Write the bytes of the 0-d string tensor `contents` to `filename`, replacing it (the
    parent directory must exist, as in TF)."""
    path = _path_of(filename, "WriteFile")
    data = _bytes_of(contents, "WriteFile")
    try:
        with open(path, "wb") as f:
            f.write(data)
    except FileNotFoundError:
        raise errors.NotFoundError(None, None, f"{path}; No such file or directory [Op:WriteFile]") from None


def _pillow():
    try:
        from PIL import Image  # lazy: optional dependency (the `examples` extra)
    except ImportError:
        raise ImportError("tf.io's image codecs need Pillow: pip install pillow "
                          "(or pip install 'minitf[examples]')") from None
    return Image


_FORMATS = {b"\x89PNG": "PNG", b"\xff\xd8\xff": "JPEG", b"GIF8": "GIF", b"BM": "BMP"}


def _format_of(data):
    for magic, fmt in _FORMATS.items():
        if data.startswith(magic):
            return fmt
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "WEBP"
    return None


def _decode(contents, channels, op, want=None, all_frames=False):
    data = _bytes_of(contents, op)
    fmt = _format_of(data)
    if fmt is None or (want is not None and fmt not in want):
        raise errors.invalid_argument(op, "Unknown image file format. One of JPEG, PNG, GIF, BMP, WebP "
                                          "required." if want is None else
                                      f"image is not {'/'.join(want)} (found {fmt or 'unknown'} data)")
    if channels not in (0, 1, 3, 4):
        raise errors.invalid_argument(op, f"channels must be 0, 1, 3 or 4, got {channels}")
    image_module = _pillow()
    try:
        img = image_module.open(io.BytesIO(data))
        frames = []
        for k in range(getattr(img, "n_frames", 1) if all_frames else 1):
            img.seek(k)
            frames.append(_to_array(img, channels, fmt))
    except image_module.DecompressionBombError as e:  # a header claiming a gigantic image
        raise errors.invalid_argument(op, f"refusing to decode the {fmt} data: {e}") from None
    except (OSError, ValueError, SyntaxError) as e:
        raise errors.invalid_argument(op, f"could not decode the {fmt} data: {e}") from None
    return np.stack(frames) if all_frames else frames[0]


def _to_array(img, channels, fmt):
    if channels == 1 and fmt != "JPEG" and img.mode not in ("L", "1", "I;16", "LA"):
        # libpng's colour-to-grey weights as TF asks for them (0.299, 0.587, 0.114, 15-bit fixed
        # point, truncated): within one grey level of TF, where Pillow's rounding is further off
        rgb = np.asarray(img.convert("RGB"), dtype=np.uint32)
        grey = (9798 * rgb[..., 0] + 19235 * rgb[..., 1] + 3735 * rgb[..., 2]) >> 15
        return grey.astype(np.uint8)[..., None]
    mode = {1: "L", 3: "RGB", 4: "RGBA"}.get(channels)
    if mode is None:  # as stored: grey stays 1 channel, colour 3, with alpha 4
        mode = {"L": "L", "1": "L", "I;16": "L", "LA": "RGBA", "RGBA": "RGBA", "P": "RGBA" if
                "transparency" in img.info else "RGB"}.get(img.mode, "RGB")
        if fmt == "GIF":
            mode = "RGB"  # TF decodes GIF frames as RGB
    arr = np.asarray(img.convert(mode), dtype=np.uint8)
    return arr[..., None] if arr.ndim == 2 else arr


@export("image.decode_image", "io.decode_image")
@dispatch.add_dispatch_support
def decode_image(contents, channels=None, dtype=dtypes.uint8, name=None, expand_animations=True):
    """Decode a PNG, JPEG, GIF, BMP or WebP image: [h, w, c] (GIF: [frames, h, w, 3] unless
    `expand_animations=False`, which keeps the first frame), converted to `dtype` with
    `tf.image.convert_image_dtype` (floats in [0, 1]).

    Raises:
      InvalidArgumentError: data of an unknown format or that does not decode.
    """
    data = _bytes_of(contents, "DecodeImage")
    animated = _format_of(data) == "GIF" and expand_animations
    arr = _decode(data, channels or 0, "DecodeImage", all_frames=animated)
    return convert_image_dtype(Tensor(arr), dtypes.as_dtype(dtype))


@export("image.decode_png", "io.decode_png")
@dispatch.add_dispatch_support
def decode_png(contents, channels=0, dtype=dtypes.uint8, name=None):
    """Decode PNG data to a [h, w, channels] uint8 tensor (0 channels: as stored)."""
    arr = _decode(contents, channels, "DecodePng", want=("PNG",))
    return convert_image_dtype(Tensor(arr), dtypes.as_dtype(dtype))


@export("image.decode_jpeg", "io.decode_jpeg")
@dispatch.add_dispatch_support
def decode_jpeg(contents, channels=0, ratio=1, fancy_upscaling=True, try_recover_truncated=False,
                acceptable_fraction=1, dct_method="", name=None):
    """Decode JPEG data to a [h, w, channels] uint8 tensor (0 channels: as stored)."""
    return Tensor(_decode(contents, channels, "DecodeJpeg", want=("JPEG",)))


@export("image.decode_gif", "io.decode_gif")
@dispatch.add_dispatch_support
def decode_gif(contents, name=None):
    """Decode every frame of GIF data: [frames, h, w, 3] uint8."""
    return Tensor(_decode(contents, 3, "DecodeGif", want=("GIF",), all_frames=True))


@export("image.decode_bmp", "io.decode_bmp")
@dispatch.add_dispatch_support
def decode_bmp(contents, channels=0, name=None):
    """Decode BMP data to a [h, w, channels] uint8 tensor."""
    return Tensor(_decode(contents, channels, "DecodeBmp", want=("BMP",)))


@export("image.is_jpeg", "io.is_jpeg")
@dispatch.add_dispatch_support
def is_jpeg(contents, name=None):
    """True when `contents` holds JPEG data (by its signature)."""
    return convert_to_tensor(_format_of(_bytes_of(contents, "IsJpeg")) == "JPEG")


def _encode(image, fmt, op, **options):
    x = as_tensor(image)
    if x._value.ndim != 3 or x._value.shape[-1] not in (1, 2, 3, 4):
        raise errors.invalid_argument(op, f"image must be 3-D [height, width, channels] with 1-4 channels, "
                                          f"got shape {list(x.shape)}")
    if x.dtype not in (dtypes.uint8, dtypes.uint16) or (fmt == "JPEG" and x.dtype != dtypes.uint8):
        raise errors.invalid_argument(op, f"image must be uint8{' or uint16' if fmt == 'PNG' else ''}, got "
                                          f"{x.dtype.name}; convert it with tf.image.convert_image_dtype")
    arr = np.asarray(x.numpy())
    if arr.shape[-1] == 1:
        arr = arr[..., 0]
    image_module = _pillow()
    buf = io.BytesIO()
    image_module.fromarray(arr).save(buf, format=fmt, **options)
    return convert_to_tensor(buf.getvalue())


@export("image.encode_png", "io.encode_png")
@dispatch.add_dispatch_support
def encode_png(image, compression=-1, name=None):
    """PNG bytes (a 0-d string tensor) of a [h, w, c] uint8 or uint16 image."""
    level = 6 if compression == -1 else int(compression)
    return _encode(image, "PNG", "EncodePng", compress_level=level)


@export("image.encode_jpeg", "io.encode_jpeg")
@dispatch.add_dispatch_support
def encode_jpeg(image, format="", quality=95, progressive=False, optimize_size=False,  # noqa: A002
                chroma_downsampling=True, density_unit="in", x_density=300, y_density=300,
                xmp_metadata="", name=None):
    """JPEG bytes (a 0-d string tensor) of a [h, w, 1 or 3] uint8 image."""
    return _encode(image, "JPEG", "EncodeJpeg", quality=int(quality), progressive=progressive,
                   optimize=optimize_size, subsampling=2 if chroma_downsampling else 0)
