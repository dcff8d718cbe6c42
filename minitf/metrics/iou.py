"""Intersection-over-union metrics (IoU, MeanIoU, BinaryIoU, OneHotIoU, OneHotMeanIoU): a
confusion matrix of class ids accumulated over batches, read as TP / (TP + FP + FN) per class
and averaged over the target classes that occurred."""
import warnings

import numpy as np

from minitf.backend import array_module
from minitf.errors import errors
from minitf.metrics.base import EPSILON, Metric, raw_value
from minitf.tensor import Tensor
from minitf.api_export import export

__all__ = ["IoU", "MeanIoU", "BinaryIoU", "OneHotIoU", "OneHotMeanIoU"]


class _IoUBase(Metric):
    """The confusion-matrix state ('total_confusion_matrix', rows true, columns predicted)."""

    def __init__(self, num_classes, name=None, dtype=None, ignore_class=None, sparse_y_true=True,
                 sparse_y_pred=True, axis=-1):
        super().__init__(name=name, dtype=dtype or "int64")  # Keras' 'int': int64
        self.num_classes = num_classes
        self.ignore_class = ignore_class
        self.sparse_y_true = sparse_y_true
        self.sparse_y_pred = sparse_y_pred
        self.axis = axis
        self.total_cm = self.add_variable(shape=(num_classes, num_classes), initializer="zeros",
                                          name="total_confusion_matrix", dtype=self._dtype)

    def update_state(self, y_true, y_pred, sample_weight=None):
        """Add one batch's (weighted) counts of (true class, predicted class) pairs.

        Class ids outside [0, num_classes), and true ids equal to `ignore_class`, count 0.
        One-hot (or score) inputs, as `sparse_y_true`/`sparse_y_pred` say, become ids by argmax
        along `axis`. Ids and weights are cast to the metric's dtype first (truncated when it is
        an integer type, as in Keras)."""
        dt = self._dtype._np
        who = type(self).__name__
        y_true, y_pred = raw_value(y_true), raw_value(y_pred)
        if not self.sparse_y_true:
            y_true = y_true.argmax(axis=self.axis)
        if not self.sparse_y_pred:
            y_pred = y_pred.argmax(axis=self.axis)
        y_true, y_pred = y_true.astype(dt).reshape(-1), y_pred.astype(dt).reshape(-1)
        xp = array_module(y_true)
        if sample_weight is None:
            weights = xp.asarray(1, dtype=dt)
        else:
            weights = raw_value(sample_weight)
            if weights.dtype.kind == "f" and self._dtype.is_integer:
                warnings.warn("You are passing weight as `float`, but dtype is `int`. This may result in an "
                              "incorrect weight due to type casting Consider using integer weights.")
            weights = weights.astype(dt).reshape(-1) if weights.ndim > 1 else weights.astype(dt)
        try:
            weights = xp.broadcast_to(weights, y_true.shape)
        except ValueError:
            raise errors.invalid_argument(
                "BroadcastTo", f"{who}: sample_weight of shape {list(weights.shape)} does not broadcast to the "
                f"{y_true.size} class ids of y_true; give one weight per id (or a scalar)") from None
        try:
            valid = (y_true >= 0) & (y_true < self.num_classes) & (y_pred >= 0) & (y_pred < self.num_classes)
        except ValueError:
            raise errors.invalid_argument(
                "LogicalAnd", f"{who}: y_true holds {y_true.size} class ids and y_pred {y_pred.size} "
                f"(incompatible shapes: [{y_true.size}] vs. [{y_pred.size}]); give one prediction per label")
        if self.ignore_class is not None:
            valid = valid & (y_true != self.ignore_class)
        y_true = xp.where(valid, y_true, 0).astype(np.int64)
        y_pred = xp.where(valid, y_pred, 0).astype(np.int64)
        weights = xp.where(valid, weights, 0).astype(dt)
        n = self.num_classes
        cm = xp.bincount(y_true * n + y_pred, weights=weights, minlength=n * n)
        self.total_cm.assign(self.total_cm._value + cm.astype(dt).reshape(n, n))

    def reset_state(self):
        Metric.reset_state(self)


@export("metrics.IoU", "keras.metrics.IoU")
class IoU(_IoUBase):
    """Intersection over union for chosen classes: TP / (TP + FP + FN) per class of
    `target_class_ids`, averaged over those that occurred (in labels or predictions).

    ```python
    m = tf.keras.metrics.IoU(num_classes=2, target_class_ids=[0])
    m.update_state([0, 0, 1, 1], [0, 1, 0, 1])
    m.result()   # class 0: 1 / (1 + 1 + 1) = 0.33333334
    ```

    Args:
        num_classes: the number of classes (the confusion matrix is num_classes x num_classes).
        target_class_ids: the class ids averaged over (each < num_classes).
        name: 'io_u' by default.
        dtype: the dtype of the confusion matrix (int64 by default); the result is float32.
        ignore_class: a true class id to leave out, or None.
        sparse_y_true, sparse_y_pred: whether the inputs are class ids (True) or one-hot /
            scores reduced by argmax along `axis` (False).
        axis: the class axis of non-sparse inputs (-1).

    Raises:
        ValueError: when a target class id is >= num_classes.
    """

    def __init__(self, num_classes, target_class_ids, name=None, dtype=None, ignore_class=None,
                 sparse_y_true=True, sparse_y_pred=True, axis=-1):
        super().__init__(num_classes, name=name, dtype=dtype, ignore_class=ignore_class,
                         sparse_y_true=sparse_y_true, sparse_y_pred=sparse_y_pred, axis=axis)
        if max(target_class_ids) >= num_classes:
            raise ValueError(f"{type(self).__name__}: target class id {max(target_class_ids)} is out of range, "
                             f"which is [0, {num_classes}).")
        self.target_class_ids = list(target_class_ids)

    def result(self):
        cm = self.total_cm._value
        xp = array_module(cm)
        tp = xp.diagonal(cm)
        denominator = cm.sum(axis=0) + cm.sum(axis=1) - tp
        ids = xp.asarray(self.target_class_ids, dtype=np.int64)
        tp = tp[ids].astype(np.float32)
        denominator = denominator[ids].astype(np.float32)
        valid = denominator > 1e-9
        iou = xp.where(valid, tp / (denominator + np.float32(EPSILON)), np.float32(0))
        total = iou.sum(axis=self.axis)
        return Tensor((total / (valid.sum(dtype=np.float32) + np.float32(EPSILON))).astype(np.float32))

    def get_config(self):
        config = Metric.get_config(self)
        config.update(num_classes=self.num_classes, target_class_ids=self.target_class_ids,
                      ignore_class=self.ignore_class, sparse_y_true=self.sparse_y_true,
                      sparse_y_pred=self.sparse_y_pred, axis=self.axis)
        return config


