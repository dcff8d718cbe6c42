"""SparseTensor: `values[i]` sits at `indices[i]` of a tensor of shape `dense_shape`, the rest is zero.

As in TF, the three parts are tensors: `indices` int64 [N, rank], `values` [N] of any dtype and
`dense_shape` int64 [rank]. The object is immutable; ops return new ones. `*` and `/` with a
dense tensor or scalar act on the stored values only (TF's SparseDenseCwiseMul/Div); other
operators are TypeErrors, as in TF.
"""
import numpy as np

from minitf.dtypes import dtypes
from minitf.errors import errors
from minitf.convert import convert_to_tensor
from minitf.ops.gather import gather_nd
from minitf.ops.math import multiply, truediv
from minitf.ops.shaping import broadcast_to
from minitf.sparse._helpers import host
from minitf.tensor_shape import TensorShape
from minitf.api_export import export

__all__ = ["SparseTensor", "SparseTensorSpec", "is_sparse"]


def _incompatible(a, b, what):
    return ValueError(f"Dimensions {a} and {b} are not compatible: {what}")


@export("SparseTensor", "sparse.SparseTensor")
class SparseTensor:
    """A sparse tensor: `values[i]` at position `indices[i]` of a `dense_shape` tensor.

    Args:
      indices: int64 [N, rank] positions of the stored values (convertible to int64).
      values: [N] stored values of any dtype.
      dense_shape: int64 [rank], the shape of the dense tensor this one stands for.

    Raises:
      ValueError: the parts' shapes disagree (indices not [N, rank], values not [N]).
      TypeError: indices or dense_shape are not integers.
    """

    _is_tensor_like = True  # tf.is_tensor(st) is True in TF

    def __init__(self, indices, values, dense_shape):
        indices = convert_to_tensor(indices, dtype=dtypes.int64)
        values = convert_to_tensor(values)
        dense_shape = convert_to_tensor(dense_shape, dtype=dtypes.int64)
        if indices._value.ndim != 2:
            raise ValueError(f"Shape {_shape(indices)} must have rank 2: SparseTensor indices are "
                             f"[N, rank], one row per stored value")
        if values._value.ndim != 1:
            raise ValueError(f"Shape {_shape(values)} must have rank 1: SparseTensor values are a "
                             f"vector [N], one per index row")
        if dense_shape._value.ndim != 1:
            raise ValueError(f"Shape {_shape(dense_shape)} must have rank 1: SparseTensor "
                             f"dense_shape is a vector of dimension sizes")
        n_idx, rank = indices._value.shape
        if n_idx != values._value.shape[0]:
            raise _incompatible(n_idx, values._value.shape[0],
                                "SparseTensor needs as many values as index rows")
        if rank != dense_shape._value.shape[0]:
            raise _incompatible(rank, dense_shape._value.shape[0],
                                "each index row needs one entry per dimension of dense_shape")
        self._indices = indices
        self._values = values
        self._dense_shape = dense_shape
        self._dims = tuple(int(d) for d in host(dense_shape))

    @property
    def indices(self):
        """int64 [N, rank]: the position of each stored value."""
        return self._indices

    @property
    def values(self):
        """[N]: the stored values."""
        return self._values

    @property
    def dense_shape(self):
        """int64 [rank]: the shape of the dense tensor."""
        return self._dense_shape

    @property
    def dtype(self):
        """The dtype of the values."""
        return self._values.dtype

    @property
    def shape(self):
        """The dense shape as a TensorShape."""
        return TensorShape(list(self._dims))

    def get_shape(self):
        """The dense shape as a TensorShape (same as `.shape`)."""
        return self.shape

    def set_shape(self, shape):
        """Check that `shape` is compatible with the dense shape (eager shapes are fully known)."""
        if not self.shape.is_compatible_with(TensorShape(shape)):
            raise ValueError(f"Shapes {self.shape} and {TensorShape(shape)} are incompatible")

    def consumers(self):
        """The ops that use this tensor: none in eager mode."""
        return []

    @property
    def op(self):
        """Graph-only: raises AttributeError in eager mode, as TF does."""
        raise AttributeError("Tensor.op is undefined when eager execution is enabled.")

    @property
    def graph(self):
        """Graph-only: raises AttributeError in eager mode, as TF does."""
        raise AttributeError("Tensor.graph is undefined when eager execution is enabled.")

    def with_values(self, new_values):
        """A SparseTensor at the same indices and shape holding `new_values` (any dtype, [N])."""
        new_values = convert_to_tensor(new_values)
        n_new = new_values._value.shape[0] if new_values._value.ndim else None
        if new_values._value.ndim != 1 or n_new != self._values._value.shape[0]:
            raise _incompatible(self._values._value.shape[0], n_new if n_new is not None else "()",
                                "with_values needs one new value per stored value")
        return SparseTensor(self._indices, new_values, self._dense_shape)

    @classmethod
    def from_value(cls, sparse_tensor_value):
        """`sparse_tensor_value` itself when it is a SparseTensor; TypeError otherwise."""
        if isinstance(sparse_tensor_value, SparseTensor):
            return sparse_tensor_value
        raise TypeError(f"Argument sparse_tensor_value={sparse_tensor_value} is neither a "
                        f"SparseTensor nor SparseTensorValue.")

    @property
    def _type_spec(self):
        return SparseTensorSpec(self.shape, self.dtype)

    def __tf_tensor__(self, dtype=None, name=None):
        # TF refuses to densify implicitly; tf.sparse.to_dense is the way.
        raise ValueError(f"Attempt to convert a value ({self!r}) with an unsupported type "
                         f"(<class '{type(self).__module__}.SparseTensor'>) to a Tensor. Use "
                         f"tf.sparse.to_dense(st) for a dense tensor.")

    def __repr__(self):
        return (f"SparseTensor(indices={self._indices!s}, values={self._values!s}, "
                f"dense_shape={self._dense_shape!s})")

    def __mul__(self, other):
        """Values times `other` (dense or scalar, broadcast to this shape) at the stored positions."""
        return sparse_dense_cwise(self, other, "mul")

    def __truediv__(self, other):
        """Values divided by `other` (dense or scalar) at the stored positions."""
        return sparse_dense_cwise(self, other, "div")

    __div__ = __truediv__


