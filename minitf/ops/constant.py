"""Making tensors: constant, convert_to_tensor, cast, identity, stop_gradient."""
import numbers

import numpy as np

from minitf import backend, dtypes, errors
from minitf.indexed_slices import IndexedSlices
from minitf.ops._core import Tensor, Variable, _state, record, register_batchable, array_module

__all__ = ["constant", "convert_to_tensor", "cast", "identity", "stop_gradient", "is_tensor"]

from minitf.tensor import is_tensor  # noqa: E402


# Python bools convert only to these integer types (TF's eager converter refuses the narrow ones).
_PY_BOOL = type(True)
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


def _big_python_ints(value, dtype):
    """Python ints numpy could not put in one int64/uint64 array, as `dtype`; None if not all ints."""
    obj = np.array(value, dtype=object)
    flat = obj.reshape(-1)
    if not all(isinstance(v, int) and not isinstance(v, _PY_BOOL) for v in flat):
        return None
    if dtype._np == np.uint64 and all(0 <= v < 2**64 for v in flat):
        return np.array([int(v) for v in flat], dtype=np.uint64).reshape(obj.shape)
    if all(-2**63 <= v < 2**63 for v in flat):
        return np.array([int(v) for v in flat], dtype=np.int64).reshape(obj.shape).astype(dtype._np)
    raise ValueError(f"Can't convert Python sequence with out-of-range integer to Tensor: {value!r} "
                     f"has values outside the int64 range.")


_FLOAT32_MAX = float(np.finfo(np.float32).max)


def _element_kinds(value, kinds):
    """{kind: first element} over a nested list/tuple: bool, number, str, array, numpy or other."""
    if isinstance(value, (list, tuple)):
        for v in value:
            _element_kinds(v, kinds)
    elif isinstance(value, (bool, np.bool_)):
        kinds.setdefault("bool", value)
    elif isinstance(value, (int, float, complex, np.number)):
        kinds.setdefault("number", value)
        if isinstance(value, np.generic):
            kinds.setdefault("numpy", value)
    elif isinstance(value, (str, bytes)):
        kinds.setdefault("str", value)
    elif isinstance(value, np.ndarray):
        kinds.setdefault("array", value)
    else:
        kinds.setdefault("other", value)
    return kinds


def _check_python_value(value):
    """TF's ValueErrors for Python data it cannot convert: unsupported types and mixed lists."""
    kinds = _element_kinds(value, {})
    if "other" in kinds:
        bad = kinds["other"]
        if len(kinds) == 1:
            raise ValueError(f"Attempt to convert a value ({bad!r}) with an unsupported type "
                             f"({type(bad)}) to a Tensor.")
        raise ValueError(f"Can't convert Python sequence with mixed types to Tensor: {value!r} holds "
                         f"{bad!r} beside numbers or strings.")
    if len({"bool", "number", "str"} & kinds.keys()) > 1:
        raise ValueError(f"Can't convert Python sequence with mixed types to Tensor: {value!r}; give "
                         f"all elements one type (bools, numbers or strings).")
    return kinds


def _python_to_array(value, dtype):
    """Array for Python data with TF's inference: floats -> float32, ints -> int32.

    With a `dtype`, Python ints wrap into narrower integer types (as TF's converter does),
    while floats to integers, ints to bool and strings to numbers raise TypeError.
    """
    kinds = None
    if isinstance(value, (str, bytes)):
        arr = np.array(value, dtype=object)
    else:
        if not isinstance(value, (int, float, complex, np.generic)):
            kinds = _check_python_value(value)
        try:
            arr = np.asarray(value)
        except ValueError:
            raise ValueError(f"Can't convert non-rectangular Python sequence to Tensor: {value!r}; "
                             f"all rows must have the same length.") from None
    kind = arr.dtype.kind
    if kind in "fO" and dtype is not None and dtype._np.kind in "iu":
        big = _big_python_ints(value, dtype)  # e.g. [2**64 - 1, 300] for uint64
        if big is not None:
            return big
    is_text = kind in "USO" and arr.size and all(isinstance(v, (str, bytes)) for v in arr.reshape(-1))
    if dtype is not None:
        np_dtype = dtype._np
        target = np_dtype.kind
        if arr.size == 0 and kind == "f" and not isinstance(value, np.ndarray):
            return np.zeros(arr.shape, dtype=np_dtype)  # [] converts to any dtype
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
        if not (kinds and "numpy" in kinds) and arr.size:
            with np.errstate(invalid="ignore"):
                finite = np.abs(arr[np.isfinite(arr)])
            if finite.size and finite.max() > _FLOAT32_MAX:
                raise ValueError(f"Can't convert Python sequence with a value out of range for float32 "
                                 f"(the default float dtype) to Tensor: {value!r}; pass "
                                 f"dtype=tf.float64")
        return arr.astype(np.float32)
    if arr.dtype == np.int64:
        if arr.size == 0 or (arr.min() >= -2**31 and arr.max() < 2**31):
            return arr.astype(np.int32)
        return arr
    return arr


def _first_tensor_dtype(value):
    for v in value:
        if isinstance(v, (Tensor, Variable)):
            return v.dtype
        if isinstance(v, (list, tuple)):
            found = _first_tensor_dtype(v)
            if found is not None:
                return found
    return None


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
        # TF packs the parts; Python values among them take the first tensor's dtype
        like = dtype or _first_tensor_dtype(value)
        parts = [convert_to_tensor(v, dtype=dtype) if _contains_tensor([v])
                 else convert_to_tensor(v, dtype=like) for v in value]
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
            if dtype_hint is not None and value.dtype.kind in "biuf":
                hint = dtypes.as_dtype(dtype_hint)
                if hint._np.kind in "biufc":  # a numeric hint casts numpy values, as TF does
                    arr = value.astype(hint._np, copy=False)
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
    """A tensor holding `value`, filled or reshaped to `shape` if given.

    As in TF: a tensor must already have `dtype` (TypeError otherwise; a variable is cast), and
    lists holding tensors are refused (ValueError; tf.stack or tf.convert_to_tensor pack them).
    """
    if isinstance(value, (Tensor, Variable)):
        t = value.value() if isinstance(value, Variable) else value
        arr = t._value
        if dtype is not None:
            dtype = dtypes.as_dtype(dtype)
            if isinstance(value, Tensor) and t._value.dtype != dtype._np:
                raise TypeError(f"Expected tensor {t.numpy()} with dtype {dtype!r}, but got dtype "
                                f"{t.dtype!r}; use tf.cast to change a tensor's dtype.")
            arr = arr.astype(dtype._np)
        t = Tensor(arr)
    elif isinstance(value, (list, tuple)) and _contains_tensor(value):
        raise ValueError("tf.constant cannot hold tensors (TypeError: Scalar tensor has no `len()`); "
                         "use tf.stack or tf.convert_to_tensor to pack them.")
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
    """`x` converted elementwise to `dtype`; gradients flow between floating types only.

    Floats truncate toward zero. Out-of-range floats cast to integers follow TF's scalar CPU path
    (through int32, NaN/overflow -> minimum, then wrap). TF's vectorized path saturates 8/16-bit
    results instead, for whole 16/32-element blocks of long arrays only, so TF itself gives
    position-dependent values there; use tf.saturate_cast for a defined result. Casts to or from
    tf.string raise UnimplementedError.
    """
    dtype = dtypes.as_dtype(dtype)
    x = convert_to_tensor(x)
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
    if _state.active and src.kind in "fc" and dtype._np.kind in "fc":
        record("Cast", (x,), (y,), lambda g: cast(g, src))
    return y


register_batchable("Cast")


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
