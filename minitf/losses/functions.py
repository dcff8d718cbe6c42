"""The loss functions of tf.keras.losses: one loss value per example.

Each function takes labels `y_true` and predictions `y_pred` and returns one value per
example, averaging (or summing) over the last axis as Keras does; y_pred keeps its floating
dtype and y_true is cast to it. The regression functions first bring ranks that differ by
one to the same rank (`squeeze_or_expand_to_same_rank`); the cross-entropies then require
equal shapes (ValueError). Probabilities are clipped to [1e-7, 1 - 1e-7]; the `from_logits`
paths work on logits directly, without overflow.
"""
import warnings

import numpy as np

from minitf import dispatch
from minitf.activations import activations
from minitf.errors import errors
from minitf.backend import array_module
from minitf.convert import convert_to_tensor
from minitf.losses.reduction import static_rank, squeeze_or_expand_to_same_rank
from minitf.ops import array as array_ops
from minitf.ops import constant as constant_ops
from minitf.ops import math as math_ops
from minitf.ops import nn as nn_ops
from minitf.ops import reduce as reduce_ops
from minitf.tensor import Tensor
from minitf.api_export import export

__all__ = ["mean_squared_error", "mean_absolute_error", "mean_absolute_percentage_error",
           "mean_squared_logarithmic_error", "huber", "log_cosh", "kl_divergence", "poisson",
           "cosine_similarity", "hinge", "squared_hinge", "categorical_hinge",
           "binary_crossentropy", "categorical_crossentropy", "sparse_categorical_crossentropy",
           "mse", "mae", "mape", "msle", "kld", "MSE", "MAE", "MAPE", "MSLE", "KLD", "logcosh",
           "kullback_leibler_divergence"]

EPSILON = 1e-7


def _pred_true(y_true, y_pred):
    """y_pred as a floating tensor, y_true cast to its dtype."""
    y_pred = convert_to_tensor(y_pred)
    if not y_pred.dtype.is_floating:
        y_pred = constant_ops.cast(y_pred, "float32")
    y_true = constant_ops.cast(convert_to_tensor(y_true), y_pred.dtype)
    return y_true, y_pred


def _const_like(value, like):
    """A constant tensor (no gradient) from a raw array, in the dtype of `like`."""
    return Tensor(value.astype(like._value.dtype))


@export("losses.MSE", "losses.mse", "keras.losses.MSE", "keras.losses.mse")
def mean_squared_error(y_true, y_pred):
    """mean((y_pred - y_true)^2) over the last axis."""
    y_true, y_pred = _pred_true(y_true, y_pred)
    y_true, y_pred = squeeze_or_expand_to_same_rank(y_true, y_pred)
    return reduce_ops.reduce_mean(math_ops.squared_difference(y_pred, y_true), axis=-1)


@export("losses.MAE", "losses.mae", "keras.losses.MAE", "keras.losses.mae")
def mean_absolute_error(y_true, y_pred):
    """mean(|y_pred - y_true|) over the last axis."""
    y_true, y_pred = _pred_true(y_true, y_pred)
    y_true, y_pred = squeeze_or_expand_to_same_rank(y_true, y_pred)
    return reduce_ops.reduce_mean(math_ops.abs(y_pred - y_true), axis=-1)


@export("losses.MAPE", "losses.mape", "keras.losses.MAPE", "keras.losses.mape")
def mean_absolute_percentage_error(y_true, y_pred):
    """100 * mean(|(y_true - y_pred) / max(|y_true|, eps)|) over the last axis."""
    y_true, y_pred = _pred_true(y_true, y_pred)
    y_true, y_pred = squeeze_or_expand_to_same_rank(y_true, y_pred)
    diff = math_ops.abs((y_true - y_pred) / math_ops.maximum(math_ops.abs(y_true), EPSILON))
    return 100.0 * reduce_ops.reduce_mean(diff, axis=-1)


@export("losses.MSLE", "losses.msle", "keras.losses.MSLE", "keras.losses.msle")
def mean_squared_logarithmic_error(y_true, y_pred):
    """mean((log(max(y_pred, eps) + 1) - log(max(y_true, eps) + 1))^2) over the last axis."""
    y_true, y_pred = _pred_true(y_true, y_pred)
    y_true, y_pred = squeeze_or_expand_to_same_rank(y_true, y_pred)
    first = math_ops.log(math_ops.maximum(y_pred, EPSILON) + 1.0)
    second = math_ops.log(math_ops.maximum(y_true, EPSILON) + 1.0)
    return reduce_ops.reduce_mean(math_ops.square(first - second), axis=-1)


