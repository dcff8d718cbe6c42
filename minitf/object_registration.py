"""Custom Keras objects by name: `register_keras_serializable`, `get_custom_objects`,
`custom_object_scope`, as `tf.keras.saving` has them.

A config names a class by its registered name: `'<package>>' + name` for a registered class
('MyPackage>MyLayer'), the class name otherwise. Loading looks a name up in the innermost
`custom_object_scope` first, then the global registry, then the `custom_objects` argument.
"""
import inspect
import threading
from minitf.api_export import export

__all__ = ["register_keras_serializable", "get_custom_objects", "custom_object_scope", "CustomObjectScope",
           "get_registered_name", "get_registered_object", "merged_custom_objects"]

_GLOBAL_CUSTOM_OBJECTS = {}   # registered name -> class or function
_GLOBAL_CUSTOM_NAMES = {}     # class or function -> registered name


class _ScopeStack(threading.local):
    def __init__(self):
        self.scopes = []


_SCOPES = _ScopeStack()


@export("utils.register_keras_serializable", "keras.saving.register_keras_serializable",
        "keras.utils.register_keras_serializable")
def register_keras_serializable(package="Custom", name=None):
    """A decorator that registers a class or function for saving: configs then name it
    `'<package>><name>'` (name defaults to its `__name__`) and loading finds it without
    `custom_objects`.

    Raises:
      ValueError: a class without `get_config` (it could not be saved), or a package name
        containing '>'.
    """
    if ">" in str(package):
        raise ValueError(f"register_keras_serializable: the package name may not contain '>', got {package!r}")

    def decorator(obj):
        registered = f"{package}>{name if name is not None else obj.__name__}"
        if inspect.isclass(obj) and not hasattr(obj, "get_config"):
            raise ValueError(f"Cannot register {obj.__name__}: a class registered for saving needs a "
                             f"get_config() method.")
        _GLOBAL_CUSTOM_OBJECTS[registered] = obj
        _GLOBAL_CUSTOM_NAMES[obj] = registered
        return obj
    return decorator


@export("utils.get_custom_objects", "keras.saving.get_custom_objects",
        "keras.utils.get_custom_objects")
def get_custom_objects():
    """The global registry itself ({registered name: object}); adding entries registers them."""
    return _GLOBAL_CUSTOM_OBJECTS


@export("utils.CustomObjectScope", "utils.custom_object_scope", "keras.saving.CustomObjectScope",
        "keras.saving.custom_object_scope", "keras.utils.CustomObjectScope",
        "keras.utils.custom_object_scope")
class CustomObjectScope:
    """Within `with CustomObjectScope({'name': obj, ...}):`, loading finds these objects by name.

    Scopes nest; the innermost wins.
    """

    def __init__(self, *custom_objects):
        self._objects = {}
        for objects in custom_objects:
            if objects is not None:
                self._objects.update(objects)

    def __enter__(self):
        _SCOPES.scopes.append(self._objects)
        return self

    def __exit__(self, *exc):
        _SCOPES.scopes.pop()


custom_object_scope = CustomObjectScope


@export("utils.get_registered_name", "keras.saving.get_registered_name",
        "keras.utils.get_registered_name")
def get_registered_name(obj):
    """The name a config uses for `obj`: its registered name, else its `__name__`."""
    try:
        registered = _GLOBAL_CUSTOM_NAMES.get(obj)
    except TypeError:  # unhashable objects are never registered
        registered = None
    return registered if registered is not None else obj.__name__


@export("utils.get_registered_object", "keras.saving.get_registered_object",
        "keras.utils.get_registered_object")
def get_registered_object(name, custom_objects=None, module_objects=None):
    """The object called `name` in the active scopes, the global registry, `custom_objects` or
    `module_objects`, searched in that order; None when none has it."""
    for scope in reversed(_SCOPES.scopes):
        if name in scope:
            return scope[name]
    for table in (_GLOBAL_CUSTOM_OBJECTS, custom_objects or {}, module_objects or {}):
        if name in table:
            return table[name]
    return None


def merged_custom_objects(custom_objects=None):
    """One {name: object} dict of everything loading may use, with `get_registered_object`'s
    precedence: the active scopes (innermost first), the global registry, `custom_objects`."""
    merged = dict(custom_objects or {})
    merged.update(_GLOBAL_CUSTOM_OBJECTS)
    for scope in _SCOPES.scopes:
        merged.update(scope)
    return merged
