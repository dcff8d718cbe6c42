"""keras.ops.nn: activation functions, softmax and its relatives.

As in Keras on TF, `sigmoid` and `softmax` remember the logits they were computed from, so the
crossentropy functions can work from the logits (more accurate) when given their outputs.
"""
import weakref

from minitf.keras_ops.core import canonical_axis, convert, keras_op
from minitf.ops import array as array_ops
from minitf.ops import compare as CMP
from minitf.ops import constant as constant_ops
from minitf.ops import math as math_ops
from minitf.ops import nn as nn_ops
from minitf.ops import reduce as reduce_ops
from minitf.ops.gather import where as tf_where
from minitf.api_export import export

__all__ = ["relu", "relu6", "sigmoid", "sparse_sigmoid", "tanh_shrink", "softplus", "softsign",
           "soft_shrink", "sparse_plus", "silu", "swish", "squareplus", "log_sigmoid",
           "leaky_relu", "hard_sigmoid", "hard_silu", "hard_swish", "elu", "selu", "gelu", "celu",
           "glu", "hard_tanh", "hard_shrink", "threshold", "softmax", "log_softmax", "sparsemax",
           "logits_of"]

_LOGITS = {}  # id(output) -> (weakref to output, logits)


def _remember_logits(output, logits):
    key = id(output)
    _LOGITS[key] = (weakref.ref(output, lambda _ref, key=key: _LOGITS.pop(key, None)), logits)
    return output


def logits_of(output):
    """The logits `output` was computed from by keras.ops `sigmoid`/`softmax` (else None)."""
    entry = _LOGITS.get(id(output))
    if entry is not None and entry[0]() is output:
        return entry[1]
    return None


def _no_list(x, name):
    """Keras on TF compares `x` with a Python number directly, which a list cannot do."""
    if isinstance(x, (list, tuple)):
        raise TypeError(f"keras.ops.{name} needs a tensor or an array, as Keras on TensorFlow "
                        f"does (it compares x with Python numbers); received a "
                        f"{type(x).__name__}")


def _like(value, x):
    return constant_ops.constant(value, dtype=x.dtype)


@export("keras.ops.relu", "keras.ops.nn.relu")
@keras_op
def relu(x):
    """max(x, 0)."""
    return nn_ops.relu(convert(x))


@export("keras.ops.relu6", "keras.ops.nn.relu6")
@keras_op
def relu6(x):
    """min(max(x, 0), 6)."""
    return nn_ops.relu6(convert(x))


@export("keras.ops.sigmoid", "keras.ops.nn.sigmoid")
@keras_op
def sigmoid(x):
    """1 / (1 + exp(-x))."""
    x = convert(x)
    return _remember_logits(math_ops.sigmoid(x), x)


@export("keras.ops.sparse_sigmoid", "keras.ops.nn.sparse_sigmoid")
@keras_op
def sparse_sigmoid(x):
    """0 below -1, 1 above 1, (x + 1) / 2 between."""
    x = convert(x)
    return tf_where(CMP.less_equal(x, -1), _like(0.0, x),
                    tf_where(CMP.greater_equal(x, 1), _like(1.0, x),
                             math_ops.multiply(math_ops.add(x, 1.0), 0.5)))


@export("keras.ops.tanh_shrink", "keras.ops.nn.tanh_shrink")
@keras_op
def tanh_shrink(x):
    """x - tanh(x)."""
    x = convert(x)
    return math_ops.subtract(x, math_ops.tanh(x))


@export("keras.ops.softplus", "keras.ops.nn.softplus")
@keras_op
def softplus(x):
    """log(1 + exp(x))."""
    return math_ops.softplus(convert(x))


@export("keras.ops.softsign", "keras.ops.nn.softsign")
@keras_op
def softsign(x):
    """x / (1 + |x|)."""
    return nn_ops.softsign(convert(x))


@export("keras.ops.soft_shrink", "keras.ops.nn.soft_shrink")
@keras_op
def soft_shrink(x, threshold=0.5):
    """x - threshold above it, x + threshold below -threshold, 0 between."""
    _no_list(x, "soft_shrink")
    x = convert(x)
    return tf_where(CMP.greater(x, threshold), math_ops.subtract(x, threshold),
                    tf_where(CMP.less(x, -threshold), math_ops.add(x, threshold), array_ops.zeros_like(x)))


