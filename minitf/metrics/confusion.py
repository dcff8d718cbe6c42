"""Confusion-matrix metrics: Precision, Recall, AUC and the four counts (TruePositives, ...),
from weighted counts of true/false positives/negatives at one or more thresholds (a prediction
above a threshold is positive)."""
import numpy as np

from minitf import kernels
from minitf.errors import errors
from minitf.backend import array_module
from minitf.metrics.base import EPSILON, Metric, divide_no_nan, raw_value, same_rank
from minitf.tensor import Tensor
from minitf.ops import constant as constant_ops
from minitf.ops import math as math_ops
from minitf.api_export import export

__all__ = ["Precision", "Recall", "AUC", "TruePositives", "FalsePositives", "TrueNegatives",
           "FalseNegatives"]

NEG_INF = -1e10  # what top_k filtering gives the predictions it drops (as Keras)


def _check_thresholds(thresholds, who, in_range=True):
    values = [thresholds] if np.isscalar(thresholds) else list(thresholds)
    for t in values:
        if t is None or isinstance(t, (str, bytes)):  # Keras 3 compares them with 0: a TypeError
            raise TypeError(f"{who}: threshold values must be numbers in [0, 1], got {thresholds!r}.")
        if in_range and not 0.0 <= float(t) <= 1.0:
            raise ValueError(f"{who}: threshold values must be in [0, 1], got {thresholds!r}.")
    return values


def _confusion_update(metric, y_true, y_pred, sample_weight, thresholds, wanted,
                      top_k=None, class_id=None):
    """Add weighted tp/fp/tn/fn counts per threshold (prediction > threshold is positive) to the
    metric's variables named by `wanted` (cell name -> variable name, or cell names)."""
    dt = metric._dtype._np
    preds, labels = same_rank(raw_value(y_pred, dt), raw_value(y_true, dt))
    xp = array_module(preds)
    weights = None
    if sample_weight is not None:
        # Keras 3: weights gain a trailing axis, then lose it again only to match the labels'
        # rank; so (batch,) weights on (batch, a, b) labels broadcast along axis 1
        weights = xp.expand_dims(raw_value(sample_weight, dt), -1)
        _, weights = same_rank(labels, weights, expand_rank_1=False)
        try:
            weights = xp.broadcast_to(weights, preds.shape)
        except ValueError:
            raise errors.invalid_argument(
                "BroadcastTo", f"{metric.name}: sample_weight of shape {list(raw_value(sample_weight).shape)} "
                f"does not broadcast to predictions of shape {list(preds.shape)}") from None
    if top_k is not None:
        if not isinstance(top_k, (int, np.integer)):  # TF's TopKV2 refuses its dtype
            raise errors.invalid_argument("TopKV2", f"{metric.name}: `top_k` must be an integer, got "
                                                    f"{top_k!r}")
        if preds.ndim == 0 or preds.shape[-1] < top_k:
            raise errors.invalid_argument(
                "TopKV2", f"{metric.name}: input must have at least k={top_k} columns, got "
                f"predictions of shape {list(preds.shape)}; use a smaller top_k")
        preds = _filter_top_k(preds, top_k)
    if class_id is not None:
        if not isinstance(class_id, (int, np.integer)):  # TF cannot index with it: a TypeError
            raise TypeError(f"{metric.name}: `class_id` must be an integer class index, got {class_id!r}")
        if preds.ndim == 1:
            raise ValueError("When class_id is provided, y_pred must be a 2D array with shape "
                             f"(num_samples, num_classes), found shape: {preds.shape}")
        if not -preds.shape[-1] <= class_id < preds.shape[-1]:
            raise errors.invalid_argument(
                "StridedSlice", f"{metric.name}: class_id={class_id} is out of range for "
                f"predictions with {preds.shape[-1]} classes (shape {list(preds.shape)})")
        labels, preds = labels[..., class_id], preds[..., class_id]
        weights = None if weights is None else weights[..., class_id]
    labels = labels.reshape(-1) != 0
    preds = preds.reshape(-1)
    weights = xp.ones(preds.shape, dtype=dt) if weights is None else weights.reshape(-1)
    if _evenly_distributed(thresholds):
        _bucket_update(metric, labels, preds, weights, thresholds, wanted)
        return
    thresh = xp.asarray(np.asarray(thresholds, dtype=dt))
    predicted = preds[None, :] > thresh[:, None]
    cells = {"true_positives": predicted & labels, "false_positives": predicted & ~labels,
             "true_negatives": ~predicted & ~labels, "false_negatives": ~predicted & labels}
    for name in wanted:
        _variable(metric, wanted, name).assign_add((cells[name] * weights).sum(axis=1).astype(dt))


