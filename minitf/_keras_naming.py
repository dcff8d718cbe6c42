"""Keras' naming rules and default float type, shared by every Keras object.

Layers, models, losses, metrics and optimizers all take their default name from the class
name in snake_case, made unique per process with one shared counter ('dense', 'dense_1',
...; a `Mean` metric and a layer named 'mean' count together, as in Keras). This module sits
below all of them so that losses and metrics need not import the layers.
"""
import re
import threading

from minitf.keras import backend as _keras_backend

__all__ = ["to_snake_case", "unique_layer_name", "clear_session", "floatx"]

_name_counts = {}
_name_lock = threading.Lock()


def unique_layer_name(base):
    """A process-unique name built on `base`.

    Args:
        base: the preferred name, usually `to_snake_case(type(obj).__name__)`.

    Returns:
        `base` the first time, then `base_1`, `base_2`, ... on later calls.
    """
    with _name_lock:
        count = _name_counts.get(base, 0)
        _name_counts[base] = count + 1
    return base if count == 0 else f"{base}_{count}"


def clear_session():
    """Forget the names handed out so far: automatic names start again at 'dense', 'dense_1'."""
    with _name_lock:
        _name_counts.clear()


def to_snake_case(name):
    """Keras' naming rule (keras.src.utils.naming.to_snake_case), used for every Keras object:
    layer, model, metric and loss default names and '.weights.h5' group names.

    'Conv2DTranspose' -> 'conv2d_transpose', 'ReLU' -> 're_lu', 'my.layer' -> 'mylayer'.
    (Plain tf.Modules follow TF's own rule, `minitf.module.camel_to_snake`: 'conv2_d'.)
    """
    name = re.sub(r"\W+", "", name)
    name = re.sub(r"(.)([A-Z][a-z]+)", r"\1_\2", name)
    return re.sub(r"([a-z])([A-Z])", r"\1_\2", name).lower()


def floatx():
    """The default float type of weights, losses and metrics ('float32' unless
    `tf.keras.backend.set_floatx` changed it)."""
    return _keras_backend.floatx()
