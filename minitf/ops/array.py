"""Shape, creation and indexing ops (reshape, transpose, stack, where, zeros, ...), with gradients."""
import builtins

import numpy as np

from minitf.convert import register_packer
from minitf import backend, dtypes, errors
from minitf.ops._core import (Tensor, Variable, _state, record, register_batchable, array_module,
                              as_tensor, check_attr_dtype, normalize_axis)

__all__ = ["reshape", "broadcast_to", "transpose", "stack", "unstack", "where", "zeros", "ones",
           "zeros_like", "ones_like", "fill", "newaxis",
           "expand_dims", "squeeze", "concat", "split", "tile", "pad", "gather", "gather_nd",
           "scatter_nd", "tensor_scatter_nd_update", "tensor_scatter_nd_add",
           "tensor_scatter_nd_sub", "boolean_mask", "one_hot", "range", "linspace", "eye", "shape",
           "size", "rank", "roll", "reverse",
           "sort", "argsort", "repeat", "meshgrid", "sequence_mask", "unique", "identity_n"]

# This module defines tf.range, which shadows the builtin inside it: use _range for loops.
_range = builtins.range

newaxis = None


def _shape_arg(shape):
    """A tuple of ints from a list, tuple, TensorShape or 1-D integer tensor."""
    if isinstance(shape, Tensor):
        return tuple(int(d) for d in np.asarray(shape.numpy()).reshape(-1))
    if isinstance(shape, (int, np.integer)):
        return (int(shape),)
    return tuple(int(d) if not isinstance(d, Tensor) else int(d.numpy()) for d in shape)


def _batch_ndim(g, out_ndim):
    """Leading batch dimensions a cotangent carries beyond the op's output (vectorized jacobians)."""
    return g._value.ndim - out_ndim


def _reshape_sizes(shape):
    """The target of tf.reshape as a tuple of ints, with TF's errors for non-integer or non-1-D sizes."""
    if isinstance(shape, (list, tuple)) and all(type(d) is int for d in shape):
        return tuple(shape)
    if isinstance(shape, (Tensor, Variable)):
        check_attr_dtype(as_tensor(shape), "Reshape", "Tshape", ("int32", "int64"))
        arr = np.asarray(as_tensor(shape).numpy())
    elif isinstance(shape, (list, tuple)) and not any(isinstance(d, (Tensor, Variable)) for d in shape):
        flat = np.ravel(np.asarray(shape, dtype=object)) if shape else ()
        kinds = {builtins.bool if isinstance(d, (builtins.bool, np.bool_)) else
                 int if isinstance(d, (int, np.integer)) else float for d in flat}
        if builtins.bool in kinds and int in kinds:
            raise ValueError(f"Can't convert Python sequence with mixed types to Tensor: reshape sizes "
                             f"{shape!r} mix bools and ints; pass ints")
        arr = np.asarray(shape)
        if arr.dtype.kind not in "iub" and arr.size:
            raise errors.invalid_argument(
                "Reshape", f"Value for attr 'Tshape' of {arr.dtype.name} is not in the list of allowed "
                           f"values: int32, int64; pass integer sizes")
    else:
        return _shape_arg(shape)
    if arr.ndim > 1:
        raise errors.invalid_argument(
            "Reshape", f"sizes input must be 1-D, not {list(arr.shape)}; pass a flat list of sizes")
    return tuple(int(d) for d in arr.reshape(-1))


def _infer_reshape(size_in, in_shape, shape):
    """TF's Reshape shape inference for targets with negative sizes (which numpy treats loosely)."""
    unknown, product = -1, 1
    for i, d in enumerate(shape):
        if d == -1:
            if unknown != -1:
                raise errors.invalid_argument(
                    "Reshape", f"Only one input size may be -1, not both {unknown} and {i}")
            unknown = i
        elif d < 0:
            raise errors.invalid_argument("Reshape", f"Size {i} must be non-negative, not {d}")
        elif d:
            product *= d
    if unknown == -1:
        return shape
    # when the target has a zero size, TF infers -1 from the input's non-zero sizes alone
    target_has_zero = 0 in shape
    known, skipped_zero = 1, False
    for d in in_shape:
        if d > 0 or not target_has_zero:
            known *= d
        else:
            skipped_zero = True
    missing = known // product
    if not skipped_zero and known != product * missing:
        raise errors.invalid_argument(
            "Reshape", f"Input to reshape is a tensor with {size_in} values, but the requested shape "
                       f"requires a multiple of {product}; check the target shape {list(shape)}")
    return shape[:unknown] + (missing,) + shape[unknown + 1:]


def reshape(tensor, shape, name=None):
    """The same values in a new shape; one dimension may be -1 (inferred)."""
    x = as_tensor(tensor)
    shape = _reshape_sizes(shape)
    if shape and min(shape) < 0:
        shape = _infer_reshape(x._value.size, x._value.shape, shape)
    try:
        y = Tensor(x._value.reshape(shape))
    except ValueError:
        raise errors.invalid_argument(
            "Reshape", f"Input to reshape is a tensor with {x._value.size} values, but the requested "
                       f"shape {list(shape)} has {int(np.prod(shape))}; check the target shape") from None
    if _state.active:
        in_shape, out_ndim = x._value.shape, y._value.ndim
        record("Reshape", (x,), (y,),
               lambda g: reshape(g, g._value.shape[:_batch_ndim(g, out_ndim)] + in_shape))
    return y


def broadcast_to(input, shape, name=None):  # noqa: A002
    """`input` broadcast to `shape` with numpy's rules (the gradient sums back)."""
    x = as_tensor(input)
    shape = _shape_arg(shape)
    xp = array_module(x._value)
    try:
        y = Tensor(xp.broadcast_to(x._value, shape))
    except ValueError:
        raise errors.invalid_argument(
            "BroadcastTo", f"Unable to broadcast tensor of shape {list(x.shape)} to shape {list(shape)}") from None
    if _state.active:
        record("BroadcastTo", (x,), (y,), lambda g: g)
    return y