def _variable(metric, wanted, cell):
    return getattr(metric, wanted[cell] if isinstance(wanted, dict) else cell)


def _evenly_distributed(thresholds):
    """Keras' is_evenly_distributed_thresholds: at least 3 thresholds evenly spread over [0, 1]
    (AUC's own ones: the outer two are then -1e-7 and 1 + 1e-7)."""
    n = len(thresholds)
    if n < 3:
        return False
    even = np.arange(n, dtype=np.float32) / (n - 1)
    return bool(np.allclose(np.asarray(thresholds, dtype=np.float64), even, atol=EPSILON))


def _bucket_update(metric, labels, preds, weights, thresholds, wanted):
    """Keras' counting for evenly spread thresholds: predictions are clipped to [0, 1] and
    put in bucket ceil(p * (n - 1)) - 1 (0 at least, with AUC's epsilon endpoints); a bucket
    counts as positive at every threshold up to its index."""
    xp = array_module(preds)
    dt = metric._dtype._np
    n = len(thresholds)
    with_epsilon = thresholds[0] < 0.0 or thresholds[-1] > 1.0
    buckets = xp.ceil(xp.clip(preds, 0.0, 1.0) * dt.type(n - 1)) - 1
    if with_epsilon:
        buckets = xp.maximum(buckets, 0)
    buckets = buckets.astype("int64")
    keep = (buckets >= 0) & (buckets < n)  # bucket -1 (p == 0 without epsilon) counts nowhere
    true_w = (labels * weights).astype(dt)
    false_w = (~labels * weights).astype(dt)

    def above(w):  # sum of the weights in buckets >= i, for every threshold i
        counts = xp.bincount(buckets[keep], weights=w[keep], minlength=n)
        return xp.cumsum(counts[::-1])[::-1].astype(dt)

    tp, fp = above(true_w), above(false_w)
    cells = {"true_positives": tp, "false_positives": fp,
             "true_negatives": false_w.sum().astype(dt) - fp,
             "false_negatives": true_w.sum().astype(dt) - tp}
    for name in wanted:
        _variable(metric, wanted, name).assign_add(cells[name])


def _filter_top_k(preds, k):
    """Predictions outside the k largest per row set to NEG_INF (ties: lower index wins, as top_k)."""
    xp = array_module(preds)
    order = kernels.for_module(xp).argsort_stable(-preds, axis=-1)
    keep = xp.zeros(preds.shape, dtype=bool)
    xp.put_along_axis(keep, order[..., :k], True, axis=-1)
    return xp.where(keep, preds, NEG_INF)


class _ThresholdMetric(Metric):
    """Shared state of Precision and Recall: one count per threshold."""
    _CELLS = ()

    def __init__(self, thresholds=None, top_k=None, class_id=None, name=None, dtype=None, **kwargs):
        if kwargs:  # Python's own TypeError, naming Precision or Recall rather than this base
            raise TypeError(f"{type(self).__name__}.__init__() got an unexpected keyword argument "
                            f"{next(iter(kwargs))!r}")
        super().__init__(name=name, dtype=dtype)
        self.init_thresholds = thresholds
        self.top_k, self.class_id = top_k, class_id
        default = 0.5 if top_k is None else NEG_INF
        self.thresholds = (_check_thresholds(thresholds, type(self).__name__)
                           if thresholds is not None else [default])
        self._single = thresholds is None or np.isscalar(thresholds)
        for cell in self._CELLS:
            setattr(self, cell, self.add_variable(shape=(len(self.thresholds),), initializer="zeros",
                                                  name=cell))

    def update_state(self, y_true, y_pred, sample_weight=None):
        """Count this batch's outcomes at every threshold."""
        _confusion_update(self, y_true, y_pred, sample_weight, self.thresholds, self._CELLS,
                          top_k=self.top_k, class_id=self.class_id)

    def _ratio(self, num, other):
        value = divide_no_nan(num._value, num._value + other._value)
        return Tensor(value[0] if len(self.thresholds) == 1 else value)

    def get_config(self):
        config = {"thresholds": self.init_thresholds, "top_k": self.top_k, "class_id": self.class_id}
        config.update(Metric.get_config(self))
        return config


