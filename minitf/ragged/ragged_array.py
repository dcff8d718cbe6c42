"""Building and combining ragged tensors: tf.ragged.constant, range, stack, boolean_mask,
map_flat_values, and tf.concat / tf.stack / tf.shape when an argument is ragged."""
import numpy as np

from minitf.dtypes import dtypes
from minitf.errors import errors
from minitf.convert import convert_to_tensor
from minitf.ops import array, shaping
from minitf.ops._core import Tensor, as_tensor
from minitf.ops.gather import boolean_mask as _dense_boolean_mask
from minitf.ops.shaping import reshape
from minitf.ragged.ragged_math import HANDLERS_BY_NAME, same_partitions, register
from minitf.ragged.ragged_tensor import RaggedTensor, concat_axis0, gather_rows
from minitf.api_export import export

__all__ = ["constant", "range", "stack", "boolean_mask", "map_flat_values", "concat"]

_builtin_range = range


def _scalar_depths(value, depth, found):
    """Record the nesting depth of every scalar (and of every empty list, as a lower bound)."""
    if isinstance(value, (list, tuple)):
        if not value:
            found.setdefault("empty", set()).add(depth + 1)
        for v in value:
            _scalar_depths(v, depth + 1, found)
    elif isinstance(value, np.ndarray) and value.ndim:
        for v in value:
            _scalar_depths(v, depth + 1, found)
    else:
        found.setdefault("scalar", set()).add(depth)
        found.setdefault("items", []).append(value)
    return found


def _flatten(value, levels):
    """Lists of `levels` ragged levels: (splits per level, the list of values at the bottom)."""
    splits = []
    items = list(value)
    for _ in _builtin_range(levels):
        lens = [len(v) for v in items]
        splits.append(np.concatenate([[0], np.cumsum(lens)]).astype(np.int64))
        items = [x for v in items for x in v]
    return splits, items


@export("ragged.constant")
def constant(pylist, dtype=None, ragged_rank=None, inner_shape=None, name=None, row_splits_dtype=dtypes.int64):
    """A RaggedTensor from nested Python lists whose rows may differ in length.

    Every scalar must sit at the same depth; the last `len(inner_shape)` levels (or all below
    `ragged_rank`) must be rectangular. A value with no ragged dimension gives a plain Tensor.

    Raises:
      ValueError: scalars at different depths, mixed types, or inconsistent inner shapes.
    """
    if isinstance(pylist, (RaggedTensor, Tensor)):
        raise TypeError(f"tf.ragged.constant takes nested Python lists, got {type(pylist).__name__}; "
                        f"use it as is, or .to_list() first")
    found = _scalar_depths(pylist, 0, {})
    depths = found.get("scalar", set())
    if len(depths) > 1:
        raise ValueError("all scalar values must have the same nesting depth")
    inner_shape = tuple(inner_shape) if inner_shape is not None else None
    if depths:
        depth = depths.pop()
        if any(d > depth for d in found.get("empty", ())):
            raise ValueError("all scalar values must have the same nesting depth")
    else:  # only empty lists: their depth, less the inner dimensions
        depth = max(found.get("empty", {1})) if isinstance(pylist, (list, tuple)) else 0
        if inner_shape:
            depth += len(inner_shape)
    items = found.get("items", [])
    try:
        scalars = convert_to_tensor(items, dtype=dtype) if items else None
    except ValueError as e:
        if "mixed types" in str(e):
            raise ValueError("Can't convert Python sequence with mixed types to Tensor.") from None
        raise
    out_dtype = scalars.dtype if scalars is not None else dtypes.as_dtype(dtype or dtypes.float32)
    if ragged_rank is None:
        ragged_rank = max(0, depth - 1 - (len(inner_shape) if inner_shape else 0))
    if ragged_rank < 0 or (depth and ragged_rank >= depth):
        raise ValueError(f"Invalid pylist={pylist!r}: incompatible with ragged_rank={ragged_rank} (the "
                         f"values nest {depth} deep, so ragged_rank must be below {depth})")
    if ragged_rank == 0:
        return convert_to_tensor(pylist, dtype=out_dtype)
    splits, bottom = _flatten(pylist, ragged_rank)
    inner_rank = depth - ragged_rank - 1
    if inner_shape is None:
        shapes = {np.shape(np.asarray(v, dtype=object)) if inner_rank else () for v in bottom}
        if len(shapes) > 1 or any(len(s) != inner_rank for s in shapes):
            raise ValueError("inner values have inconsistent shape")
        inner = shapes.pop() if shapes else (0,) * inner_rank
    else:
        inner = inner_shape
    if bottom:
        flat = convert_to_tensor(bottom, dtype=out_dtype)
        if tuple(flat.shape[1:]) != tuple(inner):
            flat = reshape(flat, (-1,) + tuple(inner))
    else:
        flat = Tensor(np.zeros((0,) + tuple(inner), dtype=out_dtype._np))
    return RaggedTensor.from_nested_row_splits(flat, splits, validate=False)


