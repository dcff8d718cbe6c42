"""Reading and writing entries by index or condition: where, gather/gather_nd, scatter_nd and the
tensor_scatter_nd_* updates, boolean_mask, and the ops built on gathers (pad, repeat), with
gradients.
"""
import numpy as np

from minitf import dispatch, kernels
from minitf.errors import errors
from minitf.backend import coerce_to_module
from minitf.indexed_slices import IndexedSlices
from minitf.ops._core import (Op, Tensor, Variable, thread_state, array_module, as_tensor, binary,
                              check_attr_dtype, normalize_axis, record, graph_call, is_graph_value, tracing)
from minitf.ops.creation import zeros_like
from minitf.ops.arg_checks import converted, int_attr
from minitf.ops.shaping import (batch_ndim, int_list, scalar_int, shape_arg, reshape, stack,
                                unstack)
from minitf.api_export import export

__all__ = ["where", "gather", "gather_nd", "scatter_nd", "tensor_scatter_nd_update",
           "tensor_scatter_nd_add", "tensor_scatter_nd_sub", "tensor_scatter_nd_max",
           "tensor_scatter_nd_min", "boolean_mask", "pad", "repeat"]


SELECT = Op("SelectV2", batchable=True)


@export("where")
def where(condition, x=None, y=None, name=None):
    """Elementwise choice between `x` and `y`, or the coordinates of true entries.

    Args:
      condition: a bool tensor.
      x, y: both or neither; with both, they and `condition` broadcast to one shape.
      name: ignored (TF's op name).

    Returns:
      With x and y: the entries of x where `condition` is true, else of y (the gradient goes to
      the chosen side). With neither: an int64 [n, rank] tensor of the true coordinates.

    Raises:
      ValueError: only one of x and y.
      InvalidArgumentError: a non-bool condition, shapes that do not broadcast, or a scalar
        condition without x and y.
    """
    if tracing[0] and (is_graph_value(condition) or is_graph_value(x) or is_graph_value(y)):
        return graph_call(where, (condition, x, y), {})
    cond = as_tensor(condition)
    xp = array_module(cond._value)
    if x is None and y is None:
        if cond._value.ndim == 0:
            raise errors.invalid_argument("Where", "WhereOp : Unhandled input dimensions: 0; pass a "
                                                   "tensor of rank >= 1")
        return Tensor(xp.argwhere(cond._value).astype("int64"))
    if x is None or y is None:
        raise ValueError("where needs both x and y, or neither.")
    x, y = binary(x, y, SELECT)
    if cond._value.dtype.kind != "b":
        raise SELECT.invalid(f"condition must be a bool tensor, got {cond.dtype.name}")
    try:
        z = Tensor(kernels.for_module(xp).select(cond._value, x._value, y._value))
    except ValueError:
        raise SELECT.invalid(f"condition {list(cond.shape)}, x {list(x.shape)} and y {list(y.shape)} "
                             "must be broadcastable to one shape") from None
    if thread_state.active:
        def grad(g):
            zero = zeros_like(g)
            return (None, lambda: where(cond, g, zero), lambda: where(cond, zero, g))
        record(SELECT, (cond, x, y), (z,), grad)
    return z


@export("pad")
@dispatch.add_dispatch_support
def pad(tensor, paddings, mode="CONSTANT", constant_values=0, name=None):
    """Pad `tensor` with paddings[i] = [before, after] entries along each dimension, filled with
    `constant_values` (mode CONSTANT) or mirrored (REFLECT excludes the edge, SYMMETRIC repeats it)."""
    x = tensor if type(tensor) is Tensor else converted(tensor, "tf.pad", "tensor")
    raw = np.asarray(paddings.numpy() if isinstance(paddings, (Tensor, Variable)) else paddings)
    if raw.size and raw.dtype.kind not in "iu":
        raise errors.invalid_argument(
            "Pad", f"Value for attr 'Tpaddings' of {raw.dtype.name} is not in the list of allowed "
                   f"values: int32, int64; pass integer paddings")
    if raw.ndim != 2 or raw.shape[1] != 2:
        raise errors.invalid_argument(
            "Pad", f"paddings must be a matrix with 2 columns: {list(raw.shape)}; give one "
                   f"[before, after] pair per dimension")
    pads = int_list(raw)
    nd = x._value.ndim
    if not isinstance(mode, str):  # TF calls mode.upper(): an AttributeError
        raise AttributeError(f"tf.pad: `mode` must be a string, 'CONSTANT', 'REFLECT' or 'SYMMETRIC', "
                             f"not {mode!r}")
    mode_up = mode.upper()
    if mode_up not in ("CONSTANT", "REFLECT", "SYMMETRIC"):
        raise ValueError(f"pad: unknown padding mode {mode!r}; use 'CONSTANT', 'REFLECT' or 'SYMMETRIC'")
    if len(pads) != 2 * nd:
        raise errors.invalid_argument(
            "Pad", f"The first dimension of paddings must be the rank of inputs: paddings has "
                   f"{len(pads) // 2 if len(pads) % 2 == 0 else len(pads)} rows, input shape {list(x.shape)}")
    pairs = [(pads[2 * i], pads[2 * i + 1]) for i in range(nd)]
    if any(p < 0 for pr in pairs for p in pr):
        raise errors.invalid_argument("Pad", f"Paddings must be non-negative, got {pairs}")
    if mode_up == "CONSTANT":
        return _pad_constant(x, pairs, constant_values)
    return _pad_mirror(x, pairs, mode_up)


