"""tf.image: flips, rotations, crops and padding of images, and the namespace's other ops.

Images are [height, width, channels] or batched [batch, height, width, channels]. Resizing lives
in `minitf.ops.image_resize`, dtype conversion and photometric ops in `minitf.ops.image_color`;
both are re-exported here, so `minitf.ops.image` holds all of tf.image.
"""
import numpy as np  # host-side bookkeeping only: offsets, sizes, random choices

from minitf import dispatch
from minitf.dtypes import dtypes
from minitf.errors import errors
from minitf.backend import to_host
from minitf.ops._core import Tensor, Variable, array_module, as_tensor
from minitf.ops.array import pad, reshape, transpose, where
from minitf.ops.compare import GREATER_EQUAL
from minitf.ops.conv import depthwise_conv2d
from minitf.ops.random import random_op
from minitf.ops.image_hsv import adjust_hue, adjust_saturation, hsv_to_rgb, rgb_to_hsv  # noqa: F401
from minitf.ops.image_color import (adjust_brightness, adjust_contrast, convert_image_dtype,  # noqa: F401
                                    grayscale_to_rgb, per_image_standardization, rgb_to_grayscale)
from minitf.ops.image_resize import ResizeMethod, unbatch, resize  # noqa: F401
from minitf.ops.math import abs as abs_, subtract
from minitf.ops.random import uniform
from minitf.ops.reduce import reduce_sum
from minitf.api_export import export

__all__ = [
    "ResizeMethod", "resize", "total_variation", "convert_image_dtype", "flip_left_right",
    "flip_up_down", "random_flip_left_right", "random_flip_up_down", "random_crop",
    "central_crop", "rot90", "adjust_brightness", "adjust_contrast", "rgb_to_grayscale",
    "grayscale_to_rgb", "per_image_standardization", "resize_with_crop_or_pad",
    "crop_to_bounding_box", "pad_to_bounding_box", "resize_with_pad", "sobel_edges", "rgb_to_hsv",
    "hsv_to_rgb", "adjust_hue", "adjust_saturation",
]



@export("image.total_variation")
@dispatch.add_dispatch_support
def total_variation(images, name=None):
    """Sum of absolute differences between neighbouring pixels: a scalar for one image, [batch] for 4-D."""
    if not isinstance(images, (Tensor, Variable)):
        # TF reads images.get_shape() before converting, so lists and arrays fail there
        raise AttributeError(f"total_variation: 'images' must be a tensor, got a "
                             f"{type(images).__name__} (it has no attribute 'get_shape'); wrap it "
                             f"with tf.constant")
    x = as_tensor(images)
    rank = x._value.ndim
    if rank == 3:
        axes = None
        down = subtract(x[1:, :, :], x[:-1, :, :])
        right = subtract(x[:, 1:, :], x[:, :-1, :])
    elif rank == 4:
        axes = [1, 2, 3]
        down = subtract(x[:, 1:, :, :], x[:, :-1, :, :])
        right = subtract(x[:, :, 1:, :], x[:, :, :-1, :])
    else:
        raise ValueError(f"total_variation: 'images' must be either 3 or 4-dimensional, got shape "
                         f"{list(x.shape)}")
    return reduce_sum(abs_(down), axis=axes) + reduce_sum(abs_(right), axis=axes)


def _image_rank(x, op_name):
    rank = x._value.ndim
    if rank < 3:
        raise ValueError(f"{op_name}: 'image' (shape {tuple(x.shape)}) must be at least three-dimensional.")
    if rank > 4:
        raise ValueError(f"{op_name}: 'image' (shape {tuple(x.shape)}) must have either 3 or 4 dimensions.")
    return rank


def _reverse(x, axis):
    """x reversed along `axis` (through differentiable slicing)."""
    key = [slice(None)] * x._value.ndim
    key[axis] = slice(None, None, -1)
    return x[tuple(key)]


@export("image.flip_left_right")
@dispatch.add_dispatch_support
def flip_left_right(image):
    """Mirror image(s) horizontally (reverse the width axis)."""
    x = as_tensor(image)
    return _reverse(x, _image_rank(x, "flip_left_right") - 2)


@export("image.flip_up_down")
@dispatch.add_dispatch_support
def flip_up_down(image):
    """Mirror image(s) vertically (reverse the height axis)."""
    x = as_tensor(image)
    return _reverse(x, _image_rank(x, "flip_up_down") - 3)


