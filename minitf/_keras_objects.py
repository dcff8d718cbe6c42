"""One registry for every Keras object family: names in, objects out, and back again.

Each family (losses, metrics, activations, initializers, regularizers, constraints,
optimizers, learning-rate schedules, layers) keeps a `Registry`. Built-in classes and
functions register themselves when their module loads; `get`, `serialize` and `deserialize`
then follow Keras 3's rules for every family alike:

- a name ('mse', 'GlorotUniform', 'glorot_uniform') gives the registered object, a class
  being instantiated with its defaults;
- a class object is `{'module', 'class_name', 'config', 'registered_name'}`: a built-in
  names the public Keras module ('keras.losses') and no registered name, any other class its
  own module and its class name;
- a built-in function is `{'module': 'builtins', 'class_name': 'function', 'config': name,
  'registered_name': 'function'}` (activations write the bare name, as Keras 3 does);
- `custom_objects` ({name: class or function}) is searched before the built-ins.
"""

from minitf.object_registration import get_registered_name, merged_custom_objects

__all__ = ["Registry"]


class Registry:
    """The named objects of one Keras family and their (de)serialization.

    Args:
        family: the family's name in error messages ('loss', 'initializer', ...).
        module: the public module built-in objects are serialized under ('keras.losses').
        kind: how `get`'s error names an identifier ('loss function'); `family` by default.
        default: what `get(None)` returns (None; activations give `linear`).
        base: a base class whose instances `get` returns unchanged even when they are not
            callable (optimizers).
        instantiate: whether a class found by name (or passed to `get`) is instantiated with
            its defaults (False for activations, whose classes are returned as they are).
        accept_callables: whether `get` passes any other callable through (False for
            optimizers, which only take instances, names and dicts).
        functions_as_names: serialize a built-in function as its bare name (activations)
            instead of Keras 3's 'function' dict.
        case_insensitive: names are matched lower-cased (optimizers: 'Adam' is 'adam').
    """

    def __init__(self, family, module, kind=None, default=None, base=None, instantiate=True,
                 accept_callables=True, functions_as_names=False, case_insensitive=False):
        self.family = family
        self.module = module
        self.kind = kind or family
        self.default = default
        self.base = base
        self.instantiate = instantiate
        self.accept_callables = accept_callables
        self.functions_as_names = functions_as_names
        self.case_insensitive = case_insensitive
        self._names = {}       # identifier string -> class or function (what `get(name)` finds)
        self._classes = {}     # class name -> class (what a serialized dict names)
        self._functions = {}   # function name -> function (what a 'function' dict names)
        self._builtin = set()  # ids of the built-in classes (serialized under `module`)

    # -- registration --------------------------------------------------------------------------
    def register(self, obj=None, *, name=None, aliases=(), lookup=True, builtin=True):
        """Add a class or function to the family; usable as a decorator.

        Args:
            obj: the class or function. Omitted, `register(...)` returns a decorator.
            name: its name (the object's `__name__` by default).
            aliases: more names `get` and `deserialize` accept for it.
            lookup: whether a plain string finds it (metric functions are reachable only
                through a 'function' dict: `metrics.get('mse')` gives a Metric object).
            builtin: whether it serializes under the family's public module.

        Returns:
            `obj`, unchanged.
        """
        if obj is None:
            return lambda o: self.register(o, name=name, aliases=aliases, lookup=lookup,
                                           builtin=builtin)
        name = name or obj.__name__
        if isinstance(obj, type):
            self._classes.setdefault(self._key(name), obj)
            if builtin:
                self._builtin.add(id(obj))
        else:
            for key in (name,) + tuple(aliases):
                self._functions.setdefault(key, obj)
        if lookup:
            for key in (name,) + tuple(aliases):
                self._names.setdefault(self._key(key), obj)
        return obj

    def alias(self, name, obj):
        """Let the string `name` find `obj` (a registered class or function)."""
        self._names[self._key(name)] = obj

    def names(self):
        """The identifier strings `get` accepts, sorted."""
        return sorted(self._names)

    def _key(self, name):
        return name.lower() if self.case_insensitive and isinstance(name, str) else name

    def lookup(self, name, custom_objects=None):
        """The object a name stands for (custom and registered objects first), or None."""
        custom = merged_custom_objects(custom_objects)
        if name in custom:
            return custom[name]
        return self._names.get(self._key(name))

    def function(self, name):
        """The registered function called `name` (aliases included), or None."""
        return self._functions.get(name)

    def get_class(self, name):
        """The registered class called `name` (aliases included), or None."""
        key = self._key(name)
        cls = self._classes.get(key) or self._names.get(key)
        return cls if isinstance(cls, type) else None

    def is_builtin(self, cls):
        """Whether `cls` is one of the family's built-in classes (serialized under `module`)."""
        return id(cls) in self._builtin

    def _made(self, obj):
        return obj() if self.instantiate and isinstance(obj, type) else obj

    # -- the public trio ---------------------------------------------------------------------
    def get(self, identifier):
        """The object an identifier stands for, as `tf.keras.<family>.get`.

        Args:
            identifier: None (the family's default), an instance of the family's base class,
                a registered name, a dict made by `serialize`, a class (instantiated) or a
                callable (returned as it is).

        Returns:
            The object, ready to use.

        Raises:
            ValueError: when the identifier names nothing in the family or is neither a
                name, a dict nor a callable.
        """
        if identifier is None:
            return self.default
        if self.base is not None and isinstance(identifier, self.base):
            return identifier
        if isinstance(identifier, dict):
            obj = self.deserialize(identifier)
        elif isinstance(identifier, str):
            obj = self.lookup(identifier)
        elif self.accept_callables:
            obj = identifier
        else:
            obj = None
        if obj is not None and callable(obj):
            return self._made(obj)
        if self.base is not None and isinstance(obj, self.base):
            return obj
        raise ValueError(f"Could not interpret {self.kind} identifier: {identifier!r}")

    def serialize(self, obj):
        """The config form of `obj`, as `tf.keras.<family>.serialize`.

        Args:
            obj: an object with `get_config()`, or a registered function.

        Returns:
            Keras 3's dict `{'module', 'class_name', 'config', 'registered_name'}`; for a
            built-in function the 'function' dict (or its bare name, for activations).

        Raises:
            ValueError: for a function that is not registered and has no `get_config()`.
        """
        if hasattr(obj, "get_config") and not isinstance(obj, type):
            cls = type(obj)
            if id(cls) in self._builtin:
                module, registered = self.module, None
            else:
                module = None if cls.__module__ == "__main__" else cls.__module__
                registered = get_registered_name(cls)
            return {"module": module, "class_name": cls.__name__, "config": obj.get_config(),
                    "registered_name": registered}
        name = self._function_name(obj)
        if name is None:
            raise ValueError(f"Cannot serialize {self.family} {obj!r}: it is not a built-in "
                             f"{self.family} and has no get_config(); pass one of "
                             f"{sorted(self._functions) or self.names()} or an object.")
        if self.functions_as_names:
            return name
        return {"module": "builtins", "class_name": "function", "config": name,
                "registered_name": "function"}

    def _function_name(self, fn):
        name = getattr(fn, "__name__", None)
        if self._functions.get(name) is fn:
            return name
        return next((key for key, value in self._functions.items() if value is fn), None)

    def deserialize(self, config, custom_objects=None):
        """The object a config describes, as `tf.keras.<family>.deserialize`.

        Args:
            config: a name, or a dict made by `serialize` (Keras 2's `{'class_name',
                'config'}` works too).
            custom_objects: optional `{name: class or function}` searched first.

        Returns:
            A new object for a class (built with `from_config`), the function itself for a
            function.

        Raises:
            ValueError: when the name or class name is unknown.
        """
        custom = merged_custom_objects(custom_objects)
        if isinstance(config, str):
            obj = self.lookup(config, custom)
            if obj is None:
                raise ValueError(f"Unknown {self.family}: {config!r}. Use one of {self.names()}, "
                                 f"or pass it in `custom_objects`.")
            return self._made(obj)
        if not isinstance(config, dict):
            raise TypeError(f"Could not deserialize {self.family} {config!r}: expected a name or "
                            f"a dict made by serialize().")
        class_name, inner = config.get("class_name"), config.get("config")
        if class_name == "function" and isinstance(inner, str):
            fn = (custom.get(config.get("registered_name")) or custom.get(inner) or self._functions.get(inner)
                  or self._names.get(inner))
            if fn is None:
                raise ValueError(f"Unknown {self.family} function: {inner!r}.")
            return fn
        cls = custom.get(config.get("registered_name")) or custom.get(class_name)
        if cls is None:
            key = self._key(class_name)
            cls = self._classes.get(key) or self._names.get(key)
            if cls is not None and self.case_insensitive and key != class_name:
                config["class_name"] = key  # Keras 3 lower-cases built-in optimizer names in place
        if cls is None:
            raise ValueError(f"Unknown {self.family}: {class_name!r}. Use one of {self.names()}, "
                             f"or pass it in `custom_objects`.")
        if not isinstance(cls, type):
            return cls
        inner = inner or {}
        return cls.from_config(inner) if hasattr(cls, "from_config") else cls(**inner)
