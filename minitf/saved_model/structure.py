"""Python structures as TF's `StructuredValue` (struct.proto), the way TF's nested_structure_coder
writes them: None, bool, int, float, str, lists, tuples, dicts (string keys), namedtuples,
TensorShapes, dtypes, TensorSpecs and RaggedTensorSpecs (a `type_spec_value`). A SavedModel keeps every function's input signature,
output structure and argument spec in this form.
"""
import collections
import inspect

from minitf.dtypes import dtypes
from minitf.ragged.ragged_spec import RaggedTensorSpec
from minitf.saved_model.codec import Msg, WireError
from minitf.saved_model.tensors import dtype_enum, dtype_of, shape_of, shape_proto
from minitf.tensor_shape import TensorShape
from minitf.tensor_spec import TensorSpec

__all__ = ["encode_structure", "decode_structure", "fullargspec_value", "FullArgSpec"]

FullArgSpec = collections.namedtuple(
    "FullArgSpec", ["args", "varargs", "varkw", "defaults", "kwonlyargs", "kwonlydefaults",
                    "annotations"])
_NAMEDTUPLES = {"FullArgSpec": FullArgSpec}
_MAX_DEPTH = 64
_RAGGED_TENSOR_SPEC = 3  # struct.proto's TypeSpecProto.RAGGED_TENSOR_SPEC


def encode_structure(value):
    """The StructuredValue of `value` (TypeError for a value TF cannot encode)."""
    if value is None:
        return Msg("StructuredValue", none_value=Msg("NoneValue"))
    if isinstance(value, bool):
        return Msg("StructuredValue", bool_value=value)
    if isinstance(value, int):
        return Msg("StructuredValue", int64_value=value)
    if isinstance(value, float):
        return Msg("StructuredValue", float64_value=value)
    if isinstance(value, str):
        return Msg("StructuredValue", string_value=value)
    if isinstance(value, TensorSpec):
        return Msg("StructuredValue", tensor_spec_value=Msg(
            "TensorSpecProto", name=value.name or "", shape=shape_proto(value.shape),
            dtype=dtype_enum(value.dtype)))
    if isinstance(value, RaggedTensorSpec):  # TF writes its _serialize() tuple as the state
        state = (value.shape, value.dtype, value.ragged_rank, value.row_splits_dtype)
        return Msg("StructuredValue", type_spec_value=Msg(
            "TypeSpecProto", type_spec_class=_RAGGED_TENSOR_SPEC, type_state=encode_structure(state),
            type_spec_class_name="RaggedTensorSpec", num_flat_components=1 + value.ragged_rank))
    if isinstance(value, TensorShape):
        return Msg("StructuredValue", tensor_shape_value=shape_proto(value))
    if isinstance(value, dtypes.DType):
        return Msg("StructuredValue", tensor_dtype_value=dtype_enum(value))
    if isinstance(value, tuple) and hasattr(type(value), "_fields"):
        pairs = [Msg("PairValue", key=k, value=encode_structure(v))
                 for k, v in zip(type(value)._fields, value)]
        return Msg("StructuredValue", named_tuple_value=Msg(
            "NamedTupleValue", name=type(value).__name__, values=pairs))
    if isinstance(value, tuple):
        return Msg("StructuredValue", tuple_value=Msg(
            "TupleValue", values=[encode_structure(v) for v in value]))
    if isinstance(value, list):
        return Msg("StructuredValue", list_value=Msg(
            "ListValueS", values=[encode_structure(v) for v in value]))
    if isinstance(value, dict):
        if not all(isinstance(k, str) for k in value):
            raise TypeError(f"Could not encode the dict {value!r}: TF's SavedModel keeps dicts "
                            f"with string keys only.")
        return Msg("StructuredValue", dict_value=Msg(
            "DictValue", fields={k: encode_structure(v) for k, v in value.items()}))
    raise TypeError(f"Could not encode {value!r} (of type {type(value).__name__}) in a "
                    f"SavedModel's structure: supported are None, bool, int, float, str, lists, "
                    f"tuples, dicts, namedtuples, TensorShape, DType and TensorSpec.")