PAD = Op("Pad", batchable=True)
PAD_GRAD = Op("PadGrad", batchable=True)


def _is_python_zero(value):
    """TF's test for the Pad op (no fill value): a non-tensor scalar equal to its type's zero
    (0, 0.0, False, b"", "", -0.0, 0j), whatever the tensor's dtype."""
    if isinstance(value, (Tensor, Variable)) or np.ndim(value) != 0:
        return False
    try:
        return bool(value == np.zeros_like(value))
    except (TypeError, ValueError):
        return False


def _dtype_zero(raw):
    """The zero of an array's dtype, which Pad fills with: False, 0, 0.0, 0j, or b"" for strings."""
    return b"" if raw.dtype == object else raw.dtype.type(0)


def _pad_constant(x, pairs, constant_values):
    xp = array_module(x._value)
    if _is_python_zero(constant_values):
        fill = _dtype_zero(x._value)
    else:
        if isinstance(constant_values, (Tensor, Variable)) and constant_values.dtype != x.dtype:
            raise errors.invalid_argument(
                "PadV2", f"cannot compute PadV2 as input #2(zero-based) was expected to be a {x.dtype.name} "
                         f"tensor but is a {constant_values.dtype.name} tensor; tf.pad: cast constant_values "
                         f"to the input's dtype")
        fill_value = converted(constant_values, "tf.pad", "constant_values", x.dtype)
        if fill_value._value.ndim:
            raise errors.invalid_argument("PadV2", f"tf.pad: constant_values must be a scalar. Found: "
                                                   f"{list(fill_value.shape)}")
        fill = coerce_to_module(fill_value._value, xp)
    out_shape = tuple(d + a + b for d, (a, b) in zip(x._value.shape, pairs))
    out = xp.full(out_shape, fill, dtype=x._value.dtype)
    inner = tuple(slice(a, a + d) for d, (a, _) in zip(x._value.shape, pairs))
    out[inner] = x._value
    y = Tensor(out)
    if thread_state.active:
        record(PAD, (x,), (y,), lambda g: _pad_grad(g, pairs, inner) if inner else g)
    return y


def _pad_grad(g, pairs, inner):
    """The cotangent of a constant pad: the inner block of `g` (after any batch dimensions)."""
    y = Tensor(g._value[(Ellipsis,) + inner])
    if thread_state.active:
        record(PAD_GRAD, (g,), (y,),
               lambda u: _pad_constant(u, [(0, 0)] * (u._value.ndim - len(pairs)) + list(pairs), 0))
    return y


def _pad_mirror(x, pairs, mode):
    """Mirror padding as one gather per padded axis, so the gradient comes from gather's rule."""
    offset = 0 if mode == "SYMMETRIC" else 1
    for axis, (before, after) in enumerate(pairs):
        n = x._value.shape[axis]
        if before > n - offset or after > n - offset:
            raise errors.invalid_argument(
                "MirrorPad", f"paddings must be no greater than the dimension size{'' if offset == 0 else ' - 1'}"
                             f" in {mode} mode: got {before}, {after} for dimension {axis} of size {n}")
        if before == 0 and after == 0:
            continue
        left = np.arange(before, 0, -1) - 1 + offset
        right = n - 1 - offset - np.arange(after)
        idx = np.concatenate([left, np.arange(n), right]).astype(np.int64)
        x = gather(x, idx, axis=axis)
    return x


