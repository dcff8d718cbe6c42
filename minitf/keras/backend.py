"""tf.keras.backend: global Keras settings (float type, epsilon, image layout) and clear_session.

This module is the bottom of the Keras tier: it imports nothing from minitf. Modules that keep
per-session state (the automatic layer names) register a reset with `on_clear_session`.
"""

_settings = {"floatx": "float32", "epsilon": 1e-7, "image_data_format": "channels_last"}
_session_resets = []  # functions that forget per-session state, run by clear_session()


def on_clear_session(reset):
    """Run `reset()` on every `clear_session()` (each function is registered once)."""
    if reset not in _session_resets:
        _session_resets.append(reset)


def floatx():
    """The default float type of new layers' weights ('float32')."""
    return _settings["floatx"]


def set_floatx(value):
    """Set the default float type ('float16', 'float32' or 'float64')."""
    if value not in ("float16", "float32", "float64"):
        raise ValueError(f"Unknown floatx type: {value!r}; use 'float16', 'float32' or 'float64'.")
    _settings["floatx"] = value


def epsilon():
    """The fuzz factor used by losses and metrics (1e-7)."""
    return _settings["epsilon"]


def set_epsilon(value):
    """Set the fuzz factor."""
    _settings["epsilon"] = float(value)


def image_data_format():
    """The layout conv and pooling layers assume when data_format=None ('channels_last')."""
    return _settings["image_data_format"]


def set_image_data_format(data_format):
    """Set the default layout of conv and pooling layers: 'channels_last' or 'channels_first'."""
    value = str(data_format).lower()
    if value not in ("channels_last", "channels_first"):
        raise ValueError(f"The `data_format` argument must be one of {{'channels_first', 'channels_last'}}. "
                         f"Received: data_format={data_format!r}")
    _settings["image_data_format"] = value


def clear_session():
    """Forget global Keras state: automatic layer names start again from 'dense', 'dense_1', ..."""
    for reset in _session_resets:
        reset()
