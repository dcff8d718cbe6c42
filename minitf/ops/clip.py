"""Clipping by norm and saturating casts: ops built from the math and reduction ops."""
import numpy as np

from minitf import dispatch
from minitf.dtypes import dtypes
from minitf.errors import errors
from minitf.indexed_slices import IndexedSlices
from minitf.ops._core import Tensor, array_module, as_tensor
from minitf.ops.array import ones_like, where
from minitf.ops.constant import cast, convert_to_tensor
from minitf.ops.math import clip_by_value, maximum, minimum, sqrt
from minitf.ops.reduce import reduce_sum
from minitf.api_export import export

__all__ = ["clip_by_norm", "clip_by_global_norm", "global_norm", "saturate_cast"]


@export("clip_by_norm")
@dispatch.add_dispatch_support
def clip_by_norm(t, clip_norm, axes=None, name=None):
    """`t` scaled so its L2 norm over `axes` is at most `clip_norm` (unchanged when already
    within). An IndexedSlices is clipped by its values."""
    if isinstance(t, IndexedSlices):
        return IndexedSlices(clip_by_norm(t.values, clip_norm, axes), t.indices, t.dense_shape)
    t = as_tensor(t)
    if t._value.dtype.kind not in "fc":  # TF's Sqrt of the squared sum rejects it first
        raise errors.invalid_argument("Sqrt", f"Value for attr 'T' of {t.dtype.name} is not in the list "
                                              f"of allowed values (floating types); cast t to a float")
    clip = as_tensor(clip_norm, dtype=None if isinstance(clip_norm, Tensor) else t.dtype)
    l2sum = reduce_sum(t * t, axes, keepdims=True)
    positive = l2sum > 0
    safe = where(positive, l2sum, ones_like(l2sum))
    l2norm = where(positive, sqrt(safe), l2sum)
    return t * clip / maximum(l2norm, clip)


@export("linalg.global_norm")
@dispatch.add_dispatch_support
def global_norm(t_list, name=None):
    """sqrt of the sum of squared L2 norms of all tensors in `t_list` (None entries skipped)."""
    if isinstance(t_list, (Tensor, IndexedSlices)) or not hasattr(t_list, "__iter__"):
        raise TypeError("global_norm: t_list should be a sequence of tensors")
    total = None
    for t in t_list:
        if t is None:
            continue
        v = as_tensor(t.values if isinstance(t, IndexedSlices) else t)
        sq = reduce_sum(v * v)
        total = sq if total is None else total + _cast_like(sq, total)
    if total is None:
        return Tensor(np.asarray(0.0, dtype=np.float32))
    return sqrt(total)


@export("clip_by_global_norm")
@dispatch.add_dispatch_support
def clip_by_global_norm(t_list, clip_norm, use_norm=None, name=None):
    """Scale every tensor in `t_list` by clip_norm / max(global_norm, clip_norm).

    Returns (list_clipped, global_norm); None entries stay None, IndexedSlices keep their indices.
    If the global norm is infinite or NaN, every entry becomes NaN (as TF).
    """
    if isinstance(t_list, (Tensor, IndexedSlices)) or not hasattr(t_list, "__iter__"):
        raise TypeError("clip_by_global_norm: t_list should be a sequence of tensors")
    t_list = list(t_list)
    norm = global_norm(t_list) if use_norm is None else as_tensor(use_norm)
    clip = as_tensor(clip_norm, dtype=None if isinstance(clip_norm, Tensor) else norm.dtype)
    one = as_tensor(1.0, dtype=norm.dtype)
    scale = clip * minimum(one / norm, one / clip) + (norm - norm)  # NaN when the norm is not finite
    out = []
    for t in t_list:
        if t is None:
            out.append(None)
        elif isinstance(t, IndexedSlices):
            v = as_tensor(t.values)
            out.append(IndexedSlices(v * _cast_like(scale, v), t.indices, t.dense_shape))
        else:
            v = as_tensor(t)
            out.append(v * _cast_like(scale, v))
    return out, norm


def _cast_like(s, v):
    return s if s.dtype == v.dtype else cast(s, v.dtype)


# ClipByValue, which saturate_cast runs first, has no CPU kernel for these input types.
_NO_CLIP_KERNEL = frozenset(("uint32", "uint64"))


def _limit(value, np_dtype):
    """`value` stored in `np_dtype` by a C cast (wrapping where it overflows), as TF's numpy does."""
    with np.errstate(invalid="ignore", over="ignore"):
        return np.array(value).astype(np_dtype)[()]


@export("saturate_cast")
@dispatch.add_dispatch_support
def saturate_cast(value, dtype, name=None):
    """Cast with values first clamped to the target's range (TF's saturate_cast, limits included)."""
    dtype = dtypes.as_dtype(dtype)
    x = convert_to_tensor(value)
    in_dtype = x.dtype
    for d in (in_dtype, dtype):
        if d is dtypes.string or d is dtypes.bool:
            raise TypeError(f"Cannot find minimum value of {d!r} with type {d!r}; "
                            f"saturate_cast needs numeric dtypes (got {in_dtype.name} -> {dtype.name}).")
    real_of = {"complex64": dtypes.float32, "complex128": dtypes.float64}
    if in_dtype.is_complex:
        if dtype.is_complex:
            real_in, real_out = real_of[in_dtype.name], real_of[dtype.name]
            v = x._value
            if real_in.min < real_out.min or real_in.max > real_out.max:
                xp = array_module(v)
                v = (xp.clip(v.real, real_out.min, real_out.max)
                     + 1j * xp.clip(v.imag, real_out.min, real_out.max)).astype(v.dtype)
            return cast(Tensor(v), dtype)
        x = Tensor(x._value.real)
        in_dtype = x.dtype
    out_real = real_of.get(dtype.name, dtype)
    if in_dtype.name in _NO_CLIP_KERNEL:
        raise errors.NotFoundError(
            None, None, f"Could not find a kernel for ClipByValue with T={in_dtype.name} (saturate_cast "
                        f"clamps before casting); cast the input to int64 or float64 first. [Op:ClipByValue]")
    # TF's limits: the target's range expressed in the input type, nudged inward when rounding
    # in that type would overshoot (so the result may saturate a little below the true limit).
    np_dtype = in_dtype._np
    try:
        promoted_type = np.promote_types(np_dtype, out_real._np)
    except TypeError:
        promoted_type = float
    min_limit = _limit(np.maximum(in_dtype.min, out_real.min), np_dtype)
    promoted = np.array([min_limit, out_real.min], dtype=promoted_type)
    if promoted[0] < promoted[1]:
        min_limit = np.nextafter(min_limit, np_dtype.type(0), dtype=np_dtype)
    max_limit = _limit(np.minimum(float(in_dtype.max), float(out_real.max)), np_dtype)
    promoted = np.array([max_limit, out_real.max], dtype=promoted_type)
    if promoted[0] > promoted[1]:
        max_limit = np.nextafter(max_limit, np_dtype.type(0), dtype=np_dtype)
    if max_limit < min_limit:
        # an overflowed limit (int64 -> uint64): TF's kernel applies the upper bound, then the lower
        xp = array_module(x._value)
        x = Tensor(xp.maximum(xp.minimum(x._value, max_limit), min_limit).astype(np_dtype))
    else:
        x = clip_by_value(x, Tensor(np.asarray(min_limit, dtype=np_dtype)),
                          Tensor(np.asarray(max_limit, dtype=np_dtype)))
    return cast(x, dtype)
