"""tf.image.stateless_random_*: photometric and geometric augmentations decided by a seed pair.

Each op draws its random parameter with `tf.random.stateless_uniform` exactly as TF 2.21's
image_ops_impl / random_crop_ops do (same shape, bounds and dtype), so the same seed gives TF's
numbers, then applies the deterministic op (adjust_brightness, flip, slice ...). Gradients flow
wherever the composed op has one (brightness, flips, crop); contrast, hue and saturation have
none in TF, and neither here.
"""
import numpy as np  # host-side bookkeeping only: shapes and the crop's fit check

from minitf import dispatch
from minitf.dtypes import dtypes
from minitf.errors import errors
from minitf.ops._core import as_tensor
from minitf.ops.compare import GREATER_EQUAL, less
from minitf.ops.constant import cast
from minitf.ops.array import reshape
from minitf.ops.image import flip_left_right, flip_up_down
from minitf.ops.image_color import adjust_brightness, adjust_contrast
from minitf.ops.image_hsv import adjust_hue, adjust_saturation
from minitf.ops.indexing import slice_
from minitf.ops.math import add, floormod, multiply, subtract
from minitf.ops.math_unary import round as round_
from minitf.ops.stateless_random import stateless_uniform
from minitf.api_export import export

__all__ = [
    "stateless_random_brightness", "stateless_random_contrast", "stateless_random_hue",
    "stateless_random_saturation", "stateless_random_flip_left_right", "stateless_random_flip_up_down",
    "stateless_random_crop",
]


def _check_range(lower, upper):
    """TF's checks on a [lower, upper) factor range (contrast, saturation)."""
    if upper <= lower:
        raise ValueError(f"upper must be > lower (got lower={lower}, upper={upper}); pass a non-empty "
                         f"range such as lower=0.5, upper=1.5")
    if lower < 0:
        raise ValueError(f"lower must be non-negative (got lower={lower}); factors scale the image")


@export("image.stateless_random_brightness")
@dispatch.add_dispatch_support
def stateless_random_brightness(image, max_delta, seed):
    """adjust_brightness by a delta drawn uniformly from [-max_delta, max_delta) by `seed`.

    Raises:
      ValueError: `max_delta` is negative.
    """
    if max_delta < 0:
        raise ValueError(f"max_delta must be non-negative (got {max_delta}); the delta is drawn from "
                         f"[-max_delta, max_delta)")
    delta = stateless_uniform(shape=[], minval=-max_delta, maxval=max_delta, seed=seed)
    return adjust_brightness(image, delta)


@export("image.stateless_random_contrast")
@dispatch.add_dispatch_support
def stateless_random_contrast(image, lower, upper, seed):
    """adjust_contrast by a factor drawn uniformly from [lower, upper) by `seed`.

    Raises:
      ValueError: `upper <= lower` or `lower < 0`.
    """
    _check_range(lower, upper)
    factor = stateless_uniform(shape=[], minval=lower, maxval=upper, seed=seed)
    return adjust_contrast(image, factor)


@export("image.stateless_random_hue")
@dispatch.add_dispatch_support
def stateless_random_hue(image, max_delta, seed):
    """adjust_hue of RGB images by a delta drawn uniformly from [-max_delta, max_delta) by `seed`.

    Raises:
      ValueError: `max_delta` outside [0, 0.5].
    """
    if max_delta > 0.5:
        raise ValueError(f"max_delta must be <= 0.5 (got {max_delta}); hue deltas are fractions of "
                         f"the colour circle")
    if max_delta < 0:
        raise ValueError(f"max_delta must be non-negative (got {max_delta}); the delta is drawn from "
                         f"[-max_delta, max_delta)")
    delta = stateless_uniform(shape=[], minval=-max_delta, maxval=max_delta, seed=seed)
    return adjust_hue(image, delta)


@export("image.stateless_random_saturation")
@dispatch.add_dispatch_support
def stateless_random_saturation(image, lower, upper, seed=None):
    """adjust_saturation of RGB images by a factor drawn uniformly from [lower, upper) by `seed`.

    Raises:
      ValueError: `upper <= lower` or `lower < 0`.
    """
    _check_range(lower, upper)
    factor = stateless_uniform(shape=[], minval=lower, maxval=upper, seed=seed)
    return adjust_saturation(image, factor)


def _stateless_flip(image, seed, flip, op_name):
    """TF's _random_flip: one draw flips a 3-D image when below 0.5; a batch draws one value per
    image and blends flips * flipped + (1 - flips) * image with flips = round(draw)."""
    x = as_tensor(image)
    rank = x._value.ndim
    if rank < 3:
        raise ValueError(f"{op_name}: 'image' (shape {tuple(x.shape)}) must be at least three-dimensional.")
    if rank > 4:
        raise ValueError(f"{op_name}: 'image' (shape {tuple(x.shape)}) must have either 3 or 4 dimensions.")
    if rank == 3:
        draw = stateless_uniform(shape=[], minval=0, maxval=1.0, seed=seed)
        return flip(x) if bool(less(draw, 0.5)) else x
    batch = x._value.shape[0]
    draw = stateless_uniform(shape=[batch], minval=0, maxval=1.0, seed=seed)
    flips = cast(round_(reshape(draw, [batch, 1, 1, 1])), x.dtype)
    return add(multiply(flips, flip(x)), multiply(subtract(cast(1, x.dtype), flips), x))


@export("image.stateless_random_flip_left_right")
@dispatch.add_dispatch_support
def stateless_random_flip_left_right(image, seed):
    """Flip an image (or each image of a batch) horizontally with probability 1/2, decided by `seed`."""
    return _stateless_flip(image, seed, flip_left_right, "stateless_random_flip_left_right")


@export("image.stateless_random_flip_up_down")
@dispatch.add_dispatch_support
def stateless_random_flip_up_down(image, seed):
    """Flip an image (or each image of a batch) vertically with probability 1/2, decided by `seed`."""
    return _stateless_flip(image, seed, flip_up_down, "stateless_random_flip_up_down")


@export("image.stateless_random_crop")
@dispatch.add_dispatch_support
def stateless_random_crop(value, size, seed, name=None):
    """A slice of `value` of shape `size` (one entry per dimension) at offsets drawn by `seed`.

    Raises:
      InvalidArgumentError: `size` does not fit in `value`'s shape, or has the wrong length.
    """
    x = as_tensor(value)
    size = as_tensor(size, dtype=dtypes.int32)
    sizes = np.asarray(size.numpy(), dtype=np.int64)
    shape = np.asarray(x._value.shape, dtype=np.int64)
    try:  # TF asserts reduce_all(shape >= size), broadcasting
        fits = bool(np.all(shape >= sizes))
    except ValueError:
        raise GREATER_EQUAL.invalid(f"stateless_random_crop: Incompatible shapes: {[len(shape)]} vs. "
                                    f"{list(sizes.shape)}; size needs one entry per dimension of value "
                                    f"(shape {shape.tolist()})") from None
    if not fits:
        raise errors.invalid_argument("stateless_random_crop", f"Need value.shape >= size, got value.shape "
                                                               f"{shape.tolist()} and size {sizes.tolist()}")
    limit = as_tensor((shape - sizes + 1).astype(np.int32))
    offset = stateless_uniform([len(shape)], dtype=dtypes.int32, maxval=dtypes.int32.max, seed=seed)
    return slice_(x, floormod(offset, limit), size)
