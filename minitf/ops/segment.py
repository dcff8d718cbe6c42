"""Segment reductions: tf.math.segment_* (sorted ids along dimension 0) and
tf.math.unsorted_segment_* (ids of any shape that prefixes the data's, negatives dropped), with
TF's gradient rules beside each forward.

Empty segments hold what TF's kernels leave there: 0 for the sorted sum, mean, max and min, 1 for
products, and the dtype's lowest (highest) value for unsorted max (min). Max and min gradients
are split evenly among the tied winners of a segment; product gradients handle zeros as TF does
(one zero: the product of the others; two or more: 0).
"""
import numpy as np

from minitf import dispatch
from minitf.errors import errors
from minitf.ops._core import (NUMERIC, REAL, Op, Tensor, Variable, thread_state, array_module, as_tensor,
                              check_attr_dtype, record)
from minitf.ops.compare import equal, greater, greater_equal, logical_and
from minitf.ops.constant import cast
from minitf.ops.creation import ones_like, zeros_like
from minitf.ops.gather import gather, where
from minitf.ops.math import maximum, multiply, truediv
from minitf.ops.math_unary import rsqrt
from minitf.ops.shaping import reshape
from minitf.api_export import export

__all__ = ["segment_sum", "segment_mean", "segment_max", "segment_min", "segment_prod",
           "unsorted_segment_sum", "unsorted_segment_mean", "unsorted_segment_max",
           "unsorted_segment_min", "unsorted_segment_prod", "unsorted_segment_sqrt_n"]


# -- raw reductions on any array module ----------------------------------------------------------

def _lowest(np_dtype):
    dt = np.dtype(np_dtype)
    return np.finfo(dt).min if dt.kind == "f" else np.iinfo(dt).min


def _highest(np_dtype):
    dt = np.dtype(np_dtype)
    return np.finfo(dt).max if dt.kind == "f" else np.iinfo(dt).max


def reduce_by_padding(xp, data, ids, num, kind):
    """Segment products, maxima or minima without `ufunc.at` (cupy has no multiply.at, and its
    maximum/minimum.at lack some dtypes): rows laid out as [num, longest segment, ...], padded
    with the reduction's identity, then one reduction along axis 1."""
    inner = data.shape[1:]
    fill = {"prod": 1, "max": _lowest(data.dtype), "min": _highest(data.dtype)}[kind]
    if data.shape[0] == 0:
        return xp.full((num,) + inner, fill, dtype=data.dtype)
    order = xp.argsort(ids, kind="stable") if xp is np else xp.argsort(ids)
    sorted_ids = ids[order]
    starts = xp.searchsorted(sorted_ids, sorted_ids, side="left")
    slot = xp.arange(ids.shape[0]) - starts
    width = int(slot.max()) + 1
    grid = xp.full((num, width) + inner, fill, dtype=data.dtype)
    grid[sorted_ids, slot] = data[order]
    return {"prod": xp.prod, "max": xp.max, "min": xp.min}[kind](grid, axis=1)


def _reduce_raw(kind, data, ids, num):
    """[num, ...] reductions of the rows of `data` ([n, ...]) into segments `ids` ([n], each in
    [0, num)); empty segments hold the reduction's identity (lowest/highest for max/min)."""
    xp = array_module(data)
    inner = data.shape[1:]
    if kind == "sum":
        out = xp.zeros((num,) + inner, dtype=data.dtype)
        xp.add.at(out, ids, data)
        return out
    if xp is not np:
        return reduce_by_padding(xp, data, ids, num, kind)
    fill = {"prod": 1, "max": _lowest(data.dtype), "min": _highest(data.dtype)}[kind]
    out = xp.full((num,) + inner, fill, dtype=data.dtype)
    {"prod": xp.multiply, "max": xp.maximum, "min": xp.minimum}[kind].at(out, ids, data)
    return out


def _counts(ids, num, shape_tail, dtype):
    """How many rows each segment holds, shaped [num, 1, ...] to broadcast against the output."""
    xp = array_module(ids)
    c = xp.bincount(ids.astype("int64"), minlength=num)[:num] if ids.size else xp.zeros(num, "int64")
    return c.reshape((num,) + (1,) * len(shape_tail)).astype(dtype)


