"""Neural-network ops (tf.nn): activations, softmax, cross-entropies, dropout, moments (top_k and
in_top_k: minitf.ops.top_k).

Hot ops (relu, softmax, the softmax cross-entropies) run fused on raw arrays and keep what
their gradient needs. Their gradient rules take a raw-array fast path when nothing records the
backward pass, and otherwise are built from differentiable ops, so second derivatives work.
"""
import math as _pymath
import numbers as _numbers

import numpy as np

from minitf import dispatch
from minitf import backend
from minitf import kernels
from minitf.errors import errors
from minitf.ops import math as _math_ops, random as _random_ops
from minitf.ops._core import (FLOATS, REAL, Op, Tensor, Variable, thread_state, array_module, as_tensor, binary,
                              record, reduction_axes, graph_call, is_graph_value, tracing)
from minitf.ops.array import reshape, where, zeros_like
from minitf.ops.constant import cast, stop_gradient
from minitf.ops.linalg import l2_normalize  # noqa: F401  (tf.nn.l2_normalize is the same op)
from minitf.ops.reduce import reduce_mean, reduce_sum
from minitf.ops.arg_checks import converted, python_axis
from minitf.ops.top_k import in_top_k, top_k  # noqa: F401 (top-k's home was this module: its old import path)
from minitf.api_export import export

__all__ = ["relu", "relu6", "leaky_relu", "elu", "selu", "gelu", "silu", "swish", "softsign", "softmax",
           "log_softmax", "sigmoid_cross_entropy_with_logits", "weighted_cross_entropy_with_logits",
           "softmax_cross_entropy_with_logits", "sparse_softmax_cross_entropy_with_logits", "bias_add", "dropout",
           "moments", "batch_normalization", "l2_loss",
           "l2_normalize", "log_poisson_loss"]


def float_input(x, op_name):
    x = x if type(x) is Tensor else converted(x, op_name, "x")
    if x._value.dtype.kind not in "fc":
        raise errors.invalid_argument(op_name, f"{op_name} needs a floating-point tensor, got "
                                               f"{x.dtype.name}; cast it with tf.cast")
    return x


def _real_float_input(x, op_name):
    """A real floating tensor (the ops whose TF kernels take no complex input)."""
    x = float_input(x, op_name)
    if x._value.dtype.kind == "c":
        raise errors.invalid_argument(op_name, f"Value for attr 'T' of {x.dtype.name} is not in the list "
                                               f"of allowed values: half, bfloat16, float, double")
    return x


def _negative_axis(axis, ndim, op_name):
    """`axis` counted from the end, so rules stay valid when cotangents gain leading batch dims."""
    if not -ndim <= (axis if type(axis) is int else python_axis(axis, f"tf.nn ({op_name})", op_name)) < max(ndim, 1):
        raise errors.invalid_argument(op_name, f"axis {axis} is out of range for a tensor of rank "
                                               f"{ndim}; use an axis in [{-ndim}, {ndim})")
    return axis - ndim if axis >= 0 else axis


# -- activations --------------------------------------------------------------------------------

RELU = Op("Relu", batchable=True, dtypes=REAL)


@export("nn.relu")
def relu(features, name=None):
    """max(features, 0), elementwise."""
    if tracing[0] and is_graph_value(features):
        return graph_call(relu, (features,), {})
    x = features if type(features) is Tensor else converted(features, "tf.nn.relu", "features")
    if x._value.dtype.kind in "bcO":
        RELU.check_dtype(x)
    y = Tensor(kernels.for_module(array_module(x._value)).relu(x._value))
    if thread_state.active:
        record(RELU, (x,), (y,), lambda g: _relu_grad(y, g))
    return y


RELU_GRAD = Op("ReluGrad", batchable=True)


def _relu_grad(y, g):
    """g * (y > 0), in one pass (TF's ReluGrad); differentiable in g."""
    xp = array_module(g._value)
    # a multiply by the mask, as TF's kernel does: branch-free, ~10x faster than np.where
    out = Tensor(xp.multiply(g._value, y._value > 0, dtype=g._value.dtype))
    if thread_state.active:
        # TF's ReluGrad gradient gives the features a zero gradient (not None): second
        # derivatives through relu are zeros, as in TF; shaped like the cotangent, so a batched
        # jacobian keeps its batch dimensions
        record(RELU_GRAD, (y, g), (out,), lambda u: (lambda: _zeros_like(u), lambda: _relu_grad(y, u)))
    return out


