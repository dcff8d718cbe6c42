"""Trackable: the object graph that checkpoints save, and restoration that waits for creation.

Every checkpointable object (Module, Layer, Model, Optimizer, Metric, Checkpoint, random
Generator, dataset iterator) names its children with `_checkpoint_dependencies()`: a list of
(name, child) pairs where a child is a Variable or another Trackable. Checkpoint keys are the
paths of names from the root (`model/layer_with_weights-0/kernel`), never creation order. A name
may itself contain '/' (a Module's list attribute gives 'layers/0'); it is then a path of
several steps, exactly as if the list were an object of its own.

Restoring into an object whose children do not exist yet (a layer built lazily, optimizer slots
before the first step) leaves the values in `_pending_restore`; an object calls
`_track_child(name, child)` the moment it creates or attaches a child, which assigns a waiting
value to a new variable, or hands a waiting subtree to a new Trackable. Classes whose children
are public attributes call `_track_attribute(name, value)` from `__setattr__`, so an attribute
assigned after `restore()` (a sub-module, an optimizer) is restored when it is attached.

Lists, dicts and tuples assigned as attributes are wrapped (`wrap`, as TF's
`sticky_attribute_assignment`) into `ListWrapper`, `_DictWrapper` and `_TupleWrapper`: trackables
of their own whose children are their items ('0', 'key'), so an item appended later is saved,
and is restored the moment it is appended after a `restore()`.
"""

from minitf.variable import Variable

__all__ = ["Trackable", "ListWrapper", "wrap"]


class Trackable:
    """Base of everything a checkpoint can save."""

    def _checkpoint_dependencies(self):
        """(name, child) pairs: a child is a Variable or a Trackable. Override in subclasses."""
        return []

    def _track_child(self, name, child):
        """Note that `child` now exists under `name`; apply any restoration waiting for it.

        A value deferred under `name` itself is applied and dropped. A value deferred under a
        leading part of the path ('layers' for 'layers/0') is a subtree restorer: the part of it
        below `name` is applied, and the rest keeps waiting for siblings.
        """
        pending = self.__dict__.get("_pending_restore")
        if not pending:
            return child
        if name in pending:
            _apply_pending(child, pending.pop(name))
            return child
        parts = name.split("/")
        for cut in range(len(parts) - 1, 0, -1):
            waiting = pending.get("/".join(parts[:cut]))
            descend = getattr(waiting, "descend", None)
            if descend is not None:
                sub = descend(parts[cut:])
                if sub is not None:
                    _apply_pending(child, sub)
                return child
        return child

    def _track_attribute(self, name, value):
        """Hook for `__setattr__`: announce a public attribute holding a Variable or Trackable
        when a restore is waiting on this object (cheap no-op otherwise)."""
        if "_pending_restore" not in self.__dict__ or name.startswith("_"):
            return
        if isinstance(value, (Variable, Trackable)):
            self._track_child(name, value)

    def _defer_restore(self, name, value):
        """Keep `value` until child `name` appears.

        `value` is an array (assigned to a variable child), or a callable taking the child.
        Callables may also offer `descend(path_parts)` returning the restorer for a deeper path.
        """
        self.__dict__.setdefault("_pending_restore", {})[name] = value


def _apply_pending(child, value):
    if callable(value):
        value(child)
    elif isinstance(child, Variable):
        child.assign(value)


def _is_tracked(value):
    return isinstance(value, (Variable, Trackable))


def wrap(value):
    """`value` as it is stored on a trackable attribute: a plain list, dict (or OrderedDict) or a
    tuple holding trackables or containers becomes a tracking container; anything else (a
    trackable, a list subclass, a namedtuple, a number) is returned unchanged, as in TF."""
    if isinstance(value, Trackable):
        return value
    kind = type(value)
    if kind is list:
        return ListWrapper(value)
    if kind is dict or kind.__name__ == "OrderedDict" and isinstance(value, dict):
        return _DictWrapper(value)
    if kind is tuple and any(_is_tracked(v) or type(v) in (list, dict, tuple) for v in value):
        return _TupleWrapper(value)
    return value


def _unsaveable(obj, what, why):
    return ValueError(f"Unable to save the object {obj!r} ({what}). {why}\n\nIf you don't need "
                      f"this {'list' if isinstance(obj, list) else 'dictionary'} checkpointed, "
                      "wrap it in a non-trackable object; it will be subsequently ignored.")


