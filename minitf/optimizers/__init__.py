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
    """Build an optimizer from `serialize()` output (class names are case-insensitive)."""
    name = config["class_name"]
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


class _Legacy:
    """`tf.keras.optimizers.legacy`: the same classes (minitf has one optimizer family)."""
    Optimizer, SGD, Adam, RMSprop, Adagrad, Adadelta, Adamax, Nadam, Ftrl = (
        Optimizer, SGD, Adam, RMSprop, Adagrad, Adadelta, Adamax, Nadam, Ftrl)


legacy = _Legacy()