def _uniform(shape, seed):
    """Uniform [0, 1) floats from tf.random.uniform (TF's seed rules), as a float64 host array."""
    return np.asarray(to_host(uniform(list(shape), minval=0, maxval=1, dtype="float32",
                                      seed=seed)._value), dtype=np.float64)


def _random_flip(image, seed, axis_from_end, op_name):
    x = as_tensor(image)
    rank = _image_rank(x, op_name)
    axis = rank - axis_from_end
    if rank == 3:
        return _reverse(x, axis) if _uniform((), seed) < 0.5 else x
    flips = _uniform((x._value.shape[0],), seed) > 0.5
    mask = Tensor(array_module(x._value).asarray(flips.reshape(-1, 1, 1, 1)))
    return where(mask, _reverse(x, axis), x)


@export("image.random_flip_left_right")
@random_op
def random_flip_left_right(image, seed=None):
    """Flip each image horizontally with probability 1/2."""
    return _random_flip(image, seed, 2, "random_flip_left_right")


@export("image.random_flip_up_down")
@random_op
def random_flip_up_down(image, seed=None):
    """Flip each image vertically with probability 1/2."""
    return _random_flip(image, seed, 3, "random_flip_up_down")


@export("image.random_crop")
@random_op
def random_crop(value, size, seed=None, name=None):
    """A randomly placed slice of `value` with shape `size` (same rank as value)."""
    x = as_tensor(value)
    size = np.asarray(as_tensor(size, dtype=dtypes.int32).numpy(), dtype=np.int64)  # TF: int32 sizes
    shape = np.asarray(x._value.shape, dtype=np.int64)
    try:  # TF asserts reduce_all(shape >= size), broadcasting
        fits = bool(np.all(shape >= size))
    except ValueError:
        raise GREATER_EQUAL.invalid(f"random_crop: Incompatible shapes: {[len(shape)]} vs. "
                                                      f"{list(size.shape)}; size needs one entry per "
                                                      f"dimension of value (shape {shape.tolist()})") from None
    if not fits:
        raise errors.invalid_argument("random_crop", f"Need value.shape >= size, got value.shape "
                                                     f"{shape.tolist()} and size {size.tolist()}")
    if size.shape != shape.shape:
        raise errors.invalid_argument("Slice", f"random_crop: Expected begin and size arguments to be 1-D "
                                               f"tensors of size {len(shape)}, but got shapes "
                                               f"{[len(shape)]} and {list(size.shape)}")
    limits = shape - size + 1
    offsets = np.minimum((_uniform((len(shape),), seed) * limits).astype(np.int64), limits - 1)
    key = []
    for i, (o, n, d) in enumerate(zip(offsets, size, shape)):
        end = d if n == -1 else o + n  # as tf.slice: a size of -1 takes the rest
        if n < -1 or o > d or end > d:
            raise errors.invalid_argument("Slice", f"random_crop: Expected size[{i}] in [0, {max(d - o, 0)}], but "
                                                   f"got {n}")
        key.append(slice(int(o), int(end)))
    return x[tuple(key)]


@export("image.central_crop")
@dispatch.add_dispatch_support
def central_crop(image, central_fraction):
    """The central `central_fraction` (in (0, 1]) of each image along height and width."""
    x = as_tensor(image)
    if isinstance(central_fraction, (Tensor, Variable)):
        central_fraction = float(central_fraction.numpy())
    if not 0.0 < central_fraction <= 1.0:
        raise ValueError(f"central_crop: central_fraction must be within (0, 1], got {central_fraction}")
    if central_fraction == 1.0:
        return x
    rank = _image_rank(x, "central_crop")
    h, w = x._value.shape[rank - 3:rank - 1]
    # TF's window: start = int((size - size * fraction) / 2) on each side
    top, left = int((h - h * central_fraction) / 2), int((w - w * central_fraction) / 2)
    key = (slice(top, h - top), slice(left, w - left))
    return x[((slice(None),) if rank == 4 else ()) + key]


def _box_value(v):
    """A window/padding argument as TF's Python code sees it: tensors become numpy scalars (so
    checks on them are 'dynamic'), Python numbers stay as they are."""
    if isinstance(v, (Tensor, Variable)):
        return np.asarray(v.numpy())[()]
    return v


def _check(cond, op_name, text):
    """TF's image `_assert`: a Python condition raises ValueError, a tensor one InvalidArgumentError."""
    if isinstance(cond, np.generic):
        if not cond:
            raise errors.InvalidArgumentError(
                None, None, f"Expected 'tf.Tensor(False, shape=(), dtype=bool)' to be true. Summarized "
                            f"data: b'{text}' ({op_name})")
    elif not cond:
        raise ValueError(f"{op_name}: {text}")


