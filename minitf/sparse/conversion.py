"""Between dense and sparse: from_dense, to_dense, to_indicator, fill_empty_rows, eye, retain.

Values move through minitf's gather/gather_nd, so a GradientTape sees from_dense's values as a
gather from the dense tensor and to_dense's output as a gather from the values.
"""
import numpy as np

from minitf.dtypes import dtypes
from minitf.errors import errors
from minitf.convert import convert_to_tensor
from minitf.ops.gather import gather, gather_nd
from minitf.ops.constant import cast
from minitf.ops.shaping import concat, reshape
from minitf.sparse._helpers import check_in_bounds, host, index_text, validate_for_dense
from minitf.sparse.sparse_tensor import SparseTensor
from minitf.tensor import Tensor
from minitf.api_export import export

__all__ = ["from_dense", "to_dense", "to_indicator", "fill_empty_rows", "eye", "retain"]


def require_sparse(x, fn_name, arg="sp_input"):
    if not isinstance(x, SparseTensor):
        raise TypeError(f"Input must be a SparseTensor: tf.sparse.{fn_name} got {arg}={x!r}; "
                        f"build one with tf.sparse.from_dense or tf.sparse.SparseTensor.")


@export("sparse.from_dense")
def from_dense(tensor, name=None):
    """The SparseTensor of the non-zero (non-empty, for strings) entries of `tensor`, in order."""
    t = convert_to_tensor(tensor)
    value = host(t)
    if value.ndim == 0:
        raise errors.invalid_argument(
            "Where", "WhereOp : Unhandled input dimensions: 0; tf.sparse.from_dense needs a tensor "
                     "of rank >= 1")
    zero = b"" if t.dtype == dtypes.string else 0
    nonzero = np.argwhere(value != zero).astype(np.int64)
    indices = Tensor(nonzero)
    return SparseTensor(indices, gather_nd(t, indices), np.asarray(value.shape, dtype=np.int64))


def _position_map(indices, dims, n):
    """For each dense position, the number of the stored value there (the last one wins), else n."""
    pos = np.full(dims, n, dtype=np.int64)
    if indices.shape[0] and not dims:  # a rank-0 SparseTensor: the last value is the scalar
        pos[()] = n - 1
    elif indices.shape[0]:
        pos[tuple(indices.T)] = np.arange(n, dtype=np.int64)
    return pos


@export("sparse.to_dense")
def to_dense(sp_input, default_value=None, validate_indices=True, name=None):
    """The dense tensor of `sp_input`, `default_value` (zero) where nothing is stored.

    With `validate_indices` (the default) indices must be in bounds, unique and in row-major
    order, else InvalidArgumentError, as in TF; without it a repeated index keeps its last value.
    Differentiable with respect to the values.
    """
    require_sparse(sp_input, "to_dense")
    idx = host(sp_input.indices)
    dims = sp_input._dims
    if validate_indices:
        validate_for_dense(idx, dims, "SparseToDense")
    else:
        check_in_bounds(idx, dims, "SparseToDense")
    values = sp_input.values
    if default_value is None:
        default_value = b"" if values.dtype == dtypes.string else 0
    try:
        default = convert_to_tensor(default_value, dtype=values.dtype)
    except (TypeError, ValueError) as e:
        raise type(e)(f"tf.sparse.to_dense: default_value {default_value!r} does not match the "
                      f"values' dtype {values.dtype.name}: {e}") from None
    if default._value.ndim != 0:
        raise errors.invalid_argument(
            "SparseToDense", f"default_value should be a scalar, got shape {list(default.shape)}")
    n = idx.shape[0]
    table = concat([values, reshape(default, [1])], 0)
    return gather(table, Tensor(_position_map(idx, dims, n)))


