"""tnp's dtype names, its promotion rules and the conversion every tnp function starts with.

The dtype names are NumPy's scalar types (`tnp.float32 is np.float32`), as in TF. Promotion is
`np.result_type` on the operands' dtypes, with Python scalars as NumPy treats them; Python
floats count as float32 once `experimental_enable_numpy_behavior(prefer_float32=True)` has run.
Results are minitf Tensors (`tnp.ndarray` is `tf.Tensor`).
"""
import numbers

import numpy as np

from minitf.dtypes import dtypes
from minitf.ops import array as A
from minitf.ops import constant as C
from minitf.convert import convert_to_tensor
from minitf.tensor import Tensor
from minitf.variable import Variable
from minitf.api_export import export, export_value

bool_ = np.bool_
complex64 = np.complex64
complex128 = np.complex128
complex_ = np.complex128
float16 = np.float16
float32 = np.float32
float64 = np.float64
float_ = np.float64
inexact = np.inexact
int_ = np.int_
int8 = np.int8
int16 = np.int16
int32 = np.int32
int64 = np.int64
uint8 = np.uint8
uint16 = np.uint16
uint32 = np.uint32
uint64 = np.uint64
object_ = np.object_
string_ = np.bytes_
unicode_ = np.str_
iinfo = np.iinfo
issubdtype = np.issubdtype
ndarray = Tensor
newaxis = None
pi = np.pi
e = np.e
inf = np.inf

for _name in ("bool_", "complex64", "complex128", "complex_", "float16", "float32", "float64",
              "float_", "inexact", "int_", "int8", "int16", "int32", "int64", "uint8", "uint16",
              "uint32", "uint64", "object_", "string_", "unicode_", "iinfo", "issubdtype",
              "ndarray", "newaxis", "pi", "e", "inf"):
    export_value(_name, "experimental.numpy." + _name)
del _name

# Process-wide settings, as TF's np_dtypes module keeps them.
_config = {"prefer_float32": False, "allow_float64": True}
_TO_FLOAT32 = {np.dtype("float64"): np.dtype("float32"), np.dtype("complex128"): np.dtype("complex64")}


def is_prefer_float32():
    """Whether Python floats infer float32 (set by experimental_enable_numpy_behavior)."""
    return _config["prefer_float32"]


def set_prefer_float32(value):
    """Make Python floats infer float32 (True) or float64 (False, NumPy's rule)."""
    _config["prefer_float32"] = bool(value)


def canonicalize_dtype(dtype):
    """`dtype` as tnp computes it: float64/complex128 narrowed when float64 is not allowed."""
    if not _config["allow_float64"]:
        return _TO_FLOAT32.get(np.dtype(dtype), dtype)
    return dtype


def default_float_type():
    """float64, or float32 when prefer_float32 is set (the dtype of tnp.zeros and friends)."""
    return float32 if _config["prefer_float32"] or not _config["allow_float64"] else float64


def is_tensor(x):
    """True for minitf tensors (tnp's ndarray), including graph values; not for variables."""
    return isinstance(x, Tensor)


def np_dtype(dtype):
    """The numpy dtype of a DType, numpy dtype or type, dtype name or Python type."""
    if isinstance(dtype, dtypes.DType):
        return np.dtype(dtype.as_numpy_dtype)
    return np.dtype(dtype)


def _flatten(values, out):
    for v in values:
        if isinstance(v, (list, tuple)):
            _flatten(v, out)
        else:
            out.append(v)
    return out


def _dtype_operand(x):
    """What np.result_type is given for `x`: Python numbers as values, tensors as dtypes."""
    if isinstance(x, numbers.Number):  # Python or NumPy scalars (np.float64 is a float too, as in TF)
        if is_prefer_float32():
            if isinstance(x, float):
                return np.float32(x)
            if isinstance(x, complex):
                return np.complex64(x)
        return x
    if isinstance(x, (Tensor, Variable)) or getattr(type(x), "_is_tensor_like", False):
        return np_dtype(x.dtype)
    if isinstance(x, dtypes.DType):
        return np_dtype(x)
    return x


