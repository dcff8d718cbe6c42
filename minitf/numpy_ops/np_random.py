"""tnp.random: NumPy-style random draws on minitf's random ops (TF's global seed rules).

Float draws are in the default float type (float64 unless prefer_float32); `seed` sets the
global seed, as `tf.random.set_seed`.
"""
import numpy as np

from minitf.ops import random as RND
from minitf.numpy_ops import np_dtypes as D
from minitf.numpy_ops.np_dtypes import asarray, result_type
from minitf.api_export import export


def _size(size):
    if size is None:
        return ()
    if isinstance(size, (int, np.integer)):
        return (int(size),)
    return tuple(size)


@export("experimental.numpy.random.seed")
def seed(s):
    """Set the global random seed (tf.random.set_seed)."""
    try:
        s = int(s)
    except TypeError:
        raise ValueError(f"Argument `s` got an invalid value {s}. Only integers are supported.") from None
    RND.set_seed(s)


@export("experimental.numpy.random.standard_normal")
def standard_normal(size=None):
    """Standard normal draws of shape `size` in the default float type."""
    return RND.normal(_size(size), dtype=result_type(float))


@export("experimental.numpy.random.randn")
def randn(*args):
    """Standard normal draws of shape `args` in the default float type."""
    return standard_normal(size=args)


@export("experimental.numpy.random.uniform")
def uniform(low=0.0, high=1.0, size=None):
    """Draws uniform in [low, high) of shape `size` (the bounds' broadcast shape when None)."""
    dtype = result_type(float)
    low = asarray(low, dtype=dtype)
    high = asarray(high, dtype=dtype)
    if size is None:
        size = np.broadcast_shapes(tuple(low.shape.as_list()), tuple(high.shape.as_list()))
    # as TF, an int size is not made a tuple here (tf.random.uniform then asks for a vector)
    return RND.uniform(size, minval=low, maxval=high, dtype=dtype)


@export("experimental.numpy.random.random")
def random(size=None):
    """Draws uniform in [0, 1) of shape `size`."""
    return uniform(0.0, 1.0, size)


@export("experimental.numpy.random.rand")
def rand(*size):
    """Draws uniform in [0, 1) of shape `size`."""
    return uniform(0.0, 1.0, size)


@export("experimental.numpy.random.randint")
def randint(low, high=None, size=None, dtype=np.int64):
    """Integers uniform in [low, high) (or [0, low)) of shape `size`; int32 or int64."""
    low = int(low)
    if high is None:
        high, low = low, 0
    dtype_orig = dtype
    dtype = result_type(dtype)
    if D.np_dtype(dtype) not in (np.dtype(np.int32), np.dtype(np.int64)):
        raise ValueError(f"Argument `dtype` got an invalid value {dtype_orig}. Only those convertible to "
                         f"{(np.int32, np.int64)} are supported.")
    return RND.uniform(_size(size), minval=low, maxval=high, dtype=dtype)


@export("experimental.numpy.random.poisson")
def poisson(lam=1.0, size=None):
    """Poisson draws with rate `lam` of shape `size` (int64)."""
    return RND.poisson(_size(size), lam, dtype=np.int_)
