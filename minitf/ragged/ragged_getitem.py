"""`rt[key]` for RaggedTensor: rows by index or slice, then slices of every row's contents.

The supported keys are TF's documented ones: an int or a slice for the rows, followed by ints or
slices for the dimensions inside the rows. An int inside a ragged dimension (`rt[:, 0]`) is
TF's ValueError "Cannot index into an inner ragged dimension."; values move with gathers, so
gradients flow back to the flat values.
"""
import numpy as np

from minitf.ops._core import Tensor, Variable
from minitf.ragged.ragged_tensor import RaggedTensor, gather_rows

__all__ = ["ragged_getitem"]


def _normalize(key):
    if not isinstance(key, tuple):
        key = (key,)
    out = []
    for k in key:
        if isinstance(k, (Tensor, Variable)):
            k = k.numpy()
            k = int(k) if np.ndim(k) == 0 else k
        if isinstance(k, (np.integer,)):
            k = int(k)
        if k is Ellipsis or k is None or not isinstance(k, (int, slice)):
            raise TypeError(f"RaggedTensor index {k!r} is not supported: use ints and slices "
                            f"(Ellipsis, tf.newaxis and tensors of indices are not)")
        out.append(k)
    return tuple(out)


def _row(rt, i):
    n = rt.nrows_int()
    if not -n <= i < n:
        raise IndexError(f"Row key {i} out of bounds")
    i %= n
    lo, hi = rt._splits_np[i], rt._splits_np[i + 1]
    return _slice_values(rt.values, lo, hi)


def _slice_values(values, lo, hi):
    if isinstance(values, RaggedTensor):
        return gather_rows(values, np.arange(lo, hi, dtype=np.int64))
    return values[int(lo):int(hi)]


def _apply(value, key):
    if not key:
        return value
    if isinstance(value, RaggedTensor):
        return ragged_getitem(value, key)
    if value.dtype.name == "string":  # index the bytes directly: a string scalar stays a tensor
        return Tensor(np.asarray(np.asarray(value.numpy(), dtype=object)[key], dtype=object))
    return value[key]


def _inner_slice(rt, sl):
    """Each row of `rt` cut by Python slice `sl` (positive steps)."""
    if sl.step is not None and sl.step <= 0:
        raise ValueError(f"RaggedTensor slices inside rows need a positive step, got {sl.step}")
    s = rt._splits_np
    pieces, lens = [], []
    for i in range(s.size - 1):
        idx = np.arange(s[i], s[i + 1])[sl]
        pieces.append(idx)
        lens.append(idx.size)
    idx = np.concatenate(pieces).astype(np.int64) if pieces else np.zeros(0, np.int64)
    splits = np.concatenate([[0], np.cumsum(lens)]).astype(np.int64)
    return RaggedTensor._make(gather_rows(rt.values, idx), splits)


def ragged_getitem(rt, key):
    """The part of `rt` that `key` names (TF's RaggedTensor.__getitem__)."""
    key = _normalize(key)
    if not key:
        return rt
    if len(key) > rt.shape.rank:
        raise ValueError(f"Too many indices for RaggedTensor: {len(key)} keys for a rank-{rt.shape.rank} "
                         f"tensor")
    first, rest = key[0], key[1:]
    if isinstance(first, int):
        return _apply(_row(rt, first), rest)
    rows = np.arange(rt.nrows_int())[first]
    sliced = gather_rows(rt, rows.astype(np.int64)) if first != slice(None) else rt
    if not rest:
        return sliced
    inner = rest[0]
    if isinstance(inner, int):
        raise ValueError("Cannot index into an inner ragged dimension.")
    if inner != slice(None):
        sliced = _inner_slice(sliced, inner)
    if len(rest) == 1:
        return sliced
    return sliced.with_values(_apply(sliced.values, (slice(None),) + rest[1:]))


RaggedTensor.__getitem__ = ragged_getitem
