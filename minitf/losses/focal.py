"""Focal cross-entropies (Lin et al., 2017): binary and categorical cross-entropy scaled by
(1 - p_t)^gamma, so well-classified examples weigh less. The functions are public under
tf.keras.losses and tf.keras.metrics (one object, as Keras 3); the Loss classes wrap them."""
import warnings

from minitf.activations import activations
from minitf.losses.functions import EPSILON, _check_same_shape, _check_smoothing, _elementwise_bce, _pred_true
from minitf.losses.loss import _wrapper_class
from minitf.losses.reduction import static_rank
from minitf.ops import array as array_ops
from minitf.ops import constant as constant_ops
from minitf.ops import math as math_ops
from minitf.ops import reduce as reduce_ops
from minitf.api_export import export, export_value

__all__ = ["binary_focal_crossentropy", "categorical_focal_crossentropy", "BinaryFocalCrossentropy",
           "CategoricalFocalCrossentropy"]


@export("losses.binary_focal_crossentropy", "keras.losses.binary_focal_crossentropy",
        "metrics.binary_focal_crossentropy", "keras.metrics.binary_focal_crossentropy")
def binary_focal_crossentropy(y_true, y_pred, apply_class_balancing=False, alpha=0.25, gamma=2.0,
                              from_logits=False, label_smoothing=0.0, axis=-1):
    """Binary focal cross-entropy, averaged over `axis`.

    Each entry's binary cross-entropy (probabilities clipped to [1e-7, 1 - 1e-7]) is scaled by
    (1 - p_t)^gamma, p_t = y_true * p + (1 - y_true) * (1 - p); with apply_class_balancing also
    by alpha for positives and 1 - alpha for negatives. Labels are smoothed toward 0.5 first.

    Args:
        y_true: labels in [0, 1], of y_pred's shape (cast to its dtype).
        y_pred: probabilities, or logits when `from_logits`.
        apply_class_balancing: weigh positives by alpha and negatives by 1 - alpha.
        alpha: the positives' weight (0.25).
        gamma: the focusing exponent (2.0; 0 gives binary cross-entropy).
        from_logits: y_pred holds logits (a sigmoid is applied first).
        label_smoothing: in [0, 1].
        axis: the axis averaged over (-1).

    Raises:
        ValueError: when y_true and y_pred differ in shape.
    """
    y_true, y_pred = _pred_true(y_true, y_pred)
    if label_smoothing:
        _check_smoothing(label_smoothing, "binary_focal_crossentropy")
        y_true = y_true * (1.0 - label_smoothing) + 0.5 * label_smoothing
    if from_logits:
        y_pred = math_ops.sigmoid(y_pred)
    _check_same_shape(y_true, y_pred, "binary_focal_crossentropy")
    bce = _elementwise_bce(y_true, y_pred, False)
    p_t = y_true * y_pred + (1 - y_true) * (1 - y_pred)
    focal = math_ops.pow(1.0 - p_t, gamma) * bce
    if apply_class_balancing:
        focal = (y_true * alpha + (1 - y_true) * (1 - alpha)) * focal
    return reduce_ops.reduce_mean(focal, axis=axis)


@export("losses.categorical_focal_crossentropy", "keras.losses.categorical_focal_crossentropy",
        "metrics.categorical_focal_crossentropy", "keras.metrics.categorical_focal_crossentropy")
def categorical_focal_crossentropy(y_true, y_pred, alpha=0.25, gamma=2.0, from_logits=False,
                                   label_smoothing=0.0, axis=-1):
    """Categorical focal cross-entropy, summed over the class axis `axis`.

    The predictions are normalised to sum to 1 along `axis` (after a softmax when
    `from_logits`) and clipped to [1e-7, 1 - 1e-7]; each class term -y_true log(p) is scaled by
    alpha (1 - p)^gamma. Labels are smoothed toward 1 / num_classes first.

    Args:
        y_true: one-hot (or soft) labels (cast to y_pred's dtype).
        y_pred: probabilities, or logits when `from_logits`.
        alpha: the weighting factor (0.25).
        gamma: the focusing exponent (2.0).
        from_logits: y_pred holds logits.
        label_smoothing: in [0, 1].
        axis: the class axis (-1); a bool is refused (ValueError), as Keras 3.
    """
    if isinstance(axis, bool):
        raise ValueError(f"categorical_focal_crossentropy: `axis` must be of type `int`. Received: "
                         f"axis={axis} of type {type(axis)}")
    y_true, y_pred = _pred_true(y_true, y_pred)
    if static_rank(y_pred) == 0:  # Keras 3 reads y_pred.shape[-1]: an IndexError
        raise IndexError("categorical_focal_crossentropy: y_pred is a scalar (tuple index out of range); "
                         "give predictions of shape (batch_size, num_classes)")
    if y_pred.shape[-1] == 1:
        warnings.warn(f"In loss categorical_focal_crossentropy, expected y_pred.shape to be (batch_size, "
                      f"num_classes) with num_classes > 1. Received: y_pred.shape={y_pred.shape}. Consider "
                      "using 'binary_crossentropy' if you only have 2 classes.", SyntaxWarning, stacklevel=2)
    if label_smoothing:
        _check_smoothing(label_smoothing, "categorical_focal_crossentropy")
        classes = constant_ops.cast(array_ops.shape(y_true)[-1], y_pred.dtype)
        y_true = y_true * (1.0 - label_smoothing) + label_smoothing / classes
    if from_logits:
        y_pred = activations.softmax(y_pred, axis=axis)
    output = y_pred / reduce_ops.reduce_sum(y_pred, axis=axis, keepdims=True)
    output = math_ops.clip_by_value(output, EPSILON, 1.0 - EPSILON)
    cce = -y_true * math_ops.log(output)
    focal = math_ops.pow(1.0 - output, gamma) * alpha * cce
    return reduce_ops.reduce_sum(focal, axis=axis)


BinaryFocalCrossentropy = _wrapper_class(
    "BinaryFocalCrossentropy", binary_focal_crossentropy, "binary_focal_crossentropy",
    "binary_focal_crossentropy, reduced over the batch.\n\nArgs: apply_class_balancing (False), alpha (0.25), "
    "gamma (2.0), from_logits (False), label_smoothing (0.0), axis (-1), reduction, name, dtype.",
    apply_class_balancing=False, alpha=0.25, gamma=2.0, from_logits=False, label_smoothing=0.0, axis=-1)
BinaryFocalCrossentropy.__module__ = __name__
export_value("BinaryFocalCrossentropy", "losses.BinaryFocalCrossentropy", "keras.losses.BinaryFocalCrossentropy")
CategoricalFocalCrossentropy = _wrapper_class(
    "CategoricalFocalCrossentropy", categorical_focal_crossentropy, "categorical_focal_crossentropy",
    "categorical_focal_crossentropy, reduced over the batch.\n\nArgs: alpha (0.25), gamma (2.0), from_logits "
    "(False), label_smoothing (0.0), axis (-1), reduction, name, dtype.",
    alpha=0.25, gamma=2.0, from_logits=False, label_smoothing=0.0, axis=-1)
CategoricalFocalCrossentropy.__module__ = __name__
export_value("CategoricalFocalCrossentropy", "losses.CategoricalFocalCrossentropy",
             "keras.losses.CategoricalFocalCrossentropy")
