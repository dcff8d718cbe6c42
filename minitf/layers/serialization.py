"""tf.keras.layers.serialize / deserialize in Keras 3's layout, plus the function (de)serialization
used by Lambda layers and the safe-mode switch that guards loading Python bytecode.

A serialized layer is `{'module', 'class_name', 'config', 'registered_name'}` (with
`'build_config'` once the layer is built); `deserialize` also reads Keras 2's
`{'class_name', 'config'}`. Named functions are written by name and looked up again in
`custom_objects` or minitf's built-in activations/losses/metrics; Python lambdas are written as
base64 marshalled bytecode with their defaults and closure values, and loading those is refused
while safe mode is on (the default), exactly as Keras does.
"""
import base64
import builtins
import contextvars
import importlib
import inspect
import marshal
import sys
import threading
import types

from minitf.activations.activations import ACTIVATIONS
from minitf.constraints import CONSTRAINTS
from minitf.initializers.initializers import INITIALIZERS
from minitf.keras_core.node import call_accepts
from minitf.layers.base import BUILTIN_LAYER_CLASSES, Layer
from minitf.losses.registry import LOSSES
from minitf.metrics.registry import METRICS
from minitf.object_registration import get_registered_name, merged_custom_objects
from minitf.optimizers.registry import OPTIMIZERS
from minitf.optimizers.schedules.schedules import SCHEDULES
from minitf.regularizers.regularizers import REGULARIZERS
from minitf.api_export import export

__all__ = ["serialize", "deserialize", "enable_unsafe_deserialization", "in_safe_mode",
           "SafeModeScope", "serialize_function", "deserialize_function"]

_LAMBDA = "__lambda__"
_BUILTIN_MODULE = "keras.layers"

# The registries of the other Keras families: objects nested in a layer's config (initializers,
# regularizers, ...) are named after their family's public module, and built-in functions
# are found by name in activations, then losses, then metrics (the order Keras searches).
_FAMILIES = (ACTIVATIONS, INITIALIZERS, REGULARIZERS, CONSTRAINTS, LOSSES, METRICS, OPTIMIZERS,
             SCHEDULES)
_FAMILY_BY_MODULE = {family.module: family for family in _FAMILIES}
_FUNCTION_FAMILIES = (ACTIVATIONS, LOSSES, METRICS)


# -- safe mode ----------------------------------------------------------------------------------
class _SafeMode(threading.local):
    enabled = True  # this thread's default, switched off by enable_unsafe_deserialization()


# The setting of the innermost `SafeModeScope` of the current thread (None: no scope). A context
# variable rather than a class attribute so that one thread opening `SafeModeScope(False)` to
# load a trusted file never lets another thread run bytecode from an untrusted one; new threads
# start with the default (None), asyncio tasks get a copy of their creator's value.
_SCOPE = contextvars.ContextVar("minitf_safe_mode_scope", default=None)
_safe_mode = _SafeMode()


@export("keras.config.enable_unsafe_deserialization")
def enable_unsafe_deserialization():
    """Allow loading Python lambdas (bytecode) from configs in the calling thread from now on.

    minitf's counterpart of `keras.config.enable_unsafe_deserialization()`, and like it a
    per-thread switch: other threads stay safe. Only call it when the configs come from a
    source you trust; a `SafeModeScope` still overrides it inside its scope.
    """
    _safe_mode.enabled = False


def in_safe_mode():
    """True while loading lambda bytecode from configs is refused in the calling thread.

    The innermost `SafeModeScope` of this thread decides; outside any scope, the thread's
    default (safe unless `enable_unsafe_deserialization()` was called in this thread).
    """
    scoped = _SCOPE.get()
    return _safe_mode.enabled if scoped is None else scoped


class SafeModeScope:
    """Context manager that sets safe mode for the deserialization calls inside it.

    The setting applies to the calling thread (and asyncio task) only: other threads keep
    their own scopes or the process-wide default, so `SafeModeScope(False)` in one thread never
    lets another thread load lambda bytecode. `safe_mode=None` keeps the enclosing setting.
    """

    def __init__(self, safe_mode=True):
        self.safe_mode = None if safe_mode is None else bool(safe_mode)
        self._tokens = []

    def __enter__(self):
        value = _SCOPE.get() if self.safe_mode is None else self.safe_mode
        self._tokens.append(_SCOPE.set(value))
        return self

    def __exit__(self, *exc_info):
        _SCOPE.reset(self._tokens.pop())
        return False


def _resolve_safe_mode(safe_mode):
    """An explicit `safe_mode` wins; otherwise the process-wide setting (safe by default)."""
    return in_safe_mode() if safe_mode is None else safe_mode is not False


