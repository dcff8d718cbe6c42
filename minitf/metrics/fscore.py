"""F-scores: FBetaScore and F1Score, the weighted harmonic mean of precision and recall of
multi-label (or one-hot) predictions, per class or averaged (micro, macro, weighted)."""
import numpy as np

from minitf.backend import array_module
from minitf.errors import errors
from minitf.metrics.base import EPSILON, Metric, _paused, raw_value
from minitf.recording import init_scope
from minitf.tensor import Tensor
from minitf.api_export import export

__all__ = ["FBetaScore", "F1Score"]

def _static_shape(x):
    shape = getattr(x, "shape", None)
    return tuple(shape) if shape is not None else np.shape(x)


_AVERAGES = (None, "micro", "macro", "weighted")


@export("metrics.FBetaScore", "keras.metrics.FBetaScore")
class FBetaScore(Metric):
    """The F-beta score: (1 + beta^2) * precision * recall / (beta^2 * precision + recall).

    Inputs are 2-D, `(batch_size, num_classes)`: labels in {0, 1} and scores. A score counts
    as positive when it is above `threshold`, or, without a threshold, when it is its row's
    largest (and not 0). True positives, false positives and false negatives are summed per
    class (over everything for `average='micro'`), weighted by `sample_weight` per row.

    Args:
        average: None (one score per class), 'micro' (one score from the summed counts),
            'macro' (the mean of the class scores) or 'weighted' (their mean weighted by each
            class's count of true labels).
        beta: a Python float > 0: recall weighs beta times as much as precision.
        threshold: None, or a Python float in (0, 1].
        name: 'fbeta_score' by default.
        dtype: the dtype of the state and result (float32 by default).

    Raises:
        ValueError: for any other `average`, `beta` or `threshold`, or inputs that are not 2-D.
    """

    def __init__(self, average=None, beta=1.0, threshold=None, name="fbeta_score", dtype=None):
        super().__init__(name=name, dtype=dtype)
        who = type(self).__name__
        if average not in _AVERAGES:
            raise ValueError(f"{who}: invalid `average` argument value. Expected one of: {{None, 'micro', "
                             f"'macro', 'weighted'}}. Received: average={average}")
        if not isinstance(beta, float):
            raise ValueError(f"{who}: invalid `beta` argument value. It should be a Python float. "
                             f"Received: beta={beta} of type '{type(beta)}'")
        if beta <= 0.0:
            raise ValueError(f"{who}: invalid `beta` argument value. It should be > 0. Received: beta={beta}")
        if threshold is not None:
            if not isinstance(threshold, float):
                raise ValueError(f"{who}: invalid `threshold` argument value. It should be a Python float. "
                                 f"Received: threshold={threshold} of type '{type(threshold)}'")
            if threshold > 1.0 or threshold <= 0.0:
                raise ValueError(f"{who}: invalid `threshold` argument value. It should verify "
                                 f"0 < threshold <= 1. Received: threshold={threshold}")
        self.average = average
        self.beta = beta
        self.threshold = threshold
        self.axis = None if average == "micro" else 0
        self._built = False

    def _build(self, true_shape, pred_shape):
        # the state's shape follows the number of classes: made on the first update, as Keras
        if len(pred_shape) != 2 or len(true_shape) != 2:
            raise ValueError(f"{type(self).__name__} expects 2D inputs with shape (batch_size, output_dim). "
                             f"Received input shapes: y_pred.shape={tuple(pred_shape)} and "
                             f"y_true.shape={tuple(true_shape)}.")
        if pred_shape[-1] is None or true_shape[-1] is None:
            raise ValueError(f"{type(self).__name__} expects 2D inputs with shape (batch_size, output_dim), with "
                             f"output_dim fully defined (not None). Received input shapes: "
                             f"y_pred.shape={tuple(pred_shape)} and y_true.shape={tuple(true_shape)}.")
        shape = () if self.average == "micro" else (pred_shape[-1],)
        for cell in ("true_positives", "false_positives", "false_negatives", "intermediate_weights"):
            setattr(self, cell, self.add_variable(shape=shape, initializer="zeros", name=cell,
                                                  dtype=self._dtype))
        self._built = True

    def update_state(self, y_true, y_pred, sample_weight=None):
        """Add one batch's weighted true positives, false positives and false negatives."""
        if not self._built:  # from static shapes, so a traced call builds (or refuses) at trace time
            with init_scope():
                self._build(_static_shape(y_true), _static_shape(y_pred))
        return self._accumulate(y_true, y_pred, sample_weight)

    update_state._paused = True  # the state update itself is `_accumulate`, paused below

    @_paused
    def _accumulate(self, y_true, y_pred, sample_weight=None):
        dt = self._dtype._np
        y_true, y_pred = raw_value(y_true, dt), raw_value(y_pred, dt)
        xp = array_module(y_pred)
        if self.threshold is None:
            top = y_pred.max(axis=-1, keepdims=True)
            pred = ((y_pred >= top) & (xp.abs(y_pred) > 1e-9)).astype(dt)
        else:
            pred = (y_pred > self.threshold).astype(dt)
        weights = None if sample_weight is None else raw_value(sample_weight, dt)

        def weighted_sum(values):
            if weights is not None:
                values = values * xp.expand_dims(weights, 1)
            return values.sum(axis=self.axis)

        updates = [weighted_sum(pred * y_true), weighted_sum(pred * (1 - y_true)),
                   weighted_sum((1 - pred) * y_true), weighted_sum(y_true)]
        cells = (self.true_positives, self.false_positives, self.false_negatives, self.intermediate_weights)
        try:  # as Keras: state + batch counts, broadcast (a later 1-D batch adds to every class)
            new = [cell._value + update for cell, update in zip(cells, updates)]
        except ValueError:
            raise errors.invalid_argument(
                "AddV2", f"{type(self).__name__}: this batch's counts of shape {list(updates[0].shape)} "
                f"do not match the state's shape {list(cells[0].shape)}; give every batch the same "
                "number of classes") from None
        for cell, value in zip(cells, new):
            cell.assign(value)

    def result(self):
        tp, fp, fn = self.true_positives._value, self.false_positives._value, self.false_negatives._value
        xp = array_module(tp)
        precision = tp / (tp + fp + EPSILON)
        recall = tp / (tp + fn + EPSILON)
        beta2 = self.beta ** 2
        score = precision * recall / (beta2 * precision + recall + EPSILON) * (1 + beta2)
        if self.average == "weighted":
            w = self.intermediate_weights._value
            score = (score * (w / (w.sum() + EPSILON))).sum()
        elif self.average is not None:
            score = score.mean()
        return Tensor(xp.asarray(score, dtype=self._dtype._np))

    def reset_state(self):
        if self._built:
            super().reset_state()

    def get_config(self):
        config = Metric.get_config(self)
        config.update(average=self.average, beta=self.beta, threshold=self.threshold)
        return config


@export("metrics.F1Score", "keras.metrics.F1Score")
class F1Score(FBetaScore):
    """The F1 score: 2 * precision * recall / (precision + recall), FBetaScore with beta=1.

    Args:
        average: None, 'micro', 'macro' or 'weighted' (see FBetaScore).
        threshold: None (a row's largest score is its positive) or a Python float in (0, 1].
        name: 'f1_score' by default.
        dtype: the dtype of the state and result.
    """

    def __init__(self, average=None, threshold=None, name="f1_score", dtype=None):
        super().__init__(average=average, beta=1.0, threshold=threshold, name=name, dtype=dtype)

    def get_config(self):
        config = super().get_config()
        del config["beta"]
        return config
