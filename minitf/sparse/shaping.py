"""Reordering and reshaping SparseTensors: reorder, reshape, transpose, concat, slice, split,
expand_dims, reset_shape.

New indices are computed on the host; the values are the input's values (or a gather of them),
so gradients flow back to the input values.
"""
import numpy as np

from minitf.errors import errors
from minitf.convert import convert_to_tensor
from minitf.ops.gather import gather
from minitf.ops.shaping import concat as dense_concat
from minitf.sparse._helpers import host, lex_order, short_dtype
from minitf.sparse.conversion import require_sparse
from minitf.sparse.sparse_tensor import SparseTensor
from minitf.tensor import Tensor
from minitf.api_export import export

__all__ = ["reorder", "reshape", "transpose", "concat", "slice", "split", "expand_dims", "reset_shape"]


def _permuted(sp, order, indices=None, dims=None):
    """`sp` with its entries taken in `order` (and new indices / dims if given)."""
    indices = host(sp.indices) if indices is None else indices
    dims = sp._dims if dims is None else dims
    return SparseTensor(indices[order], gather(sp.values, Tensor(order.astype(np.int64))),
                        np.asarray(dims, dtype=np.int64))


@export("sparse.reorder")
def reorder(sp_input, name=None):
    """`sp_input` with its entries sorted into row-major (canonical) order."""
    require_sparse(sp_input, "reorder")
    return _permuted(sp_input, lex_order(host(sp_input.indices)))