def _refuse_lambda(what):
    raise ValueError(
        f"Requested the deserialization of {what} that is a Python lambda. Loading its bytecode "
        f"can run arbitrary code, so it is disallowed by default. If you trust the source of "
        f"the config, pass `safe_mode=False` to the loading function or call "
        f"`minitf.layers.serialization.enable_unsafe_deserialization()` (Keras: "
        f"`keras.config.enable_unsafe_deserialization()`).")


# -- functions ----------------------------------------------------------------------------------
def _is_lambda(fn):
    return isinstance(fn, types.LambdaType) and fn.__name__ == "<lambda>"


def _dump_lambda(fn):
    """(base64 marshalled code, defaults, closure cell values) of a Python function."""
    code = base64.encodebytes(marshal.dumps(fn.__code__)).decode("ascii")
    closure = tuple(c.cell_contents for c in fn.__closure__) if fn.__closure__ else None
    return code, fn.__defaults__, closure


def _cell(value):
    return (lambda: value).__closure__[0]


def _load_lambda(code, defaults=None, closure=None):
    """A new function from `_dump_lambda`'s output (its globals are only the builtins)."""
    if isinstance(code, (list, tuple)):
        code, defaults, closure = code
    raw = base64.decodebytes(code.encode("ascii"))
    func_code = marshal.loads(raw)
    cells = tuple(_cell(v) for v in closure) if closure is not None else None
    return types.FunctionType(func_code, {"__builtins__": builtins}, func_code.co_name,
                              tuple(defaults) if defaults is not None else None, cells)


def serialize_function(fn):
    """Config form of a callable: lambdas as bytecode, named functions by name (as Keras 3)."""
    if _is_lambda(fn):
        code, defaults, closure = _dump_lambda(fn)
        return {"class_name": _LAMBDA,
                "config": {"code": code, "defaults": defaults, "closure": closure}}
    if hasattr(fn, "get_config") and not isinstance(fn, types.FunctionType):
        return _serialize_object(fn)
    if callable(fn) and hasattr(fn, "__name__"):
        kind = type(fn).__name__
        return {"module": type(fn).__module__, "class_name": kind, "config": fn.__name__,
                "registered_name": kind}
    raise ValueError(f"Invalid input type for serialization. Received: {fn} of type "
                     f"{type(fn)}.")


def _builtin_function(name):
    """A minitf built-in function by name (activations first, as Keras searches them)."""
    for family in _FUNCTION_FAMILIES:
        fn = family.function(name)
        if fn is not None:
            return fn
    return None


def deserialize_function(config, custom_objects=None, safe_mode=None, what="a function"):
    """A callable from `serialize_function`'s output, a Keras 2 name, or a callable itself.

    Lambdas (bytecode) are refused with ValueError in safe mode; names are looked up in
    `custom_objects`, then minitf's activations, losses and metrics (TypeError if absent).
    """
    if callable(config):
        return config
    if isinstance(config, dict) and config.get("class_name") == _LAMBDA:
        if _resolve_safe_mode(safe_mode):
            _refuse_lambda(what)
        inner = config["config"]
        if "value" in inner:  # the generic Keras 3 object layout
            return _load_lambda(inner["value"])
        return _load_lambda(inner["code"], inner.get("defaults"), inner.get("closure"))
    if isinstance(config, dict) and not isinstance(config.get("config"), str):
        return _deserialize_object(config, custom_objects)
    name = config["config"] if isinstance(config, dict) else config
    if not isinstance(name, str):
        raise TypeError(f"Expected a function name or config, got {config!r}.")
    custom = dict(custom_objects or {})
    fn = custom.get(name)
    if fn is None:  # Keras 3.6 and older saved 'name' for a function registered as 'pkg>name'
        fn = next((obj for key, obj in custom.items() if key.endswith(">" + name)), None)
    if fn is None:
        fn = _builtin_function(name)
    if fn is None:
        raise TypeError(f"Could not locate function {name!r}. Make sure custom functions are "
                        f"passed in `custom_objects`. Full object config: {config}")
    return fn


