"""Walking the object graph: which key each variable is saved under.

Keys follow TF's object-based layout: a variable reached through dependency names
`model/dense/kernel` is saved as `model/dense/kernel/.ATTRIBUTES/VARIABLE_VALUE`; an optimizer
slot of that variable as `model/dense/kernel/.OPTIMIZER_SLOT/optimizer/m/.ATTRIBUTES/...`, where
`optimizer` is the optimizer's own path. The walk is breadth first, so an object reachable along
several paths is keyed by its shortest (first found) one, as in TF. The other paths are kept as
aliases (TF's object graph records every edge), so a restore can still match an object through a
name that only exists at restore time: an unbuilt Sequential layer is 'layer-0' until it has
weights, when it also becomes 'layer_with_weights-0'.
"""
from collections import deque

from minitf.trackable import Trackable
from minitf.variable import Variable

VALUE_SUFFIX = "/.ATTRIBUTES/VARIABLE_VALUE"
SLOT_MARK = "/.OPTIMIZER_SLOT/"

__all__ = ["walk", "saveable_variables", "VALUE_SUFFIX", "SLOT_MARK"]


def walk(root, aliases=None):
    """(objects, variables): lists of (path, obj) in breadth-first order from `root`.

    `objects` holds Trackables (the root has path ''), `variables` holds Variables. With a dict
    `aliases`, every further path to an already reached object is recorded in it as
    {alias path: first path}.
    """
    objects, variables = [("", root)], []
    seen = {id(root): ""}
    queue = deque([("", root)])
    while queue:
        path, obj = queue.popleft()
        for name, child in obj._checkpoint_dependencies():
            child_path = f"{path}/{name}" if path else name
            if id(child) in seen:
                if aliases is not None and seen[id(child)]:
                    aliases[child_path] = seen[id(child)]
                continue
            seen[id(child)] = child_path
            if isinstance(child, Variable):
                variables.append((child_path, child))
            elif isinstance(child, Trackable):
                objects.append((child_path, child))
                queue.append((child_path, child))
    return objects, variables


def saveable_variables(root, aliases=None):
    """{checkpoint key: Variable} for every variable and optimizer slot reachable from `root`.

    `aliases`, a dict, receives the object aliases found on the way (see `walk`).
    """
    objects, variables = walk(root, aliases)
    out = {path + VALUE_SUFFIX: var for path, var in variables}
    var_paths = {var._id: path for path, var in variables}
    for opt_path, obj in objects:
        slots = getattr(obj, "_checkpoint_slots", None)
        if slots is None:
            continue
        for var, slot_name, slot in slots():
            var_path = var_paths.get(var._id)
            if var_path is not None:  # slots of variables outside the graph are not saved (TF)
                out[f"{var_path}{SLOT_MARK}{opt_path}/{slot_name}{VALUE_SUFFIX}"] = slot
    return out
