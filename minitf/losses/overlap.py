"""Overlap losses for segmentation: Dice and Tversky (1 - a soft overlap ratio of labels and
predictions, over `axis`, or over everything by default)."""
from minitf.losses.functions import EPSILON, _pred_true
from minitf.losses.loss import LossFunctionWrapper
from minitf.ops import reduce as reduce_ops
from minitf.api_export import export

__all__ = ["dice", "tversky", "Dice", "Tversky"]


@export("losses.dice", "keras.losses.dice")
def dice(y_true, y_pred, axis=None):
    """1 - 2 sum(y_true * y_pred) / (sum(y_true) + sum(y_pred) + 1e-7), sums over `axis`.

    Args:
        y_true: labels (cast to y_pred's dtype).
        y_pred: predictions.
        axis: the axes summed over (None: all of them, one value for the batch).
    """
    y_true, y_pred = _pred_true(y_true, y_pred)
    intersection = reduce_ops.reduce_sum(y_true * y_pred, axis=axis)
    total = reduce_ops.reduce_sum(y_true, axis=axis) + reduce_ops.reduce_sum(y_pred, axis=axis)
    return 1 - 2.0 * intersection / (total + EPSILON)


@export("losses.tversky", "keras.losses.tversky")
def tversky(y_true, y_pred, alpha=0.5, beta=0.5, axis=None):
    """1 - TP / (TP + alpha * FN + beta * FP + 1e-7), soft counts summed over `axis`.

    TP = sum(y_true * y_pred), FN = sum(y_true * (1 - y_pred)) and FP = sum((1 - y_true) *
    y_pred); alpha = beta = 0.5 gives the Dice loss. (Keras 3 names the alpha term 'fp' and the
    beta term 'fn' in its source; the values are what is written here.)

    Args:
        y_true: labels (cast to y_pred's dtype).
        y_pred: predictions.
        alpha: the weight of missed positives (0.5).
        beta: the weight of false alarms (0.5).
        axis: the axes summed over (None: all).
    """
    y_true, y_pred = _pred_true(y_true, y_pred)
    tp = reduce_ops.reduce_sum(y_true * y_pred, axis=axis)
    missed = reduce_ops.reduce_sum((1 - y_pred) * y_true, axis=axis)
    false_alarms = reduce_ops.reduce_sum(y_pred * (1 - y_true), axis=axis)
    return 1 - tp / (tp + missed * alpha + false_alarms * beta + EPSILON)


@export("losses.Dice", "keras.losses.Dice")
class Dice(LossFunctionWrapper):
    """The Dice loss (see `dice`), reduced over the batch.

    Args:
        reduction: 'sum_over_batch_size' by default.
        name: 'dice'.
        axis: the axes `dice` sums over (None: all).
        dtype: the loss's compute dtype.
    """

    def __init__(self, reduction="sum_over_batch_size", name="dice", axis=None, dtype=None):
        super().__init__(dice, reduction=reduction, name=name, dtype=dtype, axis=axis)
        self.axis = axis


@export("losses.Tversky", "keras.losses.Tversky")
class Tversky(LossFunctionWrapper):
    """The Tversky loss (see `tversky`), reduced over the batch.

    Args:
        alpha, beta: the weights of missed positives and false alarms (0.5 each).
        reduction: 'sum_over_batch_size' by default.
        name: 'tversky'.
        axis: the axes `tversky` sums over (None: all).
        dtype: the loss's compute dtype.
    """

    def __init__(self, alpha=0.5, beta=0.5, reduction="sum_over_batch_size", name="tversky", axis=None, dtype=None):
        super().__init__(tversky, reduction=reduction, name=name, dtype=dtype, alpha=alpha, beta=beta, axis=axis)
        self.alpha, self.beta, self.axis = alpha, beta, axis
