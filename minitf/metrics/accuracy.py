"""Accuracy metrics: how often predictions match labels, as functions (one value per example)
and as metrics averaging them over every batch seen."""
from minitf import dispatch
from minitf.backend import array_module
from minitf.metrics.base import MeanMetricWrapper, raw_value, same_rank
from minitf.tensor import Tensor
from minitf.api_export import export

__all__ = ["accuracy", "binary_accuracy", "categorical_accuracy", "sparse_categorical_accuracy",
           "top_k_categorical_accuracy", "sparse_top_k_categorical_accuracy", "Accuracy",
           "BinaryAccuracy", "CategoricalAccuracy", "SparseCategoricalAccuracy",
           "TopKCategoricalAccuracy", "SparseTopKCategoricalAccuracy"]


def _float_matches(mask, like=None):
    return Tensor(mask.astype("float32"))


@dispatch.add_dispatch_support
def accuracy(y_true, y_pred):
    """1.0 where y_true equals y_pred exactly, else 0.0 (elementwise, after Keras' rank alignment)."""
    p = raw_value(y_pred)
    t = raw_value(y_true, p.dtype)
    t, p = same_rank(t, p)
    return _float_matches(t == p)


@export("metrics.binary_accuracy", "keras.metrics.binary_accuracy")
@dispatch.add_dispatch_support
def binary_accuracy(y_true, y_pred, threshold=0.5):
    """1.0 where (y_pred > threshold) equals y_true, else 0.0: elementwise, y_true's shape
    (after Keras' rank alignment), as Keras 3 (Keras 2 averaged over the last axis)."""
    t, p = same_rank(raw_value(y_true), raw_value(y_pred))
    predicted = (p > threshold).astype(t.dtype)
    return _float_matches(t == predicted)


def _sparse_matches(labels, preds):
    """Keras' sparse_categorical_accuracy on raw arrays: argmax(preds) == labels.

    Labels of shape (..., 1) with predictions of the same rank give matches of the labels'
    shape, and a trailing 1 is then dropped ((batch, 1) labels give (batch,) matches)."""
    xp = array_module(preds)
    shape = labels.shape
    squeezed = labels.ndim == preds.ndim and labels.ndim > 0 and labels.shape[-1] == 1
    if squeezed:
        labels = labels[..., 0]
    matches = labels == xp.argmax(preds, axis=-1).astype(labels.dtype)
    if squeezed:
        matches = matches.reshape(shape)
    if matches.ndim > 1 and matches.shape[-1] == 1:
        matches = matches[..., 0]
    return matches


@export("metrics.categorical_accuracy", "keras.metrics.categorical_accuracy")
@dispatch.add_dispatch_support
def categorical_accuracy(y_true, y_pred):
    """1.0 where argmax(y_true) == argmax(y_pred) over the last axis."""
    t = raw_value(y_true)
    return _float_matches(array_module(t).argmax(t, axis=-1) == array_module(t).argmax(raw_value(y_pred), axis=-1))


@export("metrics.sparse_categorical_accuracy", "keras.metrics.sparse_categorical_accuracy")
@dispatch.add_dispatch_support
def sparse_categorical_accuracy(y_true, y_pred):
    """1.0 where the integer label equals argmax(y_pred) over the last axis."""
    p = raw_value(y_pred)
    return _float_matches(_sparse_matches(raw_value(y_true, p.dtype), p))


def _in_top_k(labels, preds, k):
    """Whether each label's score is among the k largest (ties at the boundary count as in)."""
    xp = array_module(preds)
    flat = preds.reshape(-1, preds.shape[-1])
    lab = labels.reshape(-1).astype("int64")
    target = xp.take_along_axis(flat, lab[:, None], axis=-1)
    higher = (flat > target).sum(axis=-1)
    return (higher < k) & xp.isfinite(target[:, 0])


@export("metrics.sparse_top_k_categorical_accuracy",
        "keras.metrics.sparse_top_k_categorical_accuracy")
@dispatch.add_dispatch_support
def sparse_top_k_categorical_accuracy(y_true, y_pred, k=5):
    """1.0 where the integer label is among the top-k predictions."""
    t, p = raw_value(y_true), raw_value(y_pred)
    shape = t.shape
    if t.ndim == p.ndim and t.ndim and t.shape[-1] == 1:
        t = t[..., 0]
    hits = _in_top_k(t, p, k).reshape(shape if len(shape) == p.ndim else p.shape[:-1])
    return _float_matches(hits)