def _shape(t):
    return tuple(int(d) for d in t._value.shape)


@export("SparseTensorSpec")
class SparseTensorSpec:
    """The type of a SparseTensor: its dense shape and dtype."""

    def __init__(self, shape=None, dtype=dtypes.float32):
        self._shape = TensorShape(shape)
        self._dtype = dtypes.as_dtype(dtype)

    @property
    def shape(self):
        """The dense shape."""
        return self._shape

    @property
    def dtype(self):
        """The values' dtype."""
        return self._dtype

    @property
    def value_type(self):
        """The class of the values this spec describes: SparseTensor."""
        return SparseTensor

    @classmethod
    def from_value(cls, value):
        """The spec of a SparseTensor: its dense shape and dtype."""
        if not isinstance(value, SparseTensor):
            raise TypeError(f"Expected SparseTensor but got {type(value).__name__}: {value!r}")
        return cls(value.shape, value.dtype)

    def is_compatible_with(self, spec_or_value):
        """True when `spec_or_value` (a SparseTensorSpec or SparseTensor) has this dtype and a
        compatible shape."""
        other = spec_or_value
        if isinstance(other, SparseTensor):
            other = SparseTensorSpec.from_value(other)
        return (isinstance(other, SparseTensorSpec) and other._dtype == self._dtype
                and self._shape.is_compatible_with(other._shape))

    def _batch(self, batch_size):
        """The spec of `batch_size` of these stacked along a new first dimension."""
        return SparseTensorSpec(TensorShape([batch_size]).concatenate(self._shape), self._dtype)

    def _unbatch(self):
        """The spec of one row (the first dimension dropped)."""
        if self._shape.rank == 0:
            raise ValueError("Unbatching a tensor is only supported for rank >= 1")
        return SparseTensorSpec(self._shape[1:], self._dtype)

    def __eq__(self, other):
        return (isinstance(other, SparseTensorSpec) and self._dtype == other._dtype
                and str(self._shape) == str(other._shape))

    def __hash__(self):
        return hash((self._dtype, str(self._shape)))

    def __repr__(self):
        return f"SparseTensorSpec({self._shape!r}, {self._dtype!r})"


def is_sparse(x):
    """True for a SparseTensor."""
    return isinstance(x, SparseTensor)


_CWISE = {"mul": ("SparseDenseCwiseMul", multiply), "div": ("SparseDenseCwiseDiv", truediv)}


def sparse_dense_cwise(sp, dense, kind):
    """`sp.values (op) dense[sp.indices]`, with `dense` broadcast to the sparse shape only."""
    op_name, fn = _CWISE[kind]
    if isinstance(dense, SparseTensor):
        raise dense.__tf_tensor__()
    try:
        dense = convert_to_tensor(dense, dtype=sp.dtype)
    except (TypeError, ValueError) as e:
        raise type(e)(f"y: {e}") from None
    d_shape = _shape(dense)
    fits = len(d_shape) <= len(sp._dims) and all(
        d in (1, s) for d, s in zip(d_shape[::-1], sp._dims[::-1]))
    if not fits:
        raise errors.invalid_argument(
            op_name, f"SparseDenseBinaryOpShared broadcasts dense to sparse only; got incompatible "
                     f"shapes: [{','.join(map(str, sp._dims))}] vs. [{','.join(map(str, d_shape))}]")
    if kind == "div" and np.any(host(dense) == 0):
        raise errors.invalid_argument(
            op_name, "SparseDenseCwiseDiv cannot divide by zero,but input dense tensor contains zero ")
    picked = gather_nd(broadcast_to(dense, list(sp._dims)), sp._indices)
    return SparseTensor(sp._indices, fn(sp._values, picked), sp._dense_shape)
