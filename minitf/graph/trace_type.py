"""The trace types of `tf.function` arguments, by TF's rules.

Tensors are traced by dtype and shape (`TensorSpec`), variables by dtype and shape and by which
arguments are the same variable, Python scalars and strings by value (`Literal`), lists, tuples,
namedtuples and dicts by their structure and their items' types, objects that define
`__tf_tracing_type__` by the type they give, and any other object by identity (held weakly, so
a trace for an object that died is never reused for a new object at the same address).
"""
import weakref

import numpy as np

from minitf.dtypes import dtypes
from minitf.tensor import Tensor
from minitf.tensor_spec import TensorSpec, TraceType, TracingContext
from minitf.variable import Variable

__all__ = ["Literal", "VariableType", "Identity", "Composite", "Structure", "trace_type_of",
           "has_composite", "describe"]


class Literal(TraceType):
    """A Python scalar, string, bytes or None: traced by its type and value."""

    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value

    def is_subtype_of(self, other):
        return self == other

    def most_specific_common_supertype(self, others):
        return self if all(self == o for o in others) else None

    def placeholder_value(self, placeholder_context=None):
        return self.value

    def __eq__(self, other):
        # by value, as TF: 1, 1.0 and True share a trace; NaN equals NaN
        if not isinstance(other, Literal):
            return False
        a, b = self.value, other.value
        if isinstance(a, (str, bytes)) or isinstance(b, (str, bytes)) or a is None or b is None:
            return type(a) is type(b) and a == b
        return a == b or (a != a and b != b)

    def __hash__(self):
        return hash(self.value)

    def __repr__(self):
        return f"Literal[{self.value!r}]"


class VariableType(TraceType):
    """A variable argument: its dtype and shape, and which argument position it aliases (so
    `f(v, v)` and `f(v, w)` are traced apart, as TF does)."""

    __slots__ = ("shape", "dtype", "alias")

    def __init__(self, shape, dtype, alias):
        self.shape = shape
        self.dtype = dtype
        self.alias = alias

    def is_subtype_of(self, other):
        return self == other

    def most_specific_common_supertype(self, others):
        return self if all(self == o for o in others) else None

    def __eq__(self, other):
        return (isinstance(other, VariableType) and self.shape == other.shape
                and self.dtype == other.dtype and self.alias == other.alias)

    def __hash__(self):
        return hash((self.shape, self.dtype, self.alias))

    def __repr__(self):
        return f"VariableSpec(shape={self.shape}, dtype={self.dtype!r}, trainable=True, alias_id={self.alias})"


class Identity(TraceType):
    """Any other object: the same object, held by a weak reference where possible."""

    __slots__ = ("_ref", "_strong", "_id", "_type_name")

    def __init__(self, obj):
        try:
            self._ref = weakref.ref(obj)
            self._strong = None
        except TypeError:
            self._ref = None
            self._strong = obj
        self._id = id(obj)
        self._type_name = type(obj).__name__

    def get(self):
        """The object, or None once it has died."""
        return self._strong if self._ref is None else self._ref()

    def is_subtype_of(self, other):
        return self == other

    def most_specific_common_supertype(self, others):
        return self if all(self == o for o in others) else None

    def placeholder_value(self, placeholder_context=None):
        return self.get()

    def __eq__(self, other):
        if not isinstance(other, Identity) or other._id != self._id:
            return False
        mine = self.get()
        return mine is not None and mine is other.get()

    def __hash__(self):
        return self._id

    def __repr__(self):
        return self._type_name


class Composite(Identity):
    """A composite tensor argument not traced as components (a SparseTensor): minitf runs a
    function called with one eagerly rather than tracing it. A RaggedTensor is traced by its
    RaggedTensorSpec instead (see minitf.ragged.ragged_graph)."""


def has_composite(trace_type):
    """True when `trace_type` is or contains a Composite."""
    if isinstance(trace_type, Composite):
        return True
    if isinstance(trace_type, Structure):
        return any(has_composite(t) for t in trace_type.items)
    return False


