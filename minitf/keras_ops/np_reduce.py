"""keras.ops (numpy-like): reductions, arg-reductions, cumulative ops, quantiles and the NaN-
ignoring variants.

Dtypes follow Keras 3 on TensorFlow: sums and products of small ints accumulate in int32
(uint32 for small unsigned types), means and variances of ints are float32, max/min of an empty
tensor raise InvalidArgumentError instead of returning -inf/inf.
"""
import builtins

import numpy as np

from minitf.errors import errors
from minitf.keras_core import config
from minitf.keras_ops.core import axis_tuple, canonical_axis, convert, keras_op, xp_of
from minitf.keras_ops.dtypes import result_type
from minitf.ops import array as array_ops
from minitf.ops import compare as CMP
from minitf.ops import constant as constant_ops
from minitf.ops import math as math_ops
from minitf.ops import reduce as reduce_ops
from minitf.ops.gather import where as tf_where
from minitf.tensor import Tensor
from minitf.api_export import export

__all__ = ["sum", "mean", "max", "min", "amax", "amin", "prod", "std", "var", "any", "all",
           "argmax", "argmin", "cumsum", "cumprod", "count_nonzero", "ptp", "average", "median",
           "quantile", "percentile", "nanargmax", "nanargmin", "nancumsum", "nancumprod",
           "nanmax", "nanmin", "nanmean", "nanmedian", "nanprod", "nanstd", "nansum", "nanvar",
           "nanquantile", "nanpercentile", "accumulating_dtype"]

def accumulating_dtype(name):
    """The dtype Keras sums and multiplies `name` in (small ints widen, as in JAX)."""
    if name in ("bool", "int8", "int16"):
        return "int32"
    if name in ("uint8", "uint16"):
        return "uint32"
    return name


def _axis(axis):
    return list(axis) if isinstance(axis, tuple) else axis


@export("keras.ops.sum", "keras.ops.numpy.sum")
@keras_op
def sum(x, axis=None, keepdims=False):  # noqa: A001 (Keras' name)
    """The sum over `axis` (all axes by default)."""
    x = convert(x)
    x = constant_ops.cast(x, accumulating_dtype(x.dtype.name))
    return reduce_ops.reduce_sum(x, axis=_axis(axis), keepdims=keepdims)


@export("keras.ops.mean", "keras.ops.numpy.mean")
@keras_op
def mean(x, axis=None, keepdims=False):
    """The mean over `axis`; ints give float32, half floats accumulate in float32."""
    x = convert(x)
    name = x.dtype.name
    compute = result_type(name, "float32")
    out_dtype = compute if ("int" in name or name == "bool") else name
    out = reduce_ops.reduce_mean(constant_ops.cast(x, compute), axis=_axis(axis), keepdims=keepdims)
    return constant_ops.cast(out, out_dtype)


def _check_nonempty(x, what):
    if int(np.prod(x.shape, dtype=np.int64)) == 0:
        raise errors.invalid_argument("assert_greater", f"Cannot compute the {what} of an empty "
                                                        f"tensor (shape {list(x.shape)}).")


def _extreme(x, axis, keepdims, initial, reduce, logic, pick, what):
    x = convert(x)
    axis = _axis(axis)
    if initial is not None:
        if x.dtype.name == "bool":
            out = logic(x, axis=axis, keepdims=keepdims)
            return constant_ops.cast(pick(constant_ops.cast(out, "int32"), constant_ops.cast(convert(initial), "int32")), "bool")
        return pick(reduce(x, axis=axis, keepdims=keepdims), initial)
    _check_nonempty(x, what)
    if x.dtype.name == "bool":
        return logic(x, axis=axis, keepdims=keepdims)
    return reduce(x, axis=axis, keepdims=keepdims)


@export("keras.ops.max", "keras.ops.numpy.max")
@keras_op
def max(x, axis=None, keepdims=False, initial=None):  # noqa: A001 (Keras' name)
    """The maximum over `axis`, at least `initial` when given (empty input: error)."""
    return _extreme(x, axis, keepdims, initial, reduce_ops.reduce_max, reduce_ops.reduce_any, math_ops.maximum, "max")