@export("nn.relu6")
@dispatch.add_dispatch_support
def relu6(features, name=None):
    """min(max(features, 0), 6), elementwise."""
    x = as_tensor(features)
    return _math_ops.minimum(relu(x), const(6, x))


def _zeros_like(t):
    return Tensor(array_module(t._value).zeros_like(t._value))  # a raw zero tensor, no op recorded


def const(value, like):
    xp = array_module(like._value)
    return Tensor(xp.asarray(value, dtype=like._value.dtype))


LEAKY_RELU = Op("LeakyRelu", batchable=True, dtypes=FLOATS)


@export("nn.leaky_relu")
@dispatch.add_dispatch_support
def leaky_relu(features, alpha=0.2, name=None):
    """features where positive, alpha * features elsewhere (integer inputs become float32, as TF)."""
    x = as_tensor(features)
    if x._value.dtype.kind in "iu":
        x = cast(x, "float32")
    LEAKY_RELU.check_dtype(x)
    alpha = float(np.float32(alpha))  # TF's alpha attr is a float32, whatever the input dtype
    xv = x._value
    xp = array_module(xv)
    scaled = xp.multiply(xv, xv.dtype.type(alpha), out=xp.empty_like(xv))
    # max(x, a*x) is x for x > 0 and a*x otherwise when 0 <= a <= 1; min() when a > 1
    y = Tensor((xp.maximum if alpha <= 1 else xp.minimum)(xv, scaled, out=scaled)
               if alpha >= 0 else xp.where(xv > 0, xv, scaled))
    if thread_state.active:
        record(LEAKY_RELU, (x,), (y,), lambda g: _leaky_relu_grad(x, g, alpha))
    return y


LEAKY_RELU_GRAD = Op("LeakyReluGrad", batchable=True)


def _leaky_relu_grad(x, g, alpha):
    """LeakyReluGrad: g where x > 0, alpha * g elsewhere; differentiable in g."""
    xv, gv = x._value, g._value
    xp = array_module(gv)
    # slope = alpha * (x <= 0) + (x > 0): branch-free and exactly 1 or alpha (no rounding)
    positive = xv > 0
    slope = xp.multiply(~positive, gv.dtype.type(alpha), out=xp.empty(xv.shape, gv.dtype))
    slope += positive
    out = Tensor(xp.multiply(slope, gv, out=slope) if slope.shape == gv.shape else slope * gv)
    if thread_state.active:
        record(LEAKY_RELU_GRAD, (x, g), (out,),
               lambda u: (lambda: _zeros_like(u), lambda: _leaky_relu_grad(x, u, alpha)))
    return out


@export("nn.elu")
@dispatch.add_dispatch_support
def elu(features, name=None):
    """features where positive, exp(features) - 1 elsewhere."""
    m = _math_ops
    x = float_input(features, "Elu")
    zero = const(0, x)
    # expm1 of min(x, 0): the unused branch never overflows (no inf * 0 = NaN in the gradient)
    return where(m.greater(x, zero), x, m.expm1(m.minimum(x, zero)))


_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


@export("nn.selu")
@dispatch.add_dispatch_support
def selu(features, name=None):
    """scale * elu-like with alpha: the self-normalizing activation (Klambauer et al.)."""
    m = _math_ops
    x = float_input(features, "Selu")
    zero = const(0, x)
    neg = m.expm1(m.minimum(x, zero)) * const(_SELU_ALPHA, x)
    return where(m.greater(x, zero), x, neg) * const(_SELU_SCALE, x)


@export("nn.gelu")
@dispatch.add_dispatch_support
def gelu(features, approximate=False, name=None):
    """Gaussian error linear unit: x * Phi(x) (exact with erf, or the tanh approximation)."""
    m = _math_ops
    x = as_tensor(features)
    if x._value.dtype.kind != "f":
        raise ValueError(f"`features.dtype` must be a floating point tensor. Received: features.dtype="
                         f"{x.dtype!r}; cast it with tf.cast(features, tf.float32)")
    if approximate:
        inner = (x + x * x * x * const(0.044715, x)) * const(_pymath.sqrt(2.0 / _pymath.pi), x)
        return x * (m.tanh(inner) + const(1, x)) * const(0.5, x)
    return x * (m.erf(x * const(1 / _pymath.sqrt(2.0), x)) + const(1, x)) * const(0.5, x)


