"""Values inside a SavedModel's protos: dtypes, shapes, constant tensors and node attributes.

`TensorProto`s are written as TF writes constants: the dtype, the shape, and the elements as raw
little-endian `tensor_content` (strings: `string_val`). Reading accepts every encoding TF uses:
`tensor_content`, or the typed `*_val` fields, where fewer values than elements repeat the last one
(a zeros constant is stored as one `float_val: 0`).

Node attributes (`AttrValue`) are read into Python values: a dtype, an int, a float, a bool, bytes,
a TensorShape, a numpy array, a `FuncRef`, or a list of those. They are written from `Attr`
wrappers that say which kind of attribute a value is (`Attr.type(tf.float32)`, `Attr.ints([1, 2])`).
"""
import numpy as np

from minitf.dtypes import dtypes
from minitf.checkpoint.protos import DTYPE_ENUMS, ENUM_DTYPES
from minitf.saved_model.codec import Msg, WireError
from minitf.tensor_shape import TensorShape

__all__ = ["dtype_enum", "dtype_of", "shape_proto", "shape_of", "tensor_proto", "array_of",
           "Attr", "FuncRef", "attr_values", "MAX_ELEMENTS"]

MAX_ELEMENTS = 1 << 31      # elements a constant may declare
_HOST = {"float32": "<f4", "float64": "<f8", "int32": "<i4", "uint8": "u1", "int16": "<i2",
         "int8": "i1", "complex64": "<c8", "int64": "<i8", "bool": "?", "uint16": "<u2",
         "complex128": "<c16", "float16": "<f2", "uint32": "<u4", "uint64": "<u8"}
_VAL_FIELDS = {"float32": "float_val", "float64": "double_val", "int32": "int_val",
               "int16": "int_val", "int8": "int_val", "uint8": "int_val", "uint16": "int_val",
               "int64": "int64_val", "bool": "bool_val", "uint32": "uint32_val",
               "uint64": "uint64_val", "float16": "half_val", "bfloat16": "half_val",
               "complex64": "scomplex_val", "complex128": "dcomplex_val"}


def dtype_enum(dtype):
    """TF's DataType number of a minitf dtype (or dtype name)."""
    name = dtypes.as_dtype(dtype).name
    return DTYPE_ENUMS[name]


def dtype_of(enum, what="dtype"):
    """The minitf dtype of TF's DataType number (WireError for one minitf does not know)."""
    name = ENUM_DTYPES.get(enum)
    if name is None:
        raise WireError(f"{what} is DataType {enum}, which minitf does not support")
    return dtypes.as_dtype(name)


def shape_proto(shape):
    """The TensorShapeProto of a TensorShape (unknown dimensions -1, unknown rank flagged)."""
    shape = TensorShape(shape)
    if shape.rank is None:
        return Msg("TensorShapeProto", unknown_rank=True)
    dims = [Msg("Dim", size=-1 if d is None else int(d)) for d in shape.as_list()]
    return Msg("TensorShapeProto", dim=dims)


def shape_of(proto):
    """The TensorShape a TensorShapeProto describes (None or an absent proto: unknown rank)."""
    if proto is None or proto.unknown_rank:
        return TensorShape(None)
    dims = []
    for d in proto.dim:
        if d.size < -1:
            raise WireError(f"shape has dimension {d.size}")
        dims.append(None if d.size == -1 else d.size)
    return TensorShape(dims)


