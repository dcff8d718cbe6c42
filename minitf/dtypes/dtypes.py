"""DType objects (tf.float32, tf.int32, ...) and conversion between them and numpy dtypes."""
import numpy as np
from minitf.api_export import export, export_value

__all__ = [
    "DType", "as_dtype", "float16", "half", "float32", "float64", "double", "bfloat16",
    "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "bool",
    "complex64", "complex128", "string", "variant", "resource",
]


_PY_BOOL = type(True)


@export("DType", "dtypes.DType")
class DType:
    """A tensor element type, mirroring tf.DType: a name plus the numpy dtype behind it."""

    __slots__ = ("_name", "_np")

    def __init__(self, name, np_dtype):
        self._name = name
        self._np = np.dtype(np_dtype) if np_dtype is not None else None

    @property
    def name(self):
        """The TF name of this type, e.g. 'float32'."""
        return self._name

    @property
    def as_numpy_dtype(self):
        """The numpy scalar type that stores values of this dtype."""
        return self._np.type

    @property
    def base_dtype(self):
        """This dtype (minitf has no reference dtypes)."""
        return self

    @property
    def real_dtype(self):
        """The dtype of a complex type's parts (float32 for complex64); other types give themselves."""
        if self.is_complex:
            return as_dtype("float32" if self._np.itemsize == 8 else "float64")
        return self

    @property
    def is_floating(self):
        """True for real floating-point types."""
        return self._np is not None and self._np.kind == "f"

    @property
    def is_complex(self):
        """True for complex types."""
        return self._np is not None and self._np.kind == "c"

    @property
    def is_integer(self):
        """True for signed and unsigned integer types."""
        return self._np is not None and self._np.kind in "iu"

    @property
    def is_unsigned(self):
        """True for unsigned integer types."""
        return self._np is not None and self._np.kind == "u"

    @property
    def is_bool(self):
        """True for the boolean type."""
        return self._np is not None and self._np.kind == "b"

    @property
    def is_numeric(self):
        """True for integer, floating and complex types."""
        return self.is_integer or self.is_floating or self.is_complex

    @property
    def size(self):
        """Bytes per element (0 for string, resource and variant, as TF reports)."""
        if self._name == "bfloat16":
            return 2
        if self._np is None or self._np.kind == "O":
            return 0
        return self._np.itemsize

    @property
    def min(self):
        """The smallest representable value."""
        self._check_limits("minimum")
        if self._name == "bfloat16":
            return -_BFLOAT16_MAX
        return np.finfo(self._np).min if self.is_floating else np.iinfo(self._np).min

    @property
    def max(self):
        """The largest representable value."""
        self._check_limits("maximum")
        if self._name == "bfloat16":
            return _BFLOAT16_MAX
        return np.finfo(self._np).max if self.is_floating else np.iinfo(self._np).max

    def _check_limits(self, what):
        if not (self.is_floating or self.is_integer):
            raise TypeError(f"Cannot find {what} value of {self}; only integer and floating dtypes "
                            f"have one.")

    @property
    def is_differentiable(self):
        """True when gradients may flow through values of this dtype."""
        return self.is_floating or self.is_complex

    def __eq__(self, other):
        if other is None:
            return False
        try:
            return self is as_dtype(other)
        except TypeError:
            return False

    def __ne__(self, other):
        return not self.__eq__(other)

    def __hash__(self):
        return hash(self._name)

    def __repr__(self):
        return f"tf.{self._name}"

    def __str__(self):
        return f"<dtype: {self._name!r}>"

    def __reduce__(self):
        return as_dtype, (self._name,)