@export("keras.ops.min", "keras.ops.numpy.min")
@keras_op
def min(x, axis=None, keepdims=False, initial=None):  # noqa: A001 (Keras' name)
    """The minimum over `axis`, at most `initial` when given (empty input: error)."""
    return _extreme(x, axis, keepdims, initial, reduce_ops.reduce_min, reduce_ops.reduce_all, math_ops.minimum, "min")


@export("keras.ops.amax", "keras.ops.numpy.amax")
@keras_op
def amax(x, axis=None, keepdims=False):
    """Alias of `max`."""
    return max(x, axis=axis, keepdims=keepdims)


@export("keras.ops.amin", "keras.ops.numpy.amin")
@keras_op
def amin(x, axis=None, keepdims=False):
    """Alias of `min`."""
    return min(x, axis=axis, keepdims=keepdims)


@export("keras.ops.prod", "keras.ops.numpy.prod")
@keras_op
def prod(x, axis=None, keepdims=False, dtype=None):
    """The product over `axis` (small ints widen unless `dtype` is given, as in Keras)."""
    x = convert(x)
    if dtype is None:
        x = constant_ops.cast(x, accumulating_dtype(result_type(x.dtype)))
    return reduce_ops.reduce_prod(x, axis=_axis(axis), keepdims=keepdims)


@export("keras.ops.std", "keras.ops.numpy.std")
@keras_op
def std(x, axis=None, keepdims=False):
    """The population standard deviation over `axis` (ints give floatx)."""
    x = convert(x)
    if "int" in x.dtype.name or x.dtype.name == "bool":
        x = constant_ops.cast(x, config.floatx())
    return reduce_ops.reduce_std(x, axis=_axis(axis), keepdims=keepdims)


@export("keras.ops.var", "keras.ops.numpy.var")
@keras_op
def var(x, axis=None, keepdims=False):
    """The population variance over `axis` (half floats accumulate in float32)."""
    x = convert(x)
    compute, out = result_type(x.dtype, "float32"), result_type(x.dtype, float)
    v = reduce_ops.reduce_variance(constant_ops.cast(x, compute), axis=_axis(axis), keepdims=keepdims)
    return constant_ops.cast(v, out)


@export("keras.ops.any", "keras.ops.numpy.any")
@keras_op
def any(x, axis=None, keepdims=False):  # noqa: A001 (Keras' name)
    """Whether any element along `axis` is true (nonzero)."""
    return reduce_ops.reduce_any(constant_ops.cast(convert(x), "bool"), axis=_axis(axis), keepdims=keepdims)


@export("keras.ops.all", "keras.ops.numpy.all")
@keras_op
def all(x, axis=None, keepdims=False):  # noqa: A001 (Keras' name)
    """Whether every element along `axis` is true (nonzero)."""
    return reduce_ops.reduce_all(constant_ops.cast(convert(x), "bool"), axis=_axis(axis), keepdims=keepdims)


def _arg(x, axis, keepdims, fn):
    x = convert(x)
    name = x.dtype.name
    original_shape = list(x.shape)
    if "float" in name and x.shape.rank:
        x = constant_ops.cast(x, result_type(name, "float32"))
        # -0.0 ranks below +0.0 (as JAX, which Keras follows)
        negative_zero = CMP.logical_and(CMP.equal(x, 0.0), signbit_raw(x))
        tiny = np.finfo(x.dtype.as_numpy_dtype).tiny
        x = tf_where(negative_zero, constant_ops.constant(-tiny, dtype=x.dtype), x)
    if axis is None:
        y = fn(array_ops.reshape(x, [-1]), axis=0, output_type="int32")
    else:
        y = fn(x, axis=axis, output_type="int32")
    if keepdims:
        shape = [1] * len(original_shape) if axis is None else list(original_shape)
        if axis is not None:
            shape[axis] = 1
        y = array_ops.reshape(y, shape)
    return y


def signbit_raw(x):
    """Whether each float element has its sign bit set."""
    return Tensor(xp_of(x).signbit(x._value))


