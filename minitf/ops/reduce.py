"""Reductions over axes (sum, mean, max, prod, logsumexp, ...), arg-reductions and cumulative
sums and products, each differentiable one with its gradient beside it."""
import numpy as np

from minitf import dispatch
from minitf.dtypes import dtypes
from minitf.ops._core import (NUMERIC, REAL, Op, Tensor, thread_state, array_module, as_tensor, normalize_axis,
                              record, reduction_axes)
from minitf.ops.array import broadcast_to, reshape, transpose, where, zeros_like
from minitf.ops.constant import stop_gradient
from minitf.ops.arg_checks import converted, dtype_arg
from minitf.ops.math import abs as abs_, exp, is_finite, log, sqrt, square
from minitf.api_export import export

__all__ = ["reduce_sum", "reduce_mean", "reduce_max", "reduce_min", "reduce_prod",
           "reduce_logsumexp", "reduce_euclidean_norm", "reduce_any", "reduce_all", "reduce_variance",
           "reduce_std", "argmax", "argmin", "cumsum", "cumprod", "count_nonzero"]


_axes = reduction_axes  # the one axis normalizer shared by all reductions


def _numeric_only(x, op):
    """TF's arithmetic reductions have no bool (or string) kernel: InvalidArgumentError."""
    if x._value.dtype.kind in "bO":
        raise op.invalid(f"Value for attr 'T' of {x.dtype.name} is not in the list of allowed values "
                         f"(numeric types only); cast the input with tf.cast, or use reduce_any/reduce_all")


def _keepdims(keepdims):
    """A Python bool from keepdims given as bool, None, numpy bool or a scalar bool tensor."""
    if isinstance(keepdims, Tensor):
        return bool(keepdims.numpy())
    return bool(keepdims)


def _kept_shape(shape, axes):
    return tuple(1 if i in axes else d for i, d in enumerate(shape))


def _broadcast_back(g, in_shape, axes, keepdims):
    """Expand a reduced cotangent back to the input's shape (batch dims in front preserved)."""
    batch = tuple(g._value.shape[:g._value.ndim - (len(in_shape) if keepdims else len(in_shape) - len(axes))])
    g = reshape(g, batch + _kept_shape(in_shape, axes))
    return broadcast_to(g, batch + tuple(in_shape))


def _count(shape, axes):
    n = 1
    for a in axes:
        n *= shape[a]
    return n


SUM = Op("Sum", batchable=True)


@export("reduce_sum", "math.reduce_sum")
@dispatch.add_dispatch_support
def reduce_sum(input_tensor, axis=None, keepdims=False, name=None):
    """Sum of elements across `axis` (all axes when None).

    Args:
      input_tensor: a numeric tensor (bool is refused: use tf.cast or reduce_any).
      axis: an int, a list of ints or an int tensor; None reduces every axis.
      keepdims: keep each reduced axis with size 1.
      name: ignored.

    Returns:
      The sums, of the input's dtype; the gradient broadcasts the cotangent back.

    Raises:
      InvalidArgumentError: an axis out of range or repeated, or a bool/string input.
    """
    x = input_tensor if type(input_tensor) is Tensor else converted(input_tensor, "tf.reduce_sum", "input_tensor")
    _numeric_only(x, SUM)
    axes = _axes(axis, x._value.ndim, SUM.name)
    keepdims = _keepdims(keepdims)
    xp = array_module(x._value)
    v = x._value
    if v.dtype.kind == "b":
        v = v.astype("int32")
    y = Tensor(xp.asarray(xp.sum(v, axis=axes, keepdims=keepdims), dtype=v.dtype))
    if thread_state.active:
        shape = x._value.shape
        record(SUM, (x,), (y,), lambda g: _broadcast_back(g, shape, axes, keepdims))
    return y


MEAN = Op("Mean", batchable=True)