@export("nn.silu", "nn.swish")
@dispatch.add_dispatch_support
def silu(features, beta=1.0, name=None):
    """x * sigmoid(beta * x) (also called swish)."""
    x = float_input(features, "Silu")
    return x * _math_ops.sigmoid(x * const(beta, x) if beta != 1.0 else x)


swish = silu


@export("math.softsign", "nn.softsign")
@dispatch.add_dispatch_support
def softsign(features, name=None):
    """features / (1 + |features|)."""
    m = _math_ops
    x = float_input(features, "Softsign")
    return x / (m.abs(x) + const(1, x))


# -- softmax family ----------------------------------------------------------------------------

def _raw_softmax_parts(xp, v, axis):
    """(exp(v - max), sum of it, v - max) along `axis` (keepdims), the shared first passes."""
    shifted = v - v.max(axis=axis, keepdims=True)
    e = xp.exp(shifted)
    return e, e.sum(axis=axis, keepdims=True), shifted


def _check_softmax_scalar(x, axis, op_name):
    """Reject a 0-d input with TF's exceptions.

    The last axis (the default) goes to TF's kernel: the CPU (oneDNN) Softmax kernel for
    float16/bfloat16/float32 raises AbortedError, the others (float64, LogSoftmax)
    InvalidArgumentError; any other axis fails TF's Python range check (InvalidArgumentError).
    """
    if x._value.ndim != 0:
        return
    if axis is None or axis == -1:
        message = (f"{op_name} needs logits of rank >= 1, got a scalar (shape []); reshape it "
                   f"to [1] or apply it to a vector [Op:{op_name}]")
        if op_name == "Softmax" and x.dtype.name != "float64":
            raise errors.AbortedError(None, None, "Input dims must be <= 5 and >=1: " + message)
        raise errors.InvalidArgumentError(None, None, message)
    raise errors.invalid_argument(op_name, f"`dim` must be in the range [0, 0) where 0 is the "
                                           f"number of dimensions in the input (a scalar). "
                                           f"Received: dim={axis}; give logits of rank >= 1")


SOFTMAX = Op("Softmax", batchable=True, dtypes=FLOATS)


@export("math.softmax", "nn.softmax")
def softmax(logits, axis=None, name=None):
    """exp(logits) / sum(exp(logits)) along `axis` (the last axis by default), computed stably."""
    if tracing[0] and is_graph_value(logits):
        return graph_call(softmax, (logits,), {"axis": axis})
    x = float_input(logits, "Softmax")
    SOFTMAX.check_dtype(x)
    _check_softmax_scalar(x, axis, "Softmax")
    axis = _negative_axis(-1 if axis is None else axis, x._value.ndim, "Softmax")
    xp = array_module(x._value)
    e, s, _ = _raw_softmax_parts(xp, x._value, axis)
    e /= s
    y = Tensor(e)
    if thread_state.active:
        def grad(g):
            return y * (g - reduce_sum(g * y, axis=axis, keepdims=True))
        record(SOFTMAX, (x,), (y,), grad)
    return y


LOG_SOFTMAX = Op("LogSoftmax", batchable=True, dtypes=FLOATS)


@export("math.log_softmax", "nn.log_softmax")
@dispatch.add_dispatch_support
def log_softmax(logits, axis=None, name=None):
    """logits - log(sum(exp(logits))) along `axis` (the last axis by default), computed stably."""
    x = float_input(logits, "LogSoftmax")
    LOG_SOFTMAX.check_dtype(x)
    _check_softmax_scalar(x, axis, "LogSoftmax")
    axis = _negative_axis(-1 if axis is None else axis, x._value.ndim, "LogSoftmax")
    xp = array_module(x._value)
    e, s, shifted = _raw_softmax_parts(xp, x._value, axis)
    shifted -= xp.log(s)
    y = Tensor(shifted)
    if thread_state.active:
        def grad(g):
            return g - _math_ops.exp(y) * reduce_sum(g, axis=axis, keepdims=True)
        record(LOG_SOFTMAX, (x,), (y,), grad)
    return y