@export("keras.ops.sparse_plus", "keras.ops.nn.sparse_plus")
@keras_op
def sparse_plus(x):
    """0 below -1, (x + 1)^2 / 4 up to 1, x above."""
    _no_list(x, "sparse_plus")
    x = convert(x)
    return tf_where(CMP.less_equal(x, -1), array_ops.zeros_like(x),
                    tf_where(CMP.less(x, 1), math_ops.multiply(math_ops.pow(math_ops.add(x, 1.0), _like(2, x)), 0.25),
                             x))


@export("keras.ops.silu", "keras.ops.swish", "keras.ops.nn.silu", "keras.ops.nn.swish")
@keras_op
def silu(x):
    """x * sigmoid(x) (also called swish)."""
    return nn_ops.silu(convert(x))


swish = silu


@export("keras.ops.squareplus", "keras.ops.nn.squareplus")
@keras_op
def squareplus(x, b=4):
    """(x + sqrt(x^2 + b)) / 2, a smooth relu."""
    x = convert(x)
    b = convert(b, x.dtype.name)
    return math_ops.divide(math_ops.add(x, math_ops.sqrt(math_ops.add(math_ops.square(x), b))), 2.0)


@export("keras.ops.log_sigmoid", "keras.ops.nn.log_sigmoid")
@keras_op
def log_sigmoid(x):
    """log(sigmoid(x)), computed stably."""
    return math_ops.log_sigmoid(convert(x))


@export("keras.ops.leaky_relu", "keras.ops.nn.leaky_relu")
@keras_op
def leaky_relu(x, negative_slope=0.2):
    """x above 0, negative_slope * x below."""
    return nn_ops.leaky_relu(convert(x), alpha=negative_slope)


@export("keras.ops.hard_sigmoid", "keras.ops.nn.hard_sigmoid")
@keras_op
def hard_sigmoid(x):
    """relu6(x + 3) / 6, a piecewise-linear sigmoid."""
    x = convert(x)
    return math_ops.divide(nn_ops.relu6(math_ops.add(x, _like(3.0, x))), _like(6.0, x))


@export("keras.ops.hard_silu", "keras.ops.hard_swish", "keras.ops.nn.hard_silu",
        "keras.ops.nn.hard_swish")
@keras_op
def hard_silu(x):
    """x * hard_sigmoid(x) (also called hard_swish)."""
    x = convert(x)
    return math_ops.multiply(x, hard_sigmoid(x))


hard_swish = hard_silu


@export("keras.ops.elu", "keras.ops.nn.elu")
@keras_op
def elu(x, alpha=1.0):
    """x above 0, alpha * (exp(x) - 1) below."""
    x = convert(x)
    out = nn_ops.elu(x)
    if alpha == 1:
        return out
    return tf_where(CMP.greater(x, 0), out, math_ops.multiply(out, alpha))


@export("keras.ops.selu", "keras.ops.nn.selu")
@keras_op
def selu(x):
    """The scaled exponential linear unit."""
    return nn_ops.selu(convert(x))


@export("keras.ops.gelu", "keras.ops.nn.gelu")
@keras_op
def gelu(x, approximate=True):
    """x * Phi(x), with the tanh approximation by default (Keras' default)."""
    return nn_ops.gelu(convert(x), approximate=approximate)


@export("keras.ops.celu", "keras.ops.nn.celu")
@keras_op
def celu(x, alpha=1.0):
    """max(x, 0) + alpha * expm1(min(x, 0) / alpha)."""
    x = convert(x)
    return math_ops.add(math_ops.maximum(x, 0.0), math_ops.multiply(math_ops.expm1(math_ops.divide(math_ops.minimum(x, 0.0), alpha)), alpha))


@export("keras.ops.glu", "keras.ops.nn.glu")
@keras_op
def glu(x, axis=-1):
    """The gated linear unit: the first half of `axis` times the sigmoid of the second."""
    if not hasattr(x, "shape"):
        raise AttributeError(f"keras.ops.glu needs a tensor or an array (Keras on TF reads "
                             f"x.shape); received a {type(x).__name__}")
    x = convert(x)
    if int(x.shape[axis]) % 2 != 0:
        raise ValueError(f"axis size must be divisible by 2. Received: x.shape={tuple(x.shape)} "
                         f"with axis={axis}")
    a, b = array_ops.split(x, 2, axis=axis)
    return math_ops.multiply(a, math_ops.sigmoid(b))