@export("keras.ops.argmax", "keras.ops.numpy.argmax")
@keras_op
def argmax(x, axis=None, keepdims=False):
    """The index of the largest element along `axis` (of the flattened tensor for None)."""
    return _arg(x, axis, keepdims, reduce_ops.argmax)


@export("keras.ops.argmin", "keras.ops.numpy.argmin")
@keras_op
def argmin(x, axis=None, keepdims=False):
    """The index of the smallest element along `axis` (of the flattened tensor for None)."""
    return _arg(x, axis, keepdims, reduce_ops.argmin)


def _cumulative(x, axis, dtype, fn):
    x = convert(x, dtype)
    if x.dtype.name == "bool":
        x = constant_ops.cast(x, "int32")
    if axis is None:
        x, axis = array_ops.reshape(x, [-1]), 0
    return fn(x, axis=axis)


@export("keras.ops.cumsum", "keras.ops.numpy.cumsum")
@keras_op
def cumsum(x, axis=None, dtype=None):
    """The running sum along `axis` (of the flattened tensor for None)."""
    return _cumulative(x, axis, dtype, reduce_ops.cumsum)


@export("keras.ops.cumprod", "keras.ops.numpy.cumprod")
@keras_op
def cumprod(x, axis=None, dtype=None):
    """The running product along `axis` (of the flattened tensor for None)."""
    return _cumulative(x, axis, dtype, reduce_ops.cumprod)


@export("keras.ops.count_nonzero", "keras.ops.numpy.count_nonzero")
@keras_op
def count_nonzero(x, axis=None):
    """The number of nonzero elements along `axis`, as int32."""
    return reduce_ops.count_nonzero(convert(x), axis=_axis(axis), dtype="int32")


@export("keras.ops.ptp", "keras.ops.numpy.ptp")
@keras_op
def ptp(x, axis=None, keepdims=False):
    """max - min along `axis`."""
    x = convert(x)
    return math_ops.subtract(reduce_ops.reduce_max(x, axis=_axis(axis), keepdims=keepdims),
                      reduce_ops.reduce_min(x, axis=_axis(axis), keepdims=keepdims))


@export("keras.ops.average", "keras.ops.numpy.average")
@keras_op
def average(x, axis=None, weights=None):
    """The (weighted) mean along `axis`; 1-D weights apply along `axis` of a larger x."""
    x = convert(x)
    if weights is None:
        x = constant_ops.cast(x, result_type(x.dtype, float))
        return reduce_ops.reduce_mean(x, axis=axis)
    weights = convert(weights)
    dtype = result_type(x.dtype, weights.dtype, float)
    x, weights = constant_ops.cast(x, dtype), constant_ops.cast(weights, dtype)
    if axis is None or x.shape.rank == weights.shape.rank:
        return math_ops.divide(reduce_ops.reduce_sum(math_ops.multiply(x, weights), axis=axis),
                        reduce_ops.reduce_sum(weights, axis=axis))
    total = reduce_ops.reduce_sum(weights)
    from_axis = canonical_axis(axis, x.shape.rank)
    moved = array_ops.transpose(x, [i for i in range(x.shape.rank) if i != from_axis] + [from_axis])
    return math_ops.divide(reduce_ops.reduce_sum(math_ops.multiply(moved, weights), axis=-1), total)


# -- quantiles ---------------------------------------------------------------------------------

