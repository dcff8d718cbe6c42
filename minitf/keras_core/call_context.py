"""What a layer's `call` takes, and the `training` flag a call passes to the layers inside it.

Keras 3 (keras/src/layers/layer.py) reads `inspect.signature(self.call)` once per layer and
keeps a call context while the outermost `Layer.__call__` runs. minitf does the same:

- `CallSpec` describes one `call` signature: its parameters, whether it takes `training`,
  `mask` or `**kwargs`, the default of `training`. It is computed once per layer class (or
  once per `call` function assigned to an instance) by `spec_of(layer)` and read by every path
  that calls a layer: `Layer.__call__`, Sequential, the functional graph, the recurrent cells and
  wrappers, and loading.
- `CallContext` is the state of the outermost `Layer.__call__` of this thread. Each layer call
  resolves its `training` value as Keras 3 does (`Layer._resolve_and_populate_arg`): the value
  passed explicitly (even None), else the context's value when not None, else the default of
  its own `call`'s `training` parameter (None when it has none). The value is then stored in
  the context, where the layers called later inside the same outermost call read it, and passed
  to `call` only when `call` takes `training` and the value is not None.

  As in Keras 3 the context is one object for the whole outermost call: a nested layer called
  with an explicit `training=False` stores False, and siblings called after it without an
  explicit value read False too.
"""
import inspect
import threading
import weakref

__all__ = ["CallSpec", "CallContext", "spec_of", "spec_of_class", "spec_of_function", "current",
           "enter", "leave", "entered", "resolve_training", "KERAS_CALL_EXTRAS"]

# Arguments the Keras 3 counterpart of a built-in layer's `call` takes that minitf's `call` does
# not: Keras passes them (a `.keras` file of a functional model stores `mask` among the call
# arguments of every BatchNormalization node), so the call spec accepts them and leaves them
# out of the call; a mask still counts as the mask the layer received. Applies only while the
# class keeps the built-in `call` (tests/parity/test_call_context_parity.py checks this table
# against Keras 3's signatures).
KERAS_CALL_EXTRAS = {
    "BatchNormalization": frozenset({"mask"}),
    "GlobalAveragePooling1D": frozenset({"mask"}),
}

_EMPTY = inspect.Parameter.empty
_POSITIONAL = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)


class CallSpec:
    """One `call` signature, read once (Keras 3's `_call_signature` and `_call_has_*_arg`).

    Attributes:
        names: the parameter names, in order (`self` left out).
        positional: names that may be given positionally, in order.
        takes_training, takes_mask: whether `training` / `mask` is a named parameter (Keras 3
            looks at names only: `**kwargs` does not receive `training`).
        takes_var_keyword, takes_var_positional: whether `**kwargs` / `*args` is there.
        training_default: the default of `training` (None when absent or without default).
        training_index: position of `training` among the positional parameters, or None.
        mask_arguments: the `<name>_mask` parameters (Keras fills them from the masks of the
            tensor arguments `<name>` when a call has several tensor arguments).
        extras: arguments Keras 3 passes this built-in class that its `call` does not take
            (see KERAS_CALL_EXTRAS); they are accepted and left out of the call.
    """

    __slots__ = ("names", "positional", "takes_training", "takes_mask", "takes_var_keyword",
                 "takes_var_positional", "training_default", "training_index", "mask_arguments",
                 "extras", "_name_set")

    def __init__(self, signature, extras=frozenset()):
        params = list(signature.parameters.values())
        self.names = tuple(p.name for p in params)
        self._name_set = frozenset(self.names)
        self.positional = tuple(p.name for p in params if p.kind in _POSITIONAL)
        self.takes_var_keyword = any(p.kind is p.VAR_KEYWORD for p in params)
        self.takes_var_positional = any(p.kind is p.VAR_POSITIONAL for p in params)
        self.takes_training = "training" in self._name_set
        self.takes_mask = "mask" in self._name_set
        default = signature.parameters["training"].default if self.takes_training else None
        self.training_default = None if default is _EMPTY else default
        self.training_index = self.positional.index("training") \
            if "training" in self.positional else None
        self.mask_arguments = tuple(n for n in self.names if n.endswith("_mask") and n != "mask")
        self.extras = frozenset(e for e in extras if e not in self._name_set)

    def has(self, name):
        """Whether `name` is a named parameter of `call`."""
        return name in self._name_set

    def accepts(self, name):
        """Whether `call` accepts a keyword argument `name` (by name, or through `**kwargs`)."""
        return name in self._name_set or self.takes_var_keyword

    def __repr__(self):
        return f"CallSpec({', '.join(self.names)})"