def _expand_at(g, axis):
    """`g` with a size-1 axis inserted where the reduced (negative) `axis` was."""
    shape = tuple(g._value.shape)
    pos = len(shape) + axis + 1
    shape = shape[:pos] + (1,) + shape[pos:]
    if not thread_state.active:  # nothing records: a view, without the op's checks
        return Tensor(g._value.reshape(shape))
    return reshape(g, shape)


SOFTMAX_CROSS_ENTROPY = Op("SoftmaxCrossEntropyWithLogits", batchable=True)


@export("nn.softmax_cross_entropy_with_logits")
@dispatch.add_dispatch_support
def softmax_cross_entropy_with_logits(labels, logits, axis=-1, name=None):
    """-sum(labels * log_softmax(logits)) along `axis`, one loss per example.

    As TF, the logits gradient is softmax(logits) - labels (labels are taken to sum to 1),
    and labels receive the gradient -log_softmax(logits).
    """
    x = _real_float_input(logits, "SoftmaxCrossEntropyWithLogits")
    x, z = binary(x, labels, "SoftmaxCrossEntropyWithLogits")
    if x._value.shape != z._value.shape:
        raise errors.invalid_argument(
            "SoftmaxCrossEntropyWithLogits", f"logits and labels must be broadcastable: logits_size="
                                             f"{list(x.shape)} labels_size={list(z.shape)}")
    if x._value.ndim == 0:
        raise ValueError("softmax_cross_entropy_with_logits needs logits of rank >= 1, got a scalar")
    axis = _negative_axis(axis, x._value.ndim, "SoftmaxCrossEntropyWithLogits")
    xp = array_module(x._value)
    e, s, shifted = _raw_softmax_parts(xp, x._value, axis)
    loss = Tensor((z._value * (xp.log(s) - shifted)).sum(axis=axis))
    if thread_state.active:
        def grad(g):
            ge = _expand_at(g, axis)
            return (lambda: ge * -log_softmax(x, axis),
                    lambda: _softmax_xent_logits_grad(x, z, ge, axis, e / s))
        record(SOFTMAX_CROSS_ENTROPY, (z, x), (loss,), grad)
    return loss


SOFTMAX_CROSS_ENTROPY_GRAD = Op("SoftmaxCrossEntropyWithLogitsGrad", batchable=True)


def _softmax_xent_logits_grad(x, z, ge, axis, probs):
    """ge * (softmax(x) - z), the logits gradient of the softmax cross-entropy, in one pass over
    `probs` (softmax(x) as a raw array the forward pass kept; overwritten here). A node of its
    own, so its rule below gives the second derivatives."""
    probs -= z._value
    if ge._value.ndim == probs.ndim:
        probs *= ge._value
    else:  # a batch of cotangents (jacobian): extra leading dimensions
        probs = probs * ge._value
    out = Tensor(probs)
    if thread_state.active:
        def grad(u):
            p = softmax(x, axis)
            w = u * ge
            return (lambda: p * (w - reduce_sum(w * p, axis=axis, keepdims=True)),
                    lambda: -w,
                    lambda: reduce_sum(u * (p - z), axis=axis, keepdims=True))
        record(SOFTMAX_CROSS_ENTROPY_GRAD, (x, z, ge), (out,), grad)
    return out


SPARSE_SOFTMAX_CROSS_ENTROPY = Op("SparseSoftmaxCrossEntropyWithLogits", batchable=True)


