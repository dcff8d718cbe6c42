"""Metrics that average a loss function over every example seen: the errors (MSE, MAE,
MAPE, RMSE) and the cross-entropies. The metric functions are the losses' own functions."""
from minitf.losses import functions as loss_functions
from minitf.metrics.base import (Mean, Reduce, _divide_no_nan, _raw, _same_rank, _tensor, _wrapper_class,
                                 _xp)

__all__ = ["mean_squared_error", "mean_absolute_error", "mean_absolute_percentage_error",
           "binary_crossentropy", "categorical_crossentropy", "sparse_categorical_crossentropy",
           "mse", "mae", "mape", "MSE", "MAE", "MAPE", "MeanSquaredError", "MeanAbsoluteError",
           "MeanAbsolutePercentageError", "RootMeanSquaredError", "CategoricalCrossentropy",
           "BinaryCrossentropy", "SparseCategoricalCrossentropy"]


def mean_squared_error(y_true, y_pred):
    """Per-example mean squared error (same as tf.keras.losses.mean_squared_error)."""
    return loss_functions.mean_squared_error(y_true, y_pred)


def mean_absolute_error(y_true, y_pred):
    """Per-example mean absolute error."""
    return loss_functions.mean_absolute_error(y_true, y_pred)


def mean_absolute_percentage_error(y_true, y_pred):
    """Per-example mean absolute percentage error."""
    return loss_functions.mean_absolute_percentage_error(y_true, y_pred)


def binary_crossentropy(y_true, y_pred, from_logits=False, label_smoothing=0.0, axis=-1):
    """Per-example binary cross-entropy (see tf.keras.losses.binary_crossentropy)."""
    return loss_functions.binary_crossentropy(y_true, y_pred, from_logits, label_smoothing, axis)


def categorical_crossentropy(y_true, y_pred, from_logits=False, label_smoothing=0.0, axis=-1):
    """Per-example categorical cross-entropy."""
    return loss_functions.categorical_crossentropy(y_true, y_pred, from_logits, label_smoothing, axis)


def sparse_categorical_crossentropy(y_true, y_pred, from_logits=False, axis=-1, ignore_class=None):
    """Per-example cross-entropy with integer labels."""
    return loss_functions.sparse_categorical_crossentropy(y_true, y_pred, from_logits=from_logits,
                                                     ignore_class=ignore_class, axis=axis)


mse = MSE = mean_squared_error
mae = MAE = mean_absolute_error
mape = MAPE = mean_absolute_percentage_error


MeanSquaredError = _wrapper_class("MeanSquaredError", mean_squared_error, "mean_squared_error",
                                  "The mean of per-example squared errors.")
MeanAbsoluteError = _wrapper_class("MeanAbsoluteError", mean_absolute_error, "mean_absolute_error",
                                   "The mean of per-example absolute errors.")
MeanAbsolutePercentageError = _wrapper_class(
    "MeanAbsolutePercentageError", mean_absolute_percentage_error, "mean_absolute_percentage_error",
    "The mean of per-example absolute percentage errors.")
CategoricalCrossentropy = _wrapper_class(
    "CategoricalCrossentropy", categorical_crossentropy, "categorical_crossentropy",
    "Mean categorical cross-entropy; (from_logits=False, label_smoothing=0, axis=-1).",
    from_logits=False, label_smoothing=0.0, axis=-1)
BinaryCrossentropy = _wrapper_class(
    "BinaryCrossentropy", binary_crossentropy, "binary_crossentropy",
    "Mean binary cross-entropy; (from_logits=False, label_smoothing=0).",
    from_logits=False, label_smoothing=0.0)
SparseCategoricalCrossentropy = _wrapper_class(
    "SparseCategoricalCrossentropy", sparse_categorical_crossentropy, "sparse_categorical_crossentropy",
    "Mean cross-entropy with integer labels; (from_logits=False, ignore_class=None, axis=-1).",
    from_logits=False, ignore_class=None, axis=-1)


class RootMeanSquaredError(Mean):
    """sqrt of the (weighted) mean of elementwise squared errors."""

    def __init__(self, name="root_mean_squared_error", dtype=None):
        super().__init__(name=name, dtype=dtype)

    def update_state(self, y_true, y_pred, sample_weight=None):
        """Accumulate the squared errors of one batch."""
        dt = self._dtype._np
        y_true, y_pred = _same_rank(_raw(y_true, dt), _raw(y_pred, dt))
        Reduce.update_state(self, (y_pred - y_true) ** 2, sample_weight)

    def result(self):
        return _tensor(_xp(self.total._value).sqrt(_divide_no_nan(self.total._value, self.count._value)))