# -- gather and scatter ------------------------------------------------------------------------

def _check_indices(idx, limit, op_name, what="indices"):
    """InvalidArgumentError when an index is outside [0, limit), as TF's CPU kernels check."""
    if idx.size == 0:
        return
    lo, hi = int(idx.min()), int(idx.max())
    if lo < 0 or hi >= limit:
        bad = lo if lo < 0 else hi
        raise errors.invalid_argument(op_name, f"{what} value {bad} is not in [0, {limit})")


def _gather_raw(p, idx, axis, batch_dims, lead):
    """xp.take along `lead + axis`, per batch element when batch_dims > 0."""
    xp = array_module(p)
    if batch_dims == 0:
        return xp.take(p, idx, axis=lead + axis)
    bshape = idx.shape[:batch_dims]
    out_shape = (p.shape[:lead] + p.shape[lead:lead + axis] + idx.shape[batch_dims:]
                 + p.shape[lead + axis + 1:])
    out = xp.empty(out_shape, dtype=p.dtype)
    pre = (slice(None),) * lead
    for b in np.ndindex(*bshape):
        out[pre + b] = xp.take(p[pre + b], idx[b], axis=lead + axis - batch_dims)
    return out


def _scatter_add_raw(g, idx, params_shape, axis, batch_dims, lead):
    """The transpose of _gather_raw: zeros of lead + params_shape with g added at the indices."""
    xp = array_module(g)
    out = xp.zeros(g.shape[:lead] + tuple(params_shape), dtype=g.dtype)
    pre = (slice(None),) * lead
    for b in (np.ndindex(*idx.shape[:batch_dims]) if batch_dims else [()]):
        target = out[pre + b]
        where_ = (slice(None),) * (lead + axis - batch_dims) + (idx[b] if b else idx,)
        xp.add.at(target, where_, g[pre + b])
    return out


GATHER = Op("GatherV2", batchable=True)
GATHER_GRAD = Op("GatherGrad", batchable=True)


def _gather_op(params, indices, axis, batch_dims, lead):
    y = Tensor(_gather_raw(params._value, indices._value, axis, batch_dims, lead))
    if thread_state.active:
        pshape = params._value.shape[lead:]
        out_nd = y._value.ndim

        def grad(g):
            extra = lead + batch_ndim(g, out_nd)
            if extra == 0 and axis == 0 and batch_dims == 0:
                n = int(indices._value.size)
                return (IndexedSlices(reshape(g, (n,) + tuple(pshape[1:])), reshape(indices, (n,)),
                                      tuple(int(d) for d in pshape)), None)
            return (_scatter_add_op(g, indices, pshape, axis, batch_dims, extra), None)
        record(GATHER, (params, indices), (y,), grad)
    return y


def _scatter_add_op(g, indices, params_shape, axis, batch_dims, lead):
    out = Tensor(_scatter_add_raw(g._value, indices._value, params_shape, axis, batch_dims, lead))
    if thread_state.active:
        nd = out._value.ndim
        record(GATHER_GRAD, (g,), (out,),
               lambda u: _gather_op(u, indices, axis, batch_dims, lead + batch_ndim(u, nd)))
    return out