@export("metrics.Precision", "keras.metrics.Precision")
class Precision(_ThresholdMetric):
    """true_positives / (true_positives + false_positives), per threshold (default 0.5)."""
    _CELLS = ("true_positives", "false_positives")

    def result(self):
        return self._ratio(self.true_positives, self.false_positives)


@export("metrics.Recall", "keras.metrics.Recall")
class Recall(_ThresholdMetric):
    """true_positives / (true_positives + false_negatives), per threshold (default 0.5)."""
    _CELLS = ("true_positives", "false_negatives")

    def result(self):
        return self._ratio(self.true_positives, self.false_negatives)


class _ConditionCount(Metric):
    """One weighted count of the confusion matrix per threshold (default 0.5), as Keras'
    _ConfusionMatrixConditionCount: a scalar result for one threshold, else one per threshold."""
    _CELL = None

    def __init__(self, thresholds=None, name=None, dtype=None):
        super().__init__(name=name, dtype=dtype)
        self.init_thresholds = thresholds
        self.thresholds = (_check_thresholds(thresholds, type(self).__name__)
                           if thresholds is not None else [0.5])
        self.accumulator = self.add_variable(shape=(len(self.thresholds),), initializer="zeros",
                                             name="accumulator")

    def update_state(self, y_true, y_pred, sample_weight=None):
        """Add this batch's weighted count at every threshold."""
        _confusion_update(self, y_true, y_pred, sample_weight, self.thresholds, {self._CELL: "accumulator"})

    def result(self):
        # as Keras 3 on TF: one threshold gives a tensor, several give the accumulator variable
        # itself (so a later reset_state shows in an earlier result)
        if len(self.thresholds) == 1:
            return Tensor(self.accumulator._value[0])
        return self.accumulator

    def get_config(self):
        config = {"thresholds": self.init_thresholds}
        config.update(Metric.get_config(self))
        return config


@export("metrics.TruePositives", "keras.metrics.TruePositives")
class TruePositives(_ConditionCount):
    """The weighted number of positive labels predicted above the threshold."""
    _CELL = "true_positives"


@export("metrics.FalsePositives", "keras.metrics.FalsePositives")
class FalsePositives(_ConditionCount):
    """The weighted number of negative labels predicted above the threshold."""
    _CELL = "false_positives"


@export("metrics.TrueNegatives", "keras.metrics.TrueNegatives")
class TrueNegatives(_ConditionCount):
    """The weighted number of negative labels predicted at or below the threshold."""
    _CELL = "true_negatives"


@export("metrics.FalseNegatives", "keras.metrics.FalseNegatives")
class FalseNegatives(_ConditionCount):
    """The weighted number of positive labels predicted at or below the threshold."""
    _CELL = "false_negatives"