@export("keras.ops.hard_tanh", "keras.ops.nn.hard_tanh")
@keras_op
def hard_tanh(x):
    """x limited to [-1, 1]."""
    return math_ops.clip_by_value(convert(x), -1.0, 1.0)


@export("keras.ops.hard_shrink", "keras.ops.nn.hard_shrink")
@keras_op
def hard_shrink(x, threshold=0.5):
    """x where |x| > threshold, else 0."""
    x = convert(x)
    return tf_where(CMP.greater(math_ops.abs(x), threshold), x, array_ops.zeros_like(x))


@export("keras.ops.threshold", "keras.ops.nn.threshold")
@keras_op
def threshold(x, threshold, default_value):
    """x where x > threshold, else default_value."""
    _no_list(x, "threshold")
    x = convert(x)
    return tf_where(CMP.greater(x, threshold), x, constant_ops.cast(convert(default_value), x.dtype))


def _over_axes(fn, x, axis):
    """`fn(.., axis=-1)` applied over several axes at once (they are moved last and merged)."""
    rank = x.shape.rank
    axes = [canonical_axis(a, rank) for a in axis]
    keep = [i for i in range(rank) if i not in axes]
    moved = array_ops.transpose(x, keep + axes)
    flat = array_ops.reshape(moved, [int(x.shape[i]) for i in keep] + [-1])
    out = array_ops.reshape(fn(flat, axis=-1), list(moved.shape))
    order = keep + axes
    return array_ops.transpose(out, sorted(range(rank), key=order.__getitem__))


def _softmax(x, axis):
    if axis is None:
        return array_ops.reshape(nn_ops.softmax(array_ops.reshape(x, [-1]), axis=-1), list(x.shape))
    return nn_ops.softmax(x, axis=axis)


def _log_softmax(x, axis):
    if axis is None:
        return array_ops.reshape(nn_ops.log_softmax(array_ops.reshape(x, [-1]), axis=-1), list(x.shape))
    return nn_ops.log_softmax(x, axis=axis)


@export("keras.ops.softmax", "keras.ops.nn.softmax")
@keras_op
def softmax(x, axis=-1):
    """exp(x) normalised to sum to 1 along `axis` (a tuple: over those axes jointly; None:
    over every element)."""
    x = convert(x)
    if isinstance(axis, tuple):
        return _over_axes(_softmax, x, axis)
    return _remember_logits(_softmax(x, axis), x)


@export("keras.ops.log_softmax", "keras.ops.nn.log_softmax")
@keras_op
def log_softmax(x, axis=-1):
    """log(softmax(x, axis))."""
    x = convert(x)
    if isinstance(axis, tuple):
        return _over_axes(_log_softmax, x, axis)
    return _log_softmax(x, axis)


@export("keras.ops.sparsemax", "keras.ops.nn.sparsemax")
@keras_op
def sparsemax(x, axis=-1):
    """The Euclidean projection of x onto the probability simplex along `axis` (sparse
    probabilities: many exactly 0)."""
    x = convert(x)
    ordered = array_ops.sort(x, axis=axis, direction="DESCENDING")
    running = reduce_ops.cumsum(ordered, axis=axis)
    n = int(x.shape[axis])
    ranks = array_ops.range(1, n + 1, dtype=x.dtype.name)
    shape = [1] * x.shape.rank
    shape[axis] = -1
    ranks = array_ops.reshape(ranks, shape)
    support = CMP.greater(math_ops.subtract(ordered, math_ops.divide(math_ops.subtract(running, 1.0), ranks)), 0)
    kept = tf_where(support, running, array_ops.zeros_like(running))
    k = reduce_ops.reduce_sum(constant_ops.cast(support, x.dtype), axis=axis, keepdims=True)
    tau = math_ops.divide(math_ops.subtract(reduce_ops.reduce_sum(kept, axis=axis, keepdims=True), 1.0), k)
    return math_ops.maximum(math_ops.subtract(x, tau), 0.0)