@export("ragged.range")
def range(starts, limits=None, deltas=1, dtype=None, name=None, row_splits_dtype=dtypes.int64):  # noqa: A001
    """Row i is tf.range(starts[i], limits[i], deltas[i]); scalars broadcast (like tf.range)."""
    if limits is None:
        starts, limits = 0, starts
    s, l_, d = (np.asarray(as_tensor(v).numpy()) for v in (starts, limits, deltas))
    out_dtype = dtypes.as_dtype(dtype) if dtype is not None else as_tensor(limits).dtype
    s, l_, d = np.broadcast_arrays(s, l_, d)
    if s.ndim > 1:
        raise ValueError(f"tf.ragged.range takes vectors or scalars, got shape {list(s.shape)}")
    if (d == 0).any():
        raise errors.InvalidArgumentError(None, None, "Requires delta != 0 [Op:RaggedRange]")
    rows = [np.arange(a, b, c) for a, b, c in zip(np.ravel(s), np.ravel(l_), np.ravel(d))]
    lens = [r.size for r in rows]
    flat = np.concatenate(rows) if rows else np.zeros(0)
    return RaggedTensor.from_row_lengths(Tensor(flat.astype(out_dtype._np)), lens, validate=False)


@export("ragged.map_flat_values")
def map_flat_values(op, *args, **kwargs):
    """`op` applied to the flat values of the ragged arguments (which share their partitions);
    the result keeps those partitions."""
    rts = [a for a in list(args) + list(kwargs.values()) if isinstance(a, RaggedTensor)]
    if not rts:
        return op(*args, **kwargs)
    for other in rts[1:]:
        same_partitions(rts[0], other)
    flat = lambda a: a.flat_values if isinstance(a, RaggedTensor) else a  # noqa: E731
    out = op(*[flat(a) for a in args], **{k: flat(v) for k, v in kwargs.items()})
    out = as_tensor(out) if not isinstance(out, Tensor) else out
    n = rts[0].flat_values.shape[0]
    if out.shape.rank == 0 or out.shape[0] != n:
        raise ValueError(f"map_flat_values: the op returned shape {list(out.shape)}, but its first "
                         f"dimension must stay {n} (one entry per flat value)")
    return rts[0].with_flat_values(out)


def _as_ragged(value, ragged_rank, dtype=None):
    if isinstance(value, RaggedTensor):
        return value
    t = as_tensor(value) if dtype is None else convert_to_tensor(value, dtype=dtype)
    return RaggedTensor.from_tensor(t, ragged_rank=ragged_rank)


def _align(values):
    """All inputs as ragged tensors of one ragged_rank and dtype."""
    rr = max(v.ragged_rank for v in values if isinstance(v, RaggedTensor))
    dtype = next(v.dtype for v in values if isinstance(v, RaggedTensor))
    out = [_as_ragged(v, rr, dtype) for v in values]
    ranks = {v.shape.rank for v in out}
    if len(ranks) > 1:
        raise ValueError(f"Tensor rank mismatch: the inputs have ranks {sorted(ranks)}; concat and "
                         f"stack need inputs of one rank")
    return out


def _interleave_rows(parts):
    """Row i of the result joins row i of every part (concat along axis 1)."""
    n = parts[0].nrows_int()
    if any(p.nrows_int() != n for p in parts):
        raise errors.InvalidArgumentError(
            None, None, f"Input tensors at index 0 (=x) and 1 (=y) must have the same number of rows "
                        f"for concat along axis 1, got {[p.nrows_int() for p in parts]}")
    joined = concat_axis0([p.values for p in parts])
    offsets = np.cumsum([0] + [int(p._splits_np[-1]) for p in parts])[:-1]
    idx, lens = [], []
    for i in _builtin_range(n):
        row = [np.arange(p._splits_np[i], p._splits_np[i + 1]) + off for p, off in zip(parts, offsets)]
        row = np.concatenate(row)
        idx.append(row)
        lens.append(row.size)
    idx = np.concatenate(idx).astype(np.int64) if idx else np.zeros(0, np.int64)
    return RaggedTensor._make(gather_rows(joined, idx), np.concatenate([[0], np.cumsum(lens)]))