@export("nn.sparse_softmax_cross_entropy_with_logits")
@dispatch.add_dispatch_support
def sparse_softmax_cross_entropy_with_logits(labels, logits, name=None):
    """Cross-entropy of integer class `labels` [...] against `logits` [..., classes].

    Labels outside [0, classes) raise InvalidArgumentError; labels get no gradient, the logits
    gradient is softmax(logits) - one_hot(labels).
    """
    x = _real_float_input(logits, "SparseSoftmaxCrossEntropyWithLogits")
    lab = as_tensor(labels)
    if lab._value.dtype.kind not in "iu":
        raise ValueError(f"sparse_softmax_cross_entropy_with_logits needs integer labels, got {lab.dtype.name}")
    xs, ls = x._value.shape, lab._value.shape
    if x._value.ndim == 0:
        raise ValueError("Logits cannot be scalars - received shape ().")
    if len(ls) != len(xs) - 1:
        raise ValueError(f"Rank mismatch: Rank of labels (received {len(ls)}) should equal rank of "
                         f"logits minus 1 (received {len(xs)}).")
    if tuple(ls) != tuple(xs[:-1]):
        raise ValueError(f"Shape mismatch: The shape of labels (received {tuple(ls)}) should equal the "
                         f"shape of logits except for the last dimension (received {tuple(xs)}).")
    xp = array_module(x._value)
    classes = xs[-1]
    v = x._value.reshape(-1, classes)
    flat_labels = xp.asarray(lab._value).reshape(-1)
    if flat_labels.size and (flat_labels.min() < 0 or flat_labels.max() >= classes):
        bad = flat_labels[(flat_labels < 0) | (flat_labels >= classes)][0]
        raise errors.invalid_argument(
            "SparseSoftmaxCrossEntropyWithLogits",
            f"Received a label value of {int(bad)} which is outside the valid range of [0, {classes}).")
    rows = xp.arange(v.shape[0])
    shifted = v - v.max(axis=1, keepdims=True)
    picked = shifted[rows, flat_labels]
    e = xp.exp(shifted, out=shifted)
    s = e.sum(axis=1)
    loss = Tensor((xp.log(s) - picked).reshape(ls))
    if thread_state.active:
        record(SPARSE_SOFTMAX_CROSS_ENTROPY, (lab, x), (loss,),
               lambda g: (None, _sparse_xent_logits_grad(x, rows, flat_labels, _expand_at(g, -1), e / s[:, None])))
    return loss


SPARSE_SOFTMAX_CROSS_ENTROPY_GRAD = Op("SparseSoftmaxCrossEntropyWithLogitsGrad", batchable=True)


def _sparse_xent_logits_grad(x, rows, flat_labels, ge, probs):
    """ge * (softmax(x) - one_hot(labels)), the logits gradient of the sparse softmax
    cross-entropy, in one pass over `probs` (softmax(x) as a raw [examples, classes] array the
    forward pass kept; overwritten here). A node of its own, so its rule gives the second
    derivatives."""
    probs[rows, flat_labels] -= 1
    probs = probs.reshape(x._value.shape)
    if ge._value.ndim == probs.ndim:
        probs *= ge._value
    else:  # a batch of cotangents (jacobian): extra leading dimensions
        probs = probs * ge._value
    out = Tensor(probs)
    if thread_state.active:
        def grad(u):
            p = softmax(x)
            one_hot = array_module(probs).zeros((rows.size, x._value.shape[-1]), dtype=probs.dtype)
            one_hot[rows, flat_labels] = 1
            w = u * ge
            return (lambda: p * (w - reduce_sum(w * p, axis=-1, keepdims=True)),
                    lambda: reduce_sum(u * (p - Tensor(one_hot.reshape(x._value.shape))), axis=-1,
                                       keepdims=True))
        record(SPARSE_SOFTMAX_CROSS_ENTROPY_GRAD, (x, ge), (out,), grad)
    return out


SIGMOID_CROSS_ENTROPY = Op("SigmoidCrossEntropyWithLogits", batchable=True)


@export("nn.sigmoid_cross_entropy_with_logits")
@dispatch.add_dispatch_support
def sigmoid_cross_entropy_with_logits(labels=None, logits=None, name=None):
    """Per-element logistic loss: max(x, 0) - x * z + log(1 + exp(-|x|)) for logits x, labels z."""
    if labels is None or logits is None:
        raise ValueError("sigmoid_cross_entropy_with_logits needs both labels and logits")
    x = float_input(logits, "SigmoidCrossEntropyWithLogits")
    x, z = binary(x, labels, "SigmoidCrossEntropyWithLogits")
    if x._value.shape != z._value.shape:
        raise ValueError(f"logits and labels must have the same shape ({list(x.shape)} vs {list(z.shape)})")
    xp = array_module(x._value)
    v, zv = x._value, z._value
    loss = Tensor(xp.maximum(v, 0) - v * zv + xp.log1p(xp.exp(-xp.abs(v))))
    if thread_state.active:
        record(SIGMOID_CROSS_ENTROPY, (z, x), (loss,),
               lambda g: (lambda: -g * x, lambda: g * (_math_ops.sigmoid(x) - z)))
    return loss


