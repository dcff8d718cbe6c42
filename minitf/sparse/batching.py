"""Cutting a SparseTensor into rows and stacking rows back: what tf.data does with SparseTensor
elements (from_tensor_slices and unbatch cut, batch stacks), and what Keras does with sparse
arrays passed to fit/evaluate/predict (take_rows cuts a batch). Not part of TF's tf.sparse API;
minitf.data can call these to carry SparseTensors the way TF's datasets do.
"""
import numpy as np

from minitf.errors import errors
from minitf.ops.gather import gather
from minitf.ops.shaping import concat
from minitf.sparse._helpers import host
from minitf.sparse.sparse_tensor import SparseTensor
from minitf.tensor import Tensor

__all__ = ["unbatch", "batch", "take_rows"]


def unbatch(sp_input):
    """The rows of `sp_input` along dimension 0, each a SparseTensor of dense shape
    `dense_shape[1:]` holding that row's entries in their order (differentiable values)."""
    dims = sp_input._dims
    if not dims:
        raise ValueError("Unbatching a tensor is only supported for rank >= 1, but got a rank-0 "
                         "SparseTensor; give a SparseTensor with a leading batch dimension")
    idx = host(sp_input.indices)
    rows = idx[:, 0]
    inner = np.asarray(dims[1:], dtype=np.int64)
    out = []
    for r in range(dims[0]):
        where = np.nonzero(rows == r)[0].astype(np.int64)
        out.append(SparseTensor(idx[where, 1:], gather(sp_input.values, Tensor(where)), inner))
    return out


def batch(elements):
    """One SparseTensor stacking `elements` along a new dimension 0; its other dimensions are
    the largest of the elements' (as tf.data's batch gives)."""
    elements = list(elements)
    if not elements:
        raise ValueError("batch needs at least one SparseTensor")
    first = elements[0]
    rank = len(first._dims)
    for k, sp in enumerate(elements):
        if len(sp._dims) != rank or sp.dtype != first.dtype:
            raise errors.InvalidArgumentError(
                None, None, f"Cannot batch SparseTensors of different ranks or dtypes: element 0 has "
                            f"dense_shape {list(first._dims)} and dtype {first.dtype.name}, element {k} has "
                            f"{list(sp._dims)} and {sp.dtype.name}")
    dims = [len(elements)] + [max(sp._dims[d] for sp in elements) for d in range(rank)]
    pieces = []
    for k, sp in enumerate(elements):
        idx = host(sp.indices)
        pieces.append(np.concatenate([np.full((idx.shape[0], 1), k, dtype=np.int64), idx], axis=1))
    indices = np.concatenate(pieces).reshape(-1, rank + 1)
    return SparseTensor(indices, concat([sp.values for sp in elements], 0), np.asarray(dims, dtype=np.int64))


def take_rows(sp_input, rows):
    """The rows `rows` (a slice or an int array) of `sp_input` along dimension 0, in that order,
    as one SparseTensor (Keras' array batching of sparse inputs; differentiable values)."""
    dims = sp_input._dims
    picked = np.arange(dims[0])[rows]
    idx = host(sp_input.indices)
    position = np.full(dims[0], -1, dtype=np.int64)
    position[picked] = np.arange(picked.size)
    keep = np.nonzero(position[idx[:, 0]] >= 0)[0] if idx.size else np.zeros(0, np.int64)
    new = idx[keep].copy()
    new[:, 0] = position[new[:, 0]] if keep.size else new[:, 0]
    order = np.lexsort(new.T[::-1]) if keep.size else keep
    return SparseTensor(new[order].reshape(-1, len(dims)), gather(sp_input.values, Tensor(keep[order].astype(np.int64))),
                        np.asarray([picked.size] + list(dims[1:]), dtype=np.int64))
