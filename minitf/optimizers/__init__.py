"""tf.keras.optimizers: Keras 3 optimizers updating variables in place, and their schedules."""
from minitf.optimizers import schedules
from minitf.optimizers.base import Optimizer
from minitf.optimizers.sgd import SGD
from minitf.optimizers.adam import Adam
from minitf.optimizers.adamw import AdamW
from minitf.optimizers.rmsprop import RMSprop
from minitf.optimizers.adagrad import Adagrad
from minitf.optimizers.adadelta import Adadelta
from minitf.optimizers.adamax import Adamax
from minitf.optimizers.nadam import Nadam
from minitf.optimizers.ftrl import Ftrl

__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "Adadelta", "Adamax",
           "Nadam", "Ftrl", "schedules", "get", "serialize", "deserialize", "legacy"]

_BY_NAME = {cls.__name__.lower(): cls for cls in
            (SGD, Adam, AdamW, RMSprop, Adagrad, Adadelta, Adamax, Nadam, Ftrl)}


def serialize(optimizer):
    """A dict `{'class_name': ..., 'config': ...}` describing `optimizer`."""
    return {"module": "keras.optimizers", "class_name": type(optimizer).__name__,
            "config": optimizer.get_config(), "registered_name": None}


def deserialize(config, custom_objects=None):
    """Build an optimizer from `serialize()` output (class names are case-insensitive).

    Like Keras 3, a built-in class name is lower-cased in `config` itself ('SGD' -> 'sgd'),
    so a dict that went through deserialize reads 'sgd' afterwards.
    """
    name = config["class_name"]
    if name.lower() in _BY_NAME:
        config["class_name"] = name = name.lower()
    custom = custom_objects or {}
    cls = custom.get(name) or _BY_NAME.get(name.lower())
    if cls is None:
        raise ValueError(f"Could not interpret optimizer identifier: {name!r}.")
    return cls.from_config(config.get("config", {}))


def get(identifier):
    """An optimizer from an instance, a name ('adam'), or a serialized dict."""
    if isinstance(identifier, Optimizer):
        return identifier
    if isinstance(identifier, dict):
        return deserialize(identifier)
    if isinstance(identifier, str) and identifier.lower() in _BY_NAME:
        return _BY_NAME[identifier.lower()]()
    raise ValueError(f"Could not interpret optimizer identifier: {identifier!r}")


class LegacyOptimizerWarning:
    """What `tf.keras.optimizers.legacy.<name>` is in Keras 3: building one raises ImportError."""

    def __init__(self, *args, **kwargs):
        raise ImportError(
            "`keras.optimizers.legacy` is not supported in Keras 3. When using `tf.keras`, to "
            "continue using a `tf.keras.optimizers.legacy` optimizer, you can install the "
            "`tf_keras` package (Keras 2) and set the environment variable "
            "`TF_USE_LEGACY_KERAS=True` to configure TensorFlow to use `tf_keras` when accessing "
            "`tf.keras`. In minitf, use the current optimizer (e.g. `tf.keras.optimizers.Adam`).")


class _Legacy:
    """`tf.keras.optimizers.legacy`: Keras 3 keeps only these six names, none constructible."""
    Adagrad = Adam = Ftrl = Optimizer = RMSprop = SGD = LegacyOptimizerWarning


legacy = _Legacy()
