"""Probabilistic metrics: the mean cross-entropy over every example seen (binary, categorical,
sparse categorical). The metric functions are the losses' own functions."""
from minitf.losses import functions as loss_functions
from minitf.metrics.base import wrapper_class
from minitf.api_export import export, export_value

__all__ = ["binary_crossentropy", "categorical_crossentropy", "sparse_categorical_crossentropy",
           "CategoricalCrossentropy", "BinaryCrossentropy", "SparseCategoricalCrossentropy"]


@export("metrics.binary_crossentropy", "keras.metrics.binary_crossentropy")
def binary_crossentropy(y_true, y_pred, from_logits=False, label_smoothing=0.0, axis=-1):
    """Per-example binary cross-entropy (see tf.keras.losses.binary_crossentropy)."""
    return loss_functions.binary_crossentropy(y_true, y_pred, from_logits, label_smoothing, axis)


@export("metrics.categorical_crossentropy", "keras.metrics.categorical_crossentropy")
def categorical_crossentropy(y_true, y_pred, from_logits=False, label_smoothing=0.0, axis=-1):
    """Per-example categorical cross-entropy."""
    return loss_functions.categorical_crossentropy(y_true, y_pred, from_logits, label_smoothing, axis)


@export("metrics.sparse_categorical_crossentropy", "keras.metrics.sparse_categorical_crossentropy")
def sparse_categorical_crossentropy(y_true, y_pred, from_logits=False, axis=-1, ignore_class=None):
    """Per-example cross-entropy with integer labels."""
    return loss_functions.sparse_categorical_crossentropy(y_true, y_pred, from_logits=from_logits,
                                                     ignore_class=ignore_class, axis=axis)


CategoricalCrossentropy = wrapper_class(
    "CategoricalCrossentropy", categorical_crossentropy, "categorical_crossentropy",
    "Mean categorical cross-entropy; (from_logits=False, label_smoothing=0, axis=-1).",
    from_logits=False, label_smoothing=0.0, axis=-1)
export_value("CategoricalCrossentropy", "metrics.CategoricalCrossentropy",
             "keras.metrics.CategoricalCrossentropy")
BinaryCrossentropy = wrapper_class(
    "BinaryCrossentropy", binary_crossentropy, "binary_crossentropy",
    "Mean binary cross-entropy; (from_logits=False, label_smoothing=0).",
    from_logits=False, label_smoothing=0.0)
export_value("BinaryCrossentropy", "metrics.BinaryCrossentropy", "keras.metrics.BinaryCrossentropy")
SparseCategoricalCrossentropy = wrapper_class(
    "SparseCategoricalCrossentropy", sparse_categorical_crossentropy, "sparse_categorical_crossentropy",
    "Mean cross-entropy with integer labels; (from_logits=False, ignore_class=None, axis=-1).",
    from_logits=False, ignore_class=None, axis=-1)
export_value("SparseCategoricalCrossentropy", "metrics.SparseCategoricalCrossentropy",
             "keras.metrics.SparseCategoricalCrossentropy")
