"""tf.image's dtype conversion and photometric ops: convert_image_dtype, brightness, contrast,
grayscale/RGB and per-image standardization.

Float images live in [0, 1], integer images in [0, dtype.max]; ops that work in floating point
convert integer images there and back with `convert_image_dtype`.
"""
import math as _math

import numpy as np

from minitf import dispatch
from minitf.dtypes import dtypes
from minitf.errors import errors
from minitf.ops._core import Op, Tensor, Variable, thread_state, array_module, as_tensor, record
from minitf.ops.array import broadcast_to
from minitf.ops.clip import saturate_cast
from minitf.ops.constant import cast, identity
from minitf.ops.image_resize import no_gradient
from minitf.ops.math import floordiv, maximum, multiply, sqrt, square
from minitf.ops.reduce import reduce_mean, reduce_sum
from minitf.api_export import export

__all__ = ["convert_image_dtype", "adjust_brightness", "adjust_contrast", "rgb_to_grayscale",
           "grayscale_to_rgb", "per_image_standardization"]


@export("image.convert_image_dtype")
@dispatch.add_dispatch_support
def convert_image_dtype(image, dtype, saturate=False, name=None):
    """Convert between image dtypes, rescaling: floats live in [0, 1], integers in [0, dtype.max].

    float -> int multiplies by (max + 0.5) and truncates; `saturate=True` clips first.
    """
    x = as_tensor(image)
    dtype = dtypes.as_dtype(dtype)
    src = x.dtype
    if not (dtype.is_floating or dtype.is_integer):
        raise AttributeError(f"convert_image_dtype: dtype must be either floating point or integer, "
                             f"got {dtype.name}")
    if not (src.is_floating or src.is_integer):
        raise AttributeError(f"convert_image_dtype: image dtype must be floating point or integer, "
                             f"got {src.name}")
    if src == dtype:
        return identity(x)
    convert = saturate_cast if saturate else cast
    if src.is_integer and dtype.is_integer:
        in_max, out_max = int(src.max), int(dtype.max)
        if in_max > out_max:
            return convert(floordiv(x, (in_max + 1) // (out_max + 1)), dtype)
        return multiply(convert(x, dtype), (out_max + 1) // (in_max + 1))
    if src.is_floating and dtype.is_floating:
        return convert(x, dtype)
    if src.is_integer:
        return multiply(cast(x, dtype), 1.0 / int(src.max))
    return convert(multiply(x, float(dtype.max) + 0.5), dtype)


def _to_working_float(x, keep):
    """(float image, original dtype): dtypes in `keep` are used as they are, others go to float32."""
    if x.dtype.name in keep:
        return x, x.dtype
    return convert_image_dtype(x, "float32"), x.dtype


@export("image.adjust_brightness")
@dispatch.add_dispatch_support
def adjust_brightness(image, delta):
    """Add `delta` to every pixel (in [0, 1] float units for integer images)."""
    x = as_tensor(image)
    flt, orig = _to_working_float(x, ("float16", "float32", "float64", "bfloat16"))
    adjusted = flt + cast(delta, flt.dtype)
    return convert_image_dtype(adjusted, orig, saturate=True)


ADJUST_CONTRAST = Op("AdjustContrastv2")


@export("image.adjust_contrast")
@dispatch.add_dispatch_support
def adjust_contrast(images, contrast_factor):
    """(x - mean) * contrast_factor + mean, with the mean taken per image and channel.

    As TF's AdjustContrastv2 kernel: float16 images have no CPU kernel (NotFoundError), images
    need at least 3 axes and `contrast_factor` must be a float32 scalar (InvalidArgumentError),
    and there is no gradient (LookupError when a tape backpropagates through it).
    """
    x = as_tensor(images)
    flt, orig = _to_working_float(x, ("float16", "float32"))
    if flt.dtype.name == "float16":
        raise errors.NotFoundError(None, None, "adjust_contrast: Could not find device for node: "
                                               "AdjustContrastv2[T=DT_HALF]: TF has no CPU kernel for "
                                               "float16 images; cast them to float32 first")
    if isinstance(contrast_factor, (Tensor, Variable)) and contrast_factor.dtype.name != "float32":
        raise ADJUST_CONTRAST.invalid(
            f"cannot compute AdjustContrastv2 as input #1(zero-based) was expected to be a float tensor but "
            f"is a {contrast_factor.dtype.name} tensor; cast contrast_factor to float32")
    factor = as_tensor(contrast_factor, dtype=dtypes.float32)
    if factor._value.ndim != 0:
        raise ADJUST_CONTRAST.invalid(f"contrast_factor must be scalar: {list(factor.shape)}")
    if flt._value.ndim < 3:
        raise ADJUST_CONTRAST.invalid(f"input must be at least 3-D, got shape {list(flt.shape)}")
    v = flt._value
    mean = v.mean(axis=(-3, -2), keepdims=True, dtype=v.dtype) if v.size else v.sum(axis=(-3, -2), keepdims=True)
    y = Tensor(((v - mean) * factor._value + mean).astype(v.dtype, copy=False))
    if thread_state.active:
        record(ADJUST_CONTRAST, (flt, factor), (y,), no_gradient(ADJUST_CONTRAST))
    return convert_image_dtype(y, orig, saturate=True)


@export("image.rgb_to_grayscale")
@dispatch.add_dispatch_support
def rgb_to_grayscale(images, name=None):
    """Weighted sum 0.2989 R + 0.5870 G + 0.1140 B, keeping a last axis of size 1."""
    x = as_tensor(images)
    if x._value.ndim < 1:
        raise ValueError("rgb_to_grayscale: 'images' must have a last dimension of 3 (RGB), got a scalar")
    if x._value.shape[-1] != 3:  # TF contracts the last axis with the 3 weights: a MatMul error
        raise errors.invalid_argument("MatMul", f"rgb_to_grayscale: the last dimension must be 3 (RGB), "
                                                f"got shape {list(x.shape)}")
    flt = convert_image_dtype(x, "float32")
    weights = Tensor(array_module(flt._value).asarray([0.2989, 0.5870, 0.1140], dtype=flt._value.dtype))
    gray = reduce_sum(flt * weights, axis=-1, keepdims=True)
    return convert_image_dtype(gray, x.dtype)


@export("image.grayscale_to_rgb")
@dispatch.add_dispatch_support
def grayscale_to_rgb(images, name=None):
    """Repeat a single grayscale channel three times."""
    if not isinstance(images, (Tensor, Variable)):
        # TF reads images.get_shape() before converting, so lists and arrays fail there
        raise AttributeError(f"grayscale_to_rgb: 'images' must be a tensor, got a {type(images).__name__} "
                             f"(it has no attribute 'get_shape'); wrap it with tf.constant")
    x = as_tensor(images)
    if x._value.ndim < 2 or x._value.shape[-1] != 1:
        raise ValueError(f"grayscale_to_rgb: the last dimension must be 1, got shape {list(x.shape)}")
    if x.dtype.name == "uint16":  # TF tiles the channel, and Tile has no CPU kernel for uint16
        raise errors.UnimplementedError(None, None, "grayscale_to_rgb: TileOp : The input data type is "
                                                    "not supported, DataType : uint16; cast to int32 first "
                                                    "[Op:Tile]")
    return broadcast_to(x, list(x.shape)[:-1] + [3])


@export("image.per_image_standardization")
@dispatch.add_dispatch_support
def per_image_standardization(image):
    """(x - mean) / max(stddev, 1 / sqrt(num_pixels)) over the last three axes, in float32.

    As TF: any dtype is cast to float32 first (float64 too), the image needs at least three
    axes, and those three must be non-empty (ValueError).
    """
    x = as_tensor(image)
    if x._value.ndim < 3:
        raise ValueError(f"per_image_standardization: 'image' (shape {tuple(x.shape)}) must be at least "
                         f"three-dimensional.")
    inner = tuple(x._value.shape[-3:])
    if 0 in inner:
        raise ValueError(f"per_image_standardization: inner 3 dims of 'image.shape' must be > 0: "
                         f"{tuple(x.shape)}")
    x = cast(x, "float32")
    axes = [-1, -2, -3]
    mean = reduce_mean(x, axis=axes, keepdims=True)
    centered = x - mean
    variance = reduce_mean(square(centered), axis=axes, keepdims=True)
    floor = np.float32(1.0 / _math.sqrt(inner[0] * inner[1] * inner[2]))
    # A variance below floor**2 never reaches the output (max picks the floor), and TF's sqrt
    # gradient is 0 there (a zero upstream), so clamp it: a constant image gets finite gradients.
    stddev = sqrt(maximum(variance, Tensor(array_module(x._value).asarray(floor * floor * 0.25))))
    return centered / maximum(stddev, Tensor(array_module(x._value).asarray(floor)))
