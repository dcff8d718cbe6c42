"""Arithmetic on SparseTensors: add, sparse_dense_matmul, reduce_sum/max, minimum/maximum,
map_values, and mask (on IndexedSlices).

Indices are worked out on the host; values go through minitf's differentiable ops (gather,
scatter_nd, matmul-free products), so gradients reach the sparse values and the dense operands.
"""
import numpy as np

from minitf import backend
from minitf.errors import errors
from minitf.nest import nest
from minitf.convert import convert_to_tensor
from minitf.indexed_slices import IndexedSlices
from minitf.ops.gather import gather, scatter_nd
from minitf.ops.math import add as dense_add, maximum as dense_maximum, minimum as dense_minimum, multiply
from minitf.ops.shaping import concat, expand_dims, transpose
from minitf.ops.creation import zeros
from minitf.recording import Op, thread_state, record
from minitf.ops.reduce import reduce_sum as dense_reduce_sum
from minitf.sparse._helpers import check_same_dtype, check_same_shape, host, merge, normalize_axes
from minitf.sparse.sparse_tensor import SparseTensor
from minitf.tensor import Tensor
from minitf.api_export import export

__all__ = ["add", "sparse_dense_matmul", "reduce_sum", "reduce_max", "minimum", "maximum",
           "map_values", "mask"]


def _padded(values):
    """`values` with one zero appended, so position N stands for "no entry" in a gather."""
    return concat([values, zeros([1], dtype=values.dtype)], 0)


def _merged_parts(a, b, op_name):
    """(indices, a-values, b-values) aligned on TF's merge of the two index lists; a side with
    no entry at an output position contributes zero there."""
    if not isinstance(b, SparseTensor):
        raise TypeError(f"tf.sparse.{op_name}: both operands must be SparseTensors, got {b!r}")
    check_same_dtype(a.values, b.values, op_name, 4)
    check_same_shape(a._dims, b._dims, op_name)
    out_idx, fa, fb = merge(host(a.indices), host(b.indices))
    na, nb = a.values._value.shape[0], b.values._value.shape[0]
    va = gather(_padded(a.values), Tensor(np.where(fa < 0, na, fa)))
    vb = gather(_padded(b.values), Tensor(np.where(fb < 0, nb, fb)))
    return out_idx, fa, fb, va, vb


@export("sparse.add")
def add(a, b, threshold=0):
    """`a + b` where at least one operand is a SparseTensor.

    sparse + sparse gives a SparseTensor over the union of the indices (merged in order as
    TF does); an entry both operands hold is kept only when |sum| >= `threshold`. sparse +
    dense gives a dense Tensor. Differentiable with respect to the values and the dense operand.
    """
    a_sparse, b_sparse = isinstance(a, SparseTensor), isinstance(b, SparseTensor)
    if not (a_sparse or b_sparse):
        raise TypeError("At least one input should be SparseTensor; do you mean to use tf.add()?")
    if a_sparse and b_sparse:
        out_idx, fa, fb, va, vb = _merged_parts(a, b, "SparseAdd")
        summed = dense_add(va, vb)
        both = (fa >= 0) & (fb >= 0)
        keep = ~both | (np.abs(host(summed)) >= host(convert_to_tensor(threshold)))
        if not keep.all():
            where = np.nonzero(keep)[0].astype(np.int64)
            out_idx, summed = out_idx[where], gather(summed, Tensor(where))
        return SparseTensor(out_idx, summed, a.dense_shape)
    sp, dense = (a, b) if a_sparse else (b, a)
    return _sparse_dense_add(sp, convert_to_tensor(dense, dtype_hint=sp.dtype))


def _sparse_dense_add(sp, dense):
    op = "SparseTensorDenseAdd"
    check_same_dtype(sp.values, dense, op, 3)
    d_shape = tuple(int(d) for d in dense._value.shape)
    if len(d_shape) != len(sp._dims):
        raise errors.invalid_argument(
            op, f"Two operands have different ranks; received: {len(sp._dims)} and {len(d_shape)}")
    for d, (s, t) in enumerate(zip(sp._dims, d_shape)):
        if s != t:
            raise errors.invalid_argument(
                op, f"Dimension {d} does not equal (no broadcasting is supported): sparse side {s} "
                    f"vs dense side {t}")
    idx = host(sp.indices)
    if idx.shape[0] and (np.any(idx < 0) or np.any(idx >= np.asarray(sp._dims))):
        raise errors.invalid_argument(op, f"indices are out of bounds of the dense shape {list(sp._dims)}")
    return dense_add(dense, scatter_nd(sp.indices, sp.values, list(sp._dims)))