@export("nn.weighted_cross_entropy_with_logits")
@dispatch.add_dispatch_support
def weighted_cross_entropy_with_logits(labels, logits, pos_weight, name=None):
    """Logistic loss with the positive term weighted by `pos_weight`."""
    m = _math_ops
    x = float_input(logits, "WeightedCrossEntropyWithLogits")
    x, z = binary(x, labels, "WeightedCrossEntropyWithLogits")
    q = as_tensor(pos_weight, dtype=x.dtype)
    one = const(1, x)
    log_weight = one + (q - one) * z
    return (one - z) * x + log_weight * (m.log1p(m.exp(-m.abs(x))) + relu(-x))


@export("nn.log_poisson_loss")
@dispatch.add_dispatch_support
def log_poisson_loss(targets, log_input, compute_full_loss=False, name=None):
    """exp(log_input) - targets * log_input, plus Stirling's term for targets > 1 when full."""
    m = _math_ops
    c = float_input(log_input, "LogPoissonLoss")
    c, z = binary(c, targets, "LogPoissonLoss")
    if c._value.shape != z._value.shape:
        raise ValueError(f"log_input and targets must have the same shape ({list(c.shape)} vs {list(z.shape)})")
    loss = m.exp(c) - c * z
    if compute_full_loss:
        one = const(1, z)
        safe = where(m.greater(z, one), z, one)
        stirling = safe * m.log(safe) - safe + const(0.5, z) * m.log(safe * const(2 * _pymath.pi, z))
        loss = loss + where(m.greater(z, one), stirling, zeros_like(z))
    return loss


# -- bias, dropout, normalization ------------------------------------------------------------

@export("nn.bias_add")
def bias_add(value, bias, data_format=None, name=None):
    """value + bias, with the 1-D bias on the channel axis (last for NHWC, 1 for NC...)."""
    if tracing[0] and (is_graph_value(value) or is_graph_value(bias)):
        return graph_call(bias_add, (value, bias), {"data_format": data_format})
    x, b = binary(value, bias, "BiasAdd")
    if b._value.ndim != 1:
        raise errors.invalid_argument("BiasAdd", f"Biases must be 1D: {list(b.shape)}")
    if x._value.ndim < 2:
        raise errors.invalid_argument("BiasAdd", f"Input tensor must be at least 2D: {list(x.shape)}")
    channels_first = data_format is not None and data_format.startswith("NC")
    channel_dim = x._value.shape[1] if channels_first else x._value.shape[-1]
    if channel_dim != b._value.shape[0]:
        raise errors.invalid_argument(
            "BiasAdd", f"Must provide as many biases as the channel dimension of the input tensor: "
                       f"{list(b.shape)} vs. {list(x.shape)}")
    if channels_first:
        b = reshape(b, (-1,) + (1,) * (x._value.ndim - 2))
    return x + b


@export("nn.dropout")
@_random_ops.random_op
def dropout(x, rate, noise_shape=None, seed=None, name=None):
    """Zero each element with probability `rate` and scale the kept ones by 1 / (1 - rate).

    The mask is TF's: one tf.random.uniform draw of `noise_shape` in x's dtype under TF's seed
    rules (so seeded results equal TF's bit for bit), kept where the draw is >= rate. A Python
    `rate` scales by x * (1 / (1 - rate)); a scalar tensor `rate` divides, x / (1 - rate), as
    TF does. `noise_shape` (broadcastable with x's shape; None entries take x's size) shares
    one keep/drop decision along size-1 axes. rate=0 returns x (still taking an op seed).

    Raises:
      ValueError: a non-float x, a Python rate outside [0, 1), a rate that is neither a number
        nor a scalar tensor, or a rate tensor of another float dtype.
      InvalidArgumentError: a noise_shape that does not broadcast with x's shape.
    """
    is_number = isinstance(rate, _numbers.Real)
    if is_number and not 0 <= rate < 1:
        raise ValueError(f"`rate` must be a scalar tensor or a float in the range [0, 1). Received: rate={rate}")
    x = as_tensor(x)
    if x._value.dtype.kind != "f":
        raise ValueError(f"`x.dtype` must be a floating point tensor as `x` will be scaled. "
                         f"Received: x_dtype={x.dtype!r}")
    if is_number and rate == 0:
        _random_ops.get_seed(seed)  # TF's dummy step: the op seed is taken all the same
        return x
    xp = array_module(x._value)
    if is_number:
        kept = x * Tensor(xp.asarray(1 / (1 - rate), dtype=x._value.dtype))
        threshold = np.asarray(rate, dtype=x._value.dtype)
    elif isinstance(rate, (Tensor, Variable)):
        rate = as_tensor(rate)
        if rate._value.ndim != 0:
            raise ValueError(f"Shape {tuple(rate.shape)} must have rank 0: tf.nn.dropout's rate is a scalar")
        if rate.dtype != x.dtype:
            if rate.dtype.base_dtype != x.dtype.base_dtype:
                raise ValueError(f"`x.dtype` must be compatible with `rate.dtype`. Received: x.dtype={x.dtype!r} "
                                 f"and rate.dtype={rate.dtype!r}")
            rate = cast(rate, x.dtype)
        kept = x / (Tensor(xp.asarray(1, dtype=x._value.dtype)) - rate)
        threshold = backend.to_host(rate._value)
    else:
        raise ValueError(f"`rate` must be a scalar or scalar tensor. Received: rate={rate!r}")
    noise, shape_dtype = _noise_shape(x, noise_shape)
    draw = _random_ops.unit_uniform(noise, x.dtype, seed, shape_dtype)
    keep = draw >= threshold
    try:
        np.broadcast_shapes(keep.shape, tuple(kept.shape))
    except ValueError:
        raise errors.invalid_argument(
            "SelectV2", f"condition {list(keep.shape)}, then {list(kept.shape)}, and else [] must be "
                        f"broadcastable: tf.nn.dropout's noise_shape must broadcast with x's shape") from None
    return where(Tensor(xp.asarray(keep)), kept, zeros_like(x))