float16 = half = DType("float16", np.float16)
export_value("half", "half", "dtypes.half")
export_value("float16", "float16", "dtypes.float16")
float32 = DType("float32", np.float32)
export_value("float32", "float32", "dtypes.float32")
float64 = double = DType("float64", np.float64)
export_value("float64", "float64", "dtypes.float64")
export_value("double", "double", "dtypes.double")
# numpy has no bfloat16; it is stored as float32 so code naming it still runs.
bfloat16 = DType("bfloat16", np.float32)
export_value("bfloat16", "bfloat16", "dtypes.bfloat16")
int8 = DType("int8", np.int8)
export_value("int8", "int8", "dtypes.int8")
int16 = DType("int16", np.int16)
export_value("int16", "int16", "dtypes.int16")
int32 = DType("int32", np.int32)
export_value("int32", "int32", "dtypes.int32")
int64 = DType("int64", np.int64)
export_value("int64", "int64", "dtypes.int64")
uint8 = DType("uint8", np.uint8)
export_value("uint8", "uint8", "dtypes.uint8")
uint16 = DType("uint16", np.uint16)
export_value("uint16", "uint16", "dtypes.uint16")
uint32 = DType("uint32", np.uint32)
export_value("uint32", "uint32", "dtypes.uint32")
uint64 = DType("uint64", np.uint64)
export_value("uint64", "uint64", "dtypes.uint64")
bool = DType("bool", np.bool_)  # noqa: A001  (the TF name)
export_value("bool", "bool", "dtypes.bool")
complex64 = DType("complex64", np.complex64)
export_value("complex64", "complex64", "dtypes.complex64")
complex128 = DType("complex128", np.complex128)
export_value("complex128", "complex128", "dtypes.complex128")
string = DType("string", np.object_)
export_value("string", "string", "dtypes.string")
variant = DType("variant", None)
export_value("variant", "variant", "dtypes.variant")
resource = DType("resource", None)
export_value("resource", "resource", "dtypes.resource")

# the largest finite bfloat16, (2 - 2**-7) * 2**127
_BFLOAT16_MAX = np.float32(3.3895314e38)

_BY_NAME = {d.name: d for d in (float16, float32, float64, bfloat16, int8, int16, int32, int64, uint8,
                                 uint16, uint32, uint64, bool, complex64, complex128, string, resource,
                                 variant)}
_BY_NAME.update(half=float16, double=float64, float=float32)
# TF's DataType enum values, which tf.as_dtype also accepts
_BY_ENUM = {1: float32, 2: float64, 3: int32, 4: uint8, 5: int16, 6: int8, 7: string, 8: complex64,
            9: int64, 10: bool, 14: bfloat16, 17: uint16, 18: complex128, 19: float16, 20: resource,
            21: variant, 22: uint32, 23: uint64}
_BY_NP = {d._np: d for d in (float16, float32, float64, int8, int16, int32, int64, uint8, uint16,
                              uint32, uint64, bool, complex64, complex128, string)}


@export("as_dtype", "dtypes.as_dtype")
def as_dtype(type_value):
    """Convert a DType, name, DataType enum value, numpy dtype or Python float/bool to a DType.

    TypeError if unknown, and for the Python types int, str and bytes (as TF).
    """
    if isinstance(type_value, DType):
        return type_value
    try:
        return _BY_NP[type_value]
    except (KeyError, TypeError):
        pass
    if isinstance(type_value, str):
        if type_value in _BY_NAME:
            return _BY_NAME[type_value]
        raise TypeError(f"Cannot convert {type_value!r} to a minitf DType.")
    if type(type_value) is int:
        if type_value in _BY_ENUM:
            return _BY_ENUM[type_value]
        raise TypeError(f"Cannot convert {type_value!r} to a minitf DType (not a DataType enum value).")
    if type_value is float:
        return float32
    if type_value is _PY_BOOL:
        return bool
    if type_value is object:
        return string
    if type_value is None or type_value in (int, str, bytes):  # TF refuses these Python types (no single width)
        raise TypeError(f"Cannot convert {type_value!r} to a minitf DType; name a width, e.g. tf.int32.")
    try:
        return _BY_NP[np.dtype(type_value)]
    except (KeyError, TypeError):
        raise TypeError(f"Cannot convert {type_value!r} to a minitf DType.") from None