# -- layers -------------------------------------------------------------------------------------
# The packages whose classes register as built-in layers. The models package sits above the
# layers, so it is loaded by name (once, on the first miss) rather than imported from here.
# The modules that define built-in layers and models: each class registers itself on import.
_BUILTIN_MODULES = (
    "minitf.layers.input_layer",
    "minitf.layers.core",
    "minitf.layers.convolutional",
    "minitf.layers.pooling",
    "minitf.layers.normalization",
    "minitf.layers.regularization",
    "minitf.layers.reshaping",
    "minitf.layers.merging",
    "minitf.layers.activation",
    "minitf.layers.embedding",
    "minitf.layers.preprocessing.rescaling",
    "minitf.layers.preprocessing.numeric",
    "minitf.layers.preprocessing.image",
    "minitf.layers.preprocessing.augment",
    "minitf.layers.preprocessing.lookup",
    "minitf.layers.preprocessing.text",
    "minitf.layers.einsum_dense",
    "minitf.layers.attention",
    "minitf.layers.multi_head_attention",
    "minitf.layers.group_normalization",
    "minitf.layers.masking",
    "minitf.layers.rnn.cells",  # the package itself imports none of its modules
    "minitf.layers.rnn.rnn",
    "minitf.layers.rnn.layers",
    "minitf.layers.rnn.stacked",
    "minitf.layers.rnn.wrappers",
    "minitf.layers.convolutional_3d",
    "minitf.layers.pooling_3d",
    "minitf.layers.reshaping_3d",
    "minitf.layers.prelu",
    "minitf.layers.unit_normalization",
    "minitf.layers.rnn_conv_lstm",
    "minitf.layers.noise_dropout",
    "minitf.layers.pass_through",
    "minitf.layers.reshaping_1d",
    "minitf.layers.dot",
    "minitf.layers.rms_normalization",
    "minitf.layers.thresholded_relu",
    "minitf.models.model",
    "minitf.models.sequential",
)


def builtin_layer_class(name):
    """The built-in layer or model class called `name` (Keras 3's 'Functional' is Model), or None.

    Every Layer subclass defined inside minitf registers itself when its class is created
    (`Layer.__init_subclass__`), so this finds layers and models without importing them; a
    config naming a class whose module was never loaded (`tf.keras.layers.deserialize` of a
    Sequential in a fresh process) loads the built-in modules first.
    """
    name = "Model" if name == "Functional" else name
    cls = BUILTIN_LAYER_CLASSES.get(name)
    if cls is None and not all(m in sys.modules for m in _BUILTIN_MODULES):
        for module in _BUILTIN_MODULES:
            importlib.import_module(module)
        cls = BUILTIN_LAYER_CLASSES.get(name)
    return cls


def _header(obj):
    """(module, class_name, registered_name) as Keras 3 writes them."""
    cls = type(obj)
    if cls is builtin_layer_class("Sequential"):
        return "keras", "Sequential", None
    if cls is builtin_layer_class("Model") and getattr(obj, "_graph", None) is not None:
        return "keras.src.models.functional", "Functional", "Functional"
    if builtin_layer_class(cls.__name__) is cls:  # TF's deprecated classes name their module
        return getattr(cls, "_keras_module", _BUILTIN_MODULE), cls.__name__, None
    family = next((f for f in _FAMILIES if f.is_builtin(cls)), None)
    if family is not None:
        return family.module, cls.__name__, None  # e.g. keras.constraints, MaxNorm
    family = cls.__module__.split(".")
    if family[0] == "minitf" and len(family) > 1 and family[1] != "layers":
        return f"keras.{family[1]}", cls.__name__, None  # e.g. minitf.constraints.MaxNorm
    return cls.__module__, cls.__name__, get_registered_name(cls)


