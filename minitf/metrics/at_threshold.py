"""Metrics read at the best threshold under a constraint: SensitivityAtSpecificity,
SpecificityAtSensitivity, PrecisionAtRecall and RecallAtPrecision. Each counts true/false
positives/negatives at `num_thresholds` thresholds evenly spread over [0, 1] (the counting of
Precision, Recall and AUC) and reports the largest value of one rate over the thresholds where
the other reaches the target."""
import numpy as np

from minitf.backend import array_module
from minitf.metrics.base import Metric, divide_no_nan
from minitf.metrics.confusion import _confusion_update
from minitf.tensor import Tensor
from minitf.api_export import export

__all__ = ["SensitivityAtSpecificity", "SpecificityAtSensitivity", "PrecisionAtRecall", "RecallAtPrecision"]

_CELLS = ("true_positives", "false_positives", "true_negatives", "false_negatives")


class _AtThresholdBase(Metric):
    """The four counts per threshold; `result` maximises one rate subject to another."""
    _TARGET = None  # the constructor argument holding the constraint's value

    def __init__(self, value, num_thresholds=200, class_id=None, name=None, dtype=None):
        if value < 0 or value > 1:
            raise ValueError(f"{type(self).__name__}: argument `{self._TARGET}` must be in the range [0, 1]. "
                             f"Received: {self._TARGET}={value}")
        super().__init__(name=name, dtype=dtype)
        if num_thresholds <= 0:
            raise ValueError(f"{type(self).__name__}: argument `num_thresholds` must be an integer > 0. "
                             f"Received: num_thresholds={num_thresholds}")
        setattr(self, self._TARGET, value)
        self.value = value
        self.num_thresholds = num_thresholds
        self.class_id = class_id
        if num_thresholds == 1:
            self.thresholds = [0.5]
        else:
            self.thresholds = [0.0] + [(i + 1) * 1.0 / (num_thresholds - 1)
                                       for i in range(num_thresholds - 2)] + [1.0]
        for cell in _CELLS:  # float32 whatever the dtype, as Keras 3 makes them
            setattr(self, cell, self.add_variable(shape=(len(self.thresholds),), initializer="zeros", name=cell))

    def update_state(self, y_true, y_pred, sample_weight=None):
        """Add one batch's weighted counts at every threshold (a score above it is positive)."""
        _confusion_update(self, y_true, y_pred, sample_weight, self.thresholds, _CELLS, class_id=self.class_id)

    def _rates(self):
        tp, fp, tn, fn = (getattr(self, cell)._value for cell in _CELLS)
        return {"sensitivity": divide_no_nan(tp, tp + fn), "recall": divide_no_nan(tp, tp + fn),
                "specificity": divide_no_nan(tn, tn + fp), "precision": divide_no_nan(tp, tp + fp)}

    def _best(self, constrained, dependent):
        rates = self._rates()
        feasible = rates[constrained] >= self.value
        xp = array_module(feasible)
        best = xp.where(feasible, rates[dependent], 0).max(initial=0)
        return Tensor(xp.asarray(best, dtype=rates[dependent].dtype))

    def get_config(self):
        config = Metric.get_config(self)
        config.update({"class_id": self.class_id, "num_thresholds": self.num_thresholds,
                       self._TARGET: getattr(self, self._TARGET)})
        return config


@export("metrics.SensitivityAtSpecificity", "keras.metrics.SensitivityAtSpecificity")
class SensitivityAtSpecificity(_AtThresholdBase):
    """The best sensitivity (recall) over the thresholds whose specificity is >= `specificity`.

    Args:
        specificity: the required specificity, in [0, 1].
        num_thresholds: how many thresholds (200): evenly spread over [0, 1], or 0.5 alone for 1.
        class_id: for multi-class scores, the column to evaluate (None: every entry counts).
        name: 'sensitivity_at_specificity' by default (made unique).
        dtype: the dtype of the result's computation.

    Raises:
        ValueError: for a specificity outside [0, 1] or num_thresholds <= 0.
    """
    _TARGET = "specificity"

    def __init__(self, specificity, num_thresholds=200, class_id=None, name=None, dtype=None):
        super().__init__(specificity, num_thresholds=num_thresholds, class_id=class_id, name=name, dtype=dtype)

    def result(self):
        return self._best("specificity", "sensitivity")


@export("metrics.SpecificityAtSensitivity", "keras.metrics.SpecificityAtSensitivity")
class SpecificityAtSensitivity(_AtThresholdBase):
    """The best specificity over the thresholds whose sensitivity is >= `sensitivity`.

    Args:
        sensitivity: the required sensitivity, in [0, 1].
        num_thresholds, class_id, name, dtype: as SensitivityAtSpecificity.
    """
    _TARGET = "sensitivity"

    def __init__(self, sensitivity, num_thresholds=200, class_id=None, name=None, dtype=None):
        super().__init__(sensitivity, num_thresholds=num_thresholds, class_id=class_id, name=name, dtype=dtype)

    def result(self):
        return self._best("sensitivity", "specificity")


@export("metrics.PrecisionAtRecall", "keras.metrics.PrecisionAtRecall")
class PrecisionAtRecall(_AtThresholdBase):
    """The best precision over the thresholds whose recall is >= `recall`.

    Args:
        recall: the required recall, in [0, 1].
        num_thresholds, class_id, name, dtype: as SensitivityAtSpecificity.
    """
    _TARGET = "recall"

    def __init__(self, recall, num_thresholds=200, class_id=None, name=None, dtype=None):
        super().__init__(recall, num_thresholds=num_thresholds, class_id=class_id, name=name, dtype=dtype)

    def result(self):
        return self._best("recall", "precision")


@export("metrics.RecallAtPrecision", "keras.metrics.RecallAtPrecision")
class RecallAtPrecision(_AtThresholdBase):
    """The best recall over the thresholds whose precision is >= `precision`.

    Args:
        precision: the required precision, in [0, 1].
        num_thresholds, class_id, name, dtype: as SensitivityAtSpecificity.
    """
    _TARGET = "precision"

    def __init__(self, precision, num_thresholds=200, class_id=None, name=None, dtype=None):
        super().__init__(precision, num_thresholds=num_thresholds, class_id=class_id, name=name, dtype=dtype)

    def result(self):
        return self._best("precision", "recall")