def transpose(a, perm=None, conjugate=False, name="transpose"):
    """Permute the dimensions of `a` (reverse them when perm is None)."""
    x = as_tensor(a)
    nd = x._value.ndim
    perm = tuple(_range(nd))[::-1] if perm is None else _shape_arg(perm)
    for p in perm:
        if not -nd <= p < nd:
            raise errors.invalid_argument("Transpose", f"{p} is out of range [0 .. {nd}) in perm "
                                                       f"{list(perm)} for a tensor of shape {list(x.shape)}")
    if sorted(p % nd if nd else p for p in perm) != list(_range(nd)) or len(perm) != nd:
        raise errors.invalid_argument("Transpose", f"perm {list(perm)} is not a permutation of the "
                                                   f"{nd} dimensions of a tensor of shape {list(x.shape)}")
    y = Tensor(x._value.transpose(perm))
    if _state.active:
        inverse = tuple(np.argsort(perm))

        def grad(g):
            b = _batch_ndim(g, nd)
            return transpose(g, tuple(_range(b)) + tuple(p + b for p in inverse))
        record("Transpose", (x,), (y,), grad)
    return y


def stack(values, axis=0, name="stack"):
    """Join same-shaped tensors along a new axis (Python values take the tensors' dtype).

    As in TF, stacking nothing gives an empty float32 vector and an axis outside the result's
    rank is a ValueError.
    """
    if not isinstance(values, (list, tuple)):
        values = list(values)
    if not values:
        if _scalar_int(axis) != 0:  # TF only converts an empty list as a constant for axis 0
            raise IndexError("list index out of range: stack got no values to stack along axis "
                             f"{axis}")
        return Tensor(backend.default_module().zeros((0,), dtype=np.float32))
    like = next((v for v in values if isinstance(v, (Tensor, Variable))), None)
    tensors = [as_tensor(v) if like is None or isinstance(v, (Tensor, Variable))
               else as_tensor(v, dtype=like.dtype) for v in values]
    first = tensors[0]
    nd = first._value.ndim + 1
    axis = _scalar_int(axis)
    if not -nd <= axis < nd:
        raise ValueError(f"Argument `axis` = {axis} not in range [{-nd}, {nd}) for stacking tensors of "
                         f"shape {list(first.shape)}")
    for t in tensors[1:]:
        if t._value.dtype != first._value.dtype:
            raise errors.invalid_argument("Pack", f"cannot stack tensors of dtypes {first.dtype.name} "
                                                  f"and {t.dtype.name}; cast them to one dtype")
        if t._value.shape != first._value.shape:
            raise errors.invalid_argument(
                "Pack", f"Shapes of all inputs must match: values[0].shape = {list(first.shape)} != "
                        f"values[k].shape = {list(t.shape)}")
    axis = normalize_axis(axis, nd, "Pack")
    xp = array_module(first._value)
    y = Tensor(xp.stack([t._value for t in tensors], axis=axis))
    if _state.active:
        def grad(g):
            return tuple(unstack(g, axis=axis + _batch_ndim(g, nd)))
        record("Pack", tuple(tensors), (y,), grad)
    return y


register_packer(stack)  # tf.convert_to_tensor packs lists holding tensors with stack


def unstack(value, num=None, axis=0, name="unstack"):
    """Split a tensor into a list of tensors along `axis`, removing that axis."""
    x = as_tensor(value)
    nd = x._value.ndim
    axis = _scalar_int(axis)
    if not -nd <= axis < nd:
        raise ValueError(f"Argument `axis` = {axis} not in range [{-nd}, {nd}) for unstacking a tensor "
                         f"of shape {list(x.shape)}")
    axis = normalize_axis(axis, nd, "Unpack")
    n = x._value.shape[axis]
    if num is not None and num != n:
        raise errors.invalid_argument(
            "Unpack", f"Input shape axis {axis} must equal {num}, got shape {list(x.shape)}; pass "
                      f"num={n} or leave it out")
    xp = array_module(x._value)
    outs = tuple(Tensor(v) for v in xp.moveaxis(x._value, axis, 0))
    if _state.active and outs:
        def grad(*gs):
            return stack(gs, axis=axis + _batch_ndim(gs[0], nd - 1))
        record("Unpack", (x,), outs, grad)
    return list(outs)


def where(condition, x=None, y=None, name=None):
    """With x and y: elements of x where condition is true, else of y (broadcasting).
    With only condition: the coordinates of true elements as an int64 [n, rank] tensor."""
    cond = as_tensor(condition)
    xp = array_module(cond._value)
    if x is None and y is None:
        if cond._value.ndim == 0:
            raise errors.invalid_argument("Where", "WhereOp : Unhandled input dimensions: 0; pass a "
                                                   "tensor of rank >= 1")
        return Tensor(xp.argwhere(cond._value).astype("int64"))
    if x is None or y is None:
        raise ValueError("where needs both x and y, or neither.")
    from minitf.ops._core import binary
    x, y = binary(x, y, "SelectV2")
    if cond._value.dtype.kind != "b":
        raise errors.invalid_argument("SelectV2", f"condition must be a bool tensor, got {cond.dtype.name}")
    try:
        z = Tensor(xp.where(cond._value, x._value, y._value))
    except ValueError:
        raise errors.invalid_argument(
            "SelectV2", f"condition {list(cond.shape)}, x {list(x.shape)} and y {list(y.shape)} "
                        "must be broadcastable to one shape") from None
    if _state.active:
        def grad(g):
            zero = zeros_like(g)
            return (None, lambda: where(cond, g, zero), lambda: where(cond, zero, g))
        record("SelectV2", (cond, x, y), (z,), grad)
    return z


def _fill_dims(shape, op_name="Fill"):
    """The shape of a filled tensor: integer, non-negative sizes (TypeError / InvalidArgumentError)."""
    if isinstance(shape, (list, tuple)) and any(isinstance(d, float) for d in shape):
        raise TypeError(f"Cannot convert {list(shape)!r} to EagerTensor of dtype int32; {op_name} needs "
                        f"integer sizes")
    dims = _shape_arg(shape)
    if dims and min(dims) < 0:
        bad = next(d for d in dims if d < 0)
        raise errors.invalid_argument(op_name, f"Dimension {bad} must be >= 0 (shape {list(dims)})")
    return dims