# -- checks --------------------------------------------------------------------------------------

def _sorted_args(op, data, segment_ids):
    x = as_tensor(data)
    ids = as_tensor(segment_ids)
    op.check_dtype(x)
    check_attr_dtype(ids, op.name, "Tindices", ("int32", "int64"))
    if x._value.ndim < 1:
        raise op.invalid(f"input must be at least rank 1, got a scalar; {op.name} reduces along "
                         f"dimension 0, so pass a tensor of rank >= 1")
    if ids._value.ndim != 1:
        raise op.invalid(f"segment_ids should be a vector, got shape {list(ids.shape)}; pass one "
                         f"segment id per row of data")
    if ids._value.shape[0] != x._value.shape[0]:
        raise op.invalid(f"segment_ids should be the same size as dimension 0 of input: "
                         f"{ids._value.shape[0]} ids for data of shape {list(x.shape)}")
    raw = ids._value
    num = 0
    if raw.size:
        host = np.asarray(ids.numpy()).astype(np.int64)
        if host[0] < 0:
            raise op.invalid(f"Segment id {host[0]} out of range [0, {host[-1] + 1}), possibly because "
                             f"'segment_ids' input is not sorted; ids must be sorted and >= 0 "
                             f"(use tf.math.unsorted_segment_* to drop negative ids)")
        steps = np.diff(host)
        if steps.size and steps.min() < 0:
            i = int(np.argmax(steps < 0)) + 1
            raise op.invalid(f"segment ids are not increasing: segment_ids[{i}] = {host[i]} follows "
                             f"{host[i - 1]}; sort them, or use tf.math.unsorted_segment_*")
        num = int(host[-1]) + 1
    return x, ids, num


def _num_segments(op, num_segments):
    if isinstance(num_segments, (Tensor, Variable)) or not isinstance(num_segments, (int, np.integer)):
        n = as_tensor(num_segments)
        check_attr_dtype(n, op.name, "Tnumsegments", ("int32", "int64"))
        if n._value.ndim != 0:
            raise op.invalid(f"num_segments should be a scalar, not shape {list(n.shape)}")
        num = int(n.numpy())
    else:
        num = int(num_segments)
    if num < 0:
        raise op.invalid(f"Input num_segments == {num} must not be negative; pass the number of "
                         f"segments (the largest id + 1)")
    return num


def _unsorted_args(op, data, segment_ids, num_segments):
    x = as_tensor(data)
    ids = as_tensor(segment_ids)
    op.check_dtype(x)
    allowed = ("int16", "int32", "int64") if op is UNSORTED_SUM else ("int32", "int64")
    check_attr_dtype(ids, op.name, "Tindices", allowed)
    num = _num_segments(op, num_segments)
    k = ids._value.ndim
    if tuple(x._value.shape[:k]) != tuple(ids._value.shape):
        raise op.invalid(f"data.shape = {list(x.shape)} does not start with segment_ids.shape = "
                         f"{list(ids.shape)}; give one segment id per leading entry of data")
    if ids._value.size:
        host = np.asarray(ids.numpy()).reshape(-1).astype(np.int64)
        bad = np.flatnonzero(host >= num)
        if bad.size:
            i = int(bad[0])
            raise op.invalid(f"segment_ids[{i}] = {host[i]} is out of range [0, {num}); raise "
                             f"num_segments or fix the id")
    return x, ids, num


def _flat_rows(x, ids):
    """data as [n, ...] rows and ids as [n] with the negative ids' rows dropped."""
    k = ids._value.ndim
    raw_ids = ids._value.reshape(-1)
    rows = x._value.reshape((raw_ids.shape[0],) + x._value.shape[k:])
    keep = raw_ids >= 0
    if not bool(keep.all()):
        rows, raw_ids = rows[keep], raw_ids[keep]
    return rows, raw_ids


# -- gradient helpers (minitf ops, so the rules are differentiable) ------------------------------