@dispatch.add_dispatch_support
def gather(params, indices, validate_indices=None, axis=None, batch_dims=0, name=None):
    """Slices of `params` along `axis` at `indices`.

    Args:
      params: the tensor to read from (rank >= 1).
      indices: int16/int32/int64 indices into dimension `axis`, each in [0, size).
      validate_indices: ignored (indices are always checked, as TF's CPU kernel does).
      axis: the dimension to index; defaults to `batch_dims`.
      batch_dims: the number of leading dimensions params and indices share; each batch
        element gathers from its own slice.
      name: ignored (TF's op name).

    Returns:
      A tensor of shape params.shape[:axis] + indices.shape[batch_dims:] +
      params.shape[axis + 1:]. For axis 0 the gradient is an IndexedSlices (sparse rows), which
      optimizers apply without densifying.

    Raises:
      InvalidArgumentError: an index out of range, a scalar `params`, non-integer indices or
        an invalid `axis`/`batch_dims`.
    """
    p = params if type(params) is Tensor else converted(params, "tf.gather", "params")
    idx = indices if type(indices) is Tensor else converted(indices, "tf.gather", "indices")
    check_attr_dtype(idx, "GatherV2", "Tindices", ("int16", "int32", "int64"))
    nd = p._value.ndim
    batch_dims = batch_dims if type(batch_dims) is int else int_attr(batch_dims, "tf.gather", "batch_dims")
    if batch_dims < 0:
        batch_dims += idx._value.ndim
    if axis is not None and not isinstance(axis, int):
        check_attr_dtype(as_tensor(axis), "GatherV2", "Taxis", ("int32", "int64"))
    axis = batch_dims if axis is None else scalar_int(axis)
    if nd == 0:
        raise GATHER.invalid("params must be at least 1 dimensional, got a scalar")
    axis = normalize_axis(axis, nd, "GatherV2")
    if not 0 <= batch_dims <= min(axis, idx._value.ndim):
        raise errors.invalid_argument(
            "GatherV2", f"batch_dims ({batch_dims}) must be in [0, min(axis={axis}, rank(indices)="
                        f"{idx._value.ndim})]")
    if tuple(p._value.shape[:batch_dims]) != tuple(idx._value.shape[:batch_dims]):
        raise errors.invalid_argument(
            "GatherV2", f"params.shape[:{batch_dims}] = {list(p.shape)[:batch_dims]} must equal "
                        f"indices.shape[:{batch_dims}] = {list(idx.shape)[:batch_dims]}")
    _check_indices(idx._value, p._value.shape[axis], "GatherV2",
                   f"indices for params of shape {list(p.shape)} along axis {axis}:")
    return _gather_op(p, idx, axis, batch_dims, 0)


def _nd_key(idx, lead):
    """A numpy index tuple from an [..., M] integer array (preceded by `lead` full slices)."""
    return (slice(None),) * lead + tuple(idx[..., i] for i in range(idx.shape[-1]))


GATHER_ND = Op("GatherNd", batchable=True)
SCATTER_ND = Op("ScatterNd", batchable=True)


def _gather_nd_op(params, indices, lead):
    y = Tensor(params._value[_nd_key(indices._value, lead)])
    if thread_state.active:
        pshape = params._value.shape[lead:]
        out_nd = y._value.ndim
        record(GATHER_ND, (params, indices), (y,),
               lambda g: (_scatter_nd_op(g, indices, pshape, lead + batch_ndim(g, out_nd)), None))
    return y


def _scatter_nd_op(updates, indices, shape, lead):
    xp = array_module(updates._value)
    out = xp.zeros(updates._value.shape[:lead] + tuple(shape), dtype=updates._value.dtype)
    xp.add.at(out, _nd_key(indices._value, lead), updates._value)
    y = Tensor(out)
    if thread_state.active:
        nd = y._value.ndim
        record(SCATTER_ND, (updates, indices), (y,),
               lambda g: (_gather_nd_op(g, indices, lead + batch_ndim(g, nd)), None))
    return y


def _check_nd(indices, shape, op_name):
    idx = indices._value
    if idx.dtype.kind not in "iu":
        raise errors.invalid_argument(
            op_name, f"Value for attr 'Tindices' of {indices.dtype.name} is not in the list of allowed "
                     f"values: int16, int32, int64; pass integer indices")
    if idx.ndim == 0 or idx.shape[-1] > len(shape):
        raise errors.invalid_argument(
            op_name, f"indices of shape {list(idx.shape)} need a last dimension of at most the rank "
                     f"{len(shape)} of shape {list(shape)}")
    for i in range(idx.shape[-1]):
        _check_indices(idx[..., i], shape[i], op_name, f"indices[..., {i}] for shape {list(shape)}:")


@export("gather_nd")
@dispatch.add_dispatch_support
def gather_nd(params, indices, batch_dims=0, name=None):
    """Slices of `params` at the multi-indices in the last dimension of `indices`."""
    p = as_tensor(params)
    idx = as_tensor(indices)
    batch_dims = scalar_int(batch_dims)
    if batch_dims:
        bshape = p._value.shape[:batch_dims]
        if tuple(bshape) != tuple(idx._value.shape[:batch_dims]):
            raise GATHER_ND.invalid(f"batch dimensions of params {list(p.shape)} and indices "
                                    f"{list(idx.shape)} must match for batch_dims={batch_dims}")
        # one gather_nd per batch element, on the rows of params and indices flattened to [n, ...]
        n = int(np.prod(bshape, dtype=np.int64))
        rows = [gather_nd(a, b) for a, b in
                zip(unstack(reshape(p, (n,) + p._value.shape[batch_dims:])),
                    unstack(reshape(idx, (n,) + idx._value.shape[batch_dims:])))]
        inner = rows[0]._value.shape if rows else ()
        return reshape(stack(rows), bshape + inner)
    _check_nd(idx, p._value.shape, "GatherNd")
    return _gather_nd_op(p, idx, 0)