@export("metrics.BinaryIoU", "keras.metrics.BinaryIoU")
class BinaryIoU(IoU):
    """IoU of binary labels and scores: a score >= `threshold` predicts class 1.

    Args:
        target_class_ids: (0, 1) by default: the mean IoU of both classes; (1,) for the
            positive class only.
        threshold: 0.5.
        name: 'binary_io_u' by default.
        dtype: the dtype of the confusion matrix (int64).
    """

    def __init__(self, target_class_ids=(0, 1), threshold=0.5, name=None, dtype=None):
        super().__init__(num_classes=2, target_class_ids=target_class_ids, name=name, dtype=dtype)
        self.threshold = threshold

    def update_state(self, y_true, y_pred, sample_weight=None):
        """Threshold the scores, then count as IoU does."""
        dt = self._dtype._np
        y_true = raw_value(y_true).astype(dt)
        y_pred = (raw_value(y_pred).astype(np.float32) >= self.threshold).astype(dt)
        return IoU.update_state.__wrapped__(self, y_true, y_pred, sample_weight)

    def get_config(self):
        return {"target_class_ids": self.target_class_ids, "threshold": self.threshold,
                "name": self.name, "dtype": self._dtype.name}


@export("metrics.MeanIoU", "keras.metrics.MeanIoU")
class MeanIoU(IoU):
    """The mean IoU over every class (that occurred): IoU with target_class_ids = all.

    ```python
    m = tf.keras.metrics.MeanIoU(num_classes=2)
    m.update_state([0, 0, 1, 1], [0, 1, 0, 1])
    m.result()   # (1/3 + 1/3) / 2 = 0.33333334
    ```

    Args:
        num_classes, name ('mean_io_u'), dtype (int64), ignore_class, sparse_y_true,
        sparse_y_pred, axis: as IoU.
    """

    def __init__(self, num_classes, name=None, dtype=None, ignore_class=None, sparse_y_true=True,
                 sparse_y_pred=True, axis=-1):
        super().__init__(num_classes=num_classes, target_class_ids=list(range(num_classes)), name=name,
                         dtype=dtype, ignore_class=ignore_class, sparse_y_true=sparse_y_true,
                         sparse_y_pred=sparse_y_pred, axis=axis)

    def get_config(self):
        return {"num_classes": self.num_classes, "name": self.name, "dtype": self._dtype.name,
                "ignore_class": self.ignore_class, "sparse_y_true": self.sparse_y_true,
                "sparse_y_pred": self.sparse_y_pred, "axis": self.axis}


@export("metrics.OneHotIoU", "keras.metrics.OneHotIoU")
class OneHotIoU(IoU):
    """IoU with one-hot labels (and, unless `sparse_y_pred=True`, scores): both reduced to
    class ids by argmax along `axis`.

    Args:
        num_classes, target_class_ids, name ('one_hot_io_u'), dtype, ignore_class, axis: as IoU.
        sparse_y_pred: False by default (predictions are scores).
    """

    def __init__(self, num_classes, target_class_ids, name=None, dtype=None, ignore_class=None,
                 sparse_y_pred=False, axis=-1):
        super().__init__(num_classes=num_classes, target_class_ids=target_class_ids, name=name, dtype=dtype,
                         ignore_class=ignore_class, sparse_y_true=False, sparse_y_pred=sparse_y_pred, axis=axis)

    def get_config(self):
        return {"num_classes": self.num_classes, "target_class_ids": self.target_class_ids,
                "name": self.name, "dtype": self._dtype.name, "ignore_class": self.ignore_class,
                "sparse_y_pred": self.sparse_y_pred, "axis": self.axis}


@export("metrics.OneHotMeanIoU", "keras.metrics.OneHotMeanIoU")
class OneHotMeanIoU(MeanIoU):
    """MeanIoU with one-hot labels (and, unless `sparse_y_pred=True`, scores).

    Args:
        num_classes, name ('one_hot_mean_io_u'), dtype, ignore_class, axis: as MeanIoU.
        sparse_y_pred: False by default.
    """

    def __init__(self, num_classes, name=None, dtype=None, ignore_class=None, sparse_y_pred=False, axis=-1):
        super().__init__(num_classes=num_classes, axis=axis, name=name, dtype=dtype, ignore_class=ignore_class,
                         sparse_y_true=False, sparse_y_pred=sparse_y_pred)

    def get_config(self):
        return {"num_classes": self.num_classes, "name": self.name, "dtype": self._dtype.name,
                "ignore_class": self.ignore_class, "sparse_y_pred": self.sparse_y_pred, "axis": self.axis}
