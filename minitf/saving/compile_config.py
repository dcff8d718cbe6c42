"""The compile config a `.keras` file carries: `model.compile`'s arguments in Keras 3's form.

Optimizers, losses and metrics are written as their families serialize them (names stay
names, objects become `{'module', 'class_name', 'config', 'registered_name'}` dicts); a function
of the user's own is written by name, as Keras does, and found again through registration or
`custom_objects` when the file is loaded.
"""
from minitf import losses, metrics, optimizers
from minitf.object_registration import get_registered_name

__all__ = ["serialize_compile_config", "deserialize_compile_config"]

_PLAIN = ("loss_weights", "run_eagerly", "steps_per_execution", "jit_compile")


def _serialize(value, serialize):
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    if isinstance(value, (list, tuple)):
        return [_serialize(v, serialize) for v in value]
    if isinstance(value, dict):
        return {k: _serialize(v, serialize) for k, v in value.items()}
    try:
        return serialize(value)
    except ValueError:  # a function of the user's own: written by name
        return {"module": getattr(value, "__module__", None), "class_name": "function",
                "config": getattr(value, "__name__", repr(value)), "registered_name": get_registered_name(value)}


def serialize_compile_config(config):
    """Keras 3's compile config from the arguments `compile` kept (`model._compile_config`)."""
    optimizer = config.get("optimizer")
    out = {"optimizer": optimizers.serialize(optimizer) if optimizer is not None else None,
           "loss": _serialize(config.get("loss"), losses.serialize),
           "metrics": _serialize(config.get("metrics"), metrics.serialize),
           "weighted_metrics": _serialize(config.get("weighted_metrics"), metrics.serialize)}
    out.update({key: config.get(key) for key in _PLAIN})
    return out


def _deserialize(value, deserialize, custom_objects):
    if isinstance(value, list):
        return [_deserialize(v, deserialize, custom_objects) for v in value]
    if isinstance(value, dict) and "class_name" in value:
        return deserialize(value, custom_objects)
    if isinstance(value, dict):
        return {k: _deserialize(v, deserialize, custom_objects) for k, v in value.items()}
    return value  # names and None: compile resolves them


def deserialize_compile_config(config, custom_objects=None):
    """The keyword arguments of `model.compile` that a stored compile config describes."""
    kwargs = {key: config[key] for key in _PLAIN if key in config}
    optimizer = config.get("optimizer")
    kwargs["optimizer"] = (optimizers.deserialize(optimizer, custom_objects) if isinstance(optimizer, dict)
                           else optimizer)
    kwargs["loss"] = _deserialize(config.get("loss"), losses.deserialize, custom_objects)
    for key in ("metrics", "weighted_metrics"):
        kwargs[key] = _deserialize(config.get(key), metrics.deserialize, custom_objects)
    return kwargs
