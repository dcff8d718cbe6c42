"""Making tensors: constant, convert_to_tensor, cast, identity, stop_gradient."""
import numbers

import numpy as np

from minitf import backend, dtypes
from minitf.indexed_slices import IndexedSlices
from minitf.ops._core import Tensor, Variable, _state, record, register_batchable, array_module

__all__ = ["constant", "convert_to_tensor", "cast", "identity", "stop_gradient", "is_tensor",
           "saturate_cast"]

from minitf.tensor import is_tensor  # noqa: E402


# Python bools convert only to these integer types (TF's eager converter refuses the narrow ones).
_BOOL_TO_INT = frozenset(("int32", "int64", "uint64"))


def _conversion_error(value, dtype):
    return TypeError(f"Cannot convert {value!r} to EagerTensor of dtype {dtype.name}; "
                     f"convert to a matching dtype or use tf.cast on a tensor.")


def _strings_to_bytes(arr):
    """An object array of bytes (TF string tensors hold bytes; str is UTF-8 encoded)."""
    out = np.empty(arr.shape, dtype=object)
    flat = out.reshape(-1)
    for i, v in enumerate(arr.reshape(-1)):
        flat[i] = v.encode("utf-8") if isinstance(v, str) else bytes(v)
    return out


def _python_to_array(value, dtype):
    """Array for Python data with TF's inference: floats -> float32, ints -> int32.

    With a `dtype`, Python ints wrap into narrower integer types (as TF's converter does),
    while floats to integers, ints to bool and strings to numbers raise TypeError.
    """
    if isinstance(value, (str, bytes)):
        arr = np.array(value, dtype=object)
    else:
        arr = np.asarray(value)
    kind = arr.dtype.kind
    is_text = kind in "USO" and arr.size and all(isinstance(v, (str, bytes)) for v in arr.reshape(-1))
    if dtype is not None:
        np_dtype = dtype._np
        target = np_dtype.kind
        if is_text or kind in "US":
            if dtype is not dtypes.string:
                raise _conversion_error(value, dtype)
            return _strings_to_bytes(arr)
        if kind == "O" or (kind == "u" and arr.dtype.itemsize == 8 and np_dtype != np.uint64):
            if target in "iucbO":  # Python ints past int64
                raise ValueError(f"Can't convert Python sequence with out-of-range integer to Tensor: "
                                 f"{value!r} does not fit in int64.")
        if kind == "b" and target in "iuc" and dtype.name not in _BOOL_TO_INT:
            raise _conversion_error(value, dtype)
        if kind == "f" and target in "iub":
            raise _conversion_error(value, dtype)
        if kind == "c" and target != "c":
            raise _conversion_error(value, dtype)
        if (kind in "iu" and target == "b") or dtype is dtypes.string:
            raise _conversion_error(value, dtype)
        if kind in "iu" and target in "iu":
            # wrap modulo 2**bits, as TF's eager converter does for Python ints
            return arr.astype(np.int64 if kind == "i" else np.uint64).astype(np_dtype)
        with np.errstate(over="ignore"):
            return arr.astype(np_dtype, copy=False)
    if is_text or kind in "US":
        return _strings_to_bytes(arr)
    if arr.dtype == np.float64:
        return arr.astype(np.float32)
    if arr.dtype == np.int64:
        if arr.size == 0 or (arr.min() >= -2**31 and arr.max() < 2**31):
            return arr.astype(np.int32)
        return arr
    return arr


def _contains_tensor(value):
    if isinstance(value, (Tensor, Variable)):
        return True
    if isinstance(value, (list, tuple)):
        return any(_contains_tensor(v) for v in value)
    return False


