"""tf.Module: a named container whose variables and submodules are found by attribute tracking."""
import functools
import re

from minitf.snake_case import tf_module_rule
from minitf.trackable import Trackable
from minitf.variable import Variable, name_scope as _name_scope
from minitf.api_export import export

__all__ = ["Module"]


def walk(value, seen, leaf_types, descend_into):
    """Yield objects of `leaf_types` reachable from `value` through containers and modules."""
    if id(value) in seen:
        return
    if isinstance(value, leaf_types):
        seen.add(id(value))
        yield value
    if isinstance(value, descend_into):
        seen.add(id(value))
        yield from value._tracked_children(seen, leaf_types, descend_into)
    elif isinstance(value, dict):
        seen.add(id(value))
        for k in value:
            yield from walk(value[k], seen, leaf_types, descend_into)
    elif isinstance(value, (list, tuple)):
        seen.add(id(value))
        for item in value:
            yield from walk(item, seen, leaf_types, descend_into)


@export("Module")
class Module(Trackable):
    """Base for objects that own variables and other modules.

    `variables`, `trainable_variables` and `submodules` are collected by walking the object's
    attributes (in sorted attribute order), including lists, tuples and dicts of them.
    """

    # tf.Module checks names; Keras layers and metrics take any string (`name='cross entropy'`)
    _checks_module_name = True

    def __init__(self, name=None):
        if name is None:
            name = tf_module_rule(type(self).__name__)
        if self._checks_module_name and not re.match(r"^[A-Za-z0-9_.\\/>-]*$", name):
            raise ValueError(f"{name!r} is not a valid module name; use letters, digits and underscores.")
        self._name = name
        self._scope_name = name

    def __setattr__(self, name, value):
        object.__setattr__(self, name, value)
        # A restore that ran before this attribute existed may be waiting for it (lazy build).
        if "_pending_restore" in self.__dict__ and not name.startswith("_"):
            if isinstance(value, (Variable, Trackable)):
                self._track_child(name, value)

    @property
    def name(self):
        """The module's name."""
        return self._name

    @property
    def name_scope(self):
        """A tf.name_scope for this module; variables created inside get its prefix."""
        return _name_scope(self._scope_name)

    def _tracked_attributes(self):
        return [(k, v) for k, v in sorted(vars(self).items()) if not k.startswith("_")
                or k in getattr(self, "_TRACK_PRIVATE", ())]

    def _tracked_children(self, seen, leaf_types, descend_into):
        for _, value in self._tracked_attributes():
            yield from walk(value, seen, leaf_types, descend_into)

    def _flatten(self, leaf_types):
        seen = {id(self)}
        return list(self._tracked_children(seen, leaf_types, Module))

    def _checkpoint_dependencies(self):
        """Attributes holding variables or trackables (lists/dicts become 'name/0', 'name/key')."""
        deps = []
        for key, value in self._tracked_attributes():
            collect_deps(key, value, deps)
        return deps

    @property
    def variables(self):
        """Every variable owned by this module and its submodules."""
        return tuple(self._flatten(Variable))

    @property
    def trainable_variables(self):
        """The trainable variables owned by this module and its submodules."""
        return tuple(v for v in self.variables if v.trainable)

    @property
    def non_trainable_variables(self):
        """The non-trainable variables owned by this module and its submodules."""
        return tuple(v for v in self.variables if not v.trainable)

    @property
    def submodules(self):
        """Every module reachable from this one (not including itself)."""
        return tuple(self._flatten(Module))

    @classmethod
    def with_name_scope(cls, method):
        """Decorator: run `method` inside the module's name scope."""
        @functools.wraps(method)
        def wrapped(self, *args, **kwargs):
            with self.name_scope:
                return method(self, *args, **kwargs)
        return wrapped

    def __repr__(self):
        return f"<{type(self).__module__}.{type(self).__name__} object named {self._name!r}>"


def collect_deps(prefix, value, deps):
    if isinstance(value, (Variable, Trackable)):
        deps.append((prefix, value))
    elif isinstance(value, dict):
        for k, v in value.items():
            collect_deps(f"{prefix}/{k}", v, deps)
    elif isinstance(value, (list, tuple)):
        for i, v in enumerate(value):
            collect_deps(f"{prefix}/{i}", v, deps)
