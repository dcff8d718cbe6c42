"""R2Score: the coefficient of determination, 1 - residual sum of squares / total sum of
squares, per output column, aggregated over the columns, optionally adjusted for regressors."""
import warnings

import numpy as np

from minitf.backend import array_module
from minitf.errors import errors
from minitf.metrics.base import Metric, _paused, raw_value, same_rank
from minitf.recording import init_scope
from minitf.tensor import Tensor
from minitf.api_export import export

__all__ = ["R2Score"]

_AGGREGATIONS = (None, "uniform_average", "variance_weighted_average")


def _static_shape(x):
    shape = getattr(x, "shape", None)
    return tuple(shape) if shape is not None else np.shape(x)


@export("metrics.R2Score", "keras.metrics.R2Score")
class R2Score(Metric):
    """R^2 = 1 - sum((y_true - y_pred)^2) / sum((y_true - mean(y_true))^2), per output column.

    Inputs are 2-D, `(batch_size, output_dim)`; sums are weighted by `sample_weight` (one
    weight per row, or one per entry) and accumulated over batches. A column whose total sum
    of squares is 0 scores 0 (when its residual is not 0).

    ```python
    m = tf.keras.metrics.R2Score()
    m.update_state([[1.0], [4.0], [3.0]], [[2.0], [4.0], [4.0]])
    m.result()   # 1 - 2 / 4.6667 = 0.5714
    ```

    Args:
        class_aggregation: None (one score per column), 'uniform_average' (their mean) or
            'variance_weighted_average' (their mean weighted by each column's total sum of
            squares).
        num_regressors: p > 0 gives the adjusted score 1 - (1 - R^2) (n - 1) / (n - p - 1),
            n counting every entry seen (falls back to R^2, with a warning, when n - 1 <= p).
        name: 'r2_score' by default.
        dtype: inputs are cast to it; the state and result are float32, as in Keras 3.

    Raises:
        ValueError: for another `class_aggregation`, a negative `num_regressors`, or inputs
            that are not 2-D with a known last dimension.
    """

    def __init__(self, class_aggregation="uniform_average", num_regressors=0, name="r2_score", dtype=None):
        super().__init__(name=name, dtype=dtype)
        if class_aggregation not in _AGGREGATIONS:
            raise ValueError(f"R2Score: invalid value for argument `class_aggregation`. Expected one of "
                             f"{_AGGREGATIONS}. Received: class_aggregation={class_aggregation}")
        if num_regressors < 0:
            raise ValueError(f"R2Score: invalid value for argument `num_regressors`. Expected a value >= 0. "
                             f"Received: num_regressors={num_regressors}")
        self.class_aggregation = class_aggregation
        self.num_regressors = num_regressors
        self.num_samples = self.add_variable(shape=(), initializer="zeros", name="num_samples")
        self._built = False

    def _build(self, true_shape, pred_shape):
        if len(pred_shape) != 2 or len(true_shape) != 2:
            raise ValueError(f"R2Score expects 2D inputs with shape (batch_size, output_dim). Received input "
                             f"shapes: y_pred.shape={tuple(pred_shape)} and y_true.shape={tuple(true_shape)}.")
        if pred_shape[-1] is None or true_shape[-1] is None:
            raise ValueError(f"R2Score expects 2D inputs with shape (batch_size, output_dim), with output_dim "
                             f"fully defined (not None). Received input shapes: y_pred.shape={tuple(pred_shape)} "
                             f"and y_true.shape={tuple(true_shape)}.")
        columns = (pred_shape[-1],)
        # the attribute names follow Keras 3 ('residual' is stored as total_mse)
        self.squared_sum = self.add_variable(shape=columns, initializer="zeros", name="squared_sum")
        self.sum = self.add_variable(shape=columns, initializer="zeros", name="sum")
        self.total_mse = self.add_variable(shape=columns, initializer="zeros", name="residual")
        self.count = self.add_variable(shape=columns, initializer="zeros", name="count")
        self._built = True

    def update_state(self, y_true, y_pred, sample_weight=None):
        """Add one batch's weighted sums of y_true, y_true^2 and squared residuals per column."""
        shapes = _static_shape(y_true), _static_shape(y_pred)
        if len(shapes[0]) == len(shapes[1]) + 1 and shapes[0][-1] == 1:  # the rank alignment
            shapes = shapes[0][:-1], shapes[1]
        elif len(shapes[1]) == len(shapes[0]) + 1 and shapes[1][-1] == 1:
            shapes = shapes[0], shapes[1][:-1]
        if not self._built:  # from static shapes, so a traced call builds (or refuses) at trace time
            with init_scope():
                self._build(*shapes)
        return self._accumulate(y_true, y_pred, sample_weight)

    update_state._paused = True  # the state update itself is `_accumulate`, paused below

    @_paused
    def _accumulate(self, y_true, y_pred, sample_weight=None):
        dt = self._dtype._np
        y_true, y_pred = same_rank(raw_value(y_true, dt), raw_value(y_pred, dt), expand_rank_1=False)
        xp = array_module(y_true)
        weights = xp.asarray(1, dtype=dt) if sample_weight is None else raw_value(sample_weight, dt)
        if weights.ndim == 1:
            weights = xp.expand_dims(weights, 1)
        try:
            weights = xp.broadcast_to(weights, y_true.shape)
        except ValueError:
            raise errors.invalid_argument(
                "BroadcastTo", f"R2Score: sample_weight of shape {list(weights.shape)} cannot be broadcast to "
                f"y_true's shape {list(y_true.shape)}; give one weight per row or per entry") from None
        weighted = y_true * weights
        cells = (self.sum, self.squared_sum, self.total_mse, self.count)
        try:
            batch = (weighted.sum(axis=0), (y_true * weighted).sum(axis=0),
                     ((y_true - y_pred) ** 2 * weights).sum(axis=0), weights.sum(axis=0))
            new = [cell._value + part for cell, part in zip(cells, batch)]
        except ValueError:
            raise errors.invalid_argument(
                "AddV2", f"R2Score: a batch of y_true {list(y_true.shape)} and y_pred {list(y_pred.shape)} "
                f"does not match the {self.sum.shape[0]} output columns of the state; give every batch "
                "y_true and y_pred of shape (batch_size, output_dim)") from None
        for cell, value in zip(cells, new):
            cell.assign(value)
        self.num_samples.assign(self.num_samples._value + y_true.size)

    def result(self):
        s, count = self.sum._value, self.count._value
        xp = array_module(s)
        with np.errstate(divide="ignore", invalid="ignore"):
            mean = s / count
            total = self.squared_sum._value - s * mean
            raw = 1 - self.total_mse._value / total
            raw = xp.where(xp.isinf(raw), np.float32(0), raw)
            if self.class_aggregation == "uniform_average":
                score = raw.mean()
            elif self.class_aggregation == "variance_weighted_average":
                score = (total * raw).sum() / total.sum()
            else:
                score = raw
            if self.num_regressors != 0:
                n = float(self.num_samples._value)
                p = self.num_regressors
                if p > n - 1:
                    warnings.warn("More independent predictors than datapoints in adjusted R2 score. "
                                  "Falling back to standard R2 score.", stacklevel=2)
                elif p == n - 1:
                    warnings.warn("Division by zero in Adjusted R2 score. Falling back to standard R2 score.",
                                  stacklevel=2)
                else:
                    score = 1 - (1 - score) * np.float32(n - 1) / np.float32(n - p - 1)
        return Tensor(xp.asarray(score, dtype=np.float32))

    def reset_state(self):
        Metric.reset_state(self)

    def get_config(self):
        config = Metric.get_config(self)
        config.update(class_aggregation=self.class_aggregation, num_regressors=self.num_regressors)
        return config
