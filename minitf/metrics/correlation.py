"""Correlation metrics: PearsonCorrelation and ConcordanceCorrelation, the mean over examples
of a per-example correlation along `axis`, and their functions pearson_correlation and
concordance_correlation (differentiable: written with minitf ops)."""
from minitf.losses.functions import _pred_true
from minitf.losses.reduction import squeeze_or_expand_to_same_rank
from minitf.metrics.base import EPSILON, Metric, wrapper_class
from minitf.ops import math as math_ops
from minitf.ops import reduce as reduce_ops
from minitf.api_export import export, export_value

__all__ = ["pearson_correlation", "concordance_correlation", "PearsonCorrelation", "ConcordanceCorrelation"]


@export("metrics.pearson_correlation", "keras.metrics.pearson_correlation")
def pearson_correlation(y_true, y_pred, axis=-1):
    """Pearson's correlation of y_true and y_pred along `axis`, per example.

    Both are centred and divided by their (population) standard deviation along `axis`, then
    the mean of their product is taken: a constant input gives NaN, as in Keras 3.

    Args:
        y_true: labels; cast to y_pred's dtype.
        y_pred: predictions (float).
        axis: the axis correlated over (-1).

    Returns:
        A tensor with `axis` reduced.
    """
    y_true, y_pred = _pred_true(y_true, y_pred)
    y_true, y_pred = squeeze_or_expand_to_same_rank(y_true, y_pred)
    t = y_true - reduce_ops.reduce_mean(y_true, axis=axis, keepdims=True)
    p = y_pred - reduce_ops.reduce_mean(y_pred, axis=axis, keepdims=True)
    t = t / reduce_ops.reduce_std(t, axis=axis, keepdims=True)
    p = p / reduce_ops.reduce_std(p, axis=axis, keepdims=True)
    return reduce_ops.reduce_mean(t * p, axis=axis)


@export("metrics.concordance_correlation", "keras.metrics.concordance_correlation")
def concordance_correlation(y_true, y_pred, axis=-1):
    """Lin's concordance correlation of y_true and y_pred along `axis`, as Keras 3 computes it:
    mean(2 (y_true - mean(y_pred)) (y_pred - mean(y_pred)) / (var(y_true) + var(y_pred) +
    (mean(y_true) - mean(y_pred))^2 + 1e-7)). Keras 3 centres y_true on y_pred's mean in the
    numerator; minitf keeps that, so the values match.

    Args:
        y_true: labels; cast to y_pred's dtype.
        y_pred: predictions (float).
        axis: the axis correlated over (-1).

    Returns:
        A tensor with `axis` reduced.
    """
    y_true, y_pred = _pred_true(y_true, y_pred)
    y_true, y_pred = squeeze_or_expand_to_same_rank(y_true, y_pred)
    true_mean = reduce_ops.reduce_mean(y_true, axis=axis, keepdims=True)
    pred_mean = reduce_ops.reduce_mean(y_pred, axis=axis, keepdims=True)
    true_var = reduce_ops.reduce_variance(y_true - true_mean, axis=axis, keepdims=True)
    pred_var = reduce_ops.reduce_variance(y_pred - pred_mean, axis=axis, keepdims=True)
    covariance = (y_true - pred_mean) * (y_pred - pred_mean)
    norm = true_var + pred_var + math_ops.square(true_mean - pred_mean)
    return reduce_ops.reduce_mean(2 * covariance / (norm + EPSILON), axis=axis)


def _config_with_axis(self):
    config = Metric.get_config(self)
    config["axis"] = self._fn_kwargs["axis"]
    return config


PearsonCorrelation = wrapper_class(
    "PearsonCorrelation", pearson_correlation, "pearson_correlation",
    "The mean over examples of pearson_correlation(y_true, y_pred, axis).\n\n"
    "Args: name ('pearson_correlation'), dtype, axis (-1).", axis=-1)
PearsonCorrelation.__module__ = __name__
PearsonCorrelation.get_config = _config_with_axis
export_value("PearsonCorrelation", "metrics.PearsonCorrelation", "keras.metrics.PearsonCorrelation")
ConcordanceCorrelation = wrapper_class(
    "ConcordanceCorrelation", concordance_correlation, "concordance_correlation",
    "The mean over examples of concordance_correlation(y_true, y_pred, axis).\n\n"
    "Args: name ('concordance_correlation'), dtype, axis (-1).", axis=-1)
ConcordanceCorrelation.__module__ = __name__
ConcordanceCorrelation.get_config = _config_with_axis
export_value("ConcordanceCorrelation", "metrics.ConcordanceCorrelation", "keras.metrics.ConcordanceCorrelation")
