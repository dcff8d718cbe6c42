"""The registry of built-in metrics and tf.keras.metrics.get/serialize/deserialize."""
from minitf.keras_core.naming import to_snake_case
from minitf._keras_objects import Registry
from minitf.metrics.accuracy import (  # noqa: F401
    Accuracy, BinaryAccuracy, CategoricalAccuracy, SparseCategoricalAccuracy,
    SparseTopKCategoricalAccuracy, TopKCategoricalAccuracy, accuracy, binary_accuracy,
    categorical_accuracy, sparse_categorical_accuracy, sparse_top_k_categorical_accuracy,
    top_k_categorical_accuracy)
from minitf.metrics.base import Mean, Sum
from minitf.metrics.confusion import (AUC, FalseNegatives, FalsePositives, Precision, Recall,  # noqa: F401
                                      TrueNegatives, TruePositives)
from minitf.metrics.probabilistic import (  # noqa: F401
    BinaryCrossentropy, CategoricalCrossentropy, SparseCategoricalCrossentropy, binary_crossentropy,
    categorical_crossentropy, sparse_categorical_crossentropy)
from minitf.metrics.regression import (MeanAbsoluteError, MeanAbsolutePercentageError,
                                       MeanSquaredError, RootMeanSquaredError, mean_absolute_error,
                                       mean_absolute_percentage_error, mean_squared_error)
from minitf.metrics.fscore import F1Score, FBetaScore
from minitf.metrics.r2 import R2Score
from minitf.metrics.correlation import ConcordanceCorrelation, PearsonCorrelation
from minitf.metrics.at_threshold import (PrecisionAtRecall, RecallAtPrecision, SensitivityAtSpecificity,
                                         SpecificityAtSensitivity)
from minitf.metrics.iou import BinaryIoU, IoU, MeanIoU, OneHotIoU, OneHotMeanIoU
from minitf.metrics.loss_metrics import (CategoricalHinge, CosineSimilarity, Hinge, KLDivergence,
                                         LogCoshError, MeanSquaredLogarithmicError, Poisson,
                                         SquaredHinge)
from minitf.api_export import export


# Keras 3's ALL_OBJECTS_DICT: a name finds a class (its own name, its snake_case form or a
# short alias) and `get` instantiates it; functions are found only through a 'function' dict
METRICS = Registry("metric", "keras.metrics")
for _cls in (Mean, Sum, MeanSquaredError, MeanAbsoluteError, MeanAbsolutePercentageError,
             RootMeanSquaredError, Accuracy, BinaryAccuracy, CategoricalAccuracy,
             SparseCategoricalAccuracy, TopKCategoricalAccuracy, SparseTopKCategoricalAccuracy,
             Precision, Recall, AUC, TruePositives, FalsePositives, TrueNegatives, FalseNegatives,
             CategoricalCrossentropy, BinaryCrossentropy, SparseCategoricalCrossentropy):
    METRICS.register(_cls, aliases=(to_snake_case(_cls.__name__),))
for _alias, _cls in (("bce", BinaryCrossentropy), ("BCE", BinaryCrossentropy),
                     ("mse", MeanSquaredError), ("MSE", MeanSquaredError),
                     ("mae", MeanAbsoluteError), ("MAE", MeanAbsoluteError),
                     ("mape", MeanAbsolutePercentageError), ("MAPE", MeanAbsolutePercentageError)):
    METRICS.alias(_alias, _cls)
for _cls in (MeanSquaredLogarithmicError, CosineSimilarity, LogCoshError, Hinge, SquaredHinge,
             CategoricalHinge, KLDivergence, Poisson, F1Score, FBetaScore, IoU, BinaryIoU, MeanIoU,
             OneHotIoU, OneHotMeanIoU, R2Score, PrecisionAtRecall, RecallAtPrecision,
             SensitivityAtSpecificity, SpecificityAtSensitivity, PearsonCorrelation,
             ConcordanceCorrelation):
    METRICS.register(_cls, aliases=(to_snake_case(_cls.__name__),))
for _alias in ("msle", "MSLE"):
    METRICS.alias(_alias, MeanSquaredLogarithmicError)
for _fn, _aliases in (
        (accuracy, ("acc",)), (binary_accuracy, ()), (categorical_accuracy, ()),
        (sparse_categorical_accuracy, ()), (top_k_categorical_accuracy, ()),
        (sparse_top_k_categorical_accuracy, ()), (mean_squared_error, ("mse", "MSE")),
        (mean_absolute_error, ("mae", "MAE")), (mean_absolute_percentage_error, ("mape", "MAPE")),
        (binary_crossentropy, ()), (categorical_crossentropy, ()),
        (sparse_categorical_crossentropy, ())):
    METRICS.register(_fn, aliases=_aliases, lookup=False)


@export("metrics.serialize", "keras.metrics.serialize")
def serialize(metric):
    """The config form of a metric, as Keras 3 writes it.

    Args:
        metric: a Metric object, or a built-in metric function.

    Returns:
        For a Metric object, `{'module': 'keras.metrics', 'class_name', 'config',
        'registered_name': None}` (a class of your own names its module and itself); for a
        metric function, `{'module': 'builtins', 'class_name': 'function', 'config': name,
        'registered_name': 'function'}`.

    Raises:
        ValueError: for a function that is not a built-in metric.
    """
    return METRICS.serialize(metric)


@export("metrics.deserialize", "keras.metrics.deserialize")
def deserialize(config, custom_objects=None):
    """The metric a name or a `serialize` dict stands for.

    Args:
        config: a name (a class name, its snake_case form or an alias: 'mse', 'accuracy',
            'BinaryAccuracy', ... each give a new Metric object, as Keras 3), or a dict made
            by `serialize` (a 'function' dict gives the function).
        custom_objects: optional `{name: class or function}` searched first.

    Returns:
        A new Metric object, or a metric function.

    Raises:
        ValueError: when the name or class name is unknown.
    """
    return METRICS.deserialize(config, custom_objects)


@export("metrics.get", "keras.metrics.get")
def get(identifier):
    """A metric from an identifier, as `tf.keras.metrics.get`.

    Args:
        identifier: None (gives None), a name (a new Metric object, as `deserialize`), a
            config dict, a Metric class (instantiated) or a callable (returned as it is).

    Returns:
        The Metric object or metric function.

    Raises:
        ValueError: when the identifier cannot be interpreted ('acc' included: only
            `compile` knows it).
    """
    return METRICS.get(identifier)
