"""TensorSpec and TraceType: how `tf.function` tells arguments apart.

A `TraceType` describes a value for tracing: two calls whose arguments have equal trace types
reuse one trace; a call whose types are subtypes of a trace's types (a shape `(3,)` of a traced
`(None,)`) reuses it too. `TensorSpec` is the trace type of a tensor: its dtype and shape, with
None for dimensions any size may fill. Datasets and Keras build on TensorSpec as well, so it
lives low in the package.
"""
import abc

from minitf.dtypes import dtypes
from minitf.tensor_shape import TensorShape
from minitf.api_export import export

__all__ = ["TensorSpec", "TraceType", "TracingContext"]


@export("types.experimental.TraceType")
class TraceType(metaclass=abc.ABCMeta):
    """The type of a value for tracing (TF's `tf.types.experimental.TraceType`).

    Subclasses say when one type can stand in for another (`is_subtype_of`), the most specific
    type covering several (`most_specific_common_supertype`, None when there is none), and the
    value a trace of this type sees (`placeholder_value`). They must be hashable and comparable.
    """

    @abc.abstractmethod
    def is_subtype_of(self, other):
        """True when a value of this type may be passed where `other` was traced."""

    @abc.abstractmethod
    def most_specific_common_supertype(self, others):
        """The most specific type that `self` and each of `others` are subtypes of, or None."""

    def placeholder_value(self, placeholder_context=None):
        """The value the traced function sees for an argument of this type."""
        raise NotImplementedError(f"{type(self).__name__} has no placeholder value.")

    @abc.abstractmethod
    def __eq__(self, other):
        """Equal types share one trace."""

    @abc.abstractmethod
    def __hash__(self):
        """Hash consistent with `__eq__`."""


@export("types.experimental.TracingContext")
class TracingContext:
    """What `__tf_tracing_type__(context)` receives while `tf.function` works out a call's types."""

    def __init__(self, is_legacy_signature=False):
        self.is_legacy_signature = is_legacy_signature


@export("TensorSpec")
class TensorSpec(TraceType):
    """Describes a tensor by shape (None for unknown dims), dtype and optional name."""

    def __init__(self, shape, dtype=dtypes.float32, name=None):
        self._shape = TensorShape(shape)
        self._dtype = dtypes.as_dtype(dtype)
        self._name = name

    @classmethod
    def from_tensor(cls, tensor, name=None):
        """The spec of an existing tensor."""
        return cls(tensor.shape, tensor.dtype, name)

    @classmethod
    def from_spec(cls, spec, name=None):
        """A TensorSpec with the shape and dtype of `spec` (and `name`, or its name)."""
        return cls(spec.shape, spec.dtype, name if name is not None else getattr(spec, "name", None))

    @property
    def shape(self):
        """The TensorShape this spec allows."""
        return self._shape

    @property
    def dtype(self):
        """The dtype this spec allows."""
        return self._dtype

    @property
    def name(self):
        """The optional name."""
        return self._name

    def is_compatible_with(self, spec_or_tensor):
        """True when the tensor (or spec) has this dtype and a compatible shape."""
        return (self._dtype == spec_or_tensor.dtype
                and self._shape.is_compatible_with(spec_or_tensor.shape))

    def is_subtype_of(self, other):
        """True when `other` is a TensorSpec of this dtype whose every known dimension (and
        known rank) this spec has too: a `(3,)` spec is a subtype of `(None,)`."""
        if not isinstance(other, TensorSpec) or other._dtype != self._dtype:
            return False
        if other._shape.rank is None:
            return True
        if self._shape.rank != other._shape.rank:
            return False
        return all(o is None or s == o for s, o in zip(self._shape.as_list(), other._shape.as_list()))

    def most_specific_common_supertype(self, others):
        """The spec keeping the dtype (None if dtypes differ) and the dimensions all agree on."""
        dims = self._shape.dims
        for other in others:
            if not isinstance(other, TensorSpec) or other._dtype != self._dtype:
                return None
            if dims is None or other._shape.rank != len(dims):
                dims = None
            else:
                dims = [a if a == b else None for a, b in zip(dims, other._shape.as_list())]
        return TensorSpec(dims, self._dtype, self._name)

    def most_specific_compatible_type(self, other):
        """The most specific spec `self` and `other` both fit (ValueError if dtypes differ)."""
        common = self.most_specific_common_supertype([other])
        if common is None:
            raise ValueError(f"No TypeSpec is compatible with both {self} and {other}")
        return common

    def placeholder_value(self, placeholder_context=None):
        """Tracing sees a symbolic tensor of this spec (made by the graph being traced)."""
        raise NotImplementedError("A TensorSpec's placeholder is made by the graph being traced.")

    def __eq__(self, other):
        return (isinstance(other, TensorSpec) and self._shape == other._shape
                and self._dtype == other._dtype and self._name == other._name)

    def __hash__(self):
        return hash((self._shape, self._dtype, self._name))

    def __repr__(self):
        return f"TensorSpec(shape={self._shape}, dtype={self._dtype!r}, name={self._name!r})"
