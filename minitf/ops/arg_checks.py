"""Argument checks shared by the ops: TF's exception classes for wrong argument types and values,
with messages that name the function, the argument and the value.

They run on an op's slow path only, once its fast check (a Python int, a list of ints, a tensor)
has failed, so the common call pays nothing for them. Where TF converts an argument to a tensor,
they convert it the same way (convert_to_tensor's ValueError for None, a dict or a ragged list;
its TypeError for a value the requested dtype cannot hold) and then apply the kernel's dtype and
rank checks (InvalidArgumentError naming the op).
"""
import numpy as np

from minitf.dtypes import dtypes
from minitf.errors import errors
from minitf.ops._core import Tensor, Variable, as_tensor

__all__ = ["named", "converted", "int_input", "int_attr", "dtype_arg", "python_int", "shape_dims",
           "python_axis", "shaped_input"]


def named(exc, func, arg=None):
    """`exc` (a plain TypeError/ValueError/AssertionError from a conversion, or one of TF's
    OpErrors) re-made with the function and argument named after TF's own text (which stays
    first, as TF words it); other classes come back as they are."""
    where = f"{func}, argument `{arg}`" if arg else func
    text = str(exc)
    if func in text:
        return exc
    if type(exc) in (TypeError, ValueError, AssertionError):
        return type(exc)(f"{text} (in {where})")
    if isinstance(exc, errors.OpError) and type(exc).__init__ is errors.OpError.__init__:
        return type(exc)(exc.node_def, exc.op, f"{exc.message} (in {where})")
    return exc


def converted(value, func, arg, dtype=None):
    """`value` as a tensor, converted as TF's wrapper converts argument `arg` (with `dtype` when
    TF passes one), its conversion errors naming `func` and `arg`."""
    try:
        return as_tensor(value) if dtype is None else as_tensor(value, dtype=dtype)
    except (TypeError, ValueError) as e:
        raise named(e, func, arg) from None


def int_input(value, func, op, arg, rank=None, attr="T", dtype=None, allowed=("int32", "int64"),
              float_scalar=TypeError):
    """The values of an integer tensor input of op `op` (a shape, sizes, multiples, a
    permutation, an axis) as a numpy int64 array: converted as TF converts it (with `dtype` when
    TF's wrapper passes one), then the kernel's checks: its dtype must be in `allowed`, and its
    rank `rank` when given (InvalidArgumentError). A Python float scalar raises `float_scalar`
    (TF's eager conversion of an input whose dtype defaults to int32 refuses it so), unless None.
    """
    if float_scalar is not None and isinstance(value, float):
        raise float_scalar(f"{func}: cannot convert `{arg}`={value!r} to EagerTensor of dtype int32; "
                           f"pass an integer")
    t = None
    if dtype is None and not isinstance(value, (Tensor, Variable)):
        try:  # TF prefers int32 for such inputs, and converts as it can when that fails
            t = as_tensor(value, dtype=dtypes.int32)
        except (TypeError, ValueError):
            pass
    if t is None:
        t = converted(value, func, arg, dtype)
    if t.dtype.name not in allowed:
        raise errors.invalid_argument(
            op, f"Value for attr '{attr}' of {t.dtype.name} is not in the list of allowed values: "
                f"{', '.join(allowed)}; {func} needs integer `{arg}`, got {_short(value)}")
    arr = np.asarray(t.numpy())
    if rank is not None and arr.ndim != rank:
        what = "a scalar" if rank == 0 else "a vector (1-D)" if rank == 1 else f"of rank {rank}"
        raise errors.invalid_argument(
            op, f"{func}: `{arg}` must be {what}, got shape {list(arr.shape)} ({_short(value)})")
    return arr.astype(np.int64)


def int_attr(value, func, arg, floats=False):
    """A Python int for an op attribute (TF: TypeError "Expected int for argument 'axis'");
    `floats`: a finite float is truncated, as TF does for some attributes."""
    if isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)):
        return int(value)
    if floats and isinstance(value, (float, np.floating)) and np.isfinite(value):
        return int(value)
    if isinstance(value, (Tensor, Variable)) and value.dtype.is_integer and value.shape.rank == 0:
        return int(value.numpy())
    raise TypeError(f"{func}: expected an int for argument `{arg}`, not {_short(value)}")


def python_int(value, func, arg, cls=TypeError, positive=False):
    """`value` as a Python int where TF's Python code demands one (`cls` otherwise, saying what
    was received); `positive` also refuses values below 1."""
    ok = isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))
    if not ok or (positive and value < 1):
        need = "a positive integer" if positive else "an integer"
        raise cls(f"{func}: argument `{arg}` must be {need}. Received: {arg}={_short(value)}")
    return int(value)


def shape_dims(shape, func, arg="shape"):
    """A fully defined shape given as an int or a sequence of ints, as a tuple, with the errors of
    TF's TensorShape: TypeError for a value that is not a dimension, ValueError for a negative
    or unknown (None) one."""
    if isinstance(shape, (int, np.integer)) and not isinstance(shape, bool):
        shape = [shape]
    try:
        items = list(shape)
    except TypeError:
        raise TypeError(f"{func}: failed to convert `{arg}`={_short(shape)} to a shape; a shape is "
                        f"one dimension (e.g. 10) or a list of them (e.g. [1, 10])") from None
    dims = []
    for d in items:
        if d is None:
            raise ValueError(f"{func}: `{arg}`={_short(shape)} must be fully defined (no None sizes)")
        if isinstance(d, (Tensor, Variable)) and d.shape.rank == 0 and d.dtype.is_integer:
            d = int(d.numpy())
        if not isinstance(d, (int, np.integer)) or isinstance(d, (bool, np.bool_)):
            raise TypeError(f"{func}: failed to convert `{arg}`={_short(shape)} to a shape: "
                            f"{d!r} is not an integer dimension")
        if d < 0:
            raise ValueError(f"{func}: dimension {int(d)} of `{arg}` must be >= 0")
        dims.append(int(d))
    return tuple(dims)


def python_axis(axis, func, op):
    """An axis that TF's Python code compares with ints: TypeError for what is not a number; a
    float reaches the kernel (InvalidArgumentError naming `op`). Tensors pass unchanged."""
    if isinstance(axis, (int, np.integer, Tensor, Variable)) and not isinstance(axis, bool):
        return axis
    if isinstance(axis, (float, np.floating)):
        raise errors.invalid_argument(op, f"{func}: axis must be an integer, got {axis!r}")
    raise TypeError(f"{func}: axis must be an int, not {_short(axis)}")


def shaped_input(value, func, arg="input"):
    """The input of an op whose TF wrapper reads `input.shape` before converting it (the
    convolutions): TF's AttributeError for a value without a shape, else converted."""
    if type(value) is Tensor:
        return value
    if not hasattr(value, "shape"):
        raise AttributeError(f"{func}: `{arg}` must be a tensor or an array (TF reads its .shape), not "
                             f"{_short(value)}")
    return converted(value, func, arg)


def dtype_arg(value, func, arg="dtype"):
    """`value` as a DType, or TF's TypeError naming the function."""
    try:
        return dtypes.as_dtype(value)
    except (TypeError, ValueError) as e:
        raise named(e, func, arg) from None


def _short(value):
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."
