"""RaggedTensorSpec: the type of a RaggedTensor (a tf.function argument, a tf.data element)."""
from minitf.dtypes import dtypes
from minitf.ops._core import Tensor
from minitf.ragged.ragged_tensor import RaggedTensor
from minitf.tensor_shape import TensorShape
from minitf.tensor_spec import TraceType
from minitf.api_export import export

__all__ = ["RaggedTensorSpec"]


@export("RaggedTensorSpec", "ragged.RaggedTensorSpec")
class RaggedTensorSpec(TraceType):
    """Describes a RaggedTensor: shape (None for ragged dimensions), dtype, ragged_rank."""

    def __init__(self, shape=None, dtype=dtypes.float32, ragged_rank=None, row_splits_dtype=dtypes.int64,
                 flat_values_spec=None):
        self._shape = TensorShape(shape)
        self._dtype = dtypes.as_dtype(dtype)
        rank = self._shape.rank
        if ragged_rank is None:  # every dimension after the first is ragged (-1 for a scalar, as TF)
            if rank is None:
                raise ValueError("Must specify ragged_rank or a shape with a known rank.")
            ragged_rank = rank - 1
        elif ragged_rank < 0:
            raise ValueError(f"Argument `ragged_rank` ({ragged_rank}) must be non-negative.")
        elif rank is not None and ragged_rank >= rank:
            raise ValueError(f"Argument `ragged_rank` ({ragged_rank}) must be less than rank ({rank}).")
        self._ragged_rank = ragged_rank
        self._row_splits_dtype = dtypes.as_dtype(row_splits_dtype)

    shape = property(lambda self: self._shape, doc="The shape, None where unknown or ragged.")
    dtype = property(lambda self: self._dtype, doc="The dtype of the values.")
    ragged_rank = property(lambda self: self._ragged_rank, doc="How many dimensions are ragged.")
    row_splits_dtype = property(lambda self: self._row_splits_dtype, doc="int64 (or int32).")

    @property
    def value_type(self):
        """The class of the values this spec describes: RaggedTensor, or Tensor for ragged_rank 0
        (a row of a ragged_rank-1 tensor is a plain Tensor)."""
        return RaggedTensor if self._ragged_rank > 0 else Tensor

    @classmethod
    def from_value(cls, value):
        """The spec of a RaggedTensor (or of a Tensor, as ragged_rank 0)."""
        if isinstance(value, RaggedTensor):
            return cls(shape=value.shape, dtype=value.dtype, ragged_rank=value.ragged_rank,
                       row_splits_dtype=value.row_splits_dtype)
        return cls(shape=value.shape, dtype=value.dtype, ragged_rank=0)

    def is_compatible_with(self, spec_or_value):
        """True when `spec_or_value` (a spec, a RaggedTensor, or a Tensor for ragged_rank 0)
        fits this spec: same dtype, ragged_rank and row_splits dtype, compatible shape."""
        other = spec_or_value
        if isinstance(other, RaggedTensor) or (isinstance(other, Tensor) and self._ragged_rank == 0):
            other = RaggedTensorSpec.from_value(other)
        if not isinstance(other, RaggedTensorSpec):
            return False
        return (self._dtype == other._dtype and self._ragged_rank == other._ragged_rank
                and self._row_splits_dtype == other._row_splits_dtype
                and self._shape.is_compatible_with(other._shape))

    def is_subtype_of(self, other):
        """True when every value of this spec fits `other` (tf.function's trace reuse)."""
        return (isinstance(other, RaggedTensorSpec) and self._dtype == other._dtype
                and self._ragged_rank == other._ragged_rank
                and self._row_splits_dtype == other._row_splits_dtype
                and _shape_subtype(self._shape, other._shape))

    def most_specific_common_supertype(self, others):
        """The narrowest spec covering this one and `others` (dimensions that differ become
        None), or None when they differ in dtype or ragged_rank."""
        shape = self._shape
        for o in others:
            if not (isinstance(o, RaggedTensorSpec) and o._dtype == self._dtype
                    and o._ragged_rank == self._ragged_rank and o._row_splits_dtype == self._row_splits_dtype):
                return None
            shape = _shape_supertype(shape, o._shape)
        return RaggedTensorSpec(shape, self._dtype, self._ragged_rank, self._row_splits_dtype)

    def _batch(self, batch_size):
        """The spec of `batch_size` of these stacked (one more ragged dimension in front)."""
        return RaggedTensorSpec(TensorShape([batch_size]).concatenate(self._shape), self._dtype,
                                self._ragged_rank + 1, self._row_splits_dtype)

    def _unbatch(self):
        """The spec of one row of a value of this spec."""
        if self._ragged_rank == 0 or self._shape.rank == 0:
            raise ValueError("Slicing dataset elements is not supported for rank 0.")
        return RaggedTensorSpec(self._shape[1:], self._dtype, self._ragged_rank - 1, self._row_splits_dtype)

    def __eq__(self, other):
        return (isinstance(other, RaggedTensorSpec) and self._dtype == other._dtype
                and self._shape.dims == other._shape.dims and self._ragged_rank == other._ragged_rank
                and self._row_splits_dtype == other._row_splits_dtype)

    def __hash__(self):
        return hash((None if self._shape.dims is None else tuple(self._shape.dims), self._dtype.name,
                     self._ragged_rank))

    def __repr__(self):
        return (f"RaggedTensorSpec({self._shape!r}, tf.{self._dtype.name}, {self._ragged_rank}, "
                f"tf.{self._row_splits_dtype.name})")


def _shape_subtype(a, b):
    """True when shape `a` is `b` or more specific (b's None dims and unknown rank match anything)."""
    if b.rank is None:
        return True
    if a.rank != b.rank:
        return False
    return all(y is None or x == y for x, y in zip(a.as_list(), b.as_list()))


def _shape_supertype(a, b):
    """The narrowest shape covering `a` and `b`: dims that differ become None, ranks that
    differ make the rank unknown."""
    if a.rank is None or b.rank is None or a.rank != b.rank:
        return TensorShape(None)
    return TensorShape([x if x == y else None for x, y in zip(a.as_list(), b.as_list())])


# A RaggedTensor's spec, as TF's composite tensors expose it (tf.function reads it).
RaggedTensor._type_spec = property(RaggedTensorSpec.from_value, doc="The RaggedTensorSpec of this tensor.")


def _tracing_type(value, context=None):
    """tf.function traces a RaggedTensor argument by its spec (TF's retracing rule)."""
    return RaggedTensorSpec.from_value(value)


RaggedTensor.__tf_tracing_type__ = _tracing_type