@export("sparse.sparse_dense_matmul")
def sparse_dense_matmul(sp_a, b, adjoint_a=False, adjoint_b=False, name=None):
    """The dense product `sp_a @ b` of a rank-2 SparseTensor and a dense matrix.

    Either operand may be the sparse one (dense @ sparse works too). Repeated indices add up and
    any order is accepted, as in TF. Differentiable with respect to the sparse values and `b`.
    """
    if isinstance(b, SparseTensor) and not isinstance(sp_a, SparseTensor):
        # dense @ sparse = (sparse^T @ dense^T)^T, TF's own rewrite
        return transpose(sparse_dense_matmul(b, sp_a, adjoint_a=not adjoint_b, adjoint_b=not adjoint_a))
    if not isinstance(sp_a, SparseTensor):
        raise TypeError(f"tf.sparse.sparse_dense_matmul needs a SparseTensor operand, got {sp_a!r}; "
                        f"use tf.linalg.matmul for two dense matrices")
    op = "SparseTensorDenseMatMul"
    b = convert_to_tensor(b, dtype_hint=sp_a.dtype)
    check_same_dtype(sp_a.values, b, op, 3)
    if len(sp_a._dims) != 2:
        raise errors.invalid_argument(op, f"Tensor 'a_shape' must have 2 elements (the SparseTensor "
                                          f"has dense_shape {list(sp_a._dims)})")
    if b._value.ndim != 2:
        raise errors.invalid_argument(op, f"Tensor 'b' is not a matrix (shape {list(b.shape)})")
    if adjoint_b:
        b = transpose(b)
    idx = host(sp_a.indices)
    rows, cols = (idx[:, 1], idx[:, 0]) if adjoint_a else (idx[:, 0], idx[:, 1])
    m, k = sp_a._dims[::-1] if adjoint_a else sp_a._dims
    k_b, n = (int(d) for d in b._value.shape)
    if k != k_b:
        raise errors.invalid_argument(
            op, f"Cannot multiply A and B because inner dimension does not match: {k} vs. {k_b}.  "
                f"Did you forget a transpose?  Dimensions of A: [{m}, {k}).  Dimensions of B: "
                f"[{k_b},{n}]")
    for what, vals, limit, col in (("row", rows, m, 1 if adjoint_a else 0), ("k", cols, k, 0 if adjoint_a else 1)):
        bad = np.nonzero((vals < 0) | (vals >= limit))[0]
        if bad.size:
            i = int(bad[0])
            raise errors.invalid_argument(
                op, f"{what} ({int(vals[i])}) from index[{i},{col}] out of bounds (>={limit})")
    picked = gather(b, Tensor(cols.astype(np.int64)))  # [N, n]
    products = multiply(picked, expand_dims(sp_a.values, 1))
    return scatter_nd(Tensor(rows.astype(np.int64)[:, None]), products, [m, n])


def _grouping(sp, axis, keepdims, op_name):
    """(reduced indices of every entry, output dims) for a reduction over `axis`."""
    rank = len(sp._dims)
    axes = normalize_axes(axis, rank, op_name)
    idx = host(sp.indices)
    kept = [d for d in range(rank) if d not in axes]
    if keepdims:
        out_idx = idx.copy()
        out_idx[:, axes] = 0
        dims = [1 if d in axes else s for d, s in enumerate(sp._dims)]
    else:
        out_idx = idx[:, kept]
        dims = [sp._dims[d] for d in kept]
    return out_idx, dims


def _groups(out_idx):
    """(sorted unique group indices, group number of each entry)."""
    n = out_idx.shape[0]
    if n == 0 or out_idx.shape[1] == 0:  # no entries, or everything reduced to one scalar group
        return np.zeros((min(n, 1), out_idx.shape[1]), dtype=np.int64), np.zeros(n, dtype=np.int64)
    unique, inverse = np.unique(out_idx, axis=0, return_inverse=True)
    return unique.astype(np.int64), inverse.reshape(-1).astype(np.int64)


@export("sparse.reduce_sum")
def reduce_sum(sp_input, axis=None, keepdims=None, output_is_sparse=False, name=None):
    """The sum of the stored values over `axis` (all by default), as TF's tf.sparse.reduce_sum.

    A dense Tensor, or with `output_is_sparse` a SparseTensor holding one entry per output
    position that had at least one stored value. Differentiable with respect to the values.
    """
    out_idx, dims = _grouping(sp_input, axis, bool(keepdims), "SparseReduceSum")
    if not output_is_sparse:
        if not dims:  # a full reduction: scatter_nd needs at least one index column
            return dense_reduce_sum(sp_input.values)
        return scatter_nd(Tensor(out_idx), sp_input.values, dims)
    unique, inverse = _groups(out_idx)
    summed = scatter_nd(Tensor(inverse[:, None]), sp_input.values, [unique.shape[0]])
    return SparseTensor(unique.reshape(unique.shape[0], len(dims)), summed, np.asarray(dims, dtype=np.int64))


