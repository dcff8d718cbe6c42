"""tf.keras: the Keras API of minitf. Re-exports only; each name is defined in its own module."""
import importlib

_SUBMODULES = {
    "layers": "minitf.layers", "models": "minitf.models", "optimizers": "minitf.optimizers",
    "losses": "minitf.losses", "metrics": "minitf.metrics", "activations": "minitf.activations",
    "initializers": "minitf.initializers", "regularizers": "minitf.regularizers",
    "constraints": "minitf.constraints", "callbacks": "minitf.callbacks",
    "datasets": "minitf.datasets", "utils": "minitf.utils", "applications": "minitf.applications",
    "backend": "minitf.keras.backend", "config": "minitf.keras.config",
}
_NAMES = {
    "Model": ("minitf.models", "Model"), "Sequential": ("minitf.models", "Sequential"),
    "Input": ("minitf.models", "Input"), "Layer": ("minitf.layers", "Layer"),
}


def __getattr__(name):
    if name in _SUBMODULES:
        module = importlib.import_module(_SUBMODULES[name])
        globals()[name] = module
        return module
    if name in _NAMES:
        module_name, attr = _NAMES[name]
        value = getattr(importlib.import_module(module_name), attr)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'minitf.keras' has no attribute {name!r}")


def __dir__():
    return sorted(list(_SUBMODULES) + list(_NAMES))