def concat(values, axis):
    """tf.concat for a list holding ragged tensors (axis 0: more rows; 1: longer rows)."""
    parts = _align(list(values))
    rank = parts[0].shape.rank
    a = axis + rank if axis < 0 else axis
    if a == 0:
        return concat_axis0(parts)
    if a == 1:
        return _interleave_rows(parts)
    return parts[0].with_values(concat([p.values for p in parts], a - 1))


@export("ragged.stack")
def stack(values, axis=0, name=None):
    """tf.ragged.stack: the inputs (ragged or dense) stacked along a new dimension `axis`."""
    values = list(values)
    if not any(isinstance(v, RaggedTensor) for v in values):
        return RaggedTensor.from_tensor(shaping.stack([as_tensor(v) for v in values], axis))
    parts = _align(values)
    rank = parts[0].shape.rank
    a = axis + rank + 1 if axis < 0 else axis
    k = len(parts)
    if a == 0:
        return RaggedTensor._make(concat_axis0(parts),
                                  np.concatenate([[0], np.cumsum([p.nrows_int() for p in parts])]))
    if a == 1:
        n = parts[0].nrows_int()
        joined = concat_axis0(parts)
        idx = np.asarray([j * n + i for i in _builtin_range(n) for j in _builtin_range(k)], dtype=np.int64)
        if any(p.nrows_int() != n for p in parts):
            raise errors.InvalidArgumentError(None, None, "stack: the inputs must have the same number of "
                                                          "rows to stack along axis 1")
        return RaggedTensor._make(gather_rows(joined, idx), np.arange(n + 1, dtype=np.int64) * k,
                                  uniform_row_length=k)
    return parts[0].with_values(stack([p.values for p in parts], a - 1))


@export("ragged.boolean_mask")
def boolean_mask(data, mask, name=None):
    """The entries of `data` where `mask` is True, rows kept: a ragged result whose rows may shrink."""
    if not isinstance(mask, RaggedTensor):
        mask = as_tensor(mask)
        if mask.shape.rank == 1:
            keep = np.nonzero(np.asarray(mask.numpy()))[0].astype(np.int64)
            return gather_rows(data if isinstance(data, RaggedTensor) else as_tensor(data), keep)
        mask = RaggedTensor.from_tensor(mask, ragged_rank=mask.shape.rank - 1)
    if not isinstance(data, RaggedTensor):
        data = RaggedTensor.from_tensor(as_tensor(data), ragged_rank=mask.ragged_rank)
    same_partitions(data, mask)
    flat_mask = np.asarray(mask.flat_values.numpy()).astype(bool)
    values = _dense_boolean_mask(data.flat_values, Tensor(flat_mask))
    # recount every level from the bottom: kept values per innermost row, then upwards
    keep = flat_mask
    levels = [s.numpy() for s in data.nested_row_splits]
    new_splits = []
    for splits in reversed(levels):
        per_row = np.add.reduceat(keep.astype(np.int64), splits[:-1]) if keep.size else np.zeros(
            splits.size - 1, np.int64)
        per_row[np.diff(splits) == 0] = 0
        new_splits.insert(0, np.concatenate([[0], np.cumsum(per_row)]).astype(np.int64))
        keep = np.ones(splits.size - 1, dtype=bool)
    return RaggedTensor.from_nested_row_splits(values, new_splits, validate=False)


# -- tf.* handlers --------------------------------------------------------------------------

@register(shaping.concat)
def _concat(api, values, axis, name="concat"):
    return concat(values, axis)


@register(shaping.stack)
def _stack(api, values, axis=0, name="stack"):
    return stack(values, axis)


def _row_index(rt, per_row):
    """Gather the values of `rt` row by row through `per_row(i, indices_of_row_i)`."""
    s = rt._splits_np
    pieces = [per_row(i, np.arange(s[i], s[i + 1])) for i in _builtin_range(s.size - 1)]
    lens = [p.size for p in pieces]
    idx = np.concatenate(pieces).astype(np.int64) if pieces else np.zeros(0, np.int64)
    return RaggedTensor._make(gather_rows(rt.values, idx), np.concatenate([[0], np.cumsum(lens)]))


@register(shaping.tile)
def _tile(api, input, multiples, name=None):  # noqa: A002
    """Rows repeated multiples[0] times, each row's values multiples[1] times, inner dims tiled."""
    rt = input
    reps = [int(m) for m in (multiples.numpy().tolist() if isinstance(multiples, Tensor) else multiples)]
    if len(reps) != rt.shape.rank:
        raise errors.InvalidArgumentError(None, None, f"Expected multiples argument to be a vector of length "
                                                      f"{rt.shape.rank} but got length {len(reps)} [Op:Tile]")
    if rt.ragged_rank != 1:
        raise NotImplementedError("tf.tile of a RaggedTensor with ragged_rank > 1 is not supported in minitf")
    if any(r != 1 for r in reps[2:]):
        rt = rt.with_values(shaping.tile(rt.values, [1] + reps[2:]))
    rt = _row_index(rt, lambda i, idx: np.tile(idx, reps[1]))
    return gather_rows(rt, np.tile(np.arange(rt.nrows_int()), reps[0]))


