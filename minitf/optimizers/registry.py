"""The registry of built-in optimizers, tf.keras.optimizers.get/serialize/deserialize,
and the legacy optimizer names Keras 3 keeps (none of them constructible)."""
from minitf._keras_objects import Registry
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
from minitf.optimizers.loss_scale_optimizer import LossScaleOptimizer
from minitf.api_export import export, export_value


OPTIMIZERS = Registry("optimizer", "keras.optimizers", base=Optimizer, accept_callables=False,
                      case_insensitive=True)
for _cls in (SGD, Adam, AdamW, RMSprop, Adagrad, Adadelta, Adamax, Nadam, Ftrl, LossScaleOptimizer):
    OPTIMIZERS.register(_cls)
LossScaleOptimizer._registry = OPTIMIZERS  # it (de)serializes its inner optimizer through the registry


@export("optimizers.serialize", "keras.optimizers.serialize")
def serialize(optimizer):
    """Keras 3's dict `{'module', 'class_name', 'config', 'registered_name'}` for an optimizer."""
    return OPTIMIZERS.serialize(optimizer)


@export("optimizers.deserialize", "keras.optimizers.deserialize")
def deserialize(config, custom_objects=None):
    """A new optimizer from `serialize()` output (class names are case-insensitive).

    Like Keras 3, a built-in class name is lower-cased in `config` itself ('SGD' -> 'sgd'),
    so a dict that went through deserialize reads 'sgd' afterwards. ValueError for an
    unknown class name.
    """
    return OPTIMIZERS.deserialize(config, custom_objects)


@export("optimizers.get", "keras.optimizers.get")
def get(identifier):
    """An optimizer from an instance (returned as it is), a name ('adam', any case) or a
    serialized dict; ValueError otherwise."""
    return OPTIMIZERS.get(identifier)


@export("keras.optimizers.legacy.Adagrad", "keras.optimizers.legacy.Adam",
        "keras.optimizers.legacy.Ftrl", "keras.optimizers.legacy.Optimizer",
        "keras.optimizers.legacy.RMSprop", "keras.optimizers.legacy.SGD")
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
export_value("legacy", "optimizers.legacy")