def _serialize_value(value):
    """Objects inside a config (constraints, initializers, ...) become nested object dicts."""
    if isinstance(value, dict):
        return {k: _serialize_value(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_serialize_value(v) for v in value]
    if isinstance(value, (str, int, float, bool, tuple, type(None))):
        return value
    if hasattr(value, "get_config") and not isinstance(value, type):
        return _serialize_object(value)
    return value  # functions stay as they are: model configs keep Lambda callables in-process


def _serialize_object(obj):
    module, class_name, registered = _header(obj)
    return {"module": module, "class_name": class_name,
            "config": _serialize_value(obj.get_config()), "registered_name": registered}


@export("layers.serialize", "keras.layers.serialize")
def serialize(layer):
    """The layer as a dict: {'module', 'class_name', 'config', 'registered_name'} (Keras 3),
    plus {'build_config': {'input_shape': ...}} once the layer is built."""
    out = _serialize_object(layer)
    shape = getattr(layer, "_build_input_shape", None)
    if getattr(layer, "built", False) and shape is not None:
        shape = _shape_json(shape)
        if shape is not None:
            out["build_config"] = {"input_shape": shape}
    return out


def _shape_json(shape):
    """A build shape as JSON-able lists (several inputs: a list or dict of shapes; unknown: None)."""
    if hasattr(shape, "as_list"):
        return shape.as_list() if shape.rank is not None else None
    if isinstance(shape, dict):
        return {k: _shape_json(v) for k, v in shape.items()}
    if isinstance(shape, (list, tuple)) and any(hasattr(s, "as_list") or isinstance(s, (list, tuple))
                                                for s in shape):
        return [_shape_json(s) for s in shape]
    return list(shape) if isinstance(shape, tuple) else shape


def _standardize_layer_config(config):
    """Keras 3 spellings minitf layers do not take: a DTypePolicy dict becomes its name."""
    config = dict(config)
    dtype = config.get("dtype")
    if isinstance(dtype, dict):
        config["dtype"] = (dtype.get("config") or {}).get("name")
    if config.get("quantization_config", 0) is None:
        del config["quantization_config"]
    return {k: _trim_nested(v) for k, v in config.items()}


def _trim_nested(value):
    """A nested Keras 3 object dict without the None-valued arguments its minitf class lacks.

    Newer Keras versions add optional arguments (VarianceScaling's `input_axes`, ...) that
    stay None in ordinary configs; dropping them lets minitf build the same object.
    """
    family = _FAMILY_BY_MODULE.get(value.get("module")) if isinstance(value, dict) else None
    if family is None or not isinstance(value.get("config"), dict):
        return value
    cls = family.get_class(str(value.get("class_name")))
    if cls is None:
        return value
    params = inspect.signature(cls.__init__).parameters
    if any(p.kind == p.VAR_KEYWORD for p in params.values()):
        return value
    inner = {k: v for k, v in value["config"].items() if v is not None or k in params}
    return dict(value, config=inner)


def _find_class(entry, custom_objects):
    custom = merged_custom_objects(custom_objects)
    class_name = entry.get("class_name")
    registered = entry.get("registered_name") or class_name
    cls = custom.get(registered) or custom.get(class_name)
    if cls is None and (entry.get("module") or _BUILTIN_MODULE).split(".")[0] in (
            "keras", "minitf", "tensorflow", "tf_keras"):
        cls = builtin_layer_class(class_name)
    if cls is None and entry.get("module") is None:
        cls = builtin_layer_class(class_name)  # Keras 2 layout: no module at all
    if cls is None:
        raise TypeError(f"Could not locate class {class_name!r}. Make sure custom classes are "
                        f"passed in `custom_objects`. Full object config: {entry}")
    return cls


def _deserialize_object(entry, custom_objects=None, safe_mode=None):
    cls = _find_class(entry, custom_objects)
    if not hasattr(cls, "from_config"):
        raise TypeError(f"Unable to reconstruct an instance of {entry.get('class_name')!r} "
                        f"because the class is missing a `from_config()` method.")
    config = entry.get("config") or {}
    if isinstance(cls, type) and issubclass(cls, Layer):
        config = _standardize_layer_config(config)
    kwargs = {}
    if call_accepts(cls.from_config, "custom_objects"):
        kwargs["custom_objects"] = custom_objects
    if call_accepts(cls.from_config, "safe_mode"):
        kwargs["safe_mode"] = safe_mode
    with SafeModeScope(_resolve_safe_mode(safe_mode)):
        return cls.from_config(config, **kwargs)


def _is_other_keras_family(config, custom_objects):
    """True for a built-in non-layer object such as {'module': 'keras.regularizers', ...}."""
    module = config.get("module") or ""
    name = config.get("class_name")
    return (module.startswith("keras.") and module != _BUILTIN_MODULE
            and not module.startswith("keras.src.models")
            and name not in (custom_objects or {}) and builtin_layer_class(name) is None)


@export("layers.deserialize", "keras.layers.deserialize")
def deserialize(config, custom_objects=None):
    """A new layer from `serialize`'s output (or Keras 2's {'class_name', 'config'}).

    Custom classes and functions come from `custom_objects` ({name: object}). An unknown
    class raises TypeError; a config that is not a layer raises ValueError, as in Keras 3.
    """
    if not isinstance(config, dict) or "class_name" not in config:
        raise ValueError(f"`keras.layers.deserialize` was passed a `config` object that is not "
                         f"a `keras.layers.Layer`. Received: {config}")
    if _is_other_keras_family(config, custom_objects):
        raise ValueError(f"`keras.layers.deserialize` was passed a `config` object that is not "
                         f"a `keras.layers.Layer`. Received: {config}")
    layer = _deserialize_object(config, custom_objects)
    if not isinstance(layer, Layer):
        raise ValueError(f"`keras.layers.deserialize` was passed a `config` object that is not "
                         f"a `keras.layers.Layer`. Received: {config}")
    build = config.get("build_config") or {}
    if build.get("input_shape") is not None and not layer.built:
        layer.build(build["input_shape"])
        if getattr(layer, "_build_input_shape", None) is None:  # so that saving it again writes it
            object.__setattr__(layer, "_build_input_shape", build["input_shape"])
    return layer