def convert_to_tensor(value, dtype=None, dtype_hint=None, name=None):
    """`value` as a Tensor: tensors pass through, variables are read, Python data is converted.

    Python floats become float32 and ints int32; numpy arrays keep their dtype. A tensor whose
    dtype differs from `dtype` raises ValueError (use tf.cast); `dtype_hint` is used only when
    it can hold the value.
    """
    if dtype is not None:
        dtype = dtypes.as_dtype(dtype)
    if type(value) is Tensor or isinstance(value, Variable):
        t = value if type(value) is Tensor else value.value()
        if dtype is not None and t._value.dtype != dtype._np:
            raise ValueError(f"Tensor conversion requested dtype {dtype.name} for Tensor with dtype "
                             f"{t.dtype.name}: {t!r}; use tf.cast to change the dtype.")
        return t
    if isinstance(value, IndexedSlices):
        return value.to_dense()
    if isinstance(value, (list, tuple)) and _contains_tensor(value):
        from minitf.ops.array import stack
        parts = [convert_to_tensor(v, dtype=dtype) if not isinstance(v, (list, tuple))
                 else convert_to_tensor(v, dtype=dtype) for v in value]
        return stack(parts)
    if isinstance(value, dtypes.DType):
        raise TypeError(f"Cannot convert {value!r} to a tensor.")
    if hasattr(value, "__array_namespace__") and not isinstance(value, np.ndarray) \
            and not isinstance(value, np.generic):
        # an array of another module (cupy): keep it where it is
        arr = value if dtype is None else value.astype(dtype._np, copy=False)
        return Tensor(arr)
    if isinstance(value, (np.ndarray, np.generic)):
        if value.dtype.kind in "USO" and (dtype is None or dtype is dtypes.string):
            arr = _strings_to_bytes(np.asarray(value))
        elif dtype is None:
            arr = value
        elif (value.dtype.kind in "USO") != (dtype is dtypes.string):
            raise ValueError(f"Cannot convert a numpy {value.dtype} value to a {dtype.name} tensor; "
                             "numbers and strings do not convert into each other.")
        else:
            arr = value.astype(dtype._np, copy=False)
    else:
        if dtype is None and dtype_hint is not None:
            try:
                arr = _python_to_array(value, dtypes.as_dtype(dtype_hint))
            except (TypeError, ValueError):
                arr = _python_to_array(value, None)
        else:
            arr = _python_to_array(value, dtype)
    if arr.dtype == object and any(isinstance(v, numbers.Number) for v in np.ravel(arr)[:1]):
        raise ValueError(f"Can't convert non-rectangular Python sequence to Tensor: {value!r}")
    xp = backend.default_module()
    if xp is not np and arr.dtype != object:
        arr = xp.asarray(arr)
    return Tensor(arr)


def constant(value, dtype=None, shape=None, name="Const"):
    """A tensor holding `value`, cast to `dtype` if given, filled or reshaped to `shape` if given."""
    if isinstance(value, (Tensor, Variable)):
        t = value.value() if isinstance(value, Variable) else value
        arr = t._value
        if dtype is not None:
            arr = arr.astype(dtypes.as_dtype(dtype)._np)
        t = Tensor(arr)
    else:
        t = convert_to_tensor(value, dtype=dtype)
    if shape is None:
        return t
    shape = tuple(int(d) for d in (shape if isinstance(shape, (list, tuple)) else list(shape)))
    xp = array_module(t._value)
    size = int(np.prod(shape)) if shape else 1
    if t._value.size == 1:
        return Tensor(xp.full(shape, t._value.reshape(()), dtype=t._value.dtype))
    if t._value.size == size:
        return Tensor(t._value.reshape(shape))
    raise TypeError(f"Eager execution of tf.constant with unsupported shape. Tried to convert a value "
                    f"of shape {tuple(t._value.shape)} ({t._value.size} elements) to shape {shape} "
                    f"({size} elements).")


def cast(x, dtype, name=None):
    """`x` converted elementwise to `dtype`; gradients flow between floating types only."""
    dtype = dtypes.as_dtype(dtype)
    x = convert_to_tensor(x)
    src = x._value.dtype
    if src == dtype._np:
        return x
    value = x._value
    if src.kind == "c" and dtype._np.kind != "c":
        value = value.real
    y = Tensor(value.astype(dtype._np))
    if _state.active and src.kind in "fc" and dtype._np.kind in "fc":
        record("Cast", (x,), (y,), lambda g: cast(g, src))
    return y


register_batchable("Cast")


def saturate_cast(value, dtype, name=None):
    """Cast with values clipped to the target dtype's range first."""
    dtype = dtypes.as_dtype(dtype)
    x = convert_to_tensor(value)
    if dtype.is_integer:
        from minitf.ops.math import clip_by_value
        x = clip_by_value(x, dtype.min, dtype.max) if x.dtype.is_floating else x
    return cast(x, dtype)


def identity(input, name=None):  # noqa: A002 (TF's argument name)
    """A tensor with the same value as `input` (a snapshot when `input` is a variable)."""
    if isinstance(input, Variable):
        t = input.value()
        y = Tensor(array_module(t._value).array(t._value, copy=True))
    else:
        t = convert_to_tensor(input)
        y = Tensor(t._value)
    if _state.active:
        record("Identity", (t,), (y,), lambda g: g)
    return y


def stop_gradient(input, name=None):  # noqa: A002
    """The same value as `input`, but no gradient flows through it."""
    t = convert_to_tensor(input)
    return Tensor(t._value)