@export("metrics.AUC", "keras.metrics.AUC")
class AUC(Metric):
    """Area under the ROC or precision-recall curve, from counts at `num_thresholds` thresholds.

    summation_method: 'interpolation' (trapezoids for ROC, Davis & Goadrich interpolation for
    PR), 'minoring' or 'majoring' (left/right Riemann sums). Only `multi_label=False` is
    supported: every label and prediction counts toward one curve.
    """
    _CELLS = ("true_positives", "true_negatives", "false_positives", "false_negatives")

    def __init__(self, num_thresholds=200, curve="ROC", summation_method="interpolation", name=None,
                 dtype=None, thresholds=None, multi_label=False, num_labels=None, label_weights=None,
                 from_logits=False):
        super().__init__(name=name, dtype=dtype)  # None: auto_name, "auc", "auc_1", ...
        curve = curve.upper() if isinstance(curve, str) else curve
        if curve not in ("ROC", "PR"):
            raise ValueError(f'AUC: invalid curve {curve!r}; expected "ROC" or "PR".')
        summation_method = summation_method.lower() if isinstance(summation_method, str) else summation_method
        if summation_method not in ("interpolation", "minoring", "majoring"):
            raise ValueError(f"AUC: invalid summation_method {summation_method!r}; expected "
                             "'interpolation', 'minoring' or 'majoring'.")
        if multi_label:
            raise NotImplementedError("AUC(multi_label=True) is not supported by minitf; "
                                      "use multi_label=False.")
        if isinstance(num_thresholds, (str, bytes)) or num_thresholds is None or \
                thresholds is None and not isinstance(num_thresholds, (int, np.integer)):
            raise TypeError(f"AUC: `num_thresholds` must be an integer > 1, not {num_thresholds!r}")
        if thresholds is not None:  # Keras 3 takes any given thresholds, in [0, 1] or not
            inner = sorted(_check_thresholds(thresholds, "AUC", in_range=False))
            num_thresholds = len(inner) + 2
        else:
            if num_thresholds <= 1:
                raise ValueError(f"AUC: num_thresholds must be > 1, got {num_thresholds}.")
            inner = [(i + 1) * 1.0 / (num_thresholds - 1) for i in range(num_thresholds - 2)]
        self.num_thresholds = num_thresholds
        self.thresholds = [0.0 - EPSILON] + list(inner) + [1.0 + EPSILON]
        self._init_thresholds = thresholds
        self.curve, self.summation_method = curve, summation_method
        self.multi_label, self.num_labels, self.label_weights = multi_label, num_labels, label_weights
        self._from_logits = from_logits
        for cell in self._CELLS:
            setattr(self, cell, self.add_variable(shape=(num_thresholds,), initializer="zeros", name=cell))

    def update_state(self, y_true, y_pred, sample_weight=None):
        """Count this batch's outcomes at every threshold."""
        if self._from_logits:
            y_pred = math_ops.sigmoid(constant_ops.cast(y_pred, self._dtype))
        _confusion_update(self, y_true, y_pred, sample_weight, self.thresholds, self._CELLS)

    def _interpolate_pr_auc(self, tp, fp, fn):
        """PR-AUC with precision interpolated between thresholds (Davis & Goadrich, 2006)."""
        xp = array_module(tp)
        dtp = tp[:-1] - tp[1:]
        p = tp + fp
        dp = p[:-1] - p[1:]
        slope = divide_no_nan(dtp, xp.maximum(dp, 0))
        intercept = tp[1:] - slope * p[1:]
        both = (p[:-1] > 0) & (p[1:] > 0)
        ratio = xp.where(both, divide_no_nan(p[:-1], xp.maximum(p[1:], 0)), xp.ones_like(p[1:]))
        increments = divide_no_nan(slope * (dtp + intercept * xp.log(ratio)),
                                    xp.maximum(tp[1:] + fn[1:], 0))
        return increments.sum()

    def result(self):
        tp, fp = self.true_positives._value, self.false_positives._value
        tn, fn = self.true_negatives._value, self.false_negatives._value
        xp = array_module(tp)
        if self.curve == "PR" and self.summation_method == "interpolation":
            return Tensor(xp.asarray(self._interpolate_pr_auc(tp, fp, fn), dtype=tp.dtype))
        recall = divide_no_nan(tp, tp + fn)
        if self.curve == "ROC":
            x, y = divide_no_nan(fp, fp + tn), recall
        else:
            x, y = recall, divide_no_nan(tp, tp + fp)
        if self.summation_method == "interpolation":
            heights = (y[:-1] + y[1:]) / 2.0
        elif self.summation_method == "minoring":
            heights = xp.minimum(y[:-1], y[1:])
        else:
            heights = xp.maximum(y[:-1], y[1:])
        return Tensor(xp.asarray(((x[:-1] - x[1:]) * heights).sum(), dtype=tp.dtype))

    def get_config(self):
        config = {"num_thresholds": self.num_thresholds, "curve": self.curve,
                  "summation_method": self.summation_method, "multi_label": self.multi_label,
                  "num_labels": self.num_labels, "label_weights": self.label_weights,
                  "from_logits": self._from_logits}
        if self._init_thresholds is not None:
            config["thresholds"] = self.thresholds[1:-1]
        config.update(Metric.get_config(self))
        return config
