"""IndexedSlices: a sparse gradient (rows `indices` of a dense tensor), as gather's gradient gives."""
import numpy as np

from minitf import backend
from minitf.recording import Op, thread_state, record
from minitf.tensor import Tensor
from minitf.tensor_shape import TensorShape
from minitf.api_export import export

__all__ = ["IndexedSlices"]


@export("IndexedSlices")
class IndexedSlices:
    """Rows of a tensor of shape `dense_shape`: `values[i]` belongs at row `indices[i]`.

    Repeated indices add up. Optimizers update only those rows; `tf.convert_to_tensor` (and any
    op given one) densifies it.
    """

    _is_tensor_like = True  # tf.is_tensor says True, as in TF

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
        return scatter_rows(self.values, self.indices, self._dims)

    def __tf_tensor__(self, dtype=None, name=None):
        """How `tf.convert_to_tensor` (and any op given an IndexedSlices) densifies it."""
        return self.to_dense()

    def __mul__(self, scalar):
        return IndexedSlices(self.values * scalar, self.indices, self.dense_shape)

    __rmul__ = __mul__

    def __repr__(self):
        return (f"IndexedSlices(indices={self.indices!r}, values={self.values!r}, "
                f"dense_shape={self.dense_shape!r})")


# Densifying and gathering rows are each other's gradient, so both live here, below the ops.
SCATTER_ROWS = Op("IndexedSlicesToDense")
GATHER_ROWS = Op("IndexedSlicesGatherRows")


def scatter_rows(values, indices, dims):
    """A zero tensor of shape `dims` with `values[i]` added at row `indices[i]` (differentiable)."""
    xp = backend.array_module(values._value)
    out = xp.zeros(dims, dtype=values._value.dtype)
    xp.add.at(out, indices._value, values._value)
    result = Tensor(out)
    if thread_state.active:
        record(SCATTER_ROWS, (values,), (result,), lambda g: gather_rows(g, indices))
    return result


def gather_rows(dense, indices):
    """Rows `indices` of `dense` (the gradient of `scatter_rows`, and differentiable itself)."""
    result = Tensor(dense._value[indices._value])
    if thread_state.active:
        dims = tuple(dense._value.shape)
        record(GATHER_ROWS, (dense,), (result,), lambda g: scatter_rows(g, indices, dims))
    return result