def _gather_drop_negatives(params, ids, clipped=None, positive=None):
    """TF's _GatherDropNegatives: params gathered at max(ids, 0), zeros where an id is negative."""
    if clipped is None:
        clipped = maximum(ids, zeros_like(ids))
    gathered = gather(params, clipped)
    if positive is None:
        positive = greater_equal(ids, 0)
        extra = gathered._value.ndim - positive._value.ndim
        positive = reshape(positive, tuple(positive._value.shape) + (1,) * extra)
        positive = logical_and(positive, ones_like(gathered, dtype="bool"))
    return where(positive, gathered, zeros_like(gathered)), clipped, positive


def _min_max_grad(x, ids, y, g, unsorted, num):
    """Gradient of a segment max/min: g split evenly among the entries equal to their segment's
    result (TF's rule on ties)."""
    if unsorted:
        gathered, clipped, positive = _gather_drop_negatives(y, ids)
        selected = logical_and(equal(x, gathered), positive)
        count = unsorted_segment_sum(cast(selected, g.dtype), ids, num)
        count = maximum(count, ones_like(count))  # empty segments are never gathered
        weighted, _, _ = _gather_drop_negatives(truediv(g, count), None, clipped, positive)
        return where(selected, weighted, zeros_like(weighted))
    selected = equal(x, gather(y, ids))
    count = segment_sum(cast(selected, g.dtype), ids)
    count = maximum(count, ones_like(count))  # empty segments are never gathered
    return where(selected, gather(truediv(g, count), ids), zeros_like(x))


def _prod_grad(x, ids, y, g, unsorted, num):
    """Gradient of a segment product, zeros included (TF's three cases: no zero, one zero, more)."""
    is_zero = equal(x, zeros_like(x))
    int_zero = cast(is_zero, "int32")
    n_zeros = unsorted_segment_sum(int_zero, ids, num) if unsorted else segment_sum(int_zero, ids)
    g = where(greater(n_zeros, 1), zeros_like(g), g)
    non_zero = where(is_zero, ones_like(x), x)
    nz_prod = unsorted_segment_prod(non_zero, ids, num) if unsorted else segment_prod(non_zero, ids)
    if unsorted:
        clipped = maximum(ids, zeros_like(ids))
        # TF divides by x itself here (inf at zeros, which `where` discards); dividing by the
        # zero-free copy gives the same values without the infinities
        by_el = truediv(gather(y, clipped), non_zero)
        partial = where(is_zero, gather(nz_prod, clipped), by_el)
        return multiply(_gather_drop_negatives(g, ids, clipped)[0], partial)
    partial = where(is_zero, gather(nz_prod, ids), truediv(gather(y, ids), non_zero))
    return multiply(gather(g, ids), partial)


# -- sorted segments -----------------------------------------------------------------------------

SEGMENT_SUM = Op("SegmentSum", dtypes=NUMERIC)
SEGMENT_MEAN = Op("SegmentMean", dtypes=NUMERIC)
SEGMENT_MAX = Op("SegmentMax", dtypes=REAL)
SEGMENT_MIN = Op("SegmentMin", dtypes=REAL)
SEGMENT_PROD = Op("SegmentProd", dtypes=NUMERIC)


def _trunc_div(xp, total, counts):
    """Integer mean as TF's kernel computes it: the quotient truncated toward zero (floor
    division corrected where a negative sum leaves a remainder, so no absolute value can wrap)."""
    q = total // counts
    if total.dtype.kind == "u":
        return q
    inexact = (total - q * counts) != 0
    return xp.where(inexact & (total < 0), q + 1, q).astype(total.dtype)


def _sorted(op, kind, data, segment_ids):
    x, ids, num = _sorted_args(op, data, segment_ids)
    xp = array_module(x._value)
    raw = x._value
    inner = raw.shape[1:]
    base = "sum" if kind == "mean" else kind
    out = _reduce_raw(base, raw, ids._value, num)
    if kind in ("mean", "max", "min"):
        counts = _counts(ids._value, num, inner, raw.dtype)
        if kind == "mean":
            safe = xp.maximum(counts, 1) if raw.dtype.kind != "c" else xp.where(counts == 0, 1, counts)
            out = _trunc_div(xp, out, safe) if raw.dtype.kind in "iu" else (out / safe).astype(raw.dtype)
        else:
            out = xp.where(counts == 0, xp.zeros((), raw.dtype), out)  # TF's sorted kernels: 0
    y = Tensor(out)
    if thread_state.active and raw.dtype.kind in "fc":
        if kind == "sum":
            rule = lambda g: gather(g, ids)  # noqa: E731
        elif kind == "mean":
            xp_counts = _counts(ids._value, num, inner, raw.dtype)
            scale = Tensor(xp.where(xp_counts == 0, xp.ones((), raw.dtype), xp_counts))
            rule = lambda g: gather(truediv(g, scale), ids)  # noqa: E731
        elif kind == "prod":
            rule = lambda g: _prod_grad(x, ids, y, g, False, num)  # noqa: E731
        else:
            rule = lambda g: _min_max_grad(x, ids, y, g, False, num)  # noqa: E731
        record(op, (x, ids), (y,), lambda g: (rule(g), None))
    return y


