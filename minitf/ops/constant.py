"""Making tensors: constant, convert_to_tensor, cast, identity, stop_gradient."""

import numpy as np

from minitf import dispatch
from minitf.dtypes import dtypes
from minitf.errors import errors
from minitf.convert import contains_tensor, convert_to_tensor
from minitf.ops.arg_checks import named, shape_dims
from minitf.ops._core import (Op, Tensor, Variable, thread_state, array_module, graph_call, is_graph_value, record,
                              tracing)
from minitf.symbolic_tensor import SymbolicTensor
from minitf.api_export import export

__all__ = ["constant", "convert_to_tensor", "cast", "identity", "stop_gradient", "is_tensor"]

from minitf.tensor import is_tensor  # noqa: E402


@export("constant")
@dispatch.add_dispatch_support
def constant(value, dtype=None, shape=None, name="Const"):
    """A tensor holding `value`, filled or reshaped to `shape` if given.

    As in TF: a tensor must already have `dtype` (TypeError otherwise; a variable is cast), and
    lists holding tensors are refused (ValueError; tf.stack or tf.convert_to_tensor pack them).
    """
    if isinstance(value, (Tensor, Variable)):
        t = value.value() if isinstance(value, Variable) else value
        if isinstance(t, SymbolicTensor):  # TF's refusal inside a traced function
            raise TypeError(f"Expected any non-tensor type, but got a tensor instead ({t.name} in "
                            f"tf.constant); use tf.identity or tf.convert_to_tensor on a graph tensor.")
        arr = t._value
        if dtype is not None:
            dtype = dtypes.as_dtype(dtype)
            if isinstance(value, Tensor) and t._value.dtype != dtype._np:
                raise TypeError(f"Expected tensor {t.numpy()} with dtype {dtype!r}, but got dtype "
                                f"{t.dtype!r}; use tf.cast to change a tensor's dtype.")
            arr = arr.astype(dtype._np)
        t = Tensor(arr)
    elif isinstance(value, (list, tuple)) and contains_tensor(value):
        raise ValueError("tf.constant cannot hold tensors (TypeError: Scalar tensor has no `len()`); "
                         "use tf.stack or tf.convert_to_tensor to pack them.")
    else:
        try:
            t = convert_to_tensor(value, dtype=dtype)
        except (TypeError, ValueError) as e:
            raise named(e, "tf.constant", "value") from None
    if shape is None:
        return t
    shape = shape_dims(shape, "tf.constant")
    xp = array_module(t._value)
    size = int(np.prod(shape)) if shape else 1
    if t._value.size == 1:
        return Tensor(xp.full(shape, t._value.reshape(()), dtype=t._value.dtype))
    if t._value.size == size:
        return Tensor(t._value.reshape(shape))
    raise TypeError(f"Eager execution of tf.constant with unsupported shape. Tried to convert a value "
                    f"of shape {tuple(t._value.shape)} ({t._value.size} elements) to shape {shape} "
                    f"({size} elements).")


CAST = Op("Cast", batchable=True)


@export("cast")
def cast(x, dtype, name=None):
    """`x` converted elementwise to `dtype`; gradients flow between floating types only.

    Floats truncate toward zero. Out-of-range floats cast to integers follow TF's scalar CPU path
    (through int32, NaN/overflow -> minimum, then wrap). TF's vectorized path saturates 8/16-bit
    results instead, for whole 16/32-element blocks of long arrays only, so TF itself gives
    position-dependent values there; use tf.saturate_cast for a defined result. Casts to or from
    tf.string raise UnimplementedError.
    """
    if tracing[0] and is_graph_value(x):
        return graph_call(cast, (x, dtype), {})
    try:
        dtype = dtypes.as_dtype(dtype)
        x = convert_to_tensor(x)
    except (TypeError, ValueError) as e:
        if dispatch.is_dispatchable(x):  # RaggedTensor, SparseTensor: their values are cast
            return dispatch.fallback(cast, (x, dtype), {})
        raise named(e, "tf.cast") from None
    src = x._value.dtype
    if src == dtype._np:
        return x
    if src.kind == "O" or dtype is dtypes.string:
        raise errors.UnimplementedError(
            None, None, f"Cast {x.dtype.name} to {dtype.name} is not supported; use tf.strings.to_number "
                        f"or tf.strings.as_string to convert between strings and numbers. [Op:Cast]")
    value = x._value
    if src.kind == "c" and dtype._np.kind != "c":
        value = value.real
    if src.kind == "f" and dtype._np in _EMULATED_INT_CASTS:
        y = Tensor(_float_to_int(array_module(value), value, dtype._np))
    else:
        with np.errstate(invalid="ignore", over="ignore"):
            y = Tensor(value.astype(dtype._np))
    if thread_state.active and src.kind in "fc" and dtype._np.kind in "fc":
        record(CAST, (x,), (y,), lambda g: cast(g, src))
    return y



# float -> these integer types follow _float_to_int (uint32/uint64 are left to the array module)
_EMULATED_INT_CASTS = frozenset(np.dtype(t) for t in ("int8", "int16", "int32", "int64", "uint8", "uint16"))


def _float_to_int(xp, v, np_dtype):
    """TF's CPU float -> integer cast, made deterministic: truncate toward zero into int32 (int64
    for int64), NaN and out-of-range values becoming that type's minimum, then wrap to `np_dtype`
    (so 300.0 -> int8 is 44 and 65504.0 -> int8 is -32; it does not saturate)."""
    wide = np.int64 if np_dtype == np.int64 else np.int32
    info = np.iinfo(wide)
    with np.errstate(invalid="ignore", over="ignore"):
        bad = ~(xp.abs(v) < 2.0 ** (info.bits - 1))
        w = xp.where(bad, 0, v).astype(wide)
    w = xp.where(bad, wide(info.min), w)
    return w.astype(np_dtype)


IDENTITY = Op("Identity", batchable=True, sparse_passthrough=True)


@export("identity")
def identity(input, name=None):  # noqa: A002 (TF's argument name)
    """A tensor with the same value as `input` (a snapshot when `input` is a variable)."""
    if tracing[0] and is_graph_value(input):
        return graph_call(identity, (input,), {})
    if isinstance(input, Variable):
        t = input.value()
        y = Tensor(array_module(t._value).array(t._value, copy=True))
    else:
        t = convert_to_tensor(input)
        y = Tensor(t._value)
    if thread_state.active:
        record(IDENTITY, (t,), (y,), lambda g: g)
    return y


@export("stop_gradient")
def stop_gradient(input, name=None):  # noqa: A002
    """The same value as `input`, but no gradient flows through it."""
    if tracing[0] and is_graph_value(input):
        return graph_call(stop_gradient, (input,), {})
    t = convert_to_tensor(input)
    return Tensor(t._value)
