"""Which callables AutoGraph converts when converted code calls them.

User code is converted; library code runs as written: minitf itself, numpy, TensorFlow and
Keras, the standard library and builtins, and TF's list of packages (pandas, matplotlib, ...).
So are generators, named tuples, classes (constructors), `functools.lru_cache` wrappers,
methods of `unittest.TestCase` subclasses and methods whose defining class is library code.
Calls found to need no conversion are remembered per callable and options.
"""
import functools
import inspect
import sys
import unittest
import weakref

__all__ = ["is_unsupported", "is_allowlisted", "in_allowlist_cache", "cache_allowlisted"]

# TF's DoNotConvert rules (autograph/core/config.py), with minitf and cupy added.
_DO_NOT_CONVERT = (
    "minitf", "numpy", "cupy", "tensorflow", "keras", "tf_keras", "collections", "copy",
    "cProfile", "inspect", "ipdb", "linecache", "mock", "pathlib", "pdb", "posixpath", "pstats",
    "re", "threading", "urllib", "matplotlib", "pandas", "PIL", "absl.logging",
    "tensorflow_probability", "tensorflow_datasets.core")
_CONVERT = ("tensorflow.python.training.experimental",)
_STDLIB = frozenset(getattr(sys, "stdlib_module_names", ())) | {"builtins", "__future__"}
_allowlist_cache = weakref.WeakKeyDictionary()


def _matches(module_name, prefix):
    return module_name == prefix or module_name.startswith(prefix + ".")


def _module_action(module_name):
    """"convert", "skip" or None (no rule) for a module name."""
    if any(_matches(module_name, p) for p in _CONVERT):
        return "convert"
    if any(_matches(module_name, p) for p in _DO_NOT_CONVERT):
        return "skip"
    if module_name.split(".")[0] in _STDLIB:
        return "skip"
    return None


def _is_of_loaded_module(f, module_name):
    owner = getattr(f, "__module__", None)
    if isinstance(owner, str) and owner.split(".")[0].lstrip("_") != module_name:
        return False  # defined elsewhere: no need to scan the module (speed)
    module = sys.modules.get(module_name)
    return module is not None and any(v is f for v in vars(module).values() if v is not None)


def _is_namedtuple(f):
    return isinstance(f, type) and issubclass(f, tuple) and hasattr(f, "_fields")


def is_unsupported(f):
    """Whether `f` can never be converted: a class (constructor), an lru_cache or wrapt
    wrapper, a function of collections/pdb/copy/inspect/re."""
    if type(f).__name__ in ("FunctionWrapper", "BoundFunctionWrapper") and \
            type(f).__module__.startswith("wrapt"):
        return True
    if isinstance(f, functools._lru_cache_wrapper):
        return True
    if inspect.isclass(f):
        return True
    return any(_is_of_loaded_module(f, m) for m in ("collections", "pdb", "copy", "inspect", "re"))


def _defining_class(method, owner):
    """The class in `owner`'s MRO whose namespace defines the method."""
    function = getattr(method, "__func__", method)
    for cls in owner.__mro__:
        value = vars(cls).get(getattr(function, "__name__", None))
        if value is not None and getattr(value, "__func__", value) is function:
            return cls
    return owner


def is_allowlisted(f, check_call_override=True, allow_namedtuple_subclass=False):
    """Whether `f` is library code that converted code calls as it is."""
    module = functools if isinstance(f, functools.partial) else inspect.getmodule(f)
    if module is not None and hasattr(module, "__name__"):
        action = _module_action(module.__name__)
        if action == "convert":
            return False
        if action == "skip":
            return True
    if hasattr(f, "__code__") and inspect.isgeneratorfunction(f):
        return True  # generators are never converted
    if check_call_override and not inspect.isclass(f) and hasattr(f, "__call__"):
        call = f.__call__
        if type(f) is not type(call) and is_allowlisted(call):
            return True
    if inspect.ismethod(f):
        owner = f.__self__ if inspect.isclass(f.__self__) else type(f.__self__)
        if issubclass(owner, unittest.TestCase):
            return True
        if is_allowlisted(_defining_class(f, owner), check_call_override=False,
                          allow_namedtuple_subclass=True):
            return True
    if _is_namedtuple(f):
        if allow_namedtuple_subclass:
            return not any(_is_namedtuple(base) for base in f.__bases__)
        return True
    return False


def _cache_key(f):
    return getattr(f, "__func__", f)


def in_allowlist_cache(f, options):
    """Whether `f` was found to run unconverted with `options` before."""
    try:
        return options in _allowlist_cache.get(_cache_key(f), ())
    except TypeError:
        return False


def cache_allowlisted(f, options):
    """Remember that `f` runs unconverted with `options`."""
    try:
        _allowlist_cache.setdefault(_cache_key(f), set()).add(options)
    except TypeError:
        pass