@export("math.segment_sum")
@dispatch.add_dispatch_support
def segment_sum(data, segment_ids, name=None):
    """Sums of the rows of `data` that share a segment id.

    Args:
      data: a numeric tensor of rank >= 1.
      segment_ids: a sorted int32/int64 vector, one id >= 0 per row of `data`.
      name: ignored (TF's op name).

    Returns:
      A tensor of `data`'s dtype and shape [segment_ids[-1] + 1] + data.shape[1:]; ids that do not
      occur give 0. The gradient gathers the upstream gradient at each row's id.

    Raises:
      InvalidArgumentError: unsorted or negative ids, a length that is not data.shape[0], a
        scalar `data`, or a dtype without a kernel (bool, string).
    """
    return _sorted(SEGMENT_SUM, "sum", data, segment_ids)


@export("math.segment_mean")
@dispatch.add_dispatch_support
def segment_mean(data, segment_ids, name=None):
    """Means of the rows of `data` that share a segment id (sorted ids, as segment_sum).

    Integer data gives integer means truncated toward zero, as TF's kernel; empty segments give
    0. The gradient is the upstream gradient over each segment's row count, gathered at the ids.
    """
    return _sorted(SEGMENT_MEAN, "mean", data, segment_ids)


@export("math.segment_max")
@dispatch.add_dispatch_support
def segment_max(data, segment_ids, name=None):
    """Maxima of the rows of `data` that share a segment id (sorted ids, as segment_sum).

    Empty segments give 0. The gradient goes to the entries equal to their segment's maximum,
    split evenly among ties (TF's rule).
    """
    return _sorted(SEGMENT_MAX, "max", data, segment_ids)


@export("math.segment_min")
@dispatch.add_dispatch_support
def segment_min(data, segment_ids, name=None):
    """Minima of the rows of `data` that share a segment id (sorted ids, as segment_sum).

    Empty segments give 0; the gradient is split evenly among tied minima.
    """
    return _sorted(SEGMENT_MIN, "min", data, segment_ids)


@export("math.segment_prod")
@dispatch.add_dispatch_support
def segment_prod(data, segment_ids, name=None):
    """Products of the rows of `data` that share a segment id (sorted ids, as segment_sum).

    Empty segments give 1. The gradient is the product of the segment's other entries (exact
    with one zero in the segment, 0 everywhere with two or more).
    """
    return _sorted(SEGMENT_PROD, "prod", data, segment_ids)


# -- unsorted segments ---------------------------------------------------------------------------

UNSORTED_SUM = Op("UnsortedSegmentSum", dtypes=NUMERIC)
UNSORTED_MAX = Op("UnsortedSegmentMax", dtypes=REAL)
UNSORTED_MIN = Op("UnsortedSegmentMin", dtypes=REAL)
UNSORTED_PROD = Op("UnsortedSegmentProd", dtypes=NUMERIC)


def _unsorted(op, kind, data, segment_ids, num_segments):
    x, ids, num = _unsorted_args(op, data, segment_ids, num_segments)
    rows, flat_ids = _flat_rows(x, ids)
    y = Tensor(_reduce_raw(kind, rows, flat_ids, num))
    if thread_state.active and x._value.dtype.kind in "fc":
        if kind == "sum":
            rule = lambda g: _gather_drop_negatives(g, ids)[0]  # noqa: E731
        elif kind == "prod":
            rule = lambda g: _prod_grad(x, ids, y, g, True, num)  # noqa: E731
        else:
            rule = lambda g: _min_max_grad(x, ids, y, g, True, num)  # noqa: E731
        record(op, (x, ids), (y,), lambda g: (rule(g), None))
    return y