@export("sparse.to_indicator")
def to_indicator(sp_input, vocab_size, name=None):
    """A bool tensor [..., vocab_size]: True at [..., v] for every id v stored in the last dimension
    of `sp_input` (an integer SparseTensor)."""
    require_sparse(sp_input, "to_indicator")
    vocab_size = int(vocab_size)
    idx = host(sp_input.indices)
    ids = host(sp_input.values).astype(np.int64)
    dims = sp_input._dims[:-1] + (vocab_size,)
    new_idx = np.concatenate([idx[:, :-1], ids[:, None]], axis=1)
    if new_idx.size and (np.any(new_idx < 0) or np.any(new_idx >= np.asarray(dims))):
        raise errors.invalid_argument(
            "SparseToDense", f"Indices are not valid (out of bounds).  Shape: {index_text(dims)}; "
                             f"every id must be in [0, vocab_size={vocab_size})")
    out = np.zeros(dims, dtype=bool)
    if new_idx.shape[0]:
        out[tuple(new_idx.T)] = True
    return Tensor(out)


@export("sparse.fill_empty_rows")
def fill_empty_rows(sp_input, default_value, name=None):
    """(filled, empty_row_indicator): rows with no entry get `default_value` at column 0.

    As in TF, entries come out grouped by row (stable within a row), and the indicator is a
    bool [dense_shape[0]] vector marking the rows that were empty. Differentiable with respect
    to the values and `default_value`.
    """
    require_sparse(sp_input, "fill_empty_rows")
    values = sp_input.values
    default = convert_to_tensor(default_value)
    if default.dtype != values.dtype:
        default = cast(default, values.dtype)
    idx = host(sp_input.indices)
    dims = sp_input._dims
    n_rows = dims[0]
    rows = idx[:, 0] if idx.shape[0] else np.zeros(0, dtype=np.int64)
    if rows.size and (rows.min() < 0 or rows.max() >= n_rows):
        bad = int(np.nonzero((rows < 0) | (rows >= n_rows))[0][0])
        raise errors.invalid_argument(
            "SparseFillEmptyRows", f"indices({bad}, 0) is invalid: {int(rows[bad])} is not in "
                                   f"[0, {n_rows}) (dense_shape[0])")
    counts = np.bincount(rows, minlength=n_rows) if n_rows else np.zeros(0, dtype=np.int64)
    empty = counts == 0
    n = idx.shape[0]
    # one source per output entry: a stored value (its number) or the default (n)
    order = np.argsort(rows, kind="stable")
    fill_rows = np.nonzero(empty)[0]
    keys = np.concatenate([rows[order], fill_rows]).astype(np.int64)
    sources = np.concatenate([order, np.full(fill_rows.shape, n)]).astype(np.int64)
    merged = np.argsort(keys, kind="stable")
    sources = sources[merged]
    fill_idx = np.zeros((fill_rows.size, len(dims)), dtype=np.int64)
    fill_idx[:, 0] = fill_rows
    out_idx = np.concatenate([idx[order], fill_idx])[merged] if n or fill_rows.size \
        else np.zeros((0, len(dims)), dtype=np.int64)
    table = concat([values, reshape(default, [1])], 0)
    filled = SparseTensor(out_idx, gather(table, Tensor(sources)), sp_input.dense_shape)
    return filled, Tensor(empty)


@export("sparse.eye")
def eye(num_rows, num_columns=None, dtype=dtypes.float32, name=None):
    """A sparse identity matrix [num_rows, num_columns] with ones on the main diagonal."""
    num_rows = int(num_rows)
    num_columns = num_rows if num_columns is None else int(num_columns)
    k = min(num_rows, num_columns)
    diag = np.arange(k, dtype=np.int64)
    dtype = dtypes.as_dtype(dtype)
    return SparseTensor(np.stack([diag, diag], axis=1).reshape(k, 2), Tensor(np.ones(k, dtype=dtype._np)),
                        np.asarray([num_rows, num_columns], dtype=np.int64))


@export("sparse.retain")
def retain(sp_input, to_retain):
    """The entries of `sp_input` whose flag in the [N] vector `to_retain` is true, order kept."""
    require_sparse(sp_input, "retain")
    keep = host(convert_to_tensor(to_retain))
    n = sp_input.values._value.shape[0]
    if keep.ndim != 1 or keep.shape[0] != n:
        raise ValueError(f"Dimensions {n} and {keep.shape[0] if keep.ndim else '()'} are not "
                         f"compatible: tf.sparse.retain needs one flag per stored value")
    where = np.nonzero(keep)[0].astype(np.int64)
    return SparseTensor(host(sp_input.indices)[where], gather(sp_input.values, Tensor(where)),
                        sp_input.dense_shape)
