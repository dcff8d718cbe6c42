"""Regression metrics: the mean of a per-example error over every example seen (MSE, MAE, MAPE)
and RMSE. The metric functions are the losses' own functions."""
from minitf.losses import functions as loss_functions
from minitf.backend import array_module
from minitf.metrics.base import Mean, Reduce, divide_no_nan, raw_value, same_rank, wrapper_class
from minitf.tensor import Tensor
from minitf.api_export import export, export_value

__all__ = ["mean_squared_error", "mean_absolute_error", "mean_absolute_percentage_error",
           "mse", "mae", "mape", "MSE", "MAE", "MAPE", "MeanSquaredError", "MeanAbsoluteError",
           "MeanAbsolutePercentageError", "RootMeanSquaredError"]


@export("metrics.MSE", "metrics.mse", "keras.metrics.MSE", "keras.metrics.mse")
def mean_squared_error(y_true, y_pred):
    """Per-example mean squared error (same as tf.keras.losses.mean_squared_error)."""
    return loss_functions.mean_squared_error(y_true, y_pred)


@export("metrics.MAE", "metrics.mae", "keras.metrics.MAE", "keras.metrics.mae")
def mean_absolute_error(y_true, y_pred):
    """Per-example mean absolute error."""
    return loss_functions.mean_absolute_error(y_true, y_pred)


@export("metrics.MAPE", "metrics.mape", "keras.metrics.MAPE", "keras.metrics.mape")
def mean_absolute_percentage_error(y_true, y_pred):
    """Per-example mean absolute percentage error."""
    return loss_functions.mean_absolute_percentage_error(y_true, y_pred)


mse = MSE = mean_squared_error
mae = MAE = mean_absolute_error
mape = MAPE = mean_absolute_percentage_error


MeanSquaredError = wrapper_class("MeanSquaredError", mean_squared_error, "mean_squared_error",
                                  "The mean of per-example squared errors.")
export_value("MeanSquaredError", "metrics.MeanSquaredError", "keras.metrics.MeanSquaredError")
MeanAbsoluteError = wrapper_class("MeanAbsoluteError", mean_absolute_error, "mean_absolute_error",
                                   "The mean of per-example absolute errors.")
export_value("MeanAbsoluteError", "metrics.MeanAbsoluteError", "keras.metrics.MeanAbsoluteError")
MeanAbsolutePercentageError = wrapper_class(
    "MeanAbsolutePercentageError", mean_absolute_percentage_error, "mean_absolute_percentage_error",
    "The mean of per-example absolute percentage errors.")
export_value("MeanAbsolutePercentageError", "metrics.MeanAbsolutePercentageError",
             "keras.metrics.MeanAbsolutePercentageError")


@export("metrics.RootMeanSquaredError", "keras.metrics.RootMeanSquaredError")
class RootMeanSquaredError(Mean):
    """sqrt of the (weighted) mean of elementwise squared errors."""

    def __init__(self, name="root_mean_squared_error", dtype=None):
        super().__init__(name=name, dtype=dtype)

    def update_state(self, y_true, y_pred, sample_weight=None):
        """Accumulate the squared errors of one batch."""
        dt = self._dtype._np
        y_true, y_pred = same_rank(raw_value(y_true, dt), raw_value(y_pred, dt))
        Reduce.update_state(self, (y_pred - y_true) ** 2, sample_weight)

    def result(self):
        return Tensor(array_module(self.total._value).sqrt(divide_no_nan(self.total._value, self.count._value)))
