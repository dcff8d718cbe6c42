"""Complex numbers in and out: tf.complex, tf.math.real, tf.math.imag, tf.math.conj and
tf.math.angle, with TF's gradients (for a real loss L and z = x + iy the gradient with respect to
z is dL/dx + i dL/dy). Every rule is written in real arithmetic on these ops, so it never relies
on a complex product's gradient.
"""
import numpy as np

from minitf import dispatch
from minitf.dtypes import dtypes
from minitf.ops._core import Op, Tensor, thread_state, array_module, as_tensor, record
from minitf.ops.creation import zeros_like
from minitf.ops.math import add, multiply, negative, truediv
from minitf.ops.math_unary import conj_or_self, square
from minitf.api_export import export

__all__ = ["complex", "real", "imag", "conj", "angle"]

_PARTS = {"complex64": "float32", "complex128": "float64"}
_WHOLE = {"float32": "complex64", "float64": "complex128"}


def _numeric_or_type_error(x, what):
    if not (x.dtype.is_numeric):
        raise TypeError(f"{what}: input must be a numeric tensor, but got tensor with dtype {x.dtype!r}; "
                        f"cast it with tf.cast")


COMPLEX = Op("Complex", batchable=True, dtypes=("float32", "float64"))


@export("complex")
@dispatch.add_dispatch_support
def complex(real, imag, name=None):  # noqa: A001 (TF's name)
    """The complex tensor real + i * imag.

    Args:
      real, imag: float32 (giving complex64) or float64 (giving complex128) tensors of one dtype,
        each converted on its own, with shapes that broadcast.
      name: ignored (TF's op name).

    Returns:
      A complex tensor of the broadcast shape; the gradient gives each part its share of the
      upstream gradient (its real and its imaginary part).

    Raises:
      TypeError: parts of two dtypes, or of a dtype other than float32/float64.
      InvalidArgumentError: shapes that do not broadcast.
    """
    re, im = as_tensor(real), as_tensor(imag)
    if re.dtype != im.dtype or re.dtype.name not in _WHOLE:
        raise TypeError(f"The `real` and `imag` components have incorrect types: {re.dtype.name} "
                        f"{im.dtype.name}. They must be consistent, and one of [tf.float32, tf.float64]")
    xp = array_module(re._value)
    try:
        out = xp.add(re._value, xp.multiply(im._value, 1j, dtype=_WHOLE[re.dtype.name]),
                     dtype=_WHOLE[re.dtype.name])
    except ValueError as e:
        raise COMPLEX.shape_error(e, re, im) from None
    z = Tensor(out)
    if thread_state.active:
        record(COMPLEX, (re, im), (z,), lambda g: (lambda: _real_part(g), lambda: _imag_part(g)))
    return z


# `complex` takes arguments named `real` and `imag`, which hide the functions inside it
def _real_part(g):
    return real(g)


def _imag_part(g):
    return imag(g)


REAL = Op("Real", batchable=True)
IMAG = Op("Imag", batchable=True)


@export("math.real")
@dispatch.add_dispatch_support
def real(input, name=None):  # noqa: A002 (TF's argument name)
    """The real part of a complex tensor (float32 for complex64, float64 for complex128); a real
    numeric tensor is returned unchanged. The gradient is complex(g, 0).

    Raises:
      TypeError: a string or bool tensor.
    """
    x = as_tensor(input)
    _numeric_or_type_error(x, "tf.math.real")
    if not x.dtype.is_complex:
        return x
    y = Tensor(x._value.real.copy())
    if thread_state.active:
        record(REAL, (x,), (y,), lambda g: complex(g, zeros_like(g)))
    return y


@export("math.imag")
@dispatch.add_dispatch_support
def imag(input, name=None):  # noqa: A002
    """The imaginary part of a complex tensor; zeros like the input for any other tensor (as TF,
    which checks no dtype there). The gradient is complex(0, g)."""
    x = as_tensor(input)
    if not x.dtype.is_complex:
        return zeros_like(x)
    y = Tensor(x._value.imag.copy())
    if thread_state.active:
        record(IMAG, (x,), (y,), lambda g: complex(zeros_like(g), g))
    return y


@export("math.conj")
@dispatch.add_dispatch_support
def conj(x, name=None):
    """The complex conjugate; a real numeric tensor is returned unchanged. The gradient is the
    conjugate of the upstream gradient.

    Raises:
      TypeError: a bool or string tensor (TF's "Expected numeric or variant tensor").
    """
    t = as_tensor(x)
    if not t.dtype.is_numeric:
        raise TypeError(f"Expected numeric or variant tensor, got dtype {t.dtype!r}.")
    return conj_or_self(t)


ANGLE = Op("Angle", batchable=True)


@export("math.angle")
@dispatch.add_dispatch_support
def angle(input, name=None):  # noqa: A002
    """The argument of each complex number, atan2(imag, real), in (-pi, pi]; for a real float
    tensor pi where it is negative, else 0.

    The gradient of a complex input is TF's -g / (imag + i real), i.e. (-g imag + i g real) /
    |z|^2.

    Raises:
      TypeError: an integer tensor (pi does not convert to it), a string or bool tensor.
    """
    x = as_tensor(input)
    _numeric_or_type_error(x, "tf.math.angle")
    xp = array_module(x._value)
    if not x.dtype.is_complex:
        if not x.dtype.is_floating:
            raise TypeError(f"Cannot convert {np.pi!r} to EagerTensor of dtype {x.dtype.name}; "
                            f"tf.math.angle of a real tensor needs a floating dtype")
        v = x._value
        return Tensor(xp.where(v < 0, xp.asarray(np.pi, v.dtype), xp.zeros((), v.dtype)))
    y = Tensor(xp.angle(x._value).astype(_PARTS[x.dtype.name]))
    if thread_state.active:
        def grad(g):
            re, im = real(x), imag(x)
            mag2 = add(square(re), square(im))
            return complex(truediv(negative(multiply(g, im)), mag2), truediv(multiply(g, re), mag2))
        record(ANGLE, (x,), (y,), grad)
    return y


def complex_dtype_of(real_dtype):
    """complex64 for float32, complex128 for float64 (the DType)."""
    return dtypes.as_dtype(_WHOLE[dtypes.as_dtype(real_dtype).name])


def real_dtype_of(complex_dtype):
    """float32 for complex64, float64 for complex128 (the DType)."""
    return dtypes.as_dtype(_PARTS[dtypes.as_dtype(complex_dtype).name])


