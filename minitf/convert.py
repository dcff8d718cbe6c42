"""convert_to_tensor: Python values, numpy arrays and tensor-like objects as Tensors.

This module sits below `Variable` and the ops. Objects that know how to become a tensor define
`__tf_tensor__(self, dtype=None, name=None)` (TF's protocol): variables read their value there,
IndexedSlices densify. A list that holds tensors is packed by the function the array ops
register with `register_packer` (the `Pack` op, whose gradient unstacks).
"""
import numbers

import numpy as np

from minitf import backend  # noqa: F401
from minitf.dtypes import dtypes  # noqa: F401
from minitf.errors import errors  # noqa: F401
from minitf.tensor import Tensor
from minitf.tensor_shape import TensorShape
from minitf.api_export import export

__all__ = ["convert_to_tensor", "register_packer"]

_packer = [None]


def register_packer(pack):
    """Install `pack(list_of_tensors) -> Tensor`, used for lists and tuples holding tensors."""
    _packer[0] = pack


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


# Python floats from here up round to inf in float32 (float32's max plus half its last step).
_FLOAT32_OVERFLOW = 2.0 ** 128 - 2.0 ** 103


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
            raise ValueError(f"Can't convert non-rectangular Python sequence to Tensor. ({value!r} has "
                             f"rows of different lengths: pad them, or use tf.ragged.constant for a "
                             f"RaggedTensor.)") from None
        if arr.dtype.kind == "S":  # numpy's fixed-width bytes drop trailing NULs: keep the objects
            arr = np.array(value, dtype=object)
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
            if finite.size and finite.max() >= _FLOAT32_OVERFLOW:
                raise ValueError(f"Can't convert Python sequence with a value out of range for float32 "
                                 f"(the default float dtype) to Tensor: {value!r}; pass "
                                 f"dtype=tf.float64")
        return arr.astype(np.float32)
    if arr.dtype == np.int64:
        if arr.size == 0 or (arr.min() >= -2**31 and arr.max() < 2**31):
            return arr.astype(np.int32)
        return arr
    return arr


def _is_tensor_like(value):
    return type(value) is Tensor or hasattr(type(value), "__tf_tensor__")


def _first_tensor_dtype(value):
    for v in value:
        if _is_tensor_like(v):
            return v.dtype
        if isinstance(v, (list, tuple)):
            found = _first_tensor_dtype(v)
            if found is not None:
                return found
    return None


def contains_tensor(value):
    if _is_tensor_like(value):
        return True
    if isinstance(value, (list, tuple)):
        return any(contains_tensor(v) for v in value)
    return False


@export("convert_to_tensor")
def convert_to_tensor(value, dtype=None, dtype_hint=None, name=None):
    """`value` as a Tensor: tensors pass through, variables are read, Python data is converted.

    Python floats become float32 and ints int32; numpy arrays keep their dtype. A tensor whose
    dtype differs from `dtype` raises ValueError (use tf.cast); `dtype_hint` is used only when
    it can hold the value.
    """
    if dtype is not None:
        dtype = dtypes.as_dtype(dtype)
    if type(value) is not Tensor:
        to_tensor = getattr(type(value), "__tf_tensor__", None)
        if to_tensor is not None:  # variables, IndexedSlices: their own (tape-aware) conversion
            value = to_tensor(value)
        elif hasattr(type(value), "_tf_conversion_error"):  # a RaggedTensor refuses in TF's words
            raise type(value)._tf_conversion_error(value)  # (ops dispatching on it catch this)
    if isinstance(value, Tensor) and type(value) is not Tensor:
        return value.__tf_tensor__(dtype)  # a symbolic tensor of a traced graph: itself
    if type(value) is Tensor:
        if dtype is not None and value._value.dtype != dtype._np:
            raise ValueError(f"Tensor conversion requested dtype {dtype.name} for Tensor with dtype "
                             f"{value.dtype.name}: {value!r}; use tf.cast to change the dtype.")
        return value
    if isinstance(value, (list, tuple)) and contains_tensor(value):
        # TF packs the parts; Python values among them take the first tensor's dtype
        like = dtype or _first_tensor_dtype(value)
        parts = [convert_to_tensor(v, dtype=dtype) if contains_tensor([v])
                 else convert_to_tensor(v, dtype=like) for v in value]
        return _packer[0](parts)
    if isinstance(value, dtypes.DType):
        raise TypeError(f"Cannot convert {value!r} to a tensor.")
    if isinstance(value, range):  # TF converts a range as the list it stands for
        value = list(value)
    if isinstance(value, TensorShape):  # its dimensions, as TF converts a fully known shape
        if not value.is_fully_defined():
            raise ValueError(f"Cannot convert a partially known TensorShape {value} to a Tensor.")
        dims = value.as_list()
        wide = any(d >= 2 ** 31 for d in dims)
        value = np.array(dims, dtype=np.int64 if wide or dtype is dtypes.int64 else np.int32)
    if not isinstance(value, (np.ndarray, np.generic)) and backend.array_module(value) is not np:
        # an array of a registered device module (cupy): keep it where it is
        arr = value if dtype is None else value.astype(dtype._np, copy=False)
        return Tensor(arr)
    if not isinstance(value, (np.ndarray, np.generic, list, tuple)) and hasattr(type(value), "__array__"):
        value = np.asarray(value)  # other array-likes (pandas DataFrame/Series, ...) convert as numpy does
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
        raise ValueError(f"Can't convert non-rectangular Python sequence to Tensor. ({value!r} has rows of "
                         f"different lengths: pad them, or use tf.ragged.constant for a RaggedTensor.)")
    xp = backend.default_module()
    if xp is not np and arr.dtype != object:
        arr = xp.asarray(arr)
    return Tensor(arr)