@export("losses.huber", "keras.losses.huber")
def huber(y_true, y_pred, delta=1.0):
    """Quadratic for |error| <= delta, linear beyond: mean over the last axis."""
    y_true, y_pred = _pred_true(y_true, y_pred)
    y_true, y_pred = squeeze_or_expand_to_same_rank(y_true, y_pred)
    error = y_pred - y_true
    abs_error = math_ops.abs(error)
    quadratic = 0.5 * math_ops.square(error)
    linear = delta * abs_error - 0.5 * delta * delta
    return reduce_ops.reduce_mean(array_ops.where(abs_error <= delta, quadratic, linear), axis=-1)


@export("losses.logcosh", "keras.losses.logcosh")
def log_cosh(y_true, y_pred):
    """mean(log(cosh(y_pred - y_true))) over the last axis, computed without overflow."""
    y_true, y_pred = _pred_true(y_true, y_pred)
    y_true, y_pred = squeeze_or_expand_to_same_rank(y_true, y_pred)
    x = y_pred - y_true
    return reduce_ops.reduce_mean(x + math_ops.softplus(-2.0 * x) - float(np.log(2.0)), axis=-1)


@export("losses.KLD", "losses.kld", "losses.kullback_leibler_divergence", "keras.losses.KLD",
        "keras.losses.kld", "keras.losses.kullback_leibler_divergence")
def kl_divergence(y_true, y_pred):
    """sum(y_true * log(y_true / y_pred)) over the last axis, both clipped to [eps, 1]."""
    y_true, y_pred = _pred_true(y_true, y_pred)
    y_true = math_ops.clip_by_value(y_true, EPSILON, 1.0)
    y_pred = math_ops.clip_by_value(y_pred, EPSILON, 1.0)
    return reduce_ops.reduce_sum(y_true * math_ops.log(y_true / y_pred), axis=-1)


@export("losses.poisson", "keras.losses.poisson")
def poisson(y_true, y_pred):
    """mean(y_pred - y_true * log(y_pred + eps)) over the last axis."""
    y_true, y_pred = _pred_true(y_true, y_pred)
    return reduce_ops.reduce_mean(y_pred - y_true * math_ops.log(y_pred + EPSILON), axis=-1)


def _l2_normalize(x, axis):
    """keras.ops.normalize: x * min(rsqrt(sum(x^2)), 1/epsilon); a 0-d x is a 1-vector."""
    if static_rank(x) == 0:
        x = array_ops.expand_dims(x, 0)
    # rsqrt(max(s, eps^2)) == min(rsqrt(s), 1/eps), without dividing by zero
    square_sum = reduce_ops.reduce_sum(math_ops.square(x), axis=axis, keepdims=True)
    return x * math_ops.rsqrt(math_ops.maximum(square_sum, EPSILON * EPSILON))


@export("losses.cosine_similarity", "keras.losses.cosine_similarity")
def cosine_similarity(y_true, y_pred, axis=-1):
    """-sum(l2_normalize(y_true) * l2_normalize(y_pred)) along `axis` (-1 means aligned)."""
    y_true, y_pred = _pred_true(y_true, y_pred)
    y_true, y_pred = squeeze_or_expand_to_same_rank(y_true, y_pred)
    return -reduce_ops.reduce_sum(_l2_normalize(y_true, axis) * _l2_normalize(y_pred, axis), axis=axis)


@dispatch.add_dispatch_support
def _signed_labels(y_true):
    """Labels in {0, 1} become {-1, 1}; anything else is used as given (Keras' rule)."""
    raw = y_true._value
    xp = array_module(raw)
    if bool(xp.all((raw == 0) | (raw == 1))):
        return 2.0 * y_true - 1.0
    return y_true


@export("losses.hinge", "keras.losses.hinge")
def hinge(y_true, y_pred):
    """mean(max(1 - y_true * y_pred, 0)) over the last axis; 0/1 labels become -1/1."""
    y_true, y_pred = _pred_true(y_true, y_pred)
    y_true = _signed_labels(y_true)
    return reduce_ops.reduce_mean(math_ops.maximum(1.0 - y_true * y_pred, 0.0), axis=-1)


@export("losses.squared_hinge", "keras.losses.squared_hinge")
def squared_hinge(y_true, y_pred):
    """mean(max(1 - y_true * y_pred, 0)^2) over the last axis; 0/1 labels become -1/1."""
    y_true, y_pred = _pred_true(y_true, y_pred)
    y_true = _signed_labels(y_true)
    return reduce_ops.reduce_mean(math_ops.square(math_ops.maximum(1.0 - y_true * y_pred, 0.0)), axis=-1)


@export("losses.categorical_hinge", "keras.losses.categorical_hinge")
def categorical_hinge(y_true, y_pred):
    """max(max((1 - y_true) * y_pred) - sum(y_true * y_pred) + 1, 0) over the last axis."""
    y_true, y_pred = _pred_true(y_true, y_pred)
    pos = reduce_ops.reduce_sum(y_true * y_pred, axis=-1)
    neg = reduce_ops.reduce_max((1.0 - y_true) * y_pred, axis=-1)
    return math_ops.maximum(neg - pos + 1.0, 0.0)