def _quantile(x, q, axis, method, keepdims):
    """Keras' port of tfp.stats.percentile: `x` float, `q` in [0, 1] (scalar or 1-D)."""
    q64 = constant_ops.cast(q, "float64")
    ndim = x.shape.rank
    if axis is None:
        y = array_ops.reshape(x, [-1])
    else:
        axis = [canonical_axis(a, ndim) for a in axis]
        other = sorted(set(range(ndim)) - set(axis))
        shape = list(x.shape)
        y = array_ops.reshape(array_ops.transpose(x, other + list(axis)),
                      [shape[i] for i in other] + [int(np.prod([shape[i] for i in axis]))])
    sorted_y = array_ops.sort(y, axis=-1)
    n = int(y.shape[-1])
    d = float(n)

    def index(how):
        raw = {"lower": math_ops.floor, "higher": math_ops.ceil, "nearest": math_ops.round}[how](math_ops.multiply(q64, d - 1))
        return math_ops.clip_by_value(constant_ops.cast(raw, "int32"), 0, n - 1)

    def take(idx):
        return array_ops.gather(sorted_y, idx, axis=-1)
    if method in ("nearest", "lower", "higher"):
        out = take(index(method))
    elif method == "midpoint":
        out = math_ops.multiply(math_ops.add(take(index("lower")), take(index("higher"))), 0.5)
    elif method == "linear":
        larger = index("higher")
        smaller = math_ops.maximum(math_ops.subtract(larger, 1), 0)
        larger = math_ops.minimum(math_ops.add(smaller, 1), n - 1)
        fraction = constant_ops.cast(math_ops.subtract(constant_ops.cast(larger, "float64"), math_ops.multiply(q64, d - 1)), y.dtype)
        out = math_ops.add(math_ops.multiply(take(larger), math_ops.subtract(1.0, fraction)),
                    math_ops.multiply(take(smaller), fraction))
    else:
        raise ValueError(f"Invalid `method` {method!r}; use one of 'linear', 'lower', 'higher', "
                         f"'midpoint', 'nearest'.")
    q_rank = q.shape.rank
    if x.dtype.is_floating:
        nans = reduce_ops.reduce_any(CMP.is_nan(x), axis=axis)
        nans = array_ops.reshape(nans, list(nans.shape) + [1] * q_rank)
        out = tf_where(nans, constant_ops.constant(np.nan, dtype=x.dtype), out)
    if keepdims:
        if axis is None:
            out = math_ops.multiply(out, array_ops.ones([1] * (ndim + q_rank), dtype=out.dtype))
        else:
            for a in sorted(axis):
                out = array_ops.expand_dims(out, a)
    rank = out.shape.rank
    if rank < 2 or q_rank == 0:
        return out
    shift = q_rank % rank
    perm = list(range(rank))
    perm = perm[-shift:] + perm[:-shift]
    return array_ops.transpose(out, perm)


@export("keras.ops.quantile", "keras.ops.numpy.quantile")
@keras_op
def quantile(x, q, axis=None, method="linear", keepdims=False):
    """The q-th quantile(s) along `axis` (q in [0, 1]; `method` as numpy's)."""
    x, q = convert(x), convert(q)
    x = constant_ops.cast(x, result_type(x.dtype, float))
    return _quantile(x, q, axis_tuple(axis), method, keepdims)


@export("keras.ops.percentile", "keras.ops.numpy.percentile")
@keras_op
def percentile(x, q, axis=None, method="linear", keepdims=False):
    """The q-th percentile(s) along `axis` (q in [0, 100])."""
    x = convert(x)
    q = math_ops.divide(convert(q, config.floatx()), 100.0)
    x = constant_ops.cast(x, result_type(x.dtype, float))
    return _quantile(x, q, axis_tuple(axis), method, keepdims)


@export("keras.ops.median", "keras.ops.numpy.median")
@keras_op
def median(x, axis=None, keepdims=False):
    """The median along `axis`."""
    return quantile(x, 0.5, axis=axis, keepdims=keepdims)


# -- NaN-ignoring variants ----------------------------------------------------------------------

def _is_float(x):
    return x.dtype.is_floating


def _nan_arg(x, axis, keepdims, fn, fill):
    x = convert(x)
    if not _is_float(x):
        return fn(x, axis=axis, keepdims=keepdims)
    nan = CMP.is_nan(x)
    all_nan = reduce_ops.reduce_all(nan, axis=axis, keepdims=keepdims)  # first, as Keras: its axis errors come first
    best = fn(tf_where(nan, constant_ops.constant(fill, dtype=x.dtype), x), axis=axis, keepdims=keepdims)
    return tf_where(all_nan, constant_ops.constant(-1, "int32"), best)


@export("keras.ops.nanargmax", "keras.ops.numpy.nanargmax")
@keras_op
def nanargmax(x, axis=None, keepdims=False):
    """`argmax` ignoring NaNs (-1 where a slice is all NaN)."""
    return _nan_arg(x, axis, keepdims, argmax, -np.inf)