def _check_updates(idx, updates, shape, op_name):
    want = tuple(idx._value.shape[:-1]) + tuple(shape[idx._value.shape[-1]:])
    if tuple(updates._value.shape) != want:
        raise errors.invalid_argument(
            op_name, f"updates must have shape indices.shape[:-1] + shape[indices.shape[-1]:] = "
                     f"{list(want)}, got {list(updates.shape)} (indices {list(idx.shape)}, "
                     f"shape {list(shape)})")


@export("scatter_nd")
@dispatch.add_dispatch_support
def scatter_nd(indices, updates, shape, name=None):
    """A zero tensor of `shape` with `updates` added at `indices` (repeated indices sum)."""
    idx = as_tensor(indices)
    upd = as_tensor(updates)
    shape = shape_arg(shape)
    _check_nd(idx, shape, "ScatterNd")
    _check_updates(idx, upd, shape, "ScatterNd")
    return _scatter_nd_op(upd, idx, shape, 0)


TENSOR_SCATTER_UPDATE = Op("TensorScatterUpdate", batchable=True)


@export("tensor_scatter_nd_update")
@dispatch.add_dispatch_support
def tensor_scatter_nd_update(tensor, indices, updates, name=None):
    """A copy of `tensor` with the slices at `indices` replaced by `updates`."""
    t = as_tensor(tensor)
    idx = as_tensor(indices)
    upd = as_tensor(updates, dtype=t.dtype if not isinstance(updates, Tensor) else None)
    shape = t._value.shape
    _check_nd(idx, shape, "TensorScatterUpdate")
    if upd.dtype != t.dtype:
        raise TENSOR_SCATTER_UPDATE.invalid(
            f"cannot compute TensorScatterUpdate as input #2(zero-based) was expected to be a "
            f"{t.dtype.name} tensor but is a {upd.dtype.name} tensor; cast the updates with tf.cast")
    _check_updates(idx, upd, shape, "TensorScatterUpdate")
    out = t._value.copy()
    key = _nd_key(idx._value, 0)
    out[key] = upd._value
    y = Tensor(out)
    if thread_state.active:
        xp = array_module(t._value)
        keep = xp.ones(shape, dtype=t._value.dtype)
        keep[key] = 0
        keep = Tensor(keep)
        nd = len(shape)
        record(TENSOR_SCATTER_UPDATE, (t, idx, upd), (y,),
               lambda g: (lambda: g * keep, None,
                          lambda: _gather_nd_op(g, idx, batch_ndim(g, nd))))
    return y


@export("tensor_scatter_nd_add")
@dispatch.add_dispatch_support
def tensor_scatter_nd_add(tensor, indices, updates, name=None):
    """A copy of `tensor` with `updates` added at `indices` (repeated indices sum)."""
    t = as_tensor(tensor)
    upd = as_tensor(updates, dtype=t.dtype if not isinstance(updates, Tensor) else None)
    return t + scatter_nd(indices, upd, t._value.shape)


@export("tensor_scatter_nd_sub")
@dispatch.add_dispatch_support
def tensor_scatter_nd_sub(tensor, indices, updates, name=None):
    """A copy of `tensor` with `updates` subtracted at `indices`."""
    t = as_tensor(tensor)
    upd = as_tensor(updates, dtype=t.dtype if not isinstance(updates, Tensor) else None)
    return t - scatter_nd(indices, upd, t._value.shape)


TENSOR_SCATTER_MAX = Op("TensorScatterMax")
TENSOR_SCATTER_MIN = Op("TensorScatterMin")


def _tensor_scatter_extreme(tensor, indices, updates, op, how):
    t = as_tensor(tensor)
    idx = as_tensor(indices)
    upd = as_tensor(updates, dtype=t.dtype if not isinstance(updates, Tensor) else None)
    shape = t._value.shape
    _check_nd(idx, shape, op.name)
    if upd.dtype != t.dtype:
        raise op.invalid(f"cannot compute {op.name} as input #2(zero-based) was expected to be a "
                         f"{t.dtype.name} tensor but is a {upd.dtype.name} tensor; cast the updates with tf.cast")
    _check_updates(idx, upd, shape, op.name)
    out = t._value.copy()
    kernels.for_module(array_module(out)).scatter_at(out, _nd_key(idx._value, 0), upd._value, how)
    y = Tensor(out)
    if thread_state.active:
        record(op, (t, idx, upd), (y,), lambda g: _extreme_grad(g, t, idx, upd, y))
    return y