def _signature(fn, drop_first):
    try:
        signature = inspect.signature(fn)
    except (TypeError, ValueError):
        signature = inspect.Signature([inspect.Parameter("args", inspect.Parameter.VAR_POSITIONAL),
                                       inspect.Parameter("kwargs", inspect.Parameter.VAR_KEYWORD)])
        return signature
    if drop_first:
        params = list(signature.parameters.values())
        signature = signature.replace(parameters=params[1:])
    return signature


_FUNCTION_SPECS = weakref.WeakKeyDictionary()  # function -> CallSpec of it (bound methods: of __func__)
_LOCK = threading.Lock()


def spec_of_function(fn):
    """The CallSpec of any callable (a bound method's `self` left out), cached per function."""
    func = getattr(fn, "__func__", None)
    key = func if func is not None else fn
    try:
        spec = _FUNCTION_SPECS.get(key)
    except TypeError:  # not weak-referenceable: no cache
        return CallSpec(_signature(fn, False))
    if spec is None:
        spec = CallSpec(_signature(key, func is not None))
        with _LOCK:
            _FUNCTION_SPECS[key] = spec
    return spec


def _extras(cls):
    for klass in cls.__mro__:
        extras = KERAS_CALL_EXTRAS.get(klass.__name__)
        if extras is not None and klass.__module__.startswith("minitf."):
            return extras if cls.call is klass.call else frozenset()
    return frozenset()


def spec_of_class(cls):
    """The CallSpec of a layer class's `call`, computed once (kept on the class, and computed
    again only when the class's `call` is replaced)."""
    entry = cls.__dict__.get("_minitf_call_spec")
    call = cls.call
    if entry is None or entry[0] is not call:
        entry = (call, CallSpec(_signature(call, True), _extras(cls)))
        type.__setattr__(cls, "_minitf_call_spec", entry)
    return entry[1]


def spec_of(layer):
    """The CallSpec of `layer.call`: its class's, or (for a `call` assigned to the instance
    itself) that function's, cached per function."""
    own = layer.__dict__.get("call")
    if own is not None:
        return spec_of_function(own)
    return spec_of_class(type(layer))


class CallContext:
    """The state of the outermost layer call of a thread (Keras 3's `CallContext`)."""

    __slots__ = ("entry_layer", "training")

    def __init__(self, entry_layer, training=None):
        self.entry_layer = entry_layer
        self.training = training


_STATE = threading.local()


def current():
    """The CallContext of this thread's outermost running layer call, or None."""
    return getattr(_STATE, "context", None)


def enter(layer):
    """(the active context, whether `layer` opened it). The outermost call opens a new context
    and clears the losses of the layer and its sublayers, as Keras 3's `_get_call_context` does."""
    context = getattr(_STATE, "context", None)
    if context is not None:
        return context, False
    context = _STATE.context = CallContext(layer)
    layer._clear_losses()
    return context, True


def leave(opened):
    """End the context when the layer leaving opened it."""
    if opened:
        _STATE.context = None


class entered:  # noqa: N801 -- used like a context-manager function
    """A context with a fixed `training` value for the layer calls inside (the dry runs that infer
    output shapes run in inference mode); the context in force before comes back afterwards."""

    def __init__(self, layer, training):
        self._context = CallContext(layer, training)
        self._previous = None

    def __enter__(self):
        self._previous = getattr(_STATE, "context", None)
        _STATE.context = self._context
        return self._context

    def __exit__(self, *exc):
        _STATE.context = self._previous
        return False


def resolve_training(spec, context, args, kwargs):
    """Keras 3's `training` for one call: explicit argument, else the context's value, else the
    default of `call`'s `training`. Stores it in `context` and edits `kwargs` in place: the value
    is passed when `call` takes `training` (and it is not None), and taken out otherwise.

    `args` are the positional arguments after the inputs; `kwargs` the keyword arguments."""
    index = spec.training_index
    if "training" in kwargs:
        value = kwargs["training"]
        if not spec.takes_training:
            del kwargs["training"]
    elif index is not None and 1 <= index <= len(args):  # given positionally (after the inputs)
        value = args[index - 1]
    else:
        value = context.training
        if value is None:
            value = spec.training_default
        if value is not None and spec.takes_training:
            kwargs["training"] = value
    context.training = value
    return value