class ListWrapper(Trackable, list):
    """A list attribute of a trackable: a list whose items are checkpoint children '0', '1'...

    Appending (`append`, `extend`, `+=`) is tracked, and an item appended after a `restore()`
    receives its saved value at once. As in TF, tracking is for append-only lists: replacing,
    deleting, inserting or reordering trackable items makes the list unsaveable (saving it
    raises ValueError), because restore-on-creation matches items by position.
    """

    def __init__(self, values=()):
        list.__init__(self, [wrap(v) for v in values])
        self._non_append_mutation = False

    def _mutated_if_tracked(self, extra=()):
        if self._non_append_mutation or any(_is_tracked(v) for v in (*self, *extra)):
            self._non_append_mutation = True

    def _checkpoint_dependencies(self):
        if self._non_append_mutation:
            raise _unsaveable(self, "a list wrapper constructed to track trackable TensorFlow "
                              "objects", "A list element was replaced (__setitem__, __setslice__), "
                              "deleted (__delitem__, __delslice__), or moved (sort). In order to "
                              "support restoration on object creation, tracking is exclusively for "
                              "append-only data structures.")
        return [(str(i), v) for i, v in enumerate(self) if _is_tracked(v)]

    def append(self, value):
        """Append `value` (wrapped if it is a container) and track it under its index."""
        value = wrap(value)
        list.append(self, value)
        if _is_tracked(value):
            self._track_child(str(len(self) - 1), value)

    def extend(self, values):
        """Append each of `values`."""
        for value in list(values):
            self.append(value)

    def __iadd__(self, values):
        self.extend(values)
        return self

    def __imul__(self, n):
        if n <= 0:
            self._mutated_if_tracked()
            list.clear(self)
        else:
            self.extend(list(self) * (n - 1))
        return self

    def __setitem__(self, key, value):
        before = list(self)
        if isinstance(key, slice):
            list.__setitem__(self, key, [wrap(v) for v in value])
        else:
            list.__setitem__(self, key, wrap(value))
        for i in range(max(len(before), len(self))):
            old = before[i] if i < len(before) else None
            new = list.__getitem__(self, i) if i < len(self) else None
            if old is new:
                continue
            if _is_tracked(old):
                self._non_append_mutation = True
            if _is_tracked(new):
                self._track_child(str(i), new)

    def __delitem__(self, key):
        self._mutated_if_tracked()
        list.__delitem__(self, key)

    def insert(self, index, value):
        """Insert `value` (marks the list unsaveable if it holds trackables)."""
        value = wrap(value)
        self._mutated_if_tracked((value,))
        list.insert(self, index, value)

    def pop(self, index=-1):
        """Remove and return an item (marks the list unsaveable if it holds trackables)."""
        self._mutated_if_tracked()
        return list.pop(self, index)

    def remove(self, value):
        """Remove the first `value` (marks the list unsaveable if it holds trackables)."""
        self._mutated_if_tracked()
        list.remove(self, value)

    def clear(self):
        """Remove every item (marks the list unsaveable if it held trackables)."""
        self._mutated_if_tracked()
        list.clear(self)

    def sort(self, *args, **kwargs):
        """Sort in place (marks the list unsaveable if it holds trackables)."""
        self._mutated_if_tracked()
        list.sort(self, *args, **kwargs)

    def reverse(self):
        """Reverse in place (marks the list unsaveable if it holds trackables)."""
        self._mutated_if_tracked()
        list.reverse(self)

    def __repr__(self):
        return f"ListWrapper({list.__repr__(self)})"

    __hash__ = None


class _DictWrapper(Trackable, dict):
    """A dict attribute of a trackable: its string keys name checkpoint children.

    Setting an item (`d[k] = v`, `update`, `setdefault`) is tracked, and a value set after a
    `restore()` receives its saved value at once. A trackable under a non-string key makes the
    dict unsaveable (ValueError on save), as in TF.
    """

    def __init__(self, values=()):
        dict.__init__(self)
        self._non_string_key = False
        self.update(values)

    def _checkpoint_dependencies(self):
        if self._non_string_key:
            raise _unsaveable(self, "a dictionary wrapper constructed automatically on attribute "
                              "assignment", "The wrapped dictionary contains a non-string key "
                              "which maps to a trackable object or mutable data structure.")
        return [(k, v) for k, v in self.items() if _is_tracked(v)]

    def __setitem__(self, key, value):
        value = wrap(value)
        dict.__setitem__(self, key, value)
        if _is_tracked(value):
            if isinstance(key, str):
                self._track_child(key, value)
            else:
                self._non_string_key = True

    def update(self, *args, **kwargs):
        """Set each item through `__setitem__`, so that it is tracked."""
        for key, value in dict(*args, **kwargs).items():
            self[key] = value

    def setdefault(self, key, default=None):
        """`d[key]`, first setting it to `default` (tracked) if absent."""
        if key not in self:
            self[key] = default
        return dict.__getitem__(self, key)

    def __repr__(self):
        return f"DictWrapper({dict.__repr__(self)})"

    __hash__ = None


class _TupleWrapper(Trackable, tuple):
    """A tuple attribute holding trackables or containers: its items are children '0', '1'..."""

    def __new__(cls, values=()):
        return tuple.__new__(cls, [wrap(v) for v in values])

    def _checkpoint_dependencies(self):
        return [(str(i), v) for i, v in enumerate(self) if _is_tracked(v)]

    def __getnewargs__(self):
        return (tuple(self),)