@export("experimental.numpy.result_type")
def result_type(*arrays_and_dtypes):
    """The dtype NumPy's promotion gives `arrays_and_dtypes` (tensors count by their dtype,
    Python numbers as NumPy's weak scalars, nested lists by their elements), as a DType."""
    operands = [_dtype_operand(x) for x in _flatten(arrays_and_dtypes, [])]
    if not operands:
        operands = [np.asarray([])]
    try:
        dtype = np.result_type(*operands)
    except TypeError as exc:
        raise TypeError(f"tnp.result_type: cannot find a common dtype of {arrays_and_dtypes!r}: {exc}") from None
    return dtypes.as_dtype(canonicalize_dtype(dtype))


@export("experimental.numpy.promote_types")
def promote_types(type1, type2):
    """The smallest numpy dtype both `type1` and `type2` convert to safely (np.promote_types)."""
    return canonicalize_dtype(np.promote_types(np_dtype(type1), np_dtype(type2)))


@export("experimental.numpy.finfo")
def finfo(dtype):
    """Machine limits of a float dtype (np.finfo); accepts DTypes too."""
    return np.finfo(np_dtype(dtype))


def _unary_dtype(a, dtype):
    if dtype:
        return result_type(dtype)
    if isinstance(a, (str, bytes)):
        return dtypes.string
    return result_type(a)


def _to_tensor(val, dtype=None, copy=True, ndmin=0):
    if not is_tensor(val):
        dtype = _unary_dtype(val, dtype)
        if isinstance(val, np.ndarray) and val.dtype.kind in "US":
            result = convert_to_tensor(val)
        else:
            result = C.cast(convert_to_tensor(val, dtype_hint=dtype), dtype)
    elif dtype:
        result = C.cast(val, dtype)
    else:
        result = val
    if copy:
        result = C.identity(result)
    if ndmin > 32:
        raise ValueError(f"ndmin bigger than allowable number of dimensions: 32 (got ndmin={ndmin}).")
    if ndmin and ndmin > result.shape.rank:
        result = A.reshape(result, [1] * (ndmin - result.shape.rank) + [-1 if d is None else d
                                                                        for d in result.shape.as_list()])
    return result


@export("experimental.numpy.array")
def array(val, dtype=None, copy=True, ndmin=0):
    """`val` as a Tensor of `dtype` (inferred with tnp's rules when None), with at least
    `ndmin` dimensions; tensors are immutable, so `copy` only decides whether an identity is made."""
    if dtype:
        dtype = result_type(dtype)
    return _to_tensor(val, dtype, copy, ndmin)


@export("experimental.numpy.asarray")
def asarray(a, dtype=None):
    """`a` as a Tensor; a tensor already of `dtype` (or any tensor when dtype is None) is
    returned as it is."""
    if dtype:
        dtype = result_type(dtype)
    if is_tensor(a) and (not dtype or dtype == a.dtype):
        return a
    return _to_tensor(a, dtype, copy=False)


@export("experimental.numpy.asanyarray")
def asanyarray(a, dtype=None):
    """Same as `asarray` (there are no ndarray subclasses)."""
    return asarray(a, dtype)


@export("experimental.numpy.ascontiguousarray")
def ascontiguousarray(a, dtype=None):
    """`a` as a Tensor of at least one dimension (tensors have no memory layout to choose)."""
    return array(a, dtype, ndmin=1)


def promote(*arrays):
    """Every argument as a Tensor of their common tnp result type."""
    dtype = result_type(*arrays)
    return [a if is_tensor(a) and a.dtype == dtype else _to_tensor(a, dtype, copy=False) for a in arrays]


def is_inexact(dtype):
    """True for float and complex dtypes."""
    return np.issubdtype(np_dtype(dtype), np.inexact)


def is_integer(dtype):
    """True for signed and unsigned integer dtypes."""
    return np.issubdtype(np_dtype(dtype), np.integer)
