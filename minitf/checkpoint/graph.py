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

OBJECT_GRAPH_KEY = "_CHECKPOINTABLE_OBJECT_GRAPH"

__all__ = ["walk", "saveable_variables", "object_graph", "VALUE_SUFFIX", "SLOT_MARK",
           "OBJECT_GRAPH_KEY"]


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


def object_graph(root):
    """The object graph as TF's `_CHECKPOINTABLE_OBJECT_GRAPH` records it, in JSON-ready form:
    {"nodes": [...]} in breadth-first order from `root` (node 0), each node
    {"children": [[name, node index], ...]} plus "key" (its saved value) for a variable. Every
    edge is listed, so an object shared by two containers appears once with two parents."""
    nodes, index = [], {id(root): 0}
    queue = deque([(root, "")])
    nodes.append({"children": []})
    while queue:
        obj, path = queue.popleft()
        node = nodes[index[id(obj)]]
        for name, child in obj._checkpoint_dependencies():
            if not isinstance(child, (Variable, Trackable)):
                continue
            if id(child) not in index:
                index[id(child)] = len(nodes)
                child_path = f"{path}/{name}" if path else name
                if isinstance(child, Variable):
                    nodes.append({"children": [], "key": child_path + VALUE_SUFFIX})
                else:
                    nodes.append({"children": []})
                    queue.append((child, child_path))
            node["children"].append([name, index[id(child)]])
    return {"nodes": nodes}


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