@export("keras.ops.nanargmin", "keras.ops.numpy.nanargmin")
@keras_op
def nanargmin(x, axis=None, keepdims=False):
    """`argmin` ignoring NaNs (-1 where a slice is all NaN)."""
    return _nan_arg(x, axis, keepdims, argmin, np.inf)


def _replace_nan(x, value):
    x = convert(x)
    if not _is_float(x):
        return x
    return tf_where(CMP.is_nan(x), constant_ops.constant(value, dtype=x.dtype), x)


@export("keras.ops.nancumsum", "keras.ops.numpy.nancumsum")
@keras_op
def nancumsum(x, axis=None, dtype=None):
    """`cumsum` counting NaNs as 0."""
    return cumsum(_replace_nan(x, 0.0), axis=axis, dtype=dtype)


@export("keras.ops.nancumprod", "keras.ops.numpy.nancumprod")
@keras_op
def nancumprod(x, axis=None, dtype=None):
    """`cumprod` counting NaNs as 1."""
    return cumprod(_replace_nan(x, 1.0), axis=axis, dtype=dtype)


def _nan_extreme(x, axis, keepdims, reduce, logic, fill):
    x = convert(x)
    axis = _axis(axis)
    if not _is_float(x):
        if x.dtype.name == "bool":
            return logic(x, axis=axis, keepdims=keepdims)
        return reduce(x, axis=axis, keepdims=keepdims)
    nan = CMP.is_nan(x)
    out = reduce(tf_where(nan, constant_ops.constant(fill, dtype=x.dtype), x), axis=axis, keepdims=keepdims)
    return tf_where(reduce_ops.reduce_all(nan, axis=axis, keepdims=keepdims),
                    constant_ops.constant(np.nan, dtype=x.dtype), out)


@export("keras.ops.nanmax", "keras.ops.numpy.nanmax")
@keras_op
def nanmax(x, axis=None, keepdims=False):
    """`max` ignoring NaNs (NaN where a slice is all NaN)."""
    return _nan_extreme(x, axis, keepdims, reduce_ops.reduce_max, reduce_ops.reduce_any, -np.inf)


@export("keras.ops.nanmin", "keras.ops.numpy.nanmin")
@keras_op
def nanmin(x, axis=None, keepdims=False):
    """`min` ignoring NaNs (NaN where a slice is all NaN)."""
    return _nan_extreme(x, axis, keepdims, reduce_ops.reduce_min, reduce_ops.reduce_all, np.inf)


@export("keras.ops.nansum", "keras.ops.numpy.nansum")
@keras_op
def nansum(x, axis=None, keepdims=False):
    """`sum` counting NaNs as 0."""
    x = convert(x)
    name = x.dtype.name
    if _is_float(x):
        x = tf_where(CMP.is_nan(x), constant_ops.constant(0, dtype=x.dtype), x)
    return reduce_ops.reduce_sum(constant_ops.cast(x, accumulating_dtype(name)), axis=_axis(axis), keepdims=keepdims)


@export("keras.ops.nanprod", "keras.ops.numpy.nanprod")
@keras_op
def nanprod(x, axis=None, keepdims=False):
    """`prod` counting NaNs as 1."""
    return prod(_replace_nan(x, 1.0), axis=axis, keepdims=keepdims)


@export("keras.ops.nanmean", "keras.ops.numpy.nanmean")
@keras_op
def nanmean(x, axis=None, keepdims=False):
    """`mean` over the non-NaN elements."""
    x = convert(x)
    if axis == () or axis == []:
        return x
    if not _is_float(x):
        return reduce_ops.reduce_mean(constant_ops.cast(x, "float32"), axis=_axis(axis), keepdims=keepdims)
    dtype = result_type(x.dtype, float)
    total = constant_ops.cast(nansum(x, axis=axis, keepdims=keepdims), dtype)
    count = reduce_ops.reduce_sum(constant_ops.cast(CMP.logical_not(CMP.is_nan(x)), dtype), axis=_axis(axis),
                         keepdims=keepdims)
    return math_ops.divide(total, count)


