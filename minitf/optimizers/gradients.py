"""The gradients of an update step as raw arrays: conversion, IndexedSlices rows, clipping.

An optimizer step works on raw arrays of each variable's dtype: a dense array shaped like the
variable, or, for an IndexedSlices gradient, an (indices, values) pair, which is summed into a
dense array (`dense_rows`) or merged into (unique rows, summed values) (`merged_rows`) for a
rule that may update the touched rows only (`update_rows`).
"""
import math

from minitf import backend
from minitf.convert import convert_to_tensor
from minitf.indexed_slices import IndexedSlices

__all__ = ["gradient_array", "dense_rows", "merged_rows", "update_rows", "clip"]


def _raw(value):
    """The raw array behind a Tensor, Variable or array-like."""
    raw = getattr(value, "_value", None)
    if raw is not None:
        return raw
    return convert_to_tensor(value)._value


def gradient_array(grad, var):
    """A raw dense array of `var`'s dtype, or an (indices, values) pair for IndexedSlices;
    ValueError naming the variable for a gradient of another shape."""
    ref = var._value
    raw = getattr(grad, "_value", None)
    if raw is not None and raw.dtype == ref.dtype and raw.shape == ref.shape:
        return raw  # the common case: a Tensor of the variable's dtype and shape
    if isinstance(grad, IndexedSlices):
        return (_raw(grad.indices), _raw(grad.values).astype(ref.dtype, copy=False))
    raw = _raw(grad)
    if raw.dtype != ref.dtype:
        raw = raw.astype(ref.dtype)
    if tuple(raw.shape) != tuple(ref.shape):
        raise ValueError(f"Optimizer: gradient of shape {tuple(raw.shape)} does not match "
                         f"variable {var.name} of shape {tuple(ref.shape)}.")
    return raw


def dense_rows(indices, values, like):
    """Scatter-add sparse rows into zeros shaped like `like` (duplicate indices summed)."""
    xp = backend.array_module(like)
    out = xp.zeros(like.shape, dtype=like.dtype)
    xp.add.at(out, indices, values)
    return out


def merged_rows(indices, values):
    """(unique sorted rows, their summed values): duplicates added in index order, exactly as
    `dense_rows` adds them, so the touched rows match the dense gradient bit for bit."""
    xp = backend.array_module(values)
    indices = indices.reshape(-1)
    rows, inverse = xp.unique(indices, return_inverse=True)
    summed = xp.zeros((rows.shape[0],) + tuple(values.shape[1:]), dtype=values.dtype)
    xp.add.at(summed, inverse.reshape(-1), values.reshape((indices.shape[0],) +
                                                          tuple(values.shape[1:])))
    return rows, summed


def update_rows(rule, grad, w, slots, constants):
    """`rule` (see `minitf.optimizers.rules`) on the rows a (unique rows, summed values)
    gradient touches: the rows of the variable's array `w` and of its slot arrays are gathered,
    updated as the dense step would update them, and written back."""
    rows, values = grad
    xp = backend.array_module(w)
    row_w = w[rows]
    row_slots = {name: slot[rows] for name, slot in slots.items()}
    rule(xp, values, row_w, xp.empty_like(row_w), row_slots, **constants)
    w[rows] = row_w
    for name, slot in slots.items():
        slot[rows] = row_slots[name]


def clip(raws, clipnorm=None, clipvalue=None, global_clipnorm=None):
    """Clip as Keras 3 does (at most one option set; none: `raws` as they are). An (indices,
    values) gradient is clipped through its values (before duplicate rows are summed), so its
    norm is the norm of the values."""
    if clipnorm is None and clipvalue is None and global_clipnorm is None:
        return raws
    values = [g[1] if type(g) is tuple else g for g in raws]
    if clipvalue is not None:
        values = [backend.array_module(g).clip(g, -clipvalue, clipvalue) for g in values]
    elif clipnorm is not None:
        clipped = []
        for g in values:
            norm = float(backend.array_module(g).sqrt((g * g).sum()))
            clipped.append(g * (clipnorm / norm) if norm > clipnorm else g)
        values = clipped
    else:
        total = math.sqrt(sum(float((g * g).sum()) for g in values))
        if total > global_clipnorm:
            scale = global_clipnorm / total
            values = [g * scale for g in values]
    return [(g[0], c) if type(g) is tuple else c for g, c in zip(raws, values)]
