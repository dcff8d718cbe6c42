"""tf.experimental.DynamicRaggedShape: the shape of a (possibly) ragged tensor.

A shape is a list of row partitions (one per ragged or partitioned dimension after the first)
and an inner shape (the dense shape of the flat values). `tf.shape(rt)` returns one; `tf.reshape`,
`tf.zeros`, `tf.ones` and `tf.fill` take one and build a RaggedTensor of that shape. Everything
is eager here, so the sizes are always known: `static_lengths()` reports them all.
"""
import numpy as np

from minitf.dtypes import dtypes
from minitf.ops import creation, shaping
from minitf.ops._core import Tensor
from minitf.ragged.ragged_math import register
from minitf.ragged.ragged_tensor import RaggedTensor
from minitf.ragged.row_partition import RowPartition
from minitf.api_export import export

__all__ = ["DynamicRaggedShape"]


def _dtype_of(value):
    """The int32/int64 dtype a value prefers (TF's _find_dtype), or None."""
    if isinstance(value, RowPartition):
        return value.dtype
    if isinstance(value, Tensor):
        return value.dtype
    if isinstance(value, np.ndarray) and value.dtype == np.int32:
        return dtypes.int32
    return None


def _is_int_or_tuple_of_ints(x):
    if isinstance(x, (bool, np.bool_)):
        return False
    if isinstance(x, int):
        return True
    return isinstance(x, tuple) and all(isinstance(y, int) and not isinstance(y, bool) for y in x)


