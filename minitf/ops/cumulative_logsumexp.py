"""tf.math.cumulative_logsumexp: a running log(sum(exp(x))) along one axis (exclusive and reverse
as tf.math.cumsum), with TF's gradient rule beside it."""
import numpy as np

from minitf import dispatch
from minitf.ops._core import FLOATS, Op, Tensor, thread_state, array_module, as_tensor, record
from minitf.ops.array import where
from minitf.ops.creation import zeros_like
from minitf.ops.math import exp, greater, less, log, negative, subtract
from minitf.api_export import export

__all__ = ["cumulative_logsumexp"]

CUMULATIVE_LOGSUMEXP = Op("CumulativeLogsumexp", dtypes=FLOATS)


def _scan(xp, v, axis, exclusive, reverse):
    """The running logaddexp of `v` along `axis` on raw arrays."""
    moved = xp.moveaxis(v, axis, 0)
    if reverse:
        moved = moved[::-1]
    accumulate = getattr(xp.logaddexp, "accumulate", None)
    with np.errstate(invalid="ignore"):  # inf - inf inside logaddexp(inf, inf) is still inf
        if accumulate is not None:
            out = accumulate(moved, axis=0)
        else:  # array modules without ufunc.accumulate: one logaddexp per step
            out = xp.empty_like(moved)
            if moved.shape[0]:
                out[0] = moved[0]
            for i in range(1, moved.shape[0]):
                out[i] = xp.logaddexp(out[i - 1], moved[i])
    if exclusive:
        head = xp.full((1,) + out.shape[1:], -xp.inf, out.dtype)
        out = xp.concatenate([head, out[:-1]], axis=0)
    if reverse:
        out = out[::-1]
    return xp.ascontiguousarray(xp.moveaxis(out.astype(v.dtype, copy=False), 0, axis))


@export("math.cumulative_logsumexp")
@dispatch.add_dispatch_support
def cumulative_logsumexp(x, axis=0, exclusive=False, reverse=False, name=None):
    """log(cumsum(exp(x))) along `axis`, computed stably; `exclusive` leaves each element out of
    its own sum (-inf first), `reverse` sums from the end. Floating dtypes only."""
    x = as_tensor(x)
    CUMULATIVE_LOGSUMEXP.check_dtype(x)
    a = as_tensor(axis)
    if a.shape.rank != 0:
        raise CUMULATIVE_LOGSUMEXP.invalid(f"ScanOp: axis must be a scalar, not {list(a.shape)}")
    a = int(a._value)
    ndim = x._value.ndim
    if not -ndim <= a < ndim:
        raise CUMULATIVE_LOGSUMEXP.invalid(f"ScanOp: Expected scan axis in the range [{-ndim}, {ndim}), but got {a}")
    y = Tensor(_scan(array_module(x._value), x._value, a % ndim, bool(exclusive), bool(reverse)))
    if thread_state.active:
        def grad(g):
            # TF's rule: g split into its positive and negative parts, each taken to logs
            with np.errstate(divide="ignore"):
                minus_inf = log(zeros_like(g))
            log_pos = where(greater(g, 0), log(where(greater(g, 0), g, 1)), minus_inf)
            log_neg = where(less(g, 0), log(where(less(g, 0), negative(g), 1)), minus_inf)
            back = dict(axis=a, exclusive=exclusive, reverse=not reverse)
            pos = exp(cumulative_logsumexp(subtract(log_pos, y), **back) + x)
            neg = exp(cumulative_logsumexp(subtract(log_neg, y), **back) + x)
            return pos - neg
        record(CUMULATIVE_LOGSUMEXP, (x,), (y,), grad)
    return y
