"""Keras' global settings: the default float type, epsilon, the image layout and clear_session.

This module is the bottom of the Keras tier and imports nothing from minitf, so every Keras
module (layers, losses, the keras.ops functions) can read the settings. `minitf.keras.backend`
and `minitf.keras.config` re-export these functions. Modules that keep per-session state (the
automatic layer names, the global seed generator) register a reset with `on_clear_session`.
"""
from minitf.api_export import export

__all__ = ["floatx", "set_floatx", "epsilon", "set_epsilon", "image_data_format",
           "set_image_data_format", "standardize_data_format", "clear_session",
           "on_clear_session", "backend"]

_settings = {"floatx": "float32", "epsilon": 1e-7, "image_data_format": "channels_last"}
_session_resets = []  # functions that forget per-session state, run by clear_session()


def on_clear_session(reset):
    """Run `reset()` on every `clear_session()` (each function is registered once)."""
    if reset not in _session_resets:
        _session_resets.append(reset)


@export("keras.backend.floatx", "keras.config.floatx")
def floatx():
    """The default float type of new layers' weights and of Keras ops ('float32')."""
    return _settings["floatx"]


@export("keras.backend.set_floatx", "keras.config.set_floatx")
def set_floatx(value):
    """Set the default float type ('float16', 'float32' or 'float64')."""
    if value not in ("float16", "float32", "float64"):
        raise ValueError(f"Unknown floatx type: {value!r}; use 'float16', 'float32' or 'float64'.")
    _settings["floatx"] = value


@export("keras.backend.epsilon", "keras.config.epsilon")
def epsilon():
    """The fuzz factor used by losses, metrics and the Keras ops (1e-7)."""
    return _settings["epsilon"]


@export("keras.backend.set_epsilon", "keras.config.set_epsilon")
def set_epsilon(value):
    """Set the fuzz factor."""
    _settings["epsilon"] = float(value)


@export("keras.backend.image_data_format", "keras.config.image_data_format")
def image_data_format():
    """The layout conv and pooling layers assume when data_format=None ('channels_last')."""
    return _settings["image_data_format"]


@export("keras.backend.set_image_data_format", "keras.config.set_image_data_format")
def set_image_data_format(data_format):
    """Set the default layout of conv and pooling layers: 'channels_last' or 'channels_first'."""
    _settings["image_data_format"] = standardize_data_format(data_format, default="channels_last")


def standardize_data_format(data_format, default=None):
    """`data_format` lower-cased and checked; None gives the global image layout."""
    if data_format is None:
        return default or image_data_format()
    value = str(data_format).lower()
    if value not in ("channels_last", "channels_first"):
        raise ValueError("The `data_format` argument must be one of {'channels_first', "
                         f"'channels_last'}}. Received: data_format={data_format!r}")
    return value


@export("keras.backend.clear_session", "keras.utils.clear_session", "utils.clear_session")
def clear_session(free_memory=True):
    """Forget global Keras state: automatic layer names start again from 'dense', 'dense_1', ...,
    and the global seed generator and `get_uid` counters start afresh."""
    for reset in _session_resets:
        reset()


@export("keras.backend.backend")
def backend():
    """The name of the backend Keras runs on: 'tensorflow' (minitf stands in for it)."""
    return "tensorflow"