def _filled(xp, dims, dtype, one):
    """xp.zeros / xp.ones of `dtype`; string tensors are filled with b'' (ones has no string kernel)."""
    if dtype is dtypes.string:
        if one:
            raise TypeError("Cannot convert 1 to EagerTensor of dtype string; tf.ones has no string form, "
                            "use tf.fill(dims, 'text')")
        out = np.empty(dims, dtype=object)
        out.fill(b"")
        return out
    return (xp.ones if one else xp.zeros)(dims, dtype=dtype._np)


def zeros(shape, dtype=dtypes.float32, name=None):
    """A tensor of zeros of the given shape and dtype (b'' for strings)."""
    dtype = dtypes.as_dtype(dtype)
    return Tensor(_filled(backend.default_module(), _fill_dims(shape), dtype, one=False))


def ones(shape, dtype=dtypes.float32, name=None):
    """A tensor of ones of the given shape and dtype."""
    dtype = dtypes.as_dtype(dtype)
    return Tensor(_filled(backend.default_module(), _fill_dims(shape), dtype, one=True))


def zeros_like(input, dtype=None, name=None):  # noqa: A002
    """Zeros with the shape (and dtype, unless given) of `input`, on its device (b'' for strings)."""
    x = as_tensor(input)
    xp = array_module(x._value)
    target = dtypes.as_dtype(dtype) if dtype else x.dtype
    return Tensor(_filled(xp, x._value.shape, target, one=False))


def ones_like(input, dtype=None, name=None):  # noqa: A002
    """Ones with the shape (and dtype, unless given) of `input`, on its device."""
    x = as_tensor(input)
    xp = array_module(x._value)
    target = dtypes.as_dtype(dtype) if dtype else x.dtype
    if target is dtypes.string:
        raise errors.invalid_argument("OnesLike", "Value for attr 'T' of string is not in the list of "
                                                  "allowed values (numeric and bool types)")
    return Tensor(xp.ones(x._value.shape, dtype=target._np))


def fill(dims, value, name=None):
    """A tensor of shape `dims` filled with the scalar `value` (dtype inferred from it)."""
    v = as_tensor(value)
    if v._value.ndim != 0:
        raise errors.invalid_argument("Fill", f"value must be a scalar, got shape {list(v.shape)}")
    dims = _fill_dims(dims)
    if v._value.dtype == object:
        out = np.empty(dims, dtype=object)
        out.fill(v._value[()])
        return Tensor(out)
    xp = array_module(v._value)
    return Tensor(xp.full(dims, v._value, dtype=v._value.dtype))


def eye_like_seed(target, n, shape):
    """n one-hot cotangents for `target`, reshaped to `shape` (used by jacobians)."""
    xp = array_module(target._value)
    return Tensor(xp.eye(n, dtype=target._value.dtype).reshape(shape))


register_batchable("Reshape", "BroadcastTo", "Transpose", "Pack", "Unpack", "SelectV2")


# -- shape manipulation ------------------------------------------------------------------------

def _int_list(value):
    """A list of Python ints from an int, list, tuple, numpy array or integer tensor."""
    if isinstance(value, Tensor):
        value = value.numpy()
    return [int(v) for v in np.asarray(value).reshape(-1)]


def _scalar_int(value):
    return int(value.numpy()) if isinstance(value, Tensor) else int(value)


def expand_dims(input, axis, name=None):  # noqa: A002
    """`input` with a new dimension of size 1 inserted at `axis` (negative counts from the end)."""
    x = as_tensor(input)
    nd = x._value.ndim
    axis = _scalar_int(axis)
    if not -nd - 1 <= axis <= nd:
        raise errors.invalid_argument(
            "ExpandDims", f"Tried to expand dim index {axis} for tensor with {nd} dimensions "
                          f"(shape {list(x.shape)}); axis must be in [{-nd - 1}, {nd}]")
    axis = axis % (nd + 1)
    shape = x._value.shape
    return reshape(x, shape[:axis] + (1,) + shape[axis:])


def squeeze(input, axis=None, name=None):  # noqa: A002
    """`input` without dimensions of size 1 (only those listed in `axis`, when given)."""
    x = as_tensor(input)
    shape = x._value.shape
    nd = len(shape)
    if axis is None:
        axes = [i for i, d in enumerate(shape) if d == 1]
    else:
        axes = []
        for a in ([axis] if isinstance(axis, (int, np.integer)) else _int_list(axis)):
            if not -nd <= a < nd:
                raise errors.invalid_argument(
                    "Squeeze", f"Tried to squeeze dim index {a} for tensor with {nd} dimensions "
                               f"(shape {list(shape)})")
            a %= nd
            if shape[a] != 1:
                raise errors.invalid_argument(
                    "Squeeze", f"Can not squeeze dim[{a}], expected a dimension of 1, got {shape[a]} "
                               f"(shape {list(shape)})")
            axes.append(a)
    return reshape(x, tuple(d for i, d in enumerate(shape) if i not in axes))