@export("metrics.top_k_categorical_accuracy", "keras.metrics.top_k_categorical_accuracy")
@dispatch.add_dispatch_support
def top_k_categorical_accuracy(y_true, y_pred, k=5):
    """1.0 where argmax(y_true) is among the top-k predictions."""
    t, p = raw_value(y_true), raw_value(y_pred)
    return _float_matches(_in_top_k(array_module(t).argmax(t, axis=-1), p, k).reshape(p.shape[:-1]))


@export("metrics.Accuracy", "keras.metrics.Accuracy")
class Accuracy(MeanMetricWrapper):
    """How often predictions equal labels exactly: the fraction of matching entries.

    Suited to predictions that are already labels (e.g. argmax-ed classes); for scores
    use BinaryAccuracy, CategoricalAccuracy or SparseCategoricalAccuracy.

    ```python
    m = tf.keras.metrics.Accuracy()
    m.update_state([1, 2, 3, 4], [0, 2, 3, 4])
    m.result()   # 0.75
    ```

    Args:
        name: the metric's name ('accuracy').
        dtype: the dtype of the result (float32 by default).
    """

    def __init__(self, name="accuracy", dtype=None):
        super().__init__(accuracy, name=name, dtype=dtype)


@export("metrics.BinaryAccuracy", "keras.metrics.BinaryAccuracy")
class BinaryAccuracy(MeanMetricWrapper):
    """How often thresholded predictions match 0/1 labels.

    A prediction counts as 1 when it is above `threshold`, else 0; the metric is the
    fraction of entries where that equals the label.

    ```python
    m = tf.keras.metrics.BinaryAccuracy()
    m.update_state([[1], [1], [0], [0]], [[0.98], [1.0], [0.0], [0.6]])
    m.result()   # 0.75
    ```

    Args:
        name: the metric's name ('binary_accuracy').
        dtype: the dtype of the result (float32 by default).
        threshold: the score above which a prediction counts as positive (0.5); for
            logits use 0.0.
    """

    def __init__(self, name="binary_accuracy", dtype=None, threshold=0.5):
        super().__init__(binary_accuracy, name=name, dtype=dtype, threshold=threshold)


@export("metrics.CategoricalAccuracy", "keras.metrics.CategoricalAccuracy")
class CategoricalAccuracy(MeanMetricWrapper):
    """How often the highest-scoring class matches one-hot labels:
    `argmax(y_pred) == argmax(y_true)` along the last axis.

    ```python
    m = tf.keras.metrics.CategoricalAccuracy()
    m.update_state([[0, 0, 1], [0, 1, 0]], [[0.1, 0.9, 0.8], [0.05, 0.95, 0]])
    m.result()   # 0.5
    ```

    Args:
        name: the metric's name ('categorical_accuracy').
        dtype: the dtype of the result (float32 by default).
    """

    def __init__(self, name="categorical_accuracy", dtype=None):
        super().__init__(categorical_accuracy, name=name, dtype=dtype)


@export("metrics.SparseCategoricalAccuracy", "keras.metrics.SparseCategoricalAccuracy")
class SparseCategoricalAccuracy(MeanMetricWrapper):
    """How often the highest-scoring class matches integer labels:
    `argmax(y_pred) == y_true` (labels of shape (batch,) or (batch, 1)).

    ```python
    m = tf.keras.metrics.SparseCategoricalAccuracy()
    m.update_state([[2], [1]], [[0.1, 0.6, 0.3], [0.05, 0.95, 0]])
    m.result()   # 0.5
    ```

    Args:
        name: the metric's name ('sparse_categorical_accuracy').
        dtype: the dtype of the result (float32 by default).
    """

    def __init__(self, name="sparse_categorical_accuracy", dtype=None):
        super().__init__(sparse_categorical_accuracy, name=name, dtype=dtype)


@export("metrics.TopKCategoricalAccuracy", "keras.metrics.TopKCategoricalAccuracy")
class TopKCategoricalAccuracy(MeanMetricWrapper):
    """How often the one-hot label is among the top-k predictions (k=5)."""

    def __init__(self, k=5, name="top_k_categorical_accuracy", dtype=None):
        super().__init__(top_k_categorical_accuracy, name=name, dtype=dtype, k=k)


@export("metrics.SparseTopKCategoricalAccuracy", "keras.metrics.SparseTopKCategoricalAccuracy")
class SparseTopKCategoricalAccuracy(MeanMetricWrapper):
    """How often the integer label is among the top-k predictions (k=5)."""

    def __init__(self, k=5, name="sparse_top_k_categorical_accuracy", dtype=None):
        super().__init__(sparse_top_k_categorical_accuracy, name=name, dtype=dtype, k=k)
