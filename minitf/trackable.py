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
"""

from minitf.variable import Variable

__all__ = ["Trackable"]


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