def concat(values, axis, name="concat"):
    """Join tensors along an existing `axis`; all other dimensions must match.

    As in TF, a single value (or a lone tensor) comes back unchanged whatever `axis` is, and Python
    values take the dtype of the first tensor or variable among `values`.
    """
    if isinstance(axis, float) or (isinstance(axis, Tensor) and axis.dtype.name not in ("int32", "int64")):
        raise TypeError(f"concat: cannot convert axis {axis!r} to EagerTensor of dtype int32; "
                        f"pass an integer axis")
    if not isinstance(values, (list, tuple)):
        values = [values]
    if len(values) == 1:
        if np.ndim(axis.numpy() if isinstance(axis, Tensor) else axis) != 0:
            raise ValueError(f"concat: axis must be a scalar, got {axis!r}")
        from minitf.ops.constant import identity
        return identity(values[0])
    if not values:
        raise errors.invalid_argument(
            "ConcatV2", "ConcatV2 needs at least one tensor (attr 'T' is not set for N=0); "
                        "pass a non-empty list")
    like = next((v for v in values if isinstance(v, (Tensor, Variable))), None)
    tensors = [as_tensor(v) if like is None or isinstance(v, (Tensor, Variable))
               else as_tensor(v, dtype=like.dtype) for v in values]
    first = tensors[0]
    nd = first._value.ndim
    if nd == 0:
        raise errors.invalid_argument("ConcatV2", "Can't concatenate scalars (use tf.stack instead)")
    axis = normalize_axis(_scalar_int(axis), nd, "ConcatV2")
    for i, t in enumerate(tensors[1:], 1):
        if t._value.dtype != first._value.dtype:
            raise errors.invalid_argument("ConcatV2", f"cannot concatenate tensors of dtypes "
                                                      f"{first.dtype.name} and {t.dtype.name}")
        s0, s1 = first._value.shape, t._value.shape
        if len(s0) != len(s1) or any(a != b for k, (a, b) in enumerate(zip(s0, s1)) if k != axis):
            raise errors.invalid_argument(
                "ConcatV2", f"ConcatOp : Dimension mismatch in values[{i}]: shape {list(s1)} vs. "
                            f"values[0] shape {list(s0)} along axis {axis}; all dimensions but the "
                            "concatenation axis must match")
    xp = array_module(first._value)
    y = Tensor(xp.concatenate([t._value for t in tensors], axis=axis))
    if _state.active:
        sizes = [t._value.shape[axis] for t in tensors]

        def grad(g):
            return tuple(split(g, sizes, axis=axis + _batch_ndim(g, nd)))
        record("ConcatV2", tuple(tensors), (y,), grad)
    return y