def tensor_proto(value, dtype=None):
    """The TensorProto of a constant: a numpy array (or anything np.asarray takes) of `dtype`."""
    dtype = dtypes.as_dtype(dtype) if dtype is not None else None
    if dtype is not None and dtype.name == "string":
        array = np.asarray(value, dtype=object)
        flat = [v if isinstance(v, bytes) else str(v).encode("utf-8") for v in array.reshape(-1)]
        return Msg("TensorProto", dtype=DTYPE_ENUMS["string"], tensor_shape=shape_proto(array.shape),
                   string_val=flat)
    array = np.asarray(value)
    if dtype is None:
        dtype = dtypes.as_dtype(array.dtype.name)
    if dtype.name == "bfloat16":
        bits = np.ascontiguousarray(array, dtype=np.float32).view(np.uint32)
        data = ((bits + np.uint32(0x7FFF) + ((bits >> np.uint32(16)) & np.uint32(1)))
                >> np.uint32(16)).astype("<u2").tobytes()
    else:
        data = np.ascontiguousarray(array, dtype=np.dtype(_HOST[dtype.name])).tobytes()
    return Msg("TensorProto", dtype=DTYPE_ENUMS[dtype.name], tensor_shape=shape_proto(array.shape),
               tensor_content=data)


def array_of(proto):
    """(numpy array, minitf dtype) of a TensorProto. WireError when it is malformed."""
    dtype = dtype_of(proto.dtype, "a constant's dtype")
    shape = shape_of(proto.tensor_shape)
    if shape.rank is None or not shape.is_fully_defined():
        raise WireError(f"a constant has the shape {shape}, which is not fully defined")
    dims = tuple(shape.as_list())
    count = int(np.prod(dims, dtype=np.int64)) if dims else 1
    if count > MAX_ELEMENTS:
        raise WireError(f"a constant declares {count} elements")
    name = dtype.name
    if name == "string":
        values = list(proto.string_val)
        return _fill(values, count, dims, object, b""), dtype
    if name not in _HOST and name != "bfloat16":
        raise WireError(f"a constant has dtype {name}, which minitf cannot hold")
    if proto.tensor_content:
        host = np.dtype("<u2" if name == "bfloat16" else _HOST[name])
        data = proto.tensor_content
        if len(data) != count * host.itemsize:
            raise WireError(f"a constant of shape {list(dims)} and dtype {name} holds "
                            f"{len(data)} bytes, not {count * host.itemsize}")
        flat = np.frombuffer(data, dtype=host)
        if name == "bfloat16":
            flat = (flat.astype(np.uint32) << np.uint32(16)).view(np.float32)
        return flat.astype(dtype._np).reshape(dims), dtype
    values = list(getattr(proto, _VAL_FIELDS[name]))
    if name in ("float16", "bfloat16"):
        bits = np.asarray(values, dtype=np.uint32) & np.uint32(0xFFFF)
        values = list(bits.astype(np.uint16).view(np.float16)) if name == "float16" else \
            list((bits << np.uint32(16)).view(np.float32))
    elif name.startswith("complex"):
        values = [complex(values[i], values[i + 1]) for i in range(0, len(values) - 1, 2)]
    return _fill(values, count, dims, dtype._np, 0), dtype


def _fill(values, count, dims, np_dtype, zero):
    """`values` as an array of `count` elements: the last value repeated (TF's short form)."""
    if len(values) > count:
        raise WireError(f"a constant of {count} elements lists {len(values)} values")
    if not values:
        values = [zero]
    array = np.empty(count, dtype=np_dtype)
    array[:len(values)] = values
    array[len(values):] = values[-1]
    return array.reshape(dims)


class FuncRef:
    """A function attribute: the name of a function of the library, and its attributes."""

    __slots__ = ("name", "attrs")

    def __init__(self, name, attrs=None):
        self.name, self.attrs = name, attrs or {}

    def __repr__(self):
        return f"FuncRef({self.name!r})"