@export("math.unsorted_segment_sum")
@dispatch.add_dispatch_support
def unsorted_segment_sum(data, segment_ids, num_segments, name=None):
    """Sums of the entries of `data` by segment id, the ids in any order.

    Args:
      data: a numeric tensor.
      segment_ids: an int16/int32/int64 tensor whose shape is a prefix of data's; an entry with a
        negative id is dropped.
      num_segments: an int32/int64 scalar, the number of segments (> every id).
      name: ignored (TF's op name).

    Returns:
      A tensor of shape [num_segments] + data.shape[rank(segment_ids):] and data's dtype; empty
      segments give 0. The gradient gathers the upstream gradient at each id (0 for dropped ones).

    Raises:
      InvalidArgumentError: an id >= num_segments, a negative or non-scalar num_segments, ids whose
        shape does not prefix data's, or a dtype without a kernel.
    """
    return _unsorted(UNSORTED_SUM, "sum", data, segment_ids, num_segments)


@export("math.unsorted_segment_max")
@dispatch.add_dispatch_support
def unsorted_segment_max(data, segment_ids, num_segments, name=None):
    """Maxima of `data` by segment id in any order (as unsorted_segment_sum).

    Empty segments give the dtype's lowest value (-3.4028235e38 for float32), as TF's kernel.
    The gradient is split evenly among tied maxima; dropped (negative-id) entries get 0.
    """
    return _unsorted(UNSORTED_MAX, "max", data, segment_ids, num_segments)


@export("math.unsorted_segment_min")
@dispatch.add_dispatch_support
def unsorted_segment_min(data, segment_ids, num_segments, name=None):
    """Minima of `data` by segment id in any order (as unsorted_segment_sum).

    Empty segments give the dtype's highest value; the gradient is split among tied minima.
    """
    return _unsorted(UNSORTED_MIN, "min", data, segment_ids, num_segments)


@export("math.unsorted_segment_prod")
@dispatch.add_dispatch_support
def unsorted_segment_prod(data, segment_ids, num_segments, name=None):
    """Products of `data` by segment id in any order (as unsorted_segment_sum); empty segments
    give 1, and the gradient handles zeros as segment_prod's."""
    return _unsorted(UNSORTED_PROD, "prod", data, segment_ids, num_segments)


def _segment_counts(x, segment_ids, num_segments):
    """TF's _unsorted_segment_N: rows per segment (at least 1), shaped to broadcast."""
    ids = as_tensor(segment_ids)
    num = _num_segments(UNSORTED_SUM, num_segments)
    n = unsorted_segment_sum(ones_like(ids, dtype=x.dtype), ids, num)
    n = reshape(n, (num,) + (1,) * (x._value.ndim - ids._value.ndim))
    return maximum(n, ones_like(n))


@export("math.unsorted_segment_mean")
@dispatch.add_dispatch_support
def unsorted_segment_mean(data, segment_ids, num_segments, name=None):
    """Means of `data` by segment id in any order: unsorted_segment_sum over the row counts.

    Integer data is divided as tf.math.truediv divides (int8/int16/uint8/uint16 -> float32,
    wider -> float64); empty segments give 0. Complex data raises InvalidArgumentError (TF takes
    the maximum of the counts, which has no complex kernel).
    """
    x = as_tensor(data)
    total = unsorted_segment_sum(x, segment_ids, num_segments)
    return truediv(total, _segment_counts(x, segment_ids, num_segments))


@export("math.unsorted_segment_sqrt_n")
@dispatch.add_dispatch_support
def unsorted_segment_sqrt_n(data, segment_ids, num_segments, name=None):
    """Sums of `data` by segment id over the square root of each segment's row count.

    Floating data only (integer data raises InvalidArgumentError from the reciprocal square root,
    as in TF); empty segments give 0.
    """
    x = as_tensor(data)
    total = unsorted_segment_sum(x, segment_ids, num_segments)
    return multiply(total, rsqrt(_segment_counts(x, segment_ids, num_segments)))