def split(value, num_or_size_splits, axis=0, num=None, name="split"):
    """Split `value` along `axis` into equal parts (an int) or parts of the given sizes (a list;
    one size may be -1, meaning the rest)."""
    x = as_tensor(value)
    nd = x._value.ndim
    axis = normalize_axis(_scalar_int(axis), nd, "Split")
    n = x._value.shape[axis]
    if isinstance(num_or_size_splits, (int, np.integer)) or (
            isinstance(num_or_size_splits, Tensor) and num_or_size_splits._value.ndim == 0):
        parts = _scalar_int(num_or_size_splits)
        if parts <= 0 or n % parts:
            raise errors.invalid_argument(
                "Split", f"Number of ways to split should evenly divide the split dimension, but got "
                         f"split_dim {axis} (size = {n}) and num_split {parts}")
        sizes = [n // parts] * parts
    else:
        sizes = _int_list(num_or_size_splits)
        if sizes.count(-1) > 1:
            raise errors.invalid_argument("SplitV", f"size_splits {sizes} may contain at most one -1")
        if -1 in sizes:
            sizes[sizes.index(-1)] = n - (sum(sizes) + 1)
        if sum(sizes) != n or any(s < 0 for s in sizes):
            raise errors.invalid_argument(
                "SplitV", f"Determined shape must either match input shape along split_dim exactly if "
                          f"fully specified, or be less than the size of the input along split_dim if "
                          f"not fully specified. Got size_splits {sizes} for dimension {axis} of size {n}")
    xp = array_module(x._value)
    bounds = np.cumsum(sizes)[:-1].tolist()
    outs = tuple(Tensor(v) for v in xp.split(x._value, bounds, axis=axis))
    if _state.active:
        def grad(*gs):
            return concat(gs, axis=axis + _batch_ndim(gs[0], nd))
        record("Split", (x,), outs, grad)
    return list(outs)


def tile(input, multiples, name=None):  # noqa: A002
    """`input` repeated `multiples[i]` times along dimension i."""
    x = as_tensor(input)
    reps = _int_list(multiples)
    nd = x._value.ndim
    if len(reps) != nd:
        raise errors.invalid_argument(
            "Tile", f"Expected multiples argument to be a vector of length {nd} but got length "
                    f"{len(reps)} (input shape {list(x.shape)})")
    if any(r < 0 for r in reps):
        raise errors.invalid_argument("Tile", f"Expected multiples to be non-negative, got {reps}")
    xp = array_module(x._value)
    y = Tensor(xp.tile(x._value, reps) if nd else x._value)
    if _state.active:
        shape = x._value.shape

        def grad(g):
            b = _batch_ndim(g, nd)
            split_shape = g._value.shape[:b] + tuple(v for r, d in zip(reps, shape) for v in (r, d))
            from minitf.ops.reduce import reduce_sum
            return reduce_sum(reshape(g, split_shape), axis=[b + 2 * i for i in _range(nd)])
        record("Tile", (x,), (y,), grad)
    return y


def pad(tensor, paddings, mode="CONSTANT", constant_values=0, name=None):
    """Pad `tensor` with paddings[i] = [before, after] entries along each dimension, filled with
    `constant_values` (mode CONSTANT) or mirrored (REFLECT excludes the edge, SYMMETRIC repeats it)."""
    x = as_tensor(tensor)
    raw = np.asarray(paddings.numpy() if isinstance(paddings, (Tensor, Variable)) else paddings)
    if raw.size and raw.dtype.kind not in "iu":
        raise errors.invalid_argument(
            "Pad", f"Value for attr 'Tpaddings' of {raw.dtype.name} is not in the list of allowed "
                   f"values: int32, int64; pass integer paddings")
    if raw.ndim != 2 or raw.shape[1] != 2:
        raise errors.invalid_argument(
            "Pad", f"paddings must be a matrix with 2 columns: {list(raw.shape)}; give one "
                   f"[before, after] pair per dimension")
    pads = _int_list(raw)
    nd = x._value.ndim
    mode_up = str(mode).upper()
    if mode_up not in ("CONSTANT", "REFLECT", "SYMMETRIC"):
        raise ValueError(f"pad: unknown padding mode {mode!r}; use 'CONSTANT', 'REFLECT' or 'SYMMETRIC'")
    if len(pads) != 2 * nd:
        raise errors.invalid_argument(
            "Pad", f"The first dimension of paddings must be the rank of inputs: paddings has "
                   f"{len(pads) // 2 if len(pads) % 2 == 0 else len(pads)} rows, input shape {list(x.shape)}")
    pairs = [(pads[2 * i], pads[2 * i + 1]) for i in _range(nd)]
    if any(p < 0 for pr in pairs for p in pr):
        raise errors.invalid_argument("Pad", f"Paddings must be non-negative, got {pairs}")
    if mode_up == "CONSTANT":
        return _pad_constant(x, pairs, constant_values)
    return _pad_mirror(x, pairs, mode_up)


def _pad_constant(x, pairs, constant_values):
    xp = array_module(x._value)
    fill_value = as_tensor(constant_values, dtype=x.dtype)
    out_shape = tuple(d + a + b for d, (a, b) in zip(x._value.shape, pairs))
    out = xp.full(out_shape, fill_value._value, dtype=x._value.dtype)
    inner = tuple(slice(a, a + d) for d, (a, _) in zip(x._value.shape, pairs))
    out[inner] = x._value
    y = Tensor(out)
    if _state.active:
        from minitf.ops.indexing import getitem
        record("Pad", (x,), (y,),
               lambda g: getitem(g, (Ellipsis,) + inner) if inner else g)
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


def _gather_op(params, indices, axis, batch_dims, lead):
    y = Tensor(_gather_raw(params._value, indices._value, axis, batch_dims, lead))
    if _state.active:
        pshape = params._value.shape[lead:]
        out_nd = y._value.ndim

        def grad(g):
            extra = lead + _batch_ndim(g, out_nd)
            if extra == 0 and axis == 0 and batch_dims == 0:
                from minitf.indexed_slices import IndexedSlices
                n = int(indices._value.size)
                return (IndexedSlices(reshape(g, (n,) + tuple(pshape[1:])), reshape(indices, (n,)),
                                      tuple(int(d) for d in pshape)), None)
            return (_scatter_add_op(g, indices, pshape, axis, batch_dims, extra), None)
        record("GatherV2", (params, indices), (y,), grad)
    return y


def _scatter_add_op(g, indices, params_shape, axis, batch_dims, lead):
    out = Tensor(_scatter_add_raw(g._value, indices._value, params_shape, axis, batch_dims, lead))
    if _state.active:
        nd = out._value.ndim
        record("GatherGrad", (g,), (out,),
               lambda u: _gather_op(u, indices, axis, batch_dims, lead + _batch_ndim(u, nd)))
    return out


def gather(params, indices, validate_indices=None, axis=None, batch_dims=0, name=None):
    """Slices of `params` along `axis` at `indices`: output shape is params.shape[:axis] +
    indices.shape[batch_dims:] + params.shape[axis + 1:]. The gradient for axis 0 is an
    IndexedSlices (sparse rows), which optimizers can apply without densifying."""
    p = as_tensor(params)
    idx = as_tensor(indices)
    check_attr_dtype(idx, "GatherV2", "Tindices", ("int16", "int32", "int64"))
    nd = p._value.ndim
    batch_dims = _scalar_int(batch_dims)
    if batch_dims < 0:
        batch_dims += idx._value.ndim
    if axis is not None and not isinstance(axis, int):
        check_attr_dtype(as_tensor(axis), "GatherV2", "Taxis", ("int32", "int64"))
    axis = batch_dims if axis is None else _scalar_int(axis)
    if nd == 0:
        raise errors.invalid_argument("GatherV2", "params must be at least 1 dimensional, got a scalar")
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
    return (slice(None),) * lead + tuple(idx[..., i] for i in _range(idx.shape[-1]))


def _gather_nd_op(params, indices, lead):
    y = Tensor(params._value[_nd_key(indices._value, lead)])
    if _state.active:
        pshape = params._value.shape[lead:]
        out_nd = y._value.ndim
        record("GatherNd", (params, indices), (y,),
               lambda g: (_scatter_nd_op(g, indices, pshape, lead + _batch_ndim(g, out_nd)), None))
    return y


def _scatter_nd_op(updates, indices, shape, lead):
    xp = array_module(updates._value)
    out = xp.zeros(updates._value.shape[:lead] + tuple(shape), dtype=updates._value.dtype)
    xp.add.at(out, _nd_key(indices._value, lead), updates._value)
    y = Tensor(out)
    if _state.active:
        nd = y._value.ndim
        record("ScatterNd", (updates, indices), (y,),
               lambda g: (_gather_nd_op(g, indices, lead + _batch_ndim(g, nd)), None))
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
    for i in _range(idx.shape[-1]):
        _check_indices(idx[..., i], shape[i], op_name, f"indices[..., {i}] for shape {list(shape)}:")


def gather_nd(params, indices, batch_dims=0, name=None):
    """Slices of `params` at the multi-indices in the last dimension of `indices`."""
    p = as_tensor(params)
    idx = as_tensor(indices)
    batch_dims = _scalar_int(batch_dims)
    if batch_dims:
        from minitf.ops.indexing import getitem
        if tuple(p._value.shape[:batch_dims]) != tuple(idx._value.shape[:batch_dims]):
            raise errors.invalid_argument(
                "GatherNd", f"batch dimensions of params {list(p.shape)} and indices "
                            f"{list(idx.shape)} must match for batch_dims={batch_dims}")
        rows = [gather_nd(getitem(p, b), getitem(idx, b))
                for b in np.ndindex(*p._value.shape[:batch_dims])]
        inner = rows[0]._value.shape if rows else ()
        return reshape(stack(rows), p._value.shape[:batch_dims] + inner)
    _check_nd(idx, p._value.shape, "GatherNd")
    return _gather_nd_op(p, idx, 0)


def _check_updates(idx, updates, shape, op_name):
    want = tuple(idx._value.shape[:-1]) + tuple(shape[idx._value.shape[-1]:])
    if tuple(updates._value.shape) != want:
        raise errors.invalid_argument(
            op_name, f"updates must have shape indices.shape[:-1] + shape[indices.shape[-1]:] = "
                     f"{list(want)}, got {list(updates.shape)} (indices {list(idx.shape)}, "
                     f"shape {list(shape)})")


def scatter_nd(indices, updates, shape, name=None):
    """A zero tensor of `shape` with `updates` added at `indices` (repeated indices sum)."""
    idx = as_tensor(indices)
    upd = as_tensor(updates)
    shape = _shape_arg(shape)
    _check_nd(idx, shape, "ScatterNd")
    _check_updates(idx, upd, shape, "ScatterNd")
    return _scatter_nd_op(upd, idx, shape, 0)


def tensor_scatter_nd_update(tensor, indices, updates, name=None):
    """A copy of `tensor` with the slices at `indices` replaced by `updates`."""
    t = as_tensor(tensor)
    idx = as_tensor(indices)
    upd = as_tensor(updates, dtype=t.dtype if not isinstance(updates, Tensor) else None)
    shape = t._value.shape
    _check_nd(idx, shape, "TensorScatterUpdate")
    if upd.dtype != t.dtype:
        raise errors.invalid_argument(
            "TensorScatterUpdate", f"cannot compute TensorScatterUpdate as input #2(zero-based) was "
                                   f"expected to be a {t.dtype.name} tensor but is a {upd.dtype.name} "
                                   f"tensor; cast the updates with tf.cast")
    _check_updates(idx, upd, shape, "TensorScatterUpdate")
    out = t._value.copy()
    key = _nd_key(idx._value, 0)
    out[key] = upd._value
    y = Tensor(out)
    if _state.active:
        xp = array_module(t._value)
        keep = xp.ones(shape, dtype=t._value.dtype)
        keep[key] = 0
        keep = Tensor(keep)
        nd = len(shape)
        record("TensorScatterUpdate", (t, idx, upd), (y,),
               lambda g: (lambda: g * keep, None,
                          lambda: _gather_nd_op(g, idx, _batch_ndim(g, nd))))
    return y


def tensor_scatter_nd_add(tensor, indices, updates, name=None):
    """A copy of `tensor` with `updates` added at `indices` (repeated indices sum)."""
    t = as_tensor(tensor)
    upd = as_tensor(updates, dtype=t.dtype if not isinstance(updates, Tensor) else None)
    return t + scatter_nd(indices, upd, t._value.shape)


def tensor_scatter_nd_sub(tensor, indices, updates, name=None):
    """A copy of `tensor` with `updates` subtracted at `indices`."""
    t = as_tensor(tensor)
    upd = as_tensor(updates, dtype=t.dtype if not isinstance(updates, Tensor) else None)
    return t - scatter_nd(indices, upd, t._value.shape)


def boolean_mask(tensor, mask, axis=None, name="boolean_mask"):
    """The entries of `tensor` where `mask` is true; mask covers dimensions axis..axis+k-1,
    which become one dimension holding the selected entries."""
    t = as_tensor(tensor)
    m = as_tensor(mask)
    if m._value.dtype.kind != "b":
        raise TypeError(f"boolean_mask: mask must be a bool tensor, got {m.dtype.name}")
    k = m._value.ndim
    axis = 0 if axis is None else _scalar_int(axis)
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


# -- creation ----------------------------------------------------------------------------------

def one_hot(indices, depth, on_value=None, off_value=None, axis=None, dtype=None, name=None):
    """One-hot vectors of length `depth` for each index (out-of-range indices give all
    `off_value`); the new dimension goes at `axis` (last by default). dtype float32 unless set
    or implied by on_value/off_value."""
    from minitf.ops.constant import convert_to_tensor
    # TF's dtype rules: on/off values fix the dtype, which must agree with each other and `dtype`
    if dtype is not None:
        dtype = dtypes.as_dtype(dtype)
    on = None if on_value is None else convert_to_tensor(on_value, dtype_hint=dtype)
    off = None if off_value is None else convert_to_tensor(off_value, dtype_hint=dtype)
    if on is not None or off is not None:
        for label, t in (("on_value", on), ("off_value", off)):
            if t is not None and dtype is not None and t.dtype != dtype:
                raise TypeError(f"dtype {t.dtype!r} of {label} does not match dtype parameter {dtype!r}")
        if dtype is None:
            dtype = on.dtype if on is not None else off.dtype
    elif dtype is None:
        dtype = dtypes.float32
    on = as_tensor(1, dtype=dtype) if on is None else on
    off = as_tensor(0, dtype=dtype) if off is None else off
    if on.dtype != off.dtype:
        raise TypeError(f"dtype {on.dtype!r} of on_value does not match dtype {off.dtype!r} of off_value")
    if isinstance(indices, (Tensor, Variable)):
        idx = as_tensor(indices)
    else:  # Python data converts as int64 (the op's default index type) where it can
        try:
            idx = as_tensor(indices, dtype=dtypes.int64)
        except (TypeError, ValueError):
            idx = as_tensor(indices)
    check_attr_dtype(idx, "OneHot", "TI", ("uint8", "int8", "int32", "int64"))
    if isinstance(depth, (Tensor, Variable)):
        depth = as_tensor(depth, dtype=dtypes.int32)  # ValueError for an int64 depth, as TF
    elif isinstance(depth, float):
        raise TypeError(f"one_hot: cannot convert depth {depth!r} to EagerTensor of dtype int32")
    depth = _scalar_int(depth)
    if depth < 0:
        raise errors.invalid_argument("OneHot", f"depth must be non-negative, got {depth}")
    xp = array_module(idx._value)
    nd = idx._value.ndim
    axis = nd if axis is None or axis == -1 else _scalar_int(axis)
    if not 0 <= axis <= nd:
        raise errors.invalid_argument("OneHot", f"Expected axis to be -1 or between [0, {nd}), got {axis}")
    hot = xp.expand_dims(idx._value, -1) == xp.arange(depth)
    hot = xp.moveaxis(hot, -1, axis)
    return Tensor(xp.where(hot, on._value, off._value).astype(dtype._np))


def range(start, limit=None, delta=1, dtype=None, name="range"):  # noqa: A001 (TF's name)
    """Numbers from `start` up to (not including) `limit` in steps of `delta` (range(n) counts
    from 0). int32 for integer arguments, float32 when any is a float, unless `dtype` is given."""
    if limit is None:
        start, limit = 0, start
    args = [start, limit, delta]
    vals = [a.numpy() if isinstance(a, Tensor) else a for a in args]
    if dtype is None:
        tensor_dtypes = [a.dtype for a in args if isinstance(a, Tensor)]
        if any(d.is_floating for d in tensor_dtypes):
            dtype = next(d for d in tensor_dtypes if d.is_floating)
        elif any(isinstance(v, (float, np.floating)) for v in vals):
            dtype = dtypes.float32
        elif tensor_dtypes:
            dtype = tensor_dtypes[0]
        else:
            dtype = dtypes.int32
    dtype = dtypes.as_dtype(dtype)
    _check_range_dtype(dtype, args)
    s, l, d = (float(v) if dtype.is_floating else int(v) for v in vals)
    if d == 0:
        raise errors.invalid_argument("Range", f"Requires delta != 0: {d}")
    if (d > 0 and s > l) or (d < 0 and s < l):
        raise errors.invalid_argument(
            "Range", f"Requires start <= limit when delta > 0 (or start >= limit when delta < 0): "
                     f"start={s}, limit={l}, delta={d}")
    xp = backend.default_module()
    return Tensor(xp.arange(s, l, d).astype(dtype._np))


_RANGE_KERNELS = frozenset(("bfloat16", "float16", "float32", "float64", "int32", "int64"))
_RANGE_DECLARED = frozenset(("int8", "int16", "uint16", "uint32", "uint64"))  # no CPU kernel


def _check_range_dtype(dtype, args):
    """TF's errors for range: Python values must convert to `dtype`, which needs a Range kernel."""
    for a in args:
        if isinstance(a, (Tensor, Variable)):
            continue
        if (isinstance(a, float) and not dtype.is_floating) or dtype.is_bool or dtype is dtypes.string:
            raise TypeError(f"Cannot convert {a!r} to EagerTensor of dtype {dtype.name} in range; use "
                            f"a numeric dtype matching the arguments")
    if dtype.name in _RANGE_KERNELS:
        return
    if dtype.name in _RANGE_DECLARED:
        raise errors.NotFoundError(None, None, f"Could not find a Range kernel for Tidx={dtype.name}; use "
                                               f"int32/int64 and tf.cast. [Op:Range]")
    raise errors.invalid_argument("Range", f"Value for attr 'Tidx' of {dtype.name} is not in the list of "
                                           f"allowed values; use int32, int64 or a float type")


def linspace(start, stop, num, name=None, axis=0):
    """`num` evenly spaced values from `start` to `stop`, both included (float dtype of start)."""
    a, b = as_tensor(start), as_tensor(stop)
    dtype = a.dtype if a.dtype.is_floating else dtypes.float32
    num = _scalar_int(num)
    if num < 0:
        raise errors.invalid_argument("LinSpace", f"Requires num >= 0: {num}")
    xp = array_module(a._value)
    out = xp.linspace(a._value.astype(dtype._np), b._value.astype(dtype._np), num, axis=axis)
    return Tensor(xp.asarray(out, dtype=dtype._np))


def eye(num_rows, num_columns=None, batch_shape=None, dtype=dtypes.float32, name=None):
    """An identity matrix [num_rows, num_columns], optionally tiled to batch_shape + that."""
    dtype = dtypes.as_dtype(dtype)
    n = _scalar_int(num_rows)
    m = n if num_columns is None else _scalar_int(num_columns)
    xp = backend.default_module()
    out = xp.eye(n, m, dtype=dtype._np)
    if batch_shape is not None:
        batch = tuple(_int_list(batch_shape))
        out = xp.ascontiguousarray(xp.broadcast_to(out, batch + (n, m)))
    return Tensor(out)


def shape(input, out_type=dtypes.int32, name=None):  # noqa: A002
    """The shape of `input` as a 1-D tensor (int32 unless out_type says int64)."""
    x = input if isinstance(input, Tensor) else as_tensor(input)
    return Tensor(np.asarray(x._value.shape, dtype=dtypes.as_dtype(out_type)._np).reshape(-1))


def size(input, out_type=dtypes.int32, name=None):  # noqa: A002
    """The number of elements of `input` as a scalar tensor."""
    x = as_tensor(input)
    return Tensor(np.asarray(x._value.size, dtype=dtypes.as_dtype(out_type)._np))


def rank(input, name=None):  # noqa: A002
    """The number of dimensions of `input` as an int32 scalar tensor."""
    x = as_tensor(input)
    return Tensor(np.asarray(x._value.ndim, dtype=np.int32))


# -- reordering ------------------------------------------------------------------------------------

def roll(input, shift, axis, name=None):  # noqa: A002
    """Elements shifted cyclically by `shift` along `axis` (both may be lists)."""
    x = as_tensor(input)
    shifts, axes = _int_list(shift), _int_list(axis)
    if len(shifts) != len(axes):
        raise errors.invalid_argument("Roll", f"shift and axis must have the same size, got "
                                              f"{len(shifts)} and {len(axes)}")
    nd = x._value.ndim
    if nd == 0:
        raise errors.invalid_argument("Roll", "input must be 1-D or higher, got a scalar")
    axes = [normalize_axis(a, nd, "Roll") for a in axes]
    xp = array_module(x._value)
    y = Tensor(xp.roll(x._value, shifts, axes) if axes else x._value)
    if _state.active:
        def grad(g):
            b = _batch_ndim(g, nd)
            return roll(g, [-s for s in shifts], [a + b for a in axes])
        record("Roll", (x,), (y,), grad)
    return y


def reverse(tensor, axis, name=None):
    """`tensor` with the order of elements reversed along each axis in `axis`."""
    x = as_tensor(tensor)
    nd = x._value.ndim
    if nd == 0 or x._value.size == 0:  # TF hands these back without looking at `axis`
        from minitf.ops.constant import identity
        return identity(x)
    axes = [normalize_axis(a, nd, "ReverseV2") for a in _int_list(axis)]
    if len(set(axes)) != len(axes):
        raise errors.invalid_argument("ReverseV2", f"axis {axes} specifies a dimension more than once")
    xp = array_module(x._value)
    y = Tensor(xp.flip(x._value, axes) if axes else x._value)
    if _state.active:
        record("ReverseV2", (x,), (y,),
               lambda g: reverse(g, [a + _batch_ndim(g, nd) for a in axes]))
    return y


def _argsort_raw(xp, v, axis, descending, stable):
    kind = "stable" if stable or descending else None
    if not descending:
        return xp.argsort(v, axis=axis, kind=kind)
    n = v.shape[axis]
    return n - 1 - xp.flip(xp.argsort(xp.flip(v, axis), axis=axis, kind=kind), axis)


def _check_direction(direction):
    if direction not in ("ASCENDING", "DESCENDING"):
        raise ValueError(f"Unknown direction {direction!r}; use 'ASCENDING' or 'DESCENDING'.")
    return direction == "DESCENDING"


def _check_sortable(x):
    """sort/argsort run TF's TopKV2: at least 1-D, real numbers only."""
    if x._value.ndim == 0:
        raise errors.invalid_argument("TopKV2", "input must be at least 1-D to sort")
    if x._value.dtype.kind not in "fiu":
        raise errors.invalid_argument("TopKV2", f"Value for attr 'T' of {x.dtype.name} is not in the list "
                                                f"of allowed values (real number types)")


def argsort(values, axis=-1, direction="ASCENDING", stable=False, name=None):
    """Indices (int32) that sort `values` along `axis`."""
    x = as_tensor(values)
    descending = _check_direction(direction)
    _check_sortable(x)
    axis = normalize_axis(_scalar_int(axis), x._value.ndim, "TopKV2")
    xp = array_module(x._value)
    return Tensor(_argsort_raw(xp, x._value, axis, descending, stable).astype("int32"))


def _permute_along(x, perm, inverse, axis):
    """x reordered along `axis` by a per-slice permutation; the gradient applies the inverse."""
    xp = array_module(x._value)
    lead = x._value.ndim - perm.ndim
    y = Tensor(xp.take_along_axis(x._value, perm.reshape((1,) * lead + perm.shape), axis=lead + axis))
    if _state.active:
        record("PermuteAlong", (x,), (y,), lambda g: _permute_along(g, inverse, perm, axis))
    return y


def sort(values, axis=-1, direction="ASCENDING", name=None):
    """`values` sorted along `axis`; the gradient routes each entry back to where it came from."""
    x = as_tensor(values)
    descending = _check_direction(direction)
    _check_sortable(x)
    axis = normalize_axis(_scalar_int(axis), x._value.ndim, "TopKV2")
    xp = array_module(x._value)
    perm = _argsort_raw(xp, x._value, axis, descending, stable=True)
    inverse = xp.argsort(perm, axis=axis)
    return _permute_along(x, perm, inverse, axis)


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
    axis = _scalar_int(axis)
    if not -nd <= axis < nd:
        raise ValueError(f"axis={axis} out of bounds: expected {-nd}<=axis<{nd} for repeat on a tensor "
                         f"of shape {list(x.shape)}")
    axis = normalize_axis(axis, nd, "Repeat")
    n = x._value.shape[axis]
    reps = _int_list(repeats)
    if len(reps) not in (1, n):
        raise ValueError(f"Dimensions {n} and {len(reps)} are not compatible: repeat needs one count "
                         f"or one per entry of dimension {axis} of shape {list(x.shape)}")
    if any(r < 0 for r in reps):
        raise errors.invalid_argument("Repeat", f"repeats must be non-negative, got {reps}")
    idx = np.repeat(np.arange(n), reps if len(reps) == n else reps[0]).astype(np.int64)
    return gather(x, idx, axis=axis)


def meshgrid(*args, **kwargs):
    """Coordinate grids from 1-D tensors; indexing 'xy' (default, Cartesian) or 'ij' (matrix)."""
    indexing = kwargs.pop("indexing", "xy")
    kwargs.pop("name", None)
    if kwargs:
        raise TypeError(f"meshgrid: unexpected keyword arguments {sorted(kwargs)}")
    if indexing not in ("xy", "ij"):
        raise ValueError(f"meshgrid: indexing must be 'xy' or 'ij', got {indexing!r}")
    tensors = [reshape(as_tensor(a), (-1,)) for a in args]
    n = len(tensors)
    sizes = [t._value.shape[0] for t in tensors]
    if indexing == "xy" and n >= 2:
        sizes[0], sizes[1] = sizes[1], sizes[0]
    out = []
    for i, t in enumerate(tensors):
        pos = i
        if indexing == "xy" and n >= 2 and i < 2:
            pos = 1 - i
        view = [1] * n
        view[pos] = -1
        out.append(broadcast_to(reshape(t, view), sizes))
    return out


def sequence_mask(lengths, maxlen=None, dtype=dtypes.bool, name=None):
    """mask[..., j] = j < lengths[...]: a [*lengths.shape, maxlen] mask (maxlen defaults to
    max(lengths))."""
    lens = as_tensor(lengths)
    xp = array_module(lens._value)
    if maxlen is None:
        maxlen = int(lens._value.max()) if lens._value.size else 0
    maxlen = _scalar_int(maxlen)
    if maxlen < 0:
        raise errors.invalid_argument("SequenceMask", f"maxlen must be non-negative, got {maxlen}")
    mask = xp.arange(maxlen) < xp.expand_dims(lens._value, -1)
    return Tensor(mask.astype(dtypes.as_dtype(dtype)._np))


def unique(x, out_idx=dtypes.int32, name=None):
    """(y, idx): the distinct values of 1-D `x` in order of first appearance, and for each
    element of x its position in y."""
    import collections
    t = as_tensor(x)
    if t._value.ndim != 1:
        raise errors.invalid_argument("Unique", f"unique expects a 1D vector, got shape {list(t.shape)}")
    host = backend.to_host(t._value)
    _, first, inverse = np.unique(host, return_index=True, return_inverse=True)
    order = np.argsort(first)
    rank_of = np.empty_like(order)
    rank_of[order] = np.arange(order.size)
    xp = array_module(t._value)
    y = Tensor(t._value[xp.asarray(np.sort(first))])
    idx = Tensor(xp.asarray(rank_of[inverse.reshape(-1)].astype(dtypes.as_dtype(out_idx)._np)))
    return collections.namedtuple("Unique", ["y", "idx"])(y, idx)


def identity_n(input, name=None):  # noqa: A002
    """A list of identities of the tensors in `input`."""
    from minitf.ops.constant import identity
    return [identity(t) for t in input]


register_batchable("ConcatV2", "Split", "Tile", "Pad", "GatherV2", "GatherGrad", "GatherNd",
                   "ScatterNd", "TensorScatterUpdate", "Roll", "ReverseV2", "PermuteAlong")