def _extreme_grad(g, tensor, indices, updates, out):
    """TF's rule: the gradient goes to every entry equal to the result, split evenly among ties."""
    dtype = g._value.dtype
    x_hits = Tensor((out._value == tensor._value).astype(dtype))
    y_hits = Tensor((gather_nd(out, indices)._value == updates._value).astype(dtype))
    hits = x_hits + scatter_nd(indices, y_hits, tensor._value.shape)  # every entry >= 1
    return (lambda: g * x_hits / hits, None, lambda: gather_nd(g / hits, indices) * y_hits)


@export("tensor_scatter_nd_max")
@dispatch.add_dispatch_support
def tensor_scatter_nd_max(tensor, indices, updates, name=None):
    """A copy of `tensor` where each indexed slice is the elementwise maximum of the tensor's and
    the `updates`' values (repeated indices all take part)."""
    return _tensor_scatter_extreme(tensor, indices, updates, TENSOR_SCATTER_MAX, "maximum")


@export("tensor_scatter_nd_min")
@dispatch.add_dispatch_support
def tensor_scatter_nd_min(tensor, indices, updates, name=None):
    """A copy of `tensor` where each indexed slice is the elementwise minimum of the tensor's and
    the `updates`' values (repeated indices all take part)."""
    return _tensor_scatter_extreme(tensor, indices, updates, TENSOR_SCATTER_MIN, "minimum")


@export("boolean_mask")
@dispatch.add_dispatch_support
def boolean_mask(tensor, mask, axis=None, name="boolean_mask"):
    """The entries of `tensor` where `mask` is true; mask covers dimensions axis..axis+k-1,
    which become one dimension holding the selected entries."""
    t = as_tensor(tensor)
    m = as_tensor(mask)
    if m._value.dtype.kind != "b":
        raise TypeError(f"boolean_mask: mask must be a bool tensor, got {m.dtype.name}")
    k = m._value.ndim
    axis = 0 if axis is None else scalar_int(axis)
    if axis < 0:
        axis += t._value.ndim
    if k == 0:
        raise ValueError("boolean_mask: mask cannot be a scalar.")
    shape = t._value.shape
    if tuple(shape[axis:axis + k]) != tuple(m._value.shape):
        raise ValueError(f"boolean_mask: shapes {list(shape)[axis:axis + k]} (tensor {list(shape)} "
                         f"from axis {axis}) and mask {list(m.shape)} are incompatible")
    flat = reshape(t, shape[:axis] + (-1,) + shape[axis + k:])
    xp = array_module(m._value)
    idx = Tensor(xp.flatnonzero(m._value).astype("int64"))
    return gather(flat, idx, axis=axis)


@export("repeat")
@dispatch.add_dispatch_support
def repeat(input, repeats, axis=None, name=None):  # noqa: A002
    """Each element (or slice along `axis`) repeated `repeats` times; with axis None the input
    is flattened first."""
    x = as_tensor(input)
    if axis is None:
        x = reshape(x, (-1,))
        axis = 0
    nd = x._value.ndim
    if nd == 0:
        x, nd = reshape(x, (1,)), 1
    axis = scalar_int(axis)
    if not -nd <= axis < nd:
        raise ValueError(f"axis={axis} out of bounds: expected {-nd}<=axis<{nd} for repeat on a tensor "
                         f"of shape {list(x.shape)}")
    axis = normalize_axis(axis, nd, "Repeat")
    n = x._value.shape[axis]
    reps = int_list(repeats)
    if len(reps) not in (1, n):
        raise ValueError(f"Dimensions {n} and {len(reps)} are not compatible: repeat needs one count "
                         f"or one per entry of dimension {axis} of shape {list(x.shape)}")
    if any(r < 0 for r in reps):
        raise errors.invalid_argument("Repeat", f"repeats must be non-negative, got {reps}")
    idx = np.repeat(np.arange(n), reps if len(reps) == n else reps[0]).astype(np.int64)
    return gather(x, idx, axis=axis)