@export("sparse.reduce_max")
def reduce_max(sp_input, axis=None, keepdims=None, output_is_sparse=False, name=None):
    """The maximum of the stored values over `axis`; implicit zeros are not considered.

    A dense Tensor (zero where a group stored nothing, as TF gives), or with `output_is_sparse`
    a SparseTensor of the groups that stored something. TF defines no gradient for it.
    """
    op = SPARSE_REDUCE_MAX_SPARSE if output_is_sparse else SPARSE_REDUCE_MAX
    out_idx, dims = _grouping(sp_input, axis, bool(keepdims), op.name)
    unique, inverse = _groups(out_idx)
    values = host(sp_input.values)
    if values.dtype.kind not in "iuf":
        raise errors.invalid_argument("SparseReduceMax", f"Value for attr 'T' of {sp_input.dtype.name} "
                                                         f"is not in the list of allowed values: real numbers")
    lowest = -np.inf if values.dtype.kind == "f" else np.iinfo(values.dtype).min
    best = np.full(unique.shape[0], lowest, dtype=values.dtype)
    np.maximum.at(best, inverse, values)
    xp = backend.array_module(sp_input.values._value)  # results live where the values do
    if output_is_sparse:
        out = Tensor(backend.coerce_to_module(best, xp))
        result = SparseTensor(unique.reshape(unique.shape[0], len(dims)), out, np.asarray(dims, dtype=np.int64))
    else:
        dense = np.zeros(dims, dtype=values.dtype)
        for row, value in zip(unique, best):
            dense[tuple(row)] = value
        out = result = Tensor(backend.coerce_to_module(dense, xp))
    if thread_state.active:
        record(op, (sp_input.values,), (out,), lambda g: _no_gradient(op))
    return result


SPARSE_REDUCE_MAX = Op("SparseReduceMax")
SPARSE_REDUCE_MAX_SPARSE = Op("SparseReduceMaxSparse")


def _no_gradient(op):
    # TF registers no gradient for these ops, and tape.gradient raises this LookupError
    raise LookupError(f"gradient registry has no entry for: {op.name} (tf.sparse.reduce_max has no "
                      f"gradient; tf.sparse.to_dense then tf.reduce_max gives one)")


def _extreme(a, b, fn, op_name):
    out_idx, _, _, va, vb = _merged_parts(a, b, op_name)
    return SparseTensor(out_idx, fn(va, vb), a.dense_shape)


@export("sparse.maximum")
def maximum(sp_a, sp_b, name=None):
    """The element-wise maximum of two SparseTensors of one shape (absent entries count as 0)."""
    return _extreme(sp_a, sp_b, dense_maximum, "SparseSparseMaximum")


@export("sparse.minimum")
def minimum(sp_a, sp_b, name=None):
    """The element-wise minimum of two SparseTensors of one shape (absent entries count as 0)."""
    return _extreme(sp_a, sp_b, dense_minimum, "SparseSparseMinimum")


@export("sparse.map_values")
def map_values(op, *args, **kwargs):
    """`op` applied to the values of the SparseTensors in `args`/`kwargs` (which must share
    indices and shape); other arguments pass through. The result keeps those indices.
    """
    found = [x for x in nest.flatten((list(args), kwargs)) if isinstance(x, SparseTensor)]
    if not found:
        raise ValueError("No SparseTensor in argument list of map_values")
    first = found[0]
    for other in found[1:]:
        same = (other._dims == first._dims and other.indices._value.shape == first.indices._value.shape
                and np.array_equal(host(other.indices), host(first.indices)))
        if not same:
            raise errors.InvalidArgumentError(
                None, None, f"Mismatched shapes! tf.sparse.map_values needs every SparseTensor to "
                            f"have the same indices and dense_shape: {list(first._dims)} with "
                            f"{first.indices._value.shape[0]} entries vs. {list(other._dims)} with "
                            f"{other.indices._value.shape[0]} entries")

    def swap(x):
        return x.values if isinstance(x, SparseTensor) else x

    new_args = [swap(x) for x in args]
    new_kwargs = {k: swap(v) for k, v in kwargs.items()}
    result = convert_to_tensor(op(*new_args, **new_kwargs))
    n = first.values._value.shape[0]
    if result._value.ndim != 1 or result._value.shape[0] != n:
        got = result._value.shape[0] if result._value.ndim else "()"
        raise ValueError(f"Dimensions {n} and {got} are not compatible: the op given to "
                         f"tf.sparse.map_values must return one value per stored value (shape "
                         f"{list(result.shape)} returned)")
    return SparseTensor(first.indices, result, first.dense_shape)


@export("sparse.mask")
def mask(a, mask_indices, name=None):
    """The rows of IndexedSlices `a` whose index is not in `mask_indices`, order kept."""
    if not isinstance(a, IndexedSlices):
        raise TypeError(f"tf.sparse.mask takes an IndexedSlices, got {type(a).__name__}")
    indices = host(a.indices)
    drop = host(convert_to_tensor(mask_indices)).reshape(-1)
    where = np.nonzero(~np.isin(indices, drop))[0].astype(np.int64)
    kept = Tensor(indices[where])
    return IndexedSlices(gather(a.values, Tensor(where)), kept, a.dense_shape)