def _box_image(image, op_name):
    """(4-D image, was_3d) with TF's checks: rank 3 or 4, non-empty inner dims (ValueError)."""
    x = as_tensor(image)
    rank = x._value.ndim
    if rank not in (3, 4):
        raise ValueError(f"{op_name}: 'image' (shape {tuple(x.shape)}) must have either 3 or 4 dimensions.")
    if 0 in x._value.shape[-3:]:
        raise ValueError(f"{op_name}: inner 3 dims of 'image.shape' must be > 0: {tuple(x.shape)}")
    return (reshape(x, [1] + list(x.shape)), True) if rank == 3 else (x, False)


def _is_float(v):
    return isinstance(v, (float, np.floating))


@export("image.crop_to_bounding_box")
@dispatch.add_dispatch_support
def crop_to_bounding_box(image, offset_height, offset_width, target_height, target_width):
    """The [target_height, target_width] window of image(s) starting at (offset_height, offset_width).

    As TF: Python arguments that do not fit raise ValueError, tensor arguments
    InvalidArgumentError; a float offset is a Slice kernel error, a float size a TypeError.
    """
    x, was_3d = _box_image(image, "crop_to_bounding_box")
    oh, ow, th, tw = (_box_value(v) for v in (offset_height, offset_width, target_height, target_width))
    h, w = x._value.shape[1:3]
    op = "crop_to_bounding_box"
    _check(ow >= 0, op, "offset_width must be >= 0.")
    _check(oh >= 0, op, "offset_height must be >= 0.")
    _check(tw > 0, op, "target_width must be > 0.")
    _check(th > 0, op, "target_height must be > 0.")
    _check(w >= tw + ow, op, "width must be >= target + offset.")
    _check(h >= th + oh, op, "height must be >= target + offset.")
    for v in (th, tw):
        if isinstance(v, float):
            raise TypeError(f"{op}: Cannot convert {v!r} to EagerTensor of dtype int32; pass the target "
                            f"size as an int")
    if _is_float(oh) or _is_float(ow):
        raise errors.invalid_argument("Slice", f"Value for attr 'Index' of float is not in the list of "
                                               f"allowed values: int32, int64 ({op}: pass integer offsets)")
    if any(isinstance(v, np.int64) for v in (oh, ow)):
        raise errors.invalid_argument("Slice", "cannot compute Slice as input #2(zero-based) was expected "
                                               "to be a int64 tensor but is a int32 tensor; pass int32 "
                                               "offsets")
    oh, ow, th, tw = int(oh), int(ow), int(th), int(tw)
    return unbatch(x[:, oh:oh + th, ow:ow + tw], was_3d)


@export("image.pad_to_bounding_box")
@dispatch.add_dispatch_support
def pad_to_bounding_box(image, offset_height, offset_width, target_height, target_width):
    """Zero-pad image(s) to [target_height, target_width], placing them at the given offset.

    As TF: Python arguments that do not fit raise ValueError, tensor arguments
    InvalidArgumentError; float arguments are a Pad kernel error (InvalidArgumentError).
    """
    x, was_3d = _box_image(image, "pad_to_bounding_box")
    oh, ow, th, tw = (_box_value(v) for v in (offset_height, offset_width, target_height, target_width))
    h, w = x._value.shape[1:3]
    right, bottom = tw - ow - w, th - oh - h
    op = "pad_to_bounding_box"
    _check(oh >= 0, op, "offset_height must be >= 0")
    _check(ow >= 0, op, "offset_width must be >= 0")
    _check(right >= 0, op, "width must be <= target - offset")
    _check(bottom >= 0, op, "height must be <= target - offset")
    if any(_is_float(v) for v in (oh, bottom, ow, right)):
        raise errors.invalid_argument("Pad", f"Value for attr 'Tpaddings' of float is not in the list of "
                                             f"allowed values: int32, int64 ({op}: pass integer sizes)")
    return unbatch(pad(x, [[0, 0], [int(oh), int(bottom)], [int(ow), int(right)], [0, 0]]), was_3d)