class Structure(TraceType):
    """A list, tuple, namedtuple or dict: its kind, keys and the trace types of its items."""

    __slots__ = ("kind", "keys", "items")

    def __init__(self, kind, keys, items):
        self.kind = kind
        self.keys = keys
        self.items = tuple(items)

    def is_subtype_of(self, other):
        return (isinstance(other, Structure) and self.kind is other.kind and self.keys == other.keys
                and len(self.items) == len(other.items)
                and all(a.is_subtype_of(b) for a, b in zip(self.items, other.items)))

    def most_specific_common_supertype(self, others):
        for o in others:
            if not isinstance(o, Structure) or o.kind is not self.kind or o.keys != self.keys \
                    or len(o.items) != len(self.items):
                return None
        items = []
        for i, item in enumerate(self.items):
            common = item.most_specific_common_supertype([o.items[i] for o in others])
            if common is None:
                return None
            items.append(common)
        return Structure(self.kind, self.keys, items)

    def __eq__(self, other):
        return (isinstance(other, Structure) and self.kind is other.kind and self.keys == other.keys
                and self.items == other.items)

    def __hash__(self):
        return hash((self.kind, self.keys, self.items))

    def __repr__(self):
        return describe(self)


def _plain_spec(shape, dtype):
    return TensorSpec(shape, dtype)


def trace_type_of(value, context=None, aliases=None):
    """The trace type of one argument value (`aliases` numbers the variables seen so far)."""
    if isinstance(value, Tensor):
        return _plain_spec(value.shape, value.dtype)
    if isinstance(value, Variable):
        if aliases is None:
            aliases = {}
        alias = aliases.setdefault(value._id, len(aliases))
        return VariableType(value.shape, value.dtype, alias)
    kind = type(value)
    if value is None or kind in (bool, int, float, str, bytes, complex):
        return Literal(value)
    if isinstance(value, np.ndarray):
        return _plain_spec(value.shape, dtypes.as_dtype(value.dtype))
    if isinstance(value, np.generic):
        return Literal(value.item())
    if hasattr(kind, "_type_spec") and not isinstance(value, TensorSpec):
        spec = value._type_spec
        # a RaggedTensor is traced by its spec, as its components; a SparseTensor runs eagerly
        return spec if _traced_as_components(spec) else Composite(value)
    if isinstance(getattr(value, "value_type", None), type) and not isinstance(value, TensorSpec):
        # get_concrete_function(tf.RaggedTensorSpec(...)) traces that spec
        return value if _traced_as_components(value) else Composite(value)
    if isinstance(value, TensorSpec):  # get_concrete_function(tf.TensorSpec(...)): that spec
        return _plain_spec(value.shape, value.dtype)
    custom = getattr(kind, "__tf_tracing_type__", None)
    if custom is not None:
        traced = custom(value, context or TracingContext())
        return traced if isinstance(traced, TraceType) else Composite(value)
    if isinstance(value, dict):
        keys = tuple(sorted(value, key=repr))
        return Structure(kind, keys, [trace_type_of(value[k], context, aliases) for k in keys])
    if isinstance(value, (list, tuple)):
        return Structure(kind, len(value), [trace_type_of(v, context, aliases) for v in value])
    return Identity(value)


def _traced_as_components(spec):
    """True for a composite spec whose values graphs take as component tensors (it places them
    with `_graph_placeholder` and splits values with `_to_components`)."""
    return isinstance(spec, TraceType) and hasattr(spec, "_graph_placeholder")


def describe(trace_type):
    """A trace type as TF prints it in signatures: `TensorSpec(...)`, `Literal[2]`, `List[...]`."""
    if isinstance(trace_type, Structure):
        items = [describe(t) for t in trace_type.items]
        if issubclass(trace_type.kind, dict):
            return "Dict[" + ", ".join(f"[{k!r}, {v}]" for k, v in zip(trace_type.keys, items)) + "]"
        if issubclass(trace_type.kind, list):
            return "List[" + ", ".join(items) + "]"
        if hasattr(trace_type.kind, "_fields"):
            return f"{trace_type.kind.__name__}[" + ", ".join(items) + "]"
        return "Tuple[" + ", ".join(items) + "]"
    return repr(trace_type)