class Attr:
    """An attribute value to write, tagged with its kind (TF's attr types)."""

    __slots__ = ("kind", "value")

    def __init__(self, kind, value):
        self.kind, self.value = kind, value

    @staticmethod
    def type(dtype):
        """A `type` attribute."""
        return Attr("type", dtypes.as_dtype(dtype))

    @staticmethod
    def types(dtype_list):
        """A `list(type)` attribute."""
        return Attr("types", [dtypes.as_dtype(d) for d in dtype_list])

    @staticmethod
    def int(value):
        """An `int` attribute."""
        return Attr("int", int(value))

    @staticmethod
    def ints(values):
        """A `list(int)` attribute."""
        return Attr("ints", [int(v) for v in values])

    @staticmethod
    def float(value):
        """A `float` attribute."""
        return Attr("float", float(value))

    @staticmethod
    def bool(value):
        """A `bool` attribute."""
        return Attr("bool", bool(value))

    @staticmethod
    def str(value):
        """A `string` attribute."""
        return Attr("str", value.encode("utf-8") if isinstance(value, str) else bytes(value))

    @staticmethod
    def shape(value):
        """A `shape` attribute."""
        return Attr("shape", TensorShape(value))

    @staticmethod
    def shapes(values):
        """A `list(shape)` attribute."""
        return Attr("shapes", [TensorShape(v) for v in values])

    @staticmethod
    def tensor(value, dtype=None):
        """A `tensor` attribute (a constant)."""
        return Attr("tensor", tensor_proto(value, dtype))

    @staticmethod
    def func(name):
        """A `func` attribute naming a function of the library."""
        return Attr("func", name)

    @staticmethod
    def funcs(names):
        """A `list(func)` attribute."""
        return Attr("funcs", list(names))

    def proto(self):
        """This value as an AttrValue message."""
        kind, v = self.kind, self.value
        if kind == "type":
            return Msg("AttrValue", type=dtype_enum(v))
        if kind == "int":
            return Msg("AttrValue", i=v)
        if kind == "float":
            return Msg("AttrValue", f=v)
        if kind == "bool":
            return Msg("AttrValue", b=v)
        if kind == "str":
            return Msg("AttrValue", s=v)
        if kind == "shape":
            return Msg("AttrValue", shape=shape_proto(v))
        if kind == "tensor":
            return Msg("AttrValue", tensor=v)
        if kind == "func":
            return Msg("AttrValue", func=Msg("NameAttrList", name=v))
        if kind == "types":
            return Msg("AttrValue", list=Msg("ListValue", type=[dtype_enum(d) for d in v]))
        if kind == "ints":
            return Msg("AttrValue", list=Msg("ListValue", i=list(v)))
        if kind == "funcs":
            return Msg("AttrValue", list=Msg("ListValue", func=[Msg("NameAttrList", name=n)
                                                                 for n in v]))
        if kind == "shapes":
            return Msg("AttrValue", list=Msg("ListValue", shape=[shape_proto(s) for s in v]))
        raise ValueError(f"unknown attribute kind {kind!r}")


def _attr_value(proto):
    kind = proto.which(("list", "s", "i", "f", "b", "type", "shape", "tensor", "placeholder",
                        "func"))
    if kind is None:
        return None
    value = getattr(proto, kind)
    if kind == "type":
        return dtype_of(value, "a type attribute")
    if kind == "shape":
        return shape_of(value)
    if kind == "tensor":
        return array_of(value)[0]
    if kind == "func":
        return FuncRef(value.name, attr_values(value.attr))
    if kind == "list":
        for name in ("s", "i", "f", "b", "type", "shape", "tensor", "func"):
            items = getattr(value, name)
            if items:
                if name == "type":
                    return [dtype_of(t, "a type attribute") for t in items]
                if name == "shape":
                    return [shape_of(s) for s in items]
                if name == "tensor":
                    return [array_of(t)[0] for t in items]
                if name == "func":
                    return [FuncRef(f.name, attr_values(f.attr)) for f in items]
                return list(items)
        return []
    return value


_KEPT = ("_gradient_op_type",)   # the one bookkeeping attr a runner reads


def attr_values(attr_map):
    """{name: Python value} of a NodeDef's attr map (`_`-prefixed bookkeeping attrs skipped,
    but for `_gradient_op_type`, which names a custom gradient)."""
    return {k: _attr_value(v) for k, v in attr_map.items() if not k.startswith("_") or k in _KEPT}