@export("image.resize_with_crop_or_pad")
@dispatch.add_dispatch_support
def resize_with_crop_or_pad(image, target_height, target_width):
    """Centrally crop and/or zero-pad image(s) to [target_height, target_width].

    Python targets that are not positive raise ValueError, tensor targets InvalidArgumentError.
    """
    x, was_3d = _box_image(image, "resize_with_crop_or_pad")
    th, tw = _box_value(target_height), _box_value(target_width)
    op = "resize_with_crop_or_pad"
    _check(tw > 0, op, "target_width must be > 0.")
    _check(th > 0, op, "target_height must be > 0.")

    def max_(a, b):
        return np.maximum(a, b) if isinstance(a, np.generic) or isinstance(b, np.generic) else max(a, b)

    def min_(a, b):
        return np.minimum(a, b) if isinstance(a, np.generic) or isinstance(b, np.generic) else min(a, b)

    h, w = x._value.shape[1:3]
    dw, dh = tw - w, th - h
    cropped = crop_to_bounding_box(x, max_(-dh // 2, 0), max_(-dw // 2, 0), min_(th, h), min_(tw, w))
    return unbatch(pad_to_bounding_box(cropped, max_(dh // 2, 0), max_(dw // 2, 0), th, tw), was_3d)


@export("image.rot90")
@dispatch.add_dispatch_support
def rot90(image, k=1, name=None):
    """Rotate image(s) counter-clockwise by k * 90 degrees."""
    x = as_tensor(image)
    rank = _image_rank(x, "rot90")
    k = int(as_tensor(k, dtype=dtypes.int32).numpy()) % 4  # TF converts k to int32 (1.0: TypeError)
    h_axis = rank - 3
    perm = list(range(rank))
    perm[h_axis], perm[h_axis + 1] = perm[h_axis + 1], perm[h_axis]
    if k == 0:
        return x
    if k == 1:
        return transpose(_reverse(x, h_axis + 1), perm)
    if k == 2:
        return _reverse(_reverse(x, h_axis), h_axis + 1)
    return _reverse(transpose(x, perm), h_axis + 1)


@export("image.resize_with_pad")
@dispatch.add_dispatch_support
def resize_with_pad(image, target_height, target_width, method=ResizeMethod.BILINEAR, antialias=False):
    """Resize image(s) to fit [target_height, target_width] keeping the aspect ratio, then
    zero-pad the rest, centred (TF's arithmetic: float32 ratio, floored sizes and offsets)."""
    x, was_3d = _box_image(image, "resize_with_pad")
    th, tw = _box_value(target_height), _box_value(target_width)
    _check(tw > 0, "resize_with_pad", "target_width must be > 0.")
    _check(th > 0, "resize_with_pad", "target_height must be > 0.")
    f32 = np.float32
    h, w = (f32(v) for v in x._value.shape[1:3])
    ratio = max(w / f32(tw), h / f32(th))
    new_h, new_w = h / ratio, w / ratio
    pad_h = max(0, int(np.floor((f32(th) - new_h) / f32(2))))
    pad_w = max(0, int(np.floor((f32(tw) - new_w) / f32(2))))
    resized = resize(x, [int(np.floor(new_h)), int(np.floor(new_w))], method=method, antialias=antialias)
    return unbatch(pad_to_bounding_box(resized, pad_h, pad_w, th, tw), was_3d)


_SOBEL = np.array([[[-1, -2, -1], [0, 0, 0], [1, 2, 1]],    # vertical gradient (dy)
                   [[-1, 0, 1], [-2, 0, 2], [-1, 0, 1]]])  # horizontal gradient (dx)


@export("image.sobel_edges")
@dispatch.add_dispatch_support
def sobel_edges(image):
    """The Sobel dy and dx responses of each channel of [batch, h, w, d] images, as
    [batch, h, w, d, 2], borders reflected (as TF). Differentiable."""
    x = as_tensor(image)
    if x._value.ndim != 4:
        raise ValueError(f"sobel_edges: 'image' must be 4-D [batch, height, width, depth], got shape "
                         f"{list(x.shape)}")
    depth = x._value.shape[3]
    kernels = np.transpose(_SOBEL, (1, 2, 0)).astype(x._value.dtype)  # [3, 3, 2]
    filters = Tensor(array_module(x._value).asarray(np.tile(kernels[:, :, None, :], (1, 1, depth, 1))))
    padded = pad(x, [[0, 0], [1, 1], [1, 1], [0, 0]], mode="REFLECT")
    out = depthwise_conv2d(padded, filters, [1, 1, 1, 1], "VALID")  # [b, h, w, depth * 2]
    return reshape(out, list(x.shape[:3]) + [depth, 2])