@export("experimental.DynamicRaggedShape")
class DynamicRaggedShape:
    """The shape of a ragged (or dense) tensor: row partitions plus the flat values' shape.

    Args:
      row_partitions: a list of `tf.experimental.RowPartition`, outermost first.
      inner_shape: the dense shape of the flat values (of the whole tensor without partitions).
      dtype: tf.int32 or tf.int64 for the sizes (by default the partitions' or inner shape's
        dtype, else int64).
      validate: accepted for TF compatibility (sizes are always checked eagerly).
      static_inner_shape: accepted for TF compatibility.

    Raises:
      TypeError: row_partitions is not a list of RowPartition.
      ValueError: the partitions do not fit each other or the inner shape.
    """

    def __init__(self, row_partitions, inner_shape, dtype=None, validate=False, static_inner_shape=None):
        if not isinstance(row_partitions, (list, tuple)):
            raise TypeError(f"row_partitions should be a list of row partitions. Instead, got {row_partitions}")
        for rp in row_partitions:
            if not isinstance(rp, RowPartition):
                raise TypeError(f"row_partitions contains {rp} which is not a RowPartition")
        if dtype is not None:
            dtype = dtypes.as_dtype(dtype)
        else:
            for rp in row_partitions:
                dtype = dtype or rp.dtype
            dtype = dtype or _dtype_of(inner_shape)
        dtype = dtype or dtypes.int64
        if dtype not in (dtypes.int32, dtypes.int64):
            raise ValueError(f"Illegal dtype: {dtype!r}")
        self._dtype = dtype
        self._row_partitions = tuple(rp.with_dtype(dtype) for rp in row_partitions)
        inner = np.asarray(inner_shape.numpy() if isinstance(inner_shape, Tensor) else
                           [int(d.numpy()) if isinstance(d, Tensor) else d for d in inner_shape]
                           if isinstance(inner_shape, (list, tuple)) else inner_shape)
        if inner.ndim != 1:
            raise ValueError(f"Shape {list(inner.shape)} must have rank 1: the inner shape of a "
                             f"DynamicRaggedShape is a vector of sizes")
        self._inner = inner.astype(np.int64)
        for axis in range(1, len(self._row_partitions)):
            before, rp = self._row_partitions[axis - 1], self._row_partitions[axis]
            if int(before._host_splits()[-1]) != rp.static_nrows:
                raise ValueError(f"RowPartitions in DynamicRaggedShape do not align between {axis - 1} and {axis}")
        if self._row_partitions:
            last = self._row_partitions[-1]
            if last.static_nvals is not None and self._inner.size and last.static_nvals != self._inner[0]:
                raise ValueError("Last row partition does not match inner_shape.")

    # -- factories ----------------------------------------------------------------------------
    @classmethod
    def from_lengths(cls, lengths, num_row_partitions=None, dtype=dtypes.int64):
        """The shape with these lengths: an int per uniform dimension, a tuple of row lengths per
        ragged one (`[2, (3, 2)]` is the shape of `[[0, 0, 0], [0, 0]]`). By default the fewest
        row partitions that describe it."""
        if not isinstance(lengths, list):
            raise ValueError("lengths should be a list")
        for x in lengths:
            if not _is_int_or_tuple_of_ints(x):
                raise ValueError(f"element of lengths should be int or tuple of ints: instead {x!r}")
        if num_row_partitions is None:
            is_list = [not isinstance(x, int) for x in lengths]
            num_row_partitions = (len(is_list) - is_list[::-1].index(True) - 1) if any(is_list) else 0
        if not isinstance(num_row_partitions, int):
            raise ValueError("num_row_partitions should be an int or None")
        if not lengths:
            if num_row_partitions > 0:
                raise ValueError("num_row_partitions==0 for a scalar shape")
            return cls([], [], dtype=dtype)
        if not num_row_partitions < len(lengths):
            raise ValueError("num_row_partitions should be less than `len(lengths)` if shape is not scalar.")
        if num_row_partitions == 0:
            return cls([], lengths, dtype=dtype)
        size, partitions = lengths[0], []
        for current in lengths[1:num_row_partitions + 1]:
            if isinstance(current, int):
                partitions.append(RowPartition.from_uniform_row_length(current, current * size, nrows=size))
                size = current * size
            else:
                if size != len(current):
                    raise ValueError("Shape not consistent.")
                partitions.append(RowPartition.from_row_lengths(list(current)))
                size = sum(current)
        return cls(partitions, [size] + lengths[num_row_partitions + 1:], dtype=dtype)

    @classmethod
    def from_row_partitions(cls, row_partitions, dtype=None):
        """The shape of flat values partitioned by `row_partitions` (a non-empty list)."""
        if not row_partitions:
            raise ValueError("row_partitions cannot be empty")
        return cls(row_partitions, [int(row_partitions[-1]._host_splits()[-1])], dtype=dtype)

    @classmethod
    def from_tensor(cls, t, dtype=None):
        """The shape of a Tensor or RaggedTensor."""
        if isinstance(t, RaggedTensor):
            return cls(_partitions_of(t), list(t.flat_values.shape), dtype=dtype)
        return cls([], shaping.shape(t), dtype=dtype)

    @classmethod
    def _from_ragged(cls, rt, dtype=dtypes.int32):
        """tf.shape of a RaggedTensor (int32 sizes unless out_type says otherwise)."""
        return cls.from_tensor(rt, dtype=dtype)

    # -- what a shape reports -----------------------------------------------------------------
    @property
    def row_partitions(self):
        """The row partitions, outermost first (a tuple)."""
        return self._row_partitions

    @property
    def num_row_partitions(self):
        """How many row partitions the shape has."""
        return len(self._row_partitions)

    @property
    def dtype(self):
        """The dtype of the sizes: tf.int32 or tf.int64."""
        return self._dtype

    @property
    def inner_shape(self):
        """The dense shape of the flat values, a 1-D integer tensor."""
        return Tensor(self._inner.astype(self._dtype._np))

    @property
    def inner_rank(self):
        """The rank of the flat values."""
        return int(self._inner.size)

    @property
    def rank(self):
        """The number of dimensions."""
        return self.num_row_partitions + self.inner_rank

    def static_lengths(self, ragged_lengths=True):
        """The size of every dimension: an int for a uniform one, the tuple of row lengths for a
        ragged one (None there when `ragged_lengths` is False)."""
        if not self._row_partitions:
            return [int(d) for d in self._inner]
        out = [self._row_partitions[0].static_nrows]
        for rp in self._row_partitions:
            if rp.is_uniform():
                out.append(rp.static_uniform_row_length)
            elif ragged_lengths:
                out.append(tuple(int(d) for d in np.diff(rp._host_splits())))
            else:
                out.append(None)
        return out + [int(d) for d in self._inner[1:]]

    def is_uniform(self, axis):
        """True when dimension `axis` has one size (it is not ragged)."""
        if not isinstance(axis, int):
            raise TypeError("axis must be an integer")
        if axis < 0:
            raise IndexError("Negative axis values are not supported")
        if axis >= self.rank:
            raise IndexError(f"Expected axis={axis} < rank={self.rank}")
        return axis == 0 or axis > self.num_row_partitions or self._row_partitions[axis - 1].is_uniform()

    def with_dtype(self, dtype):
        """This shape with int32 or int64 sizes."""
        return DynamicRaggedShape(self._row_partitions, self._inner, dtype=dtype)

    def _dimension(self, index):
        if index >= self.rank and (self.num_row_partitions == 0 or index > self.num_row_partitions + 1):
            raise IndexError(f"Index is too big: {index}>={self.rank}")
        if index < 0:
            raise IndexError(f"Index must be non-negative: {index}")
        if not self.is_uniform(index):
            raise ValueError(f"Index {index} is not uniform")
        if index == 0 and self._row_partitions:
            size = self._row_partitions[0].static_nrows
        elif index > self.num_row_partitions or not self._row_partitions:
            size = self._inner[index - self.num_row_partitions]
        else:
            size = self._row_partitions[index - 1].static_uniform_row_length
        return Tensor(np.asarray(size, dtype=self._dtype._np))

    def _dense_sizes(self):
        """All sizes as ints; ValueError when a dimension is ragged."""
        for rp in self._row_partitions:
            if not rp.is_uniform():
                raise ValueError("All relevant dimensions must be uniform")
        return self.static_lengths()

    def _slice_shape(self, start, stop):
        if stop <= start:
            return DynamicRaggedShape([], [], dtype=self._dtype)
        if start == 0:
            if stop <= self.num_row_partitions:
                if stop == 1:
                    return DynamicRaggedShape([], [self._row_partitions[0].static_nrows], dtype=self._dtype)
                kept = self._row_partitions[:stop - 1]
                return DynamicRaggedShape(kept, [int(kept[-1]._host_splits()[-1])], dtype=self._dtype)
            if self.rank <= stop:
                return self
            return DynamicRaggedShape(self._row_partitions, self._inner[:stop - self.num_row_partitions],
                                      dtype=self._dtype)
        partial = self._slice_shape(0, stop) if stop < self.rank else self
        return DynamicRaggedShape([], partial._dense_sizes()[start:], dtype=self._dtype)

    def __getitem__(self, index):
        """A uniform dimension's size (a scalar tensor), or the shape of a slice of dimensions.

        Raises:
          ValueError: the dimension (or a dimension the slice needs) is ragged.
          IndexError: the index is out of range, or the slice has a step.
        """
        rank = self.rank
        if isinstance(index, slice):
            if index.step is not None and index.step != 1:
                raise IndexError("Cannot stride through a shape")
            start = 0 if index.start is None else index.start
            if start < 0:
                start = max(rank + start, 0)
            if not (self.num_row_partitions > 0 and start <= self.num_row_partitions + 1) and start:
                start = min(start, rank)
            stop = rank if index.stop is None else index.stop
            if stop < 0:
                stop = max(rank + stop, 0)
            return self._slice_shape(start, min(rank, stop))
        if isinstance(index, (int, np.integer)) and not isinstance(index, bool):
            index = int(index)
            return self._dimension(rank + index if index < 0 else index)
        raise TypeError("Argument is not an int or a slice")

    def __repr__(self):
        lengths = self.static_lengths()
        return (f"<DynamicRaggedShape lengths=[{', '.join(map(str, lengths))}] "
                f"num_row_partitions={self.num_row_partitions}>")

    __str__ = __repr__

    def _add_row_partitions(self, flat_values):
        """`flat_values` (shaped like inner_shape) partitioned by this shape's row partitions."""
        result = flat_values
        for rp in reversed(self._row_partitions):
            result = RaggedTensor._make(result, rp._host_splits(), rp.static_uniform_row_length)
        return result

    @classmethod
    def __tf_dispatch__(cls, api, args, kwargs):
        """tf.reshape / zeros / ones / fill given a DynamicRaggedShape (see the handlers below)."""
        handler = _SHAPE_HANDLERS.get(api)
        return NotImplemented if handler is None else handler(*args, **kwargs)