def _check_same_shape(y_true, y_pred, who):
    """Keras 3's cross-entropy checks: same rank, then same shape (ValueError otherwise)."""
    t, p = y_true.shape.as_list(), y_pred.shape.as_list()
    if len(t) != len(p):
        raise ValueError(f"{who}: y_true and y_pred must have the same rank (ndim), got shapes "
                         f"{t} and {p}; reshape one of them (e.g. array_ops.expand_dims(y_true, -1)).")
    if t != p:
        raise ValueError(f"{who}: y_true and y_pred must have the same shape, got {t} and {p}.")


def _log_softmax(x, axis):
    return activations.log_softmax(x, axis=axis)


@export("losses.binary_crossentropy", "keras.losses.binary_crossentropy")
def binary_crossentropy(y_true, y_pred, from_logits=False, label_smoothing=0.0, axis=-1):
    """Binary cross-entropy averaged over `axis`; labels are smoothed toward 0.5 first.

    Probabilities are clipped to [1e-7, 1 - 1e-7] before the logs (Keras 3; Keras 2 also
    added 1e-7 inside each log, a difference below 1e-6 for unclipped values).
    """
    y_true, y_pred = _pred_true(y_true, y_pred)
    _check_same_shape(y_true, y_pred, "binary_crossentropy")
    if label_smoothing:
        _check_smoothing(label_smoothing, "binary_crossentropy")
        y_true = y_true * (1.0 - label_smoothing) + 0.5 * label_smoothing
    return reduce_ops.reduce_mean(_elementwise_bce(y_true, y_pred, from_logits), axis=axis)


def _check_smoothing(label_smoothing, fn):
    """Keras 3 computes 1 - label_smoothing: a TypeError for what is not a number."""
    if isinstance(label_smoothing, (str, bytes, list, tuple, dict)):
        raise TypeError(f"{fn}: `label_smoothing` must be a float in [0, 1], not {label_smoothing!r}")


def _elementwise_bce(target, output, from_logits):
    if from_logits:  # max(x, 0) - x z + log(1 + exp(-|x|)): never overflows
        return nn_ops.sigmoid_cross_entropy_with_logits(labels=target, logits=output)
    output = math_ops.clip_by_value(output, EPSILON, 1.0 - EPSILON)
    return -(target * math_ops.log(output) + (1.0 - target) * math_ops.log(1.0 - output))


@export("losses.categorical_crossentropy", "keras.losses.categorical_crossentropy")
def categorical_crossentropy(y_true, y_pred, from_logits=False, label_smoothing=0.0, axis=-1):
    """-sum(y_true * log(p)) along `axis`; p is y_pred normalized and clipped, or softmax(logits)."""
    y_true, y_pred = _pred_true(y_true, y_pred)
    if static_rank(y_pred) < 1:  # Keras 3 reads y_pred.shape[-1] first: IndexError
        raise IndexError("categorical_crossentropy: y_pred must be at least rank 1 (batch, classes), "
                         f"got a 0-d y_pred (y_true of shape {y_true.shape.as_list()}).")
    if static_rank(y_true) < 1:
        raise ValueError("categorical_crossentropy: y_true and y_pred must be at least rank 1, got "
                         f"shapes {y_true.shape.as_list()} and {y_pred.shape.as_list()}.")
    _check_same_shape(y_true, y_pred, "categorical_crossentropy")
    if y_pred.shape[-1] == 1:
        warnings.warn("In loss categorical_crossentropy, expected y_pred.shape to be (batch_size, "
                      f"num_classes) with num_classes > 1. Received: y_pred.shape={y_pred.shape}. "
                      "Consider using 'binary_crossentropy' if you only have 2 classes.",
                      SyntaxWarning, stacklevel=2)
    if label_smoothing:  # Keras 3 smooths over the last axis whatever `axis` is
        _check_smoothing(label_smoothing, "categorical_crossentropy")
        num_classes = float(y_true.shape[-1])
        y_true = y_true * (1.0 - label_smoothing) + label_smoothing / num_classes
    if from_logits:
        return nn_ops.softmax_cross_entropy_with_logits(labels=y_true, logits=y_pred, axis=axis)
    y_pred = y_pred / reduce_ops.reduce_sum(y_pred, axis=axis, keepdims=True)
    y_pred = math_ops.clip_by_value(y_pred, EPSILON, 1.0 - EPSILON)
    return -reduce_ops.reduce_sum(y_true * math_ops.log(y_pred), axis=axis)


