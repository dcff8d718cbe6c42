"""The registry of built-in losses and tf.keras.losses.get/serialize/deserialize."""
from minitf._keras_objects import Registry
from minitf.losses.functions import (binary_crossentropy, categorical_crossentropy,
                                     categorical_hinge, cosine_similarity, hinge, huber,
                                     kl_divergence, log_cosh, mean_absolute_error,
                                     mean_absolute_percentage_error, mean_squared_error,
                                     mean_squared_logarithmic_error, poisson,
                                     sparse_categorical_crossentropy, squared_hinge)
from minitf.losses.loss import (BinaryCrossentropy, CategoricalCrossentropy, CategoricalHinge,
                                CosineSimilarity, Hinge, Huber, KLDivergence, LogCosh,
                                MeanAbsoluteError, MeanAbsolutePercentageError, MeanSquaredError,
                                MeanSquaredLogarithmicError, Poisson, SparseCategoricalCrossentropy,
                                SquaredHinge)
from minitf.losses.focal import (BinaryFocalCrossentropy, CategoricalFocalCrossentropy,
                                 binary_focal_crossentropy, categorical_focal_crossentropy)
from minitf.losses.overlap import Dice, Tversky, dice, tversky
from minitf.api_export import export


LOSSES = Registry("loss", "keras.losses", kind="loss function")
for _cls in (BinaryCrossentropy, CategoricalCrossentropy, SparseCategoricalCrossentropy,
             MeanSquaredError, MeanAbsoluteError, MeanAbsolutePercentageError,
             MeanSquaredLogarithmicError, Huber, KLDivergence, CosineSimilarity, Hinge, SquaredHinge,
             CategoricalHinge, LogCosh, Poisson):
    LOSSES.register(_cls)
for _fn, _aliases in (
        (binary_crossentropy, ()), (categorical_crossentropy, ()),
        (sparse_categorical_crossentropy, ()), (mean_squared_error, ("mse", "MSE")),
        (mean_absolute_error, ("mae", "MAE")), (mean_absolute_percentage_error, ("mape", "MAPE")),
        (mean_squared_logarithmic_error, ("msle", "MSLE")), (huber, ("huber_loss",)),
        (kl_divergence, ("kld", "KLD", "kullback_leibler_divergence")),
        (cosine_similarity, ()), (hinge, ()), (squared_hinge, ()), (categorical_hinge, ()),
        (log_cosh, ("logcosh",)), (poisson, ())):
    LOSSES.register(_fn, aliases=_aliases)
for _obj in (BinaryFocalCrossentropy, CategoricalFocalCrossentropy, binary_focal_crossentropy,
             categorical_focal_crossentropy, Dice, Tversky, dice, tversky):
    LOSSES.register(_obj)


@export("losses.serialize", "keras.losses.serialize")
def serialize(loss):
    """The config form of a loss, as Keras 3 writes it.

    Args:
        loss: a Loss object, or a built-in loss function.

    Returns:
        For a Loss object, `{'module': 'keras.losses', 'class_name', 'config',
        'registered_name': None}` (a class of your own names its module and itself); for a
        loss function, `{'module': 'builtins', 'class_name': 'function', 'config': name,
        'registered_name': 'function'}`.

    Raises:
        ValueError: for a function that is not a built-in loss.
    """
    return LOSSES.serialize(loss)


@export("losses.deserialize", "keras.losses.deserialize")
def deserialize(name, custom_objects=None):
    """The loss a name or a `serialize` dict stands for.

    Args:
        name: a function name ('mse', 'categorical_crossentropy': gives the function), a
            class name ('Huber': gives a new object with default arguments), or a dict made
            by `serialize`.
        custom_objects: optional `{name: class or function}` searched first.

    Returns:
        A loss function or a new Loss object.

    Raises:
        ValueError: when the name or class name is unknown.
    """
    return LOSSES.deserialize(name, custom_objects)


@export("losses.get", "keras.losses.get")
def get(identifier):
    """A loss from an identifier, as `tf.keras.losses.get` (what `compile(loss=...)` takes).

    Args:
        identifier: None (gives None), a name (as `deserialize`), a config dict, a Loss
            class (instantiated with its defaults) or a callable (returned as it is).

    Returns:
        The loss function or Loss object.

    Raises:
        ValueError: when the identifier cannot be interpreted.
    """
    return LOSSES.get(identifier)
