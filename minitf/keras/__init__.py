"""tf.keras: the Keras API of minitf. Re-exports only; each name is defined in its own module."""
import importlib

# Each namespace is a module of this package (a thin re-export of the defining package), so
# `import minitf.keras.layers`, `from minitf.keras.layers import Dense` and the attribute
# `tf.keras.layers` all give one module object, as in TF. They load on first use: the layers
# import minitf.keras_core.node, so this package must not import them when it loads.
_SUBMODULES = {name: f"minitf.keras.{name}" for name in (
    "layers", "models", "optimizers", "losses", "metrics", "activations", "initializers",
    "regularizers", "constraints", "callbacks", "datasets", "utils", "applications", "backend",
    "config", "preprocessing", "saving", "mixed_precision", "ops", "random")}
_NAMES = {
    "Model": ("minitf.keras.models", "Model"), "Sequential": ("minitf.keras.models", "Sequential"),
    "Input": ("minitf.keras.models", "Input"), "Layer": ("minitf.keras.layers", "Layer"),
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