@export("sparse.reshape")
def reshape(sp_input, shape, name=None):
    """`sp_input` with dense shape `shape` (one dimension may be -1), entries in their old order."""
    require_sparse(sp_input, "reshape")
    op = "SparseReshape"
    new = [int(d) for d in host(convert_to_tensor(shape)).reshape(-1)]
    dims = sp_input._dims
    total = int(np.prod(dims, dtype=np.int64))
    unknown = [i for i, d in enumerate(new) if d == -1]
    if len(unknown) > 1:
        raise errors.invalid_argument(
            op, f"only one output dimension may be -1, not both {unknown[0]} and {unknown[1]}")
    known = int(np.prod([d for d in new if d != -1], dtype=np.int64))
    old_text = ",".join(map(str, dims))
    if unknown:
        shown = [total // known if d == -1 and known else d for d in new]  # as TF prints it
        new_text = ",".join(map(str, shown))
        if known == 0 or total % known:
            raise errors.invalid_argument(
                op, f"Input to reshape is a SparseTensor with {total} dense values, but the "
                    f"requested shape requires a multiple of {known}. input_shape=[{old_text}] "
                    f"output_shape=[{new_text}]")
        new[unknown[0]] = total // known
    elif known != total:
        new_text = ",".join(map(str, new))
        raise errors.invalid_argument(
            op, f"Input to reshape is a tensor with {total} dense values, but the requested shape "
                f"has {known}. input_shape=[{old_text}] output_shape=[{new_text}]")
    idx = host(sp_input.indices)
    if idx.shape[0]:
        flat = np.ravel_multi_index(tuple(idx.T), dims) if dims else np.zeros(idx.shape[0], np.int64)
        new_idx = np.stack(np.unravel_index(flat, new), axis=1).astype(np.int64) if new \
            else np.zeros((idx.shape[0], 0), np.int64)
    else:
        new_idx = np.zeros((0, len(new)), dtype=np.int64)
    return SparseTensor(new_idx, sp_input.values, np.asarray(new, dtype=np.int64))


@export("sparse.transpose")
def transpose(sp_input, perm=None, name=None):
    """`sp_input` with dimensions permuted by `perm` (reversed by default), entries reordered."""
    require_sparse(sp_input, "transpose")
    rank = len(sp_input._dims)
    perm = list(range(rank))[::-1] if perm is None else [int(p) for p in host(convert_to_tensor(perm)).reshape(-1)]
    if len(perm) != rank:
        raise ValueError(f"Dimensions {len(perm)} and {rank} are not compatible: tf.sparse.transpose "
                         f"needs one perm entry per dimension")
    if sorted(perm) != list(range(rank)):
        raise errors.invalid_argument(
            "SparseTranspose", f"perm {perm} is not a permutation of [0, {rank}); list each "
                               f"dimension once")
    idx = host(sp_input.indices)[:, perm]
    dims = [sp_input._dims[p] for p in perm]
    return _permuted(sp_input, lex_order(idx), idx, dims)


@export("sparse.concat")
def concat(axis, sp_inputs, expand_nonconcat_dims=False, concat_dim=None, name=None):
    """SparseTensors joined along `axis`, entries in row-major order.

    Other dimensions must match unless `expand_nonconcat_dims`, which grows them to the largest.
    Differentiable with respect to every input's values.
    """
    op = "SparseConcat"
    axis = concat_dim if concat_dim is not None and axis is None else axis
    for sp in sp_inputs:
        if not isinstance(sp, SparseTensor):
            raise TypeError(f"Input must be a SparseTensor: tf.sparse.concat got {sp!r}")
    first = sp_inputs[0]
    rank = len(first._dims)
    for pos, sp in enumerate(sp_inputs):
        if len(sp._dims) != rank:
            raise errors.invalid_argument(
                op, f"Ranks of all input tensors must match: expected {rank} but got {len(sp._dims)} "
                    f"at position {pos}")
        if sp.dtype != first.dtype:
            raise errors.invalid_argument(
                op, f"cannot compute SparseConcat as input #{len(sp_inputs) + pos}(zero-based) was "
                    f"expected to be a {short_dtype(first.dtype)} tensor but is a "
                    f"{short_dtype(sp.dtype)} tensor; cast the values with tf.cast")
    axis = int(axis)
    if not -rank <= axis < rank:
        raise errors.invalid_argument(op, f"Concat dimension must be in range [{-rank}, {rank}), got {axis}")
    axis %= rank
    dims = list(first._dims)
    for pos, sp in enumerate(sp_inputs):
        for d in range(rank):
            if d == axis:
                continue
            if expand_nonconcat_dims:
                dims[d] = max(dims[d], sp._dims[d])
            elif sp._dims[d] != dims[d]:
                raise errors.invalid_argument(
                    op, f"Input shapes must match: expected {dims[d]} for dimension {d} but got "
                        f"{sp._dims[d]} at position {pos}")
    pieces, offset = [], 0
    for sp in sp_inputs:
        idx = host(sp.indices).copy()
        idx[:, axis] += offset
        offset += sp._dims[axis]
        pieces.append(idx)
    dims[axis] = offset
    all_idx = np.concatenate(pieces) if pieces else np.zeros((0, rank), np.int64)
    values = dense_concat([sp.values for sp in sp_inputs], 0)
    order = lex_order(all_idx)
    return SparseTensor(all_idx[order], gather(values, Tensor(order)), np.asarray(dims, dtype=np.int64))


@export("sparse.slice")
def slice(sp_input, start, size, name=None):  # noqa: A001 (TF's name)
    """The entries of `sp_input` inside the box [start, start + size), shifted to start at 0.

    The box is clipped to the dense shape, as in TF; entries keep their order.
    """
    require_sparse(sp_input, "slice")
    op = "SparseSlice"
    rank = len(sp_input._dims)
    start = host(convert_to_tensor(start, dtype_hint="int64")).astype(np.int64).reshape(-1)
    size = host(convert_to_tensor(size, dtype_hint="int64")).astype(np.int64).reshape(-1)
    for what, vec in (("start", start), ("size", size)):
        if vec.shape[0] != rank:
            raise errors.invalid_argument(
                op, f"Expected {what} to be a vector of length {rank} but got length {vec.shape[0]}")
    if np.any(size < 0):
        raise errors.invalid_argument(op, f"Expected a non-negative size, got {int(size[size < 0][0])}")
    dims = np.asarray(sp_input._dims, dtype=np.int64)
    out_dims = np.maximum(np.minimum(start + size, dims) - start, 0)
    idx = host(sp_input.indices)
    inside = np.all((idx >= start) & (idx < start + out_dims), axis=1) if idx.shape[0] else np.zeros(0, bool)
    where = np.nonzero(inside)[0].astype(np.int64)
    return SparseTensor(idx[where] - start, gather(sp_input.values, Tensor(where)), out_dims)


@export("sparse.split")
def split(sp_input=None, num_split=None, axis=None, name=None, keyword_required=None):
    """`num_split` SparseTensors cut from `sp_input` along `axis`; the first `size % num_split`
    pieces are one longer, as in TF."""
    require_sparse(sp_input, "split")
    rank = len(sp_input._dims)
    axis = int(axis) % rank
    num_split = int(num_split)
    length = sp_input._dims[axis]
    if num_split < 1 or num_split > length:
        raise errors.invalid_argument(
            "SparseSplit", f"num_split must be in the interval [1, {length}] (the size of dimension "
                           f"{axis}), got {num_split}")
    base, extra = divmod(length, num_split)
    pieces, begin = [], 0
    for k in range(num_split):
        width = base + (1 if k < extra else 0)
        start = [0] * rank
        size = list(sp_input._dims)
        start[axis], size[axis] = begin, width
        pieces.append(slice(sp_input, start, size))
        begin += width
    return pieces


@export("sparse.expand_dims")
def expand_dims(sp_input, axis=None, name=None):
    """`sp_input` with a new dimension of size 1 at `axis` (the end, by default)."""
    require_sparse(sp_input, "expand_dims")
    rank = len(sp_input._dims)
    axis = -1 if axis is None else int(axis)
    if not -rank - 1 <= axis <= rank:
        raise errors.invalid_argument(
            "ExpandDims", f"axis {axis} is out of range for a SparseTensor of rank {rank}: it must "
                          f"be in [{-rank - 1}, {rank}]")
    axis = axis % (rank + 1)
    idx = host(sp_input.indices)
    new_idx = np.insert(idx, axis, 0, axis=1).astype(np.int64)
    dims = list(sp_input._dims)
    dims.insert(axis, 1)
    return SparseTensor(new_idx, sp_input.values, np.asarray(dims, dtype=np.int64))


@export("sparse.reset_shape")
def reset_shape(sp_input, new_shape=None):
    """`sp_input` with dense shape `new_shape` (no smaller in any dimension), or the tightest shape
    holding its indices when None."""
    require_sparse(sp_input, "reset_shape")
    idx = host(sp_input.indices)
    if new_shape is None:
        dims = (idx.max(axis=0) + 1) if idx.shape[0] else np.zeros(idx.shape[1], np.int64)
        return SparseTensor(idx, sp_input.values, dims.astype(np.int64))
    new = host(convert_to_tensor(new_shape, dtype_hint="int64")).astype(np.int64).reshape(-1)
    old = np.asarray(sp_input._dims, dtype=np.int64)
    if new.shape != old.shape:
        raise ValueError(f"Shapes {list(old)} and {list(new)} must have the same rank: "
                         f"tf.sparse.reset_shape keeps the rank")
    if np.any(new < old):
        raise ValueError(f"Requested new_shape should have dimension sizes >= sp_input.shape.  Found "
                         f"new_shape ({new}), sp_input.shape ({old}).")
    return SparseTensor(idx, sp_input.values, new)
