"""The k largest entries (tf.math.top_k, also tf.nn.top_k) and tf.nn.in_top_k.

top_k orders with a stable argsort (ties: the lower index first, as TF) from `minitf.kernels`;
its values are a gather along the last axis whose gradient scatters back (GatherLast and
ScatterLast are each other's gradients, so derivatives of any order work).
"""
import collections

from minitf import dispatch
from minitf import kernels
from minitf.dtypes import dtypes
from minitf.errors import errors
from minitf.ops._core import Op, Tensor, thread_state, array_module, as_tensor, record
from minitf.api_export import export

__all__ = ["top_k", "in_top_k"]


TopKV2 = collections.namedtuple("TopKV2", ["values", "indices"])


@export("math.top_k", "nn.top_k")
@dispatch.add_dispatch_support
def top_k(input, k=1, sorted=True, index_type=dtypes.int32, name=None):  # noqa: A002
    """The k largest entries of the last dimension and their indices (ties: lower index first)."""
    x = as_tensor(input)
    k = int(k.numpy()) if isinstance(k, Tensor) else int(k)
    if x._value.ndim == 0:
        raise errors.invalid_argument("TopKV2", "input must be at least 1-D, got a scalar")
    if x._value.dtype.kind not in "fiu":
        raise errors.invalid_argument("TopKV2", f"Value for attr 'T' of {x.dtype.name} is not in the list "
                                                f"of allowed values (real number types)")
    n = x._value.shape[-1]
    if k < 0:
        raise errors.invalid_argument("TopKV2", f"Need k >= 0, got {k}")
    if n < k:
        raise errors.invalid_argument("TopKV2", f"input must have at least k columns. Had {n}, needed {k}")
    xp = array_module(x._value)
    v = x._value
    key = -(v.astype("int64") if v.dtype.kind in "ub" else v)
    order = kernels.for_module(xp).argsort_stable(key, axis=-1)
    idx = order[..., :k]
    values = _gather_last(x, idx)
    return TopKV2(values, Tensor(idx.astype(dtypes.as_dtype(index_type)._np)))


GATHER_LAST = Op("GatherLast", batchable=True)


def _gather_last(x, idx):
    """x[..., idx] along the last axis (idx has x's leading shape); scatters back in the gradient."""
    xp = array_module(x._value)
    y = Tensor(xp.take_along_axis(x._value, idx, axis=-1))
    if thread_state.active and x._value.dtype.kind in "fc":
        n = x._value.shape[-1]
        record(GATHER_LAST, (x,), (y,), lambda g: _scatter_last(g, idx, n))
    return y


SCATTER_LAST = Op("ScatterLast", batchable=True)


def _scatter_last(g, idx, n):
    """Zeros with last dimension n and g written at idx (the gradient of _gather_last)."""
    xp = array_module(g._value)
    gv = g._value
    k = gv.shape[-1]
    flat_idx = xp.broadcast_to(idx, gv.shape).reshape(-1, k) if gv.size else None
    out = xp.zeros(gv.shape[:-1] + (n,), dtype=gv.dtype)
    if gv.size:  # (k = 0 or an empty batch scatters nothing)
        rows = xp.arange(flat_idx.shape[0])[:, None]
        out.reshape(-1, n)[rows, flat_idx] = gv.reshape(-1, k)  # indices in a row are distinct
    y = Tensor(out)
    if thread_state.active:
        record(SCATTER_LAST, (g,), (y,),
               lambda u: _gather_last(u, xp.broadcast_to(idx, u._value.shape[:-1] + idx.shape[-1:])))
    return y


@export("math.in_top_k", "nn.in_top_k")
@dispatch.add_dispatch_support
def in_top_k(targets, predictions, k, name=None):
    """For each row, whether predictions[row, targets[row]] is among the k largest (ties count)."""
    p = as_tensor(predictions)
    t = as_tensor(targets)
    if p._value.ndim != 2 or t._value.ndim != 1 or t._value.shape[0] != p._value.shape[0]:
        raise errors.invalid_argument("InTopKV2", f"predictions must be [batch, classes] and targets "
                                                  f"[batch], got {list(p.shape)} and {list(t.shape)}")
    xp = array_module(p._value)
    n = p._value.shape[1]
    tv = xp.asarray(t._value).astype("int64")
    valid = (tv >= 0) & (tv < n)
    safe = xp.where(valid, tv, 0)
    target_value = p._value[xp.arange(p._value.shape[0]), safe]
    larger = (p._value > target_value[:, None]).sum(axis=1)
    k = int(k.numpy()) if isinstance(k, Tensor) else int(k)
    return Tensor(valid & xp.isfinite(target_value) & (larger < k))