_KINDS = ("none_value", "float64_value", "int64_value", "string_value", "bool_value",
          "tensor_shape_value", "tensor_dtype_value", "tensor_spec_value", "type_spec_value",
          "list_value", "tuple_value", "dict_value", "named_tuple_value")


def decode_structure(proto, depth=0):
    """The Python value of a StructuredValue (WireError for a kind minitf cannot rebuild)."""
    if depth > _MAX_DEPTH:
        raise WireError(f"structure nested deeper than {_MAX_DEPTH}")
    if proto is None:
        return None
    kind = proto.which(_KINDS)
    if kind is None or kind == "none_value":
        return None
    value = getattr(proto, kind)
    if kind in ("float64_value", "int64_value", "string_value", "bool_value"):
        return value
    if kind == "tensor_shape_value":
        return shape_of(value)
    if kind == "tensor_dtype_value":
        return dtype_of(value)
    if kind == "tensor_spec_value":
        return TensorSpec(shape_of(value.shape), dtype_of(value.dtype, "a TensorSpec's dtype"),
                          value.name or None)
    if kind == "list_value":
        return [decode_structure(v, depth + 1) for v in value.values]
    if kind == "tuple_value":
        return tuple(decode_structure(v, depth + 1) for v in value.values)
    if kind == "dict_value":
        return {k: decode_structure(v, depth + 1) for k, v in value.fields.items()}
    if kind == "named_tuple_value":
        names = [p.key for p in value.values]
        items = [decode_structure(p.value, depth + 1) for p in value.values]
        cls = _NAMEDTUPLES.get(value.name)
        if cls is None or list(cls._fields) != names:
            try:
                cls = collections.namedtuple(value.name or "NamedTuple", names, rename=True)
            except ValueError as e:
                raise WireError(f"a structure holds a named tuple {value.name!r}: {e}") from None
        return cls(*items)
    spec = value  # type_spec_value: a composite spec (RaggedTensorSpec, ...)
    if spec.type_spec_class == _RAGGED_TENSOR_SPEC or spec.type_spec_class_name == "RaggedTensorSpec":
        state = decode_structure(spec.type_state, depth + 1)
        if not isinstance(state, tuple) or len(state) < 4:
            raise WireError(f"a RaggedTensorSpec's state is {state!r}, not (shape, dtype, "
                            f"ragged_rank, row_splits_dtype)")
        return RaggedTensorSpec(state[0], state[1], state[2], state[3])
    raise WireError(f"a structure holds a TypeSpec of class {spec.type_spec_class_name or spec.type_spec_class!r}, "
                    f"which minitf's SavedModel loader does not rebuild")


def fullargspec_value(python_function, drop_self):
    """TF's FullArgSpec of `python_function` (through decorators' `__wrapped__`, as TF's
    tf_inspect reads it), without `self` for a method."""
    try:
        params = list(inspect.signature(python_function).parameters.values())
    except (TypeError, ValueError):  # None, or a callable inspect cannot read
        return FullArgSpec([], None, None, None, [], None, {})
    P = inspect.Parameter
    args = [p.name for p in params if p.kind in (P.POSITIONAL_ONLY, P.POSITIONAL_OR_KEYWORD)]
    if drop_self and args and args[0] == "self":
        args = args[1:]
    defaults = tuple(p.default for p in params if p.kind in (P.POSITIONAL_ONLY,
                                                             P.POSITIONAL_OR_KEYWORD)
                     and p.default is not P.empty) or None
    varargs = next((p.name for p in params if p.kind is P.VAR_POSITIONAL), None)
    varkw = next((p.name for p in params if p.kind is P.VAR_KEYWORD), None)
    kwonly = [p.name for p in params if p.kind is P.KEYWORD_ONLY]
    kwonlydefaults = {p.name: p.default for p in params
                      if p.kind is P.KEYWORD_ONLY and p.default is not P.empty} or None
    return FullArgSpec(args, varargs, varkw, _encodable(defaults), kwonly,
                       _encodable(kwonlydefaults), {})


def _encodable(value):
    """`value` if encode_structure can write it, else None (defaults TF cannot keep)."""
    try:
        encode_structure(value)
    except TypeError:
        return None
    return value
