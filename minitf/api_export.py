"""Public TF paths, declared once where each name is defined.

`@export("math.add", "add")` above a function or class, or `export_value("float32", "float32",
"dtypes.float32")` in a module body for a value that cannot be decorated (a dtype, an instance,
an alias), records which public paths (relative to the `tf` root) name the module's attribute.
Neither wraps nor changes the object. `tools/generate_api.py` imports every module, reads
`EXPORTS`, and writes the public namespaces (`minitf/__init__.py`, `minitf/math.py`,
`minitf/keras/layers.py`, ...) as lazy tables built by `namespace_module` below.

This is a bottom module: it imports nothing from minitf.
"""
import importlib
import sys
import types

__all__ = ["export", "export_value", "EXPORTS", "ExportConflictError", "namespace_getattr",
           "keep_public_names"]

# (defining module, attribute) -> the public paths declared for it, in declaration order.
EXPORTS = {}
# public path -> (defining module, attribute): one definition per path.
_BY_PATH = {}


class ExportConflictError(ValueError):
    """Two definitions claim one public path."""


def _record(module, attribute, paths):
    for path in paths:
        if not isinstance(path, str) or not path or path.startswith(".") or path.endswith("."):
            raise ValueError(f"{module}.{attribute}: a public path is a dotted name relative to the "
                             f"tf root, like 'math.add'; got {path!r}")
        owner = _BY_PATH.get(path)
        if owner is not None and owner != (module, attribute):
            raise ExportConflictError(
                f"tf.{path} is declared twice: by {owner[0]}.{owner[1]} and by {module}.{attribute}; "
                f"a public path names one definition (remove one of the declarations)")
    declared = EXPORTS.setdefault((module, attribute), [])
    for path in paths:
        _BY_PATH[path] = (module, attribute)
        if path not in declared:
            declared.append(path)


def export(*paths):
    """Decorator: the function or class it decorates is public at each of `paths`.

    Returns the object unchanged. The defining module is the module whose body runs the
    decorator, and the attribute is the object's `__name__`.
    """
    module = sys._getframe(1).f_globals.get("__name__")

    def declare(obj):
        _record(module, obj.__name__, paths)
        return obj
    return declare


def export_value(attribute, *paths):
    """Declare that the calling module's `attribute` is public at each of `paths` (for values
    that cannot be decorated: dtypes, constants, instances, aliases of other names)."""
    _record(sys._getframe(1).f_globals.get("__name__"), attribute, paths)


def namespace_getattr(namespace, name):
    """The value of a generated namespace's `name`: imports its defining module on first use
    and caches the value in the namespace's globals. `namespace` is the module's globals()."""
    target = namespace["_NAMES"].get(name)
    if target is None:
        child = namespace["_NAMESPACES"].get(name)
        if child is None:
            raise AttributeError(f"module {namespace['__name__']!r} has no attribute {name!r}")
        value = importlib.import_module(child)
    else:
        _bootstrap()
        value = getattr(importlib.import_module(target[0]), target[1])
    namespace[name] = value
    return value


class _Namespace(types.ModuleType):
    """A generated namespace where a public name shares its name with a submodule
    (`tf.function` and minitf/function.py): when the submodule loads, the import system binds it
    on its parent; the public name keeps its value instead."""

    def __setattr__(self, name, value):
        if (isinstance(value, types.ModuleType) and name in self.__dict__.get("_SHADOWED", ())
                and value.__name__ == f"{self.__name__}.{name}"):
            return
        super().__setattr__(name, value)


def keep_public_names(module_name):
    """Called by a generated namespace whose `_SHADOWED` names are also submodules."""
    sys.modules[module_name].__class__ = _Namespace


# Modules whose import installs what every tensor relies on (Tensor's operators, the packer
# convert_to_tensor uses for lists of tensors): loaded before the first public value is handed out.
_BOOTSTRAP = ("minitf.ops.operators", "minitf.ops.shaping")
_booted = []


def _bootstrap():
    if not _booted:
        _booted.append(True)
        for module in _BOOTSTRAP:
            importlib.import_module(module)