def _noise_shape(x, noise_shape):
    """(the mask's shape as ints, its shape tensor's dtype) as TF's _get_noise_shape gives them:
    None entries take x's size when the ranks agree."""
    shape = tuple(x._value.shape)
    if noise_shape is None:
        return shape, "int32"
    shape_dtype = "int32"
    if isinstance(noise_shape, (Tensor, Variable)):
        shape_dtype = noise_shape.dtype.name
        noise_shape = backend.to_host(as_tensor(noise_shape)._value).tolist()
    dims = list(noise_shape)
    if len(dims) == len(shape):
        shape_dtype = "int32"  # TF rebuilds it as a TensorShape, whose shape tensor is int32
        dims = [s if d is None else d for d, s in zip(dims, shape)]
    return tuple(int(d) for d in dims), shape_dtype


@export("nn.moments")
@dispatch.add_dispatch_support
def moments(x, axes, shift=None, keepdims=False, name=None):
    """(mean, variance) of `x` over `axes`.

    As in TF, the variance treats the mean as a constant (stop_gradient): first derivatives are
    exact (the mean's contribution sums to zero), second derivatives omit the mean's path.
    """
    x = as_tensor(x)
    if x._value.dtype.kind not in "fiu":
        float_input(x, "Moments")
    mean = reduce_mean(x, axis=axes, keepdims=True)
    if x._value.dtype.kind in "iu":  # TF: integer mean and variance (squared_difference's dtypes)
        variance = reduce_mean(_math_ops.squared_difference(x, stop_gradient(mean)), axis=axes, keepdims=True)
    else:
        diff = x - stop_gradient(mean)
        variance = reduce_mean(diff * diff, axis=axes, keepdims=True)
    if not keepdims:
        dropped = set(reduction_axes(axes, x._value.ndim, "Moments"))
        out_shape = tuple(d for i, d in enumerate(x._value.shape) if i not in dropped)
        mean, variance = reshape(mean, out_shape), reshape(variance, out_shape)
    return mean, variance


@export("nn.batch_normalization")
@dispatch.add_dispatch_support
def batch_normalization(x, mean, variance, offset, scale, variance_epsilon, name=None):
    """(x - mean) * scale / sqrt(variance + epsilon) + offset (offset/scale may be None)."""
    m = _math_ops
    x = float_input(x, "BatchNormalization")
    inv = m.rsqrt(as_tensor(variance) + const(variance_epsilon, x))
    if scale is not None:
        inv = inv * scale
    shift = (offset - as_tensor(mean) * inv) if offset is not None else -(as_tensor(mean) * inv)
    return x * inv + shift


# -- losses helpers ---------------------------------------------------------------------------

@export("nn.l2_loss")
@dispatch.add_dispatch_support
def l2_loss(t, name=None):
    """sum(t ** 2) / 2."""
    t = _real_float_input(t, "L2Loss")
    return reduce_sum(t * t) * const(0.5, t)