def _sparse_labels(y_true, y_pred, axis):
    """Integer labels as a raw array with y_pred's rank minus one (a trailing 1 is dropped)."""
    y_true = convert_to_tensor(y_true)
    raw = y_true._value
    if raw.ndim == static_rank(y_pred) and raw.ndim and raw.shape[-1] == 1:
        raw = raw[..., 0]
    xp = array_module(raw)
    if raw.dtype.kind == "f":
        raw = raw.astype("int64")
    expected = y_pred.shape.as_list()
    del expected[axis]
    if list(raw.shape) != expected:
        raise ValueError(f"sparse_categorical_crossentropy: labels of shape {list(y_true.shape)} do not "
                         f"match logits of shape {y_pred.shape.as_list()} (expected labels of shape "
                         f"{expected}).")
    return xp.asarray(raw)


@export("losses.sparse_categorical_crossentropy", "keras.losses.sparse_categorical_crossentropy")
def sparse_categorical_crossentropy(y_true, y_pred, from_logits=False, ignore_class=None, axis=-1):
    """Cross-entropy with integer labels: -log p[label] along `axis`.

    Labels equal to `ignore_class` contribute 0 (and are left out of the Loss object's mean).
    """
    losses, _ = sparse_cce_with_mask(y_true, y_pred, from_logits, ignore_class, axis)
    return losses


@dispatch.add_dispatch_support
def sparse_cce_with_mask(y_true, y_pred, from_logits, ignore_class, axis):
    if ignore_class is not None and (isinstance(ignore_class, (str, bytes)) or not np.isscalar(ignore_class)):
        # Keras 3 casts it to the labels' dtype
        raise errors.UnimplementedError(None, None, f"sparse_categorical_crossentropy: `ignore_class` must be "
                                                    f"an integer class, got {ignore_class!r} [Op:Cast]")
    y_pred = convert_to_tensor(y_pred)
    if not y_pred.dtype.is_floating:
        y_pred = constant_ops.cast(y_pred, "float32")
    rank = static_rank(y_pred)
    if axis != -1 and axis != rank - 1:
        if ignore_class is not None:
            # Keras masks y_pred with expand_dims(labels != ignore_class, axis) first
            t_shape = list(convert_to_tensor(y_true).shape.as_list())
            if len(t_shape) == rank and -rank <= axis < rank and t_shape[axis] == 1:
                del t_shape[axis]
            if -len(t_shape) - 1 <= axis <= len(t_shape):
                t_shape.insert(axis % (len(t_shape) + 1), 1)
            try:
                np.broadcast_shapes(tuple(t_shape), tuple(y_pred.shape.as_list()))
            except ValueError:
                raise errors.invalid_argument(
                    "SelectV2", f"condition {t_shape}, then {y_pred.shape.as_list()}, and else [] "
                                "must be broadcastable") from None
        raise ValueError(f"sparse_categorical_crossentropy: only axis=-1 is currently supported "
                         f"(as Keras 3). Received: axis={axis}; move the class axis last "
                         "(e.g. tf.transpose) first.")
    labels = _sparse_labels(y_true, y_pred, axis)
    xp = array_module(labels)
    num_classes = y_pred.shape[axis]
    valid = None
    if ignore_class is not None:
        valid = labels != ignore_class
        labels = xp.where(valid, labels, 0)
    if labels.size and (labels.min() < 0 or labels.max() >= num_classes):
        bad = int(labels.max() if labels.max() >= num_classes else labels.min())
        raise errors.invalid_argument(
            "SparseSoftmaxCrossEntropyWithLogits",
            f"Received a label value of {bad} which is outside the valid range of [0, {num_classes}). "
            f"Label values: {labels.tolist()}")
    if from_logits:
        log_probs = _log_softmax(y_pred, axis)
    else:
        # Keras: clip, take logs, then treat those as logits (re-normalizes)
        clipped = math_ops.clip_by_value(y_pred, EPSILON, 1.0 - EPSILON)
        log_probs = _log_softmax(math_ops.log(clipped), axis)
    ax = axis % static_rank(y_pred)
    picks = xp.expand_dims(labels, ax) == xp.arange(num_classes).reshape(
        [num_classes if i == ax else 1 for i in range(static_rank(y_pred))])
    losses = -reduce_ops.reduce_sum(log_probs * _const_like(picks, log_probs), axis=ax)
    if valid is not None:
        losses = losses * _const_like(valid, losses)
        valid = _const_like(valid, losses)
    return losses, valid


# -- aliases Keras accepts ---------------------------------------------------------------------
mse = MSE = mean_squared_error
mae = MAE = mean_absolute_error
mape = MAPE = mean_absolute_percentage_error
msle = MSLE = mean_squared_logarithmic_error
kld = KLD = kullback_leibler_divergence = kl_divergence
logcosh = log_cosh
