"""IndexedSlices: a sparse gradient (rows `indices` of a dense tensor), as gather's gradient gives."""
import numpy as np

from minitf.tensor import Tensor
from minitf.tensor_shape import TensorShape

__all__ = ["IndexedSlices"]


class IndexedSlices:
    """Rows of a tensor of shape `dense_shape`: `values[i]` belongs at row `indices[i]`.

    Repeated indices add up. Optimizers update only those rows; `tf.convert_to_tensor` (and any
    op given one) densifies it.
    """

    def __init__(self, values, indices, dense_shape=None):
        self.values = values
        self.indices = indices
        # the dims as Python ints for internal use; `dense_shape` is an int32 tensor as in TF
        self._dims = None if dense_shape is None else tuple(int(d) for d in (
            dense_shape._value.tolist() if isinstance(dense_shape, Tensor) else dense_shape))
        self.dense_shape = None if dense_shape is None else Tensor(np.asarray(self._dims, dtype=np.int32))

    @property
    def dtype(self):
        """The dtype of the values."""
        return self.values.dtype

    @property
    def shape(self):
        """The dense shape."""
        return TensorShape(self._dims)

    def to_dense(self):
        """The equivalent dense tensor (rows with repeated indices summed), differentiable."""
        from minitf.ops._core import Tensor, _state, record, array_module
        values = self.values
        xp = array_module(values._value)
        out = xp.zeros(self._dims, dtype=values._value.dtype)
        xp.add.at(out, self.indices._value, values._value)
        result = Tensor(out)
        if _state.active:
            from minitf.ops.array import gather
            indices = self.indices
            record("IndexedSlicesToDense", (values,), (result,), lambda g: gather(g, indices))
        return result

    def __add__(self, other):
        from minitf.ops.array import concat
        if isinstance(other, IndexedSlices):
            return IndexedSlices(concat([self.values, other.values], 0),
                                 concat([self.indices, other.indices], 0), self.dense_shape)
        return self.to_dense() + other

    def __radd__(self, other):
        return other + self.to_dense()

    def __mul__(self, scalar):
        return IndexedSlices(self.values * scalar, self.indices, self.dense_shape)

    __rmul__ = __mul__

    def __repr__(self):
        return (f"IndexedSlices(indices={self.indices!r}, values={self.values!r}, "
                f"dense_shape={self.dense_shape!r})")