@register(array.reverse)
def _reverse(api, tensor, axis, name=None):
    """Rows in reverse order (axis 0), each row's values reversed (axis 1), or deeper dims."""
    rt = tensor
    axes = axis.numpy().tolist() if isinstance(axis, Tensor) else list(axis)
    for a in axes:
        a = a + rt.shape.rank if a < 0 else a
        if a == 0:
            rt = gather_rows(rt, np.arange(rt.nrows_int())[::-1].copy())
        elif a == 1:
            rt = _row_index(rt, lambda i, idx: idx[::-1])
        else:
            rt = rt.with_values(array.reverse(rt.values, [a - 1]))
    return rt


def _reduce_join(api, inputs, axis=None, keepdims=False, separator="", name=None):
    """tf.strings.reduce_join of a ragged tensor: along the innermost ragged axis each row's
    strings are joined; along a uniform inner axis the flat values are joined."""
    rt = inputs
    if not isinstance(rt, RaggedTensor) or keepdims:
        return NotImplemented
    rank = rt.shape.rank
    if axis is None:
        return api(rt.flat_values, axis=None, separator=separator)
    a = axis + rank if axis < 0 else axis
    if a > rt.ragged_rank:
        return rt.with_flat_values(api(rt.flat_values, axis=a - rt.ragged_rank, separator=separator))
    if a != rt.ragged_rank:
        raise NotImplementedError("tf.strings.reduce_join of a RaggedTensor joins along its innermost ragged "
                                  "axis or a uniform inner axis only in minitf")
    inner = rt if rt.ragged_rank == 1 else _innermost(rt)
    sep = separator.encode("utf-8") if isinstance(separator, str) else separator
    flat = np.asarray(inner.values.numpy(), dtype=object)
    s = inner._splits_np
    out = np.empty(s.size - 1, dtype=object)
    for i in _builtin_range(s.size - 1):
        out[i] = sep.join(flat[s[i]:s[i + 1]])
    joined = Tensor(out)
    return joined if rt.ragged_rank == 1 else _replace_innermost(rt, joined)


def _innermost(rt):
    while isinstance(rt.values, RaggedTensor):
        rt = rt.values
    return rt


def _replace_innermost(rt, values):
    """`rt` with its innermost ragged level replaced by `values` (one entry per innermost row)."""
    if not isinstance(rt.values.values, RaggedTensor):
        return rt.with_values(values)
    return rt.with_values(_replace_innermost(rt.values, values))


HANDLERS_BY_NAME[("minitf.ops.string_ops", "reduce_join")] = _reduce_join


@register(array.gather)
def _gather(api, params, indices, validate_indices=None, axis=None, batch_dims=0, name=None):
    """tf.gather of ragged rows (axis 0): indices of any shape add uniform outer dimensions."""
    if not isinstance(params, RaggedTensor) or isinstance(indices, RaggedTensor):
        return NotImplemented
    if axis not in (None, 0) or batch_dims:
        raise NotImplementedError("tf.gather of a RaggedTensor supports axis=0 and batch_dims=0 in minitf")
    idx = np.asarray(as_tensor(indices).numpy())
    n = params.nrows_int()
    if idx.size and (idx.min() < -n or idx.max() >= n):
        flat = idx.reshape(-1)
        pos = int(np.nonzero((flat < -n) | (flat >= n))[0][0])
        raise errors.InvalidArgumentError(None, None, f"indices[{pos}] = {flat[pos]} is not in [0, {n}) "
                                                      f"[Op:GatherV2]")
    out = gather_rows(params, np.where(idx < 0, idx + n, idx).reshape(-1))
    for size in reversed(idx.shape[1:]):
        out = RaggedTensor.from_uniform_row_length(out, size)
    return out


@register(shaping.size)
def _size(api, input, out_type=None, name=None):  # noqa: A002
    """The number of values (all elements of the flat values)."""
    n = int(np.prod(input.flat_values.shape.as_list()))
    return Tensor(np.asarray(n, dtype=dtypes.as_dtype(out_type or dtypes.int32)._np))


@register(shaping.rank)
def _rank(api, input, name=None):  # noqa: A002
    """The number of dimensions, ragged ones included."""
    return Tensor(np.asarray(input.shape.rank, dtype=np.int32))
