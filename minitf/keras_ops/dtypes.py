"""Keras 3's dtype rules: dtype names, and the promotion lattice of `keras.backend.result_type`.

Keras promotes dtypes as JAX does, not as TF: Python ints and floats are *weak* (they take the
other operand's type), int8 with uint8 gives int16, any int with a float gives the float, and
a weak float alone resolves to `floatx()`. On the TensorFlow backend 64-bit types stay 64-bit.
"""
import functools

from minitf.keras_core import config
from minitf.api_export import export

__all__ = ["ALLOWED_DTYPES", "FLOAT_TYPES", "INT_TYPES", "standardize_dtype", "result_type",
           "is_float_dtype", "is_int_dtype", "dtype_name"]

BOOL_TYPES = ("bool",)
INT_TYPES = ("uint8", "uint16", "uint32", "uint64", "int8", "int16", "int32", "int64")
FLOAT_TYPES = ("bfloat16", "float16", "float32", "float64")
COMPLEX_TYPES = ("complex64", "complex128")
WEAK_TYPES = ("int", "float")
ALLOWED_DTYPES = ("float16", "float32", "float64", "uint8", "uint16", "uint32", "uint64", "int8",
                  "int16", "int32", "int64", "bfloat16", "bool", "string", "float8_e4m3fn",
                  "float8_e5m2", "complex64", "complex128")
_PYTHON = {bool: "bool", int: "int64", float: "float32", str: "string", complex: "complex128"}


@export("keras.backend.standardize_dtype", "keras.utils.standardize_dtype", "utils.standardize_dtype")
def standardize_dtype(dtype):
    """The Keras name of `dtype` (a name, a DType, a numpy dtype or a Python type); None gives
    `floatx()`. ValueError for anything else."""
    if dtype is None:
        return config.floatx()
    if isinstance(dtype, type) and dtype in _PYTHON:
        dtype = _PYTHON[dtype]
    elif isinstance(dtype, str) and dtype == "int":
        dtype = "int64"
    if hasattr(dtype, "name") and not isinstance(dtype, str):
        dtype = dtype.name
    elif hasattr(dtype, "__name__"):
        dtype = dtype.__name__
    if dtype not in ALLOWED_DTYPES:
        raise ValueError(f"Invalid dtype: {dtype}")
    return dtype


def dtype_name(x):
    """The Keras dtype name of tensor `x`."""
    return standardize_dtype(x.dtype)


@export("keras.backend.is_float_dtype")
def is_float_dtype(dtype):
    """Whether `dtype` is a floating type (bfloat16 ... float64)."""
    return standardize_dtype(dtype).startswith(("float", "bfloat"))


@export("keras.backend.is_int_dtype")
def is_int_dtype(dtype):
    """Whether `dtype` is a signed or unsigned integer type."""
    return standardize_dtype(dtype).startswith(("int", "uint"))


def _lattice():
    """Each type's immediate successors on the promotion lattice (JAX's, as Keras uses it)."""
    return {"bool": ["int"], "uint8": ["int16", "uint16"], "uint16": ["int32", "uint32"],
            "uint32": ["int64", "uint64"], "uint64": ["float"], "int": ["uint8", "int8", "complex64"],
            "int8": ["int16"], "int16": ["int32"], "int32": ["int64"], "int64": ["float"],
            "float": ["bfloat16", "float16"], "bfloat16": ["float32"], "float16": ["float32"],
            "float32": ["float64", "complex64"], "float64": ["complex128"],
            "complex64": ["complex128"], "complex128": []}


def _upper_bounds():
    lattice = _lattice()
    bounds = {node: {node} for node in lattice}
    for node in lattice:
        while True:
            grown = set().union(*(lattice[b] for b in bounds[node]))
            if grown <= bounds[node]:
                break
            bounds[node] |= grown
    return bounds


_BOUNDS = _upper_bounds()


@functools.lru_cache(512)
def _least_upper_bound(*nodes):
    nodes = set(nodes)
    common = set.intersection(*(_BOUNDS[n] for n in nodes))
    least = (common & nodes) or {c for c in common if common <= _BOUNDS[c]}
    if len(least) != 1:
        raise ValueError(f"Input dtypes {tuple(sorted(nodes))} have no available implicit dtype "
                         f"promotion path. Try explicitly casting inputs to the desired output type.")
    return least.pop()


def _weak(dtype, weak):
    if not weak or dtype == "bool":
        return dtype
    if "float" in dtype:
        return "float"
    if "int" in dtype:
        return "int"
    return "complex"


def _resolve_weak(dtype, precision):
    if dtype == "bool":
        return "bool"
    kind = "f" if dtype == "bfloat16" else dtype[:1]
    return {"i": f"int{precision}", "u": f"uint{precision}"}.get(kind, f"float{precision}")


@export("keras.backend.result_type")
def result_type(*dtypes):
    """The dtype Keras' promotion rules give for operands of `dtypes` (names, DTypes, or the
    Python types `int`/`float`, which are weak); no argument gives `floatx()`."""
    if not dtypes:
        return config.floatx()
    names, weaks = [], []
    for d in dtypes:
        weaks.append(d is int or d is float)
        names.append(standardize_dtype(config.floatx() if d is None else d))
    for name in names:
        if name.startswith("float8"):
            raise ValueError("There is no implicit conversions from float8 dtypes to others. "
                             f"You must cast it internally. Received: {dtypes}")
    if len(names) == 1:
        out, weak = names[0], weaks[0]
    elif len(set(names)) == 1 and not all(weaks):
        out, weak = names[0], False
    elif all(weaks):
        out, weak = _least_upper_bound(*set(names)), True
    else:
        out = _least_upper_bound(*{_weak(d, w) for d, w in zip(names, weaks)})
        weak = out in WEAK_TYPES
    if weak and out != "bool":
        out = _resolve_weak(out, config.floatx()[-2:])
    # Keras narrows these two on every backend (int64 and float64 stay wide on TF)
    return {"uint64": "uint32", "complex128": "complex64"}.get(out, out)
