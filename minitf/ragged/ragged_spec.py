"""RaggedTensorSpec (the type of a RaggedTensor argument) and the small DynamicRaggedShape that
tf.shape returns for a RaggedTensor."""
import numpy as np

from minitf import dtypes
from minitf.ops import shaping
from minitf.ops._core import Tensor
from minitf.ragged.ragged_math import register
from minitf.ragged.ragged_tensor import RaggedTensor
from minitf.tensor_shape import TensorShape

__all__ = ["RaggedTensorSpec", "DynamicRaggedShape"]


class RaggedTensorSpec:
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
    value_type = property(lambda self: RaggedTensor, doc="The class this spec describes.")

    @classmethod
    def from_value(cls, value):
        """The spec of a RaggedTensor."""
        return cls(shape=value.shape, dtype=value.dtype, ragged_rank=value.ragged_rank)

    def is_compatible_with(self, other):
        """True when `other` (a spec or a RaggedTensor) could be described by this spec."""
        if isinstance(other, RaggedTensor):
            other = RaggedTensorSpec.from_value(other)
        if not isinstance(other, RaggedTensorSpec):
            return False
        return (self._dtype == other._dtype and self._ragged_rank == other._ragged_rank
                and self._shape.is_compatible_with(other._shape))

    def __eq__(self, other):
        return (isinstance(other, RaggedTensorSpec) and self._dtype == other._dtype
                and self._shape.dims == other._shape.dims and self._ragged_rank == other._ragged_rank)

    def __hash__(self):
        return hash((None if self._shape.dims is None else tuple(self._shape.dims), self._dtype.name,
                     self._ragged_rank))

    def __repr__(self):
        return (f"RaggedTensorSpec({self._shape!r}, tf.{self._dtype.name}, {self._ragged_rank}, "
                f"tf.{self._row_splits_dtype.name})")


class DynamicRaggedShape:
    """The shape of a RaggedTensor as tf.shape reports it: uniform sizes and row lengths.

    Only what printing and indexing need is here: `rt_shape[0]`, slices of the leading uniform
    dimensions, and TF's ValueError for a ragged dimension.
    """

    def __init__(self, lengths, num_row_partitions, dtype=dtypes.int32):
        self._lengths = list(lengths)
        self._num_row_partitions = num_row_partitions
        self._dtype = dtypes.as_dtype(dtype)

    @classmethod
    def from_ragged(cls, rt, dtype=dtypes.int32):
        """The shape of RaggedTensor `rt`."""
        lengths = [rt.nrows_int()]
        v = rt
        while isinstance(v, RaggedTensor):
            ul = v._uniform_row_length
            lengths.append(ul if ul is not None else tuple(np.diff(v._splits_np).tolist()))
            v = v.values
        return cls(lengths + list(v.shape)[1:], rt.ragged_rank, dtype)

    @property
    def rank(self):
        """The number of dimensions."""
        return len(self._lengths)

    @property
    def dtype(self):
        """The dtype of the sizes (int32 unless tf.shape was given out_type)."""
        return self._dtype

    def __getitem__(self, index):
        if isinstance(index, slice):
            dims = self._lengths[index]
            if any(isinstance(d, tuple) for d in dims):
                raise ValueError(f"Cannot slice a DynamicRaggedShape through a ragged dimension: {index}")
            return DynamicRaggedShape(dims, 0, self._dtype)
        d = self._lengths[index]
        if isinstance(d, tuple):
            raise ValueError(f"Index {index} is not uniform")
        return Tensor(np.asarray(d, dtype=self._dtype._np))

    def __repr__(self):
        parts = ", ".join(str(d) if not isinstance(d, tuple) else "(" + ", ".join(map(str, d)) + ")"
                          for d in self._lengths)
        return f"<DynamicRaggedShape lengths=[{parts}] num_row_partitions={self._num_row_partitions}>"

    __str__ = __repr__


@register(shaping.shape)
def _shape(api, input, out_type=None, name=None):  # noqa: A002
    if not isinstance(input, RaggedTensor):
        return NotImplemented
    return DynamicRaggedShape.from_ragged(input, out_type or dtypes.int32)
