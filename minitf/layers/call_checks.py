"""Argument checks of every Keras layer, as Keras 3 makes them: what may be passed positionally
to a layer call, and constructor errors that name the layer's class."""
import functools

from minitf.nest import nest
from minitf.keras_core.keras_tensor import KerasTensor
from minitf.tensor import Tensor
from minitf.variable import Variable

__all__ = ["naming_errors", "check_positional_inputs"]


def naming_errors(init):
    """A built-in layer's __init__ whose argument errors name the layer's class (the shared
    checks they come from, such as activations.get, cannot know it)."""
    @functools.wraps(init)
    def __init__(self, *args, **kwargs):
        try:
            init(self, *args, **kwargs)
        except (TypeError, ValueError) as e:
            name = type(self).__name__
            if type(e) not in (TypeError, ValueError) or name.lower() in str(e).lower():
                raise
            raise type(e)(f"{name}: {e}") from None
    return __init__


def check_positional_inputs(layer, inputs):
    """Keras 3's rule: what is passed positionally is tensors (arrays become tensors) or None;
    a Python number, string or list of them raises ValueError. Preprocessing layers and
    functional models take other values, as in Keras 3."""
    if (getattr(layer, "_is_graph_network", False) and not getattr(layer, "_is_sequential", False)) or \
            any(c.__module__.startswith("minitf.layers.preprocessing") for c in type(layer).__mro__):
        return
    for leaf in nest.flatten(inputs):
        if leaf is not None and not isinstance(leaf, (Tensor, Variable, KerasTensor)) \
                and not hasattr(leaf, "__array__") and not hasattr(type(leaf), "__tf_tensor__"):
            raise ValueError(f"{type(layer).__name__} (layer {layer.name!r}): only input tensors may be passed "
                             f"as positional arguments. The following argument value should be passed as a "
                             f"keyword argument: {leaf!r} (of type {type(leaf)}); convert inputs with "
                             f"tf.constant or numpy.asarray")
