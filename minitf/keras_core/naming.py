"""Keras' naming rules, shared by every Keras object.

Layers, models, losses, metrics and optimizers all take their default name from the class
name in snake_case, made unique per process with one shared counter ('dense', 'dense_1',
...; a `Mean` metric and a layer named 'mean' count together, as in Keras). This module sits
below all of them so that losses and metrics need not import the layers.
"""
import threading

from minitf.keras_core import config
from minitf.snake_case import keras_rule as to_snake_case

__all__ = ["to_snake_case", "unique_layer_name", "clear_session"]

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


# tf.keras.backend.clear_session() restarts the automatic names ('dense', 'dense_1', ...):
# registered here, where the names are handed out, so it holds for a program that has made
# optimizers or metrics but never loaded the layers.
config.on_clear_session(clear_session)