@export("reduce_mean", "math.reduce_mean")
@dispatch.add_dispatch_support
def reduce_mean(input_tensor, axis=None, keepdims=False, name=None):
    """Mean of elements across `axis` (all axes when None).

    Args:
      input_tensor: a numeric tensor; integer inputs give an integer mean truncated toward zero,
        as TF's kernel does.
      axis: an int, a list of ints or an int tensor; None reduces every axis.
      keepdims: keep each reduced axis with size 1.
      name: ignored.

    Returns:
      The means, of the input's dtype.

    Raises:
      InvalidArgumentError: an axis out of range or repeated, or a bool/string input.
    """
    x = input_tensor if type(input_tensor) is Tensor else converted(input_tensor, "tf.reduce_mean", "input_tensor")
    _numeric_only(x, MEAN)
    axes = _axes(axis, x._value.ndim, MEAN.name)
    keepdims = _keepdims(keepdims)
    xp = array_module(x._value)
    count = _count(x._value.shape, axes)
    v = x._value
    if v.dtype.kind in "iub":
        total = xp.sum(v.astype("int64"), axis=axes, keepdims=keepdims)
        # integer division truncating toward zero, as TF's kernel does (-5 / 4 is -1)
        quotient = xp.sign(total) * (xp.abs(total) // max(count, 1))
        return Tensor(xp.asarray(quotient, dtype=v.dtype))
    y = Tensor(xp.asarray(xp.mean(v, axis=axes, keepdims=keepdims), dtype=v.dtype))
    if thread_state.active:
        shape = x._value.shape
        record(MEAN, (x,), (y,), lambda g: _broadcast_back(g / count, shape, axes, keepdims))
    return y


EUCLIDEAN_NORM = Op("EuclideanNorm", batchable=True)


@export("math.reduce_euclidean_norm")
@dispatch.add_dispatch_support
def reduce_euclidean_norm(input_tensor, axis=None, keepdims=False, name=None):
    """sqrt(sum(|x|**2)) across `axis` (tf.math only, as in TF).

    Integer inputs stay integer, as TF's kernel does: the squares are summed in the input type
    (wrapping on overflow) and the root is truncated. The gradient x / norm * g is NaN where the
    norm is zero, as in TF.
    """
    x = as_tensor(input_tensor)
    v = x._value
    if v.dtype.kind in "bO":
        raise EUCLIDEAN_NORM.invalid(f"Value for attr 'T' of {x.dtype.name} is not in the list of allowed "
                                     f"values (numeric types only); cast the input with tf.cast")
    axes = _axes(axis, v.ndim, EUCLIDEAN_NORM.name)
    keepdims = _keepdims(keepdims)
    xp = array_module(v)
    if v.dtype.kind == "c":
        total = xp.sum((v * v.conj()).real, axis=axes, keepdims=keepdims)
        raw = xp.sqrt(total).astype(v.dtype)
    elif v.dtype.kind in "iu":
        total = xp.sum(v * v, axis=axes, keepdims=keepdims, dtype=v.dtype)
        with np.errstate(invalid="ignore"):
            raw = xp.sqrt(xp.asarray(total, dtype="float64")).astype(v.dtype)
    else:
        raw = xp.sqrt(xp.sum(v * v, axis=axes, keepdims=keepdims))
    y = Tensor(xp.asarray(raw, dtype=v.dtype))
    if thread_state.active and v.dtype.kind == "f":
        shape = v.shape

        def grad(g):
            return x * (_broadcast_back(g, shape, axes, keepdims) / reshape(y, _kept_shape(shape, axes)))
        record(EUCLIDEAN_NORM, (x,), (y,), grad)
    return y


def _extreme_identity(dtype, largest):
    """The value an empty max (largest=True) or min reduction gives: the dtype's lowest/highest."""
    if dtype.kind == "f":
        return -np.inf if largest else np.inf
    if dtype.kind == "b":
        return not largest
    info = np.iinfo(dtype)
    return info.min if largest else info.max


def _reduce_extreme(input_tensor, axis, keepdims, op, largest):
    x = as_tensor(input_tensor)
    _numeric_only(x, op)
    if x._value.dtype.kind == "c":
        raise op.invalid(f"{op.name} is not defined for complex tensors (got {x.dtype.name})")
    shape = x._value.shape
    axes = _axes(axis, x._value.ndim, op.name)
    keepdims = _keepdims(keepdims)
    xp = array_module(x._value)
    if x._value.size == 0 or any(shape[a] == 0 for a in axes):
        out_shape = _kept_shape(shape, axes) if keepdims else tuple(
            d for i, d in enumerate(shape) if i not in axes)
        raw = xp.full(out_shape, _extreme_identity(x._value.dtype, largest), dtype=x._value.dtype)
    else:
        fn = xp.max if largest else xp.min
        raw = xp.asarray(fn(x._value, axis=axes, keepdims=keepdims), dtype=x._value.dtype)
    y = Tensor(raw)
    if thread_state.active and x._value.dtype.kind == "f":
        record(op, (x,), (y,), lambda g: _extreme_grad(x, y, g, axes, keepdims))
    return y


def _extreme_grad(x, y, g, axes, keepdims):
    """TF's rule: the cotangent is shared equally among the elements equal to the extreme."""
    shape = x._value.shape
    y_kept = y._value.reshape(_kept_shape(shape, axes))
    hits = (x._value == y_kept).astype(x._value.dtype)
    weights = Tensor(hits / hits.sum(axis=axes, keepdims=True))
    return _broadcast_back(g, shape, axes, keepdims) * weights


MAX = Op("Max", batchable=True)


@export("reduce_max", "math.reduce_max")
@dispatch.add_dispatch_support
def reduce_max(input_tensor, axis=None, keepdims=False, name=None):
    """Largest element across `axis`; the gradient is split equally among tied maxima."""
    return _reduce_extreme(input_tensor, axis, keepdims, MAX, largest=True)


MIN = Op("Min", batchable=True)


@export("reduce_min", "math.reduce_min")
@dispatch.add_dispatch_support
def reduce_min(input_tensor, axis=None, keepdims=False, name=None):
    """Smallest element across `axis`; the gradient is split equally among tied minima."""
    return _reduce_extreme(input_tensor, axis, keepdims, MIN, largest=False)


PROD = Op("Prod", batchable=True)


@export("reduce_prod", "math.reduce_prod")
@dispatch.add_dispatch_support
def reduce_prod(input_tensor, axis=None, keepdims=False, name=None):
    """Product of elements across `axis`; the gradient is exact even where inputs are zero."""
    x = as_tensor(input_tensor)
    _numeric_only(x, PROD)
    axes = _axes(axis, x._value.ndim, PROD.name)
    keepdims = _keepdims(keepdims)
    xp = array_module(x._value)
    v = x._value.astype("int32") if x._value.dtype.kind == "b" else x._value
    y = Tensor(xp.asarray(xp.prod(v, axis=axes, keepdims=keepdims), dtype=v.dtype))
    if thread_state.active and v.dtype.kind in "fc":
        shape = x._value.shape
        record(PROD, (x,), (y,),
               lambda g: _broadcast_back(g, shape, axes, keepdims) * _product_of_others(x, axes))
    return y


PROD_OTHERS = Op("ProdOthers")


def _product_of_others(x, axes):
    """For each element, the product of the other elements of its reduction group (no division,
    so zeros are handled): exclusive cumulative products from both ends, multiplied."""
    shape = x._value.shape
    if not axes or x._value.size == 0:  # (an empty input has an empty gradient)
        xp = array_module(x._value)
        ones = Tensor(xp.ones_like(x._value))
        if thread_state.active:
            # connected to x with a zero gradient, as TF's cumprod-based rule is: second
            # derivatives of a reduction over no axes are zeros, not None
            record(PROD_OTHERS, (x,), (ones,), lambda g: Tensor(xp.zeros_like(x._value)))
        return ones
    kept = [i for i in range(len(shape)) if i not in axes]
    perm = list(axes) + kept
    moved = transpose(x, perm)
    flat = reshape(moved, (_count(shape, axes), -1))
    others = (cumprod(flat, axis=0, exclusive=True)
              * cumprod(flat, axis=0, exclusive=True, reverse=True))
    others = reshape(others, moved._value.shape)
    return transpose(others, list(np.argsort(perm)))


@export("reduce_logsumexp", "math.reduce_logsumexp")
@dispatch.add_dispatch_support
def reduce_logsumexp(input_tensor, axis=None, keepdims=False, name=None):
    """log(sum(exp(x))) across `axis`, computed stably by subtracting the (finite) maximum."""
    x = as_tensor(input_tensor)
    keepdims = _keepdims(keepdims)
    axes = _axes(axis, x._value.ndim, "LogSumExp")
    raw_max = reduce_max(x, axes, keepdims=True)
    shift = stop_gradient(where(is_finite(raw_max), raw_max, zeros_like(raw_max)))
    result = log(reduce_sum(exp(x - shift), axes, keepdims=True)) + shift
    if not keepdims:
        result = reshape(result, [d for i, d in enumerate(x._value.shape) if i not in axes])
    return result


def _reduce_bool(input_tensor, axis, keepdims, op, fn_name):
    x = as_tensor(input_tensor)
    if x._value.dtype.kind != "b" and isinstance(axis, (list, tuple)):
        # with a Python list of axes TF's op falls back to converting the input to bool itself
        raise ValueError(f"Tensor conversion requested dtype bool for Tensor with dtype {x.dtype.name} "
                         f"in {op.name}; compare or cast it to tf.bool first")
    if x._value.dtype.kind != "b":
        raise op.invalid(f"cannot compute {op.name} as input #0(zero-based) was expected to be a bool "
                         f"tensor but is a {x.dtype.name} tensor; compare or cast it to tf.bool first")
    axes = _axes(axis, x._value.ndim, op.name)
    xp = array_module(x._value)
    return Tensor(xp.asarray(getattr(xp, fn_name)(x._value, axis=axes, keepdims=_keepdims(keepdims))))


ANY = Op("Any")


@export("reduce_any", "math.reduce_any")
@dispatch.add_dispatch_support
def reduce_any(input_tensor, axis=None, keepdims=False, name=None):
    """Logical OR of a bool tensor across `axis`."""
    return _reduce_bool(input_tensor, axis, keepdims, ANY, "any")


ALL = Op("All")


@export("reduce_all", "math.reduce_all")
@dispatch.add_dispatch_support
def reduce_all(input_tensor, axis=None, keepdims=False, name=None):
    """Logical AND of a bool tensor across `axis`."""
    return _reduce_bool(input_tensor, axis, keepdims, ALL, "all")


def _check_real_or_complex(x, axis, op_name):
    # TF takes the mean first, so its axis and bool errors come before this TypeError
    _numeric_only(x, MEAN)
    _axes(axis, x._value.ndim, MEAN.name)
    if x._value.dtype.kind not in "fc":
        raise TypeError(f"{op_name}: input must be either real or complex, got {x.dtype.name}; "
                        "cast it with tf.cast(x, tf.float32)")


@export("math.reduce_variance")
@dispatch.add_dispatch_support
def reduce_variance(input_tensor, axis=None, keepdims=False, name=None):
    """Population variance (mean squared deviation from the mean) across `axis`."""
    x = as_tensor(input_tensor)
    _check_real_or_complex(x, axis, "reduce_variance")
    mean = reduce_mean(x, axis, keepdims=True)
    dev = x - mean
    sq = square(abs_(dev)) if x._value.dtype.kind == "c" else square(dev)
    return reduce_mean(sq, axis, keepdims=keepdims)


@export("math.reduce_std")
@dispatch.add_dispatch_support
def reduce_std(input_tensor, axis=None, keepdims=False, name=None):
    """Population standard deviation across `axis` (square root of reduce_variance)."""
    x = as_tensor(input_tensor)
    _check_real_or_complex(x, axis, "reduce_std")
    return sqrt(reduce_variance(x, axis, keepdims=keepdims))


def _arg_extreme(input, axis, output_type, op, fn_name):  # noqa: A002
    x = input if type(input) is Tensor else converted(input, f"tf.{fn_name}", "input")
    op.check_dtype(x)
    output_type = dtype_arg(output_type, f"tf.{fn_name}", "output_type")
    if output_type.name not in ("int32", "int64", "int16", "uint16"):
        raise op.invalid(f"tf.{fn_name}: Value for attr 'output_type' of {output_type.name} is not in the "
                         f"list of allowed values: int16, uint16, int32, int64; use tf.int32 or tf.int64")
    if not (axis is None or isinstance(axis, (int, np.integer)) or
            isinstance(axis, Tensor) and axis.dtype.is_integer):
        raise TypeError(f"tf.{fn_name}: axis must be an int or a tensor of integer dtype, not {axis!r}")
    if isinstance(axis, Tensor):
        axis = int(axis.numpy())
    nd = x._value.ndim
    if nd == 0:
        raise op.invalid(f"{op.name} needs an input of rank >= 1, got a scalar")
    axis = normalize_axis(0 if axis is None else int(axis), nd, op.name)
    if x._value.shape[axis] == 0:
        raise op.invalid(f"Reduction axis {axis} is empty in shape {list(x.shape)}; nothing to pick")
    xp = array_module(x._value)
    return Tensor(getattr(xp, fn_name)(x._value, axis=axis).astype(output_type._np))


ARG_MAX = Op("ArgMax", dtypes=REAL + ("bool",))


@export("argmax", "math.argmax")
@dispatch.add_dispatch_support
def argmax(input, axis=None, output_type=dtypes.int64, name=None):  # noqa: A002
    """Index of the largest value along `axis` (axis None means 0); first index on ties."""
    return _arg_extreme(input, axis, output_type, ARG_MAX, "argmax")


ARG_MIN = Op("ArgMin", dtypes=REAL + ("bool",))


@export("argmin", "math.argmin")
@dispatch.add_dispatch_support
def argmin(input, axis=None, output_type=dtypes.int64, name=None):  # noqa: A002
    """Index of the smallest value along `axis` (axis None means 0); first index on ties."""
    return _arg_extreme(input, axis, output_type, ARG_MIN, "argmin")


def _scan_raw(xp, v, axis, exclusive, reverse, product):
    """Inclusive or exclusive, forward or reverse cumulative sum/product of raw array `v`."""
    if reverse:
        v = xp.flip(v, axis)
    out = (xp.cumprod if product else xp.cumsum)(v, axis=axis, dtype=v.dtype)
    if exclusive:
        idx = [slice(None)] * v.ndim
        idx[axis] = slice(0, -1)
        pad_shape = list(v.shape)
        pad_shape[axis] = 1
        first = (xp.ones if product else xp.zeros)(pad_shape, dtype=v.dtype)
        out = xp.concatenate([first, out[tuple(idx)]], axis=axis)
    if reverse:
        out = xp.flip(out, axis)
    return xp.ascontiguousarray(out)


def _scan(x, axis, exclusive, reverse, op, product):
    x = as_tensor(x)
    op.check_dtype(x)
    if isinstance(axis, Tensor):
        axis = axis.numpy()
    if isinstance(axis, float):
        raise TypeError(f"{op.name}: cannot convert axis {axis!r} to EagerTensor of dtype int32; "
                        f"pass an integer axis")
    if np.ndim(axis) != 0:
        raise op.invalid(f"ScanOp: axis must be a scalar, not {np.asarray(axis).tolist()}")
    nd = x._value.ndim
    if nd == 0:
        raise op.invalid(f"{op.name} needs an input of rank >= 1, got a scalar")
    axis = normalize_axis(int(axis), nd, op.name)
    xp = array_module(x._value)
    v = x._value.astype("int32") if x._value.dtype.kind == "b" else x._value
    return x, axis, Tensor(_scan_raw(xp, v, axis, bool(exclusive), bool(reverse), product))


CUMSUM = Op("Cumsum", batchable=True, dtypes=NUMERIC)


@export("cumsum", "math.cumsum")
@dispatch.add_dispatch_support
def cumsum(x, axis=0, exclusive=False, reverse=False, name=None):
    """Cumulative sum along `axis`; `exclusive` leaves out the current element, `reverse` scans
    from the end."""
    x, axis, y = _scan(x, axis, exclusive, reverse, CUMSUM, product=False)
    if thread_state.active and x._value.dtype.kind in "fc":
        nd = x._value.ndim
        record(CUMSUM, (x,), (y,),
               lambda g: cumsum(g, axis + g._value.ndim - nd, exclusive, not reverse))
    return y


CUMPROD = Op("Cumprod", batchable=True, dtypes=NUMERIC)


@export("math.cumprod")
@dispatch.add_dispatch_support
def cumprod(x, axis=0, exclusive=False, reverse=False, name=None):
    """Cumulative product along `axis` (options as in cumsum). Like TF, the gradient divides by
    x, so it is not defined where x is zero."""
    x, axis, y = _scan(x, axis, exclusive, reverse, CUMPROD, product=True)
    if thread_state.active and x._value.dtype.kind in "fc":
        nd = x._value.ndim
        record(CUMPROD, (x,), (y,),
               lambda g: cumsum(y * g, axis + g._value.ndim - nd, exclusive, not reverse) / x)
    return y


@export("math.count_nonzero")
@dispatch.add_dispatch_support
def count_nonzero(input, axis=None, keepdims=None, dtype=dtypes.int64, name=None):  # noqa: A002
    """Number of non-zero (or true, or non-empty) elements across `axis`, as `dtype` (int64)."""
    x = as_tensor(input)
    axes = _axes(axis, x._value.ndim, "CountNonzero")
    xp = array_module(x._value)
    v = x._value
    nonzero = (v != b"") if v.dtype.kind in "SUO" else (v != 0)
    counts = xp.sum(nonzero, axis=axes, keepdims=_keepdims(keepdims))
    return Tensor(xp.asarray(counts).astype(dtypes.as_dtype(dtype)._np))