def _partitions_of(rt):
    """The RowPartitions of a RaggedTensor, outermost first."""
    out, level = [], rt
    while isinstance(level, RaggedTensor):
        splits = level._splits_np
        if level._uniform_row_length is not None:
            out.append(RowPartition.from_uniform_row_length(level._uniform_row_length, nrows=splits.size - 1))
        else:
            out.append(RowPartition.from_row_splits(splits, validate=False))
        level = level.values
    return out


def _reshape(tensor, shape, name=None):
    """tf.reshape of a Tensor or RaggedTensor: its values laid out in `shape` (a DynamicRaggedShape
    gives a RaggedTensor; a ragged input is flattened first)."""
    if isinstance(tensor, RaggedTensor):
        tensor = tensor.flat_values
    if isinstance(shape, DynamicRaggedShape):
        return shape._add_row_partitions(shaping.reshape(tensor, shape.inner_shape))
    return shaping.reshape(tensor, shape)


def _zeros(shape, dtype=dtypes.float32, name=None, layout=None):
    if not isinstance(shape, DynamicRaggedShape):
        return NotImplemented
    return shape._add_row_partitions(creation.zeros(shape.inner_shape, dtype=dtype))


def _ones(shape, dtype=dtypes.float32, name=None, layout=None):
    if not isinstance(shape, DynamicRaggedShape):
        return NotImplemented
    return shape._add_row_partitions(creation.ones(shape.inner_shape, dtype=dtype))


def _fill(dims, value, name=None, layout=None):
    if not isinstance(dims, DynamicRaggedShape):
        return NotImplemented
    return dims._add_row_partitions(creation.fill(dims.inner_shape, value))


_SHAPE_HANDLERS = {shaping.reshape: _reshape, creation.zeros: _zeros, creation.ones: _ones,
                   creation.fill: _fill}


@register(shaping.reshape)
def _ragged_reshape(api, tensor, shape, name=None):
    return _reshape(tensor, shape)


@register(shaping.shape)
def _shape(api, input, out_type=None, name=None):  # noqa: A002
    if not isinstance(input, RaggedTensor):
        return NotImplemented
    return DynamicRaggedShape._from_ragged(input, out_type or dtypes.int32)