@export("keras.ops.nanvar", "keras.ops.numpy.nanvar")
@keras_op
def nanvar(x, axis=None, keepdims=False):
    """`var` over the non-NaN elements."""
    x = convert(x)
    x = constant_ops.cast(x, result_type(x.dtype, float))
    centre = nanmean(x, axis=axis, keepdims=True)
    valid = CMP.logical_not(CMP.is_nan(x))
    centred = tf_where(valid, math_ops.subtract(x, centre), array_ops.zeros_like(x))
    count = reduce_ops.reduce_sum(constant_ops.cast(valid, x.dtype), axis=_axis(axis), keepdims=keepdims)
    return math_ops.divide(reduce_ops.reduce_sum(math_ops.square(centred), axis=_axis(axis), keepdims=keepdims), count)


@export("keras.ops.nanstd", "keras.ops.numpy.nanstd")
@keras_op
def nanstd(x, axis=None, keepdims=False):
    """`std` over the non-NaN elements."""
    return math_ops.sqrt(nanvar(x, axis=axis, keepdims=keepdims))


def _nanquantile_1d(v, q, method, dtype):
    valid = array_ops.boolean_mask(v, CMP.logical_not(CMP.is_nan(constant_ops.cast(v, config.floatx()))))
    if int(valid.shape[0]) == 0:
        return constant_ops.constant(np.nan, dtype=dtype)  # a scalar whatever q's shape, as Keras does
    return quantile(valid, q, method=method)


@export("keras.ops.nanquantile", "keras.ops.numpy.nanquantile")
@keras_op
def nanquantile(x, q, axis=None, method="linear", keepdims=False):
    """`quantile` over the non-NaN elements (NaN where a slice is all NaN)."""
    x, q = convert(x), convert(q, config.floatx())
    if axis is None:
        out = _nanquantile_1d(array_ops.reshape(x, [-1]), q, method, x.dtype)
        if keepdims:
            out = array_ops.reshape(out, list(out.shape) + [1] * x.shape.rank)
        return out
    rank = x.shape.rank
    if not x.dtype.is_floating:
        raise errors.invalid_argument("TensorListSetItem", f"nanquantile along an axis needs a "
                                                           f"float tensor (Keras on TF maps the "
                                                           f"rows into a {x.dtype.name} "
                                                           f"TensorArray); cast x first")
    axis = [a + rank if a < 0 else a for a in axis_tuple(axis)]
    if builtins.any(not 0 <= a < rank for a in axis):
        raise errors.invalid_argument("Transpose", f"axis {axis_tuple(axis)} is out of range "
                                                   f"for a tensor of rank {rank}")
    other = [i for i in range(rank) if i not in axis]
    shape = list(x.shape)
    rows = array_ops.reshape(array_ops.transpose(x, other + axis),
                     [int(np.prod([shape[i] for i in other])), -1])
    results = array_ops.stack([_nanquantile_1d(r, q, method, x.dtype)
                       for r in array_ops.unstack(rows, num=int(rows.shape[0]))], axis=0) \
        if int(rows.shape[0]) else array_ops.zeros([0] + list(q.shape), x.dtype)
    other_shape = [shape[i] for i in other]
    if q.shape.rank:
        results = array_ops.reshape(array_ops.transpose(results), list(q.shape) + other_shape)
    else:
        results = array_ops.reshape(results, other_shape)
    if keepdims:
        for a in sorted(axis):
            results = array_ops.expand_dims(results, a + q.shape.rank)
    return results


@export("keras.ops.nanpercentile", "keras.ops.numpy.nanpercentile")
@keras_op
def nanpercentile(x, q, axis=None, method="linear", keepdims=False):
    """`percentile` over the non-NaN elements."""
    q = math_ops.divide(convert(q, config.floatx()), 100.0)
    return nanquantile(x, q, axis=axis, method=method, keepdims=keepdims)


@export("keras.ops.nanmedian", "keras.ops.numpy.nanmedian")
@keras_op
def nanmedian(x, axis=None, keepdims=False):
    """`median` over the non-NaN elements."""
    x = convert(x)
    if axis == () or axis == []:
        return x
    return nanquantile(x, 0.5, axis=axis, keepdims=keepdims)
