"""TF's TrackableObjectGraph: written from minitf's objects, and read back into a restore trie.

Writing (`build`) walks the graph breadth first from the Checkpoint through `keras_view.edges`,
so every object gets one node and every variable the key TF gives it: the escaped path of child
names by which the walk first reached it, plus '/.ATTRIBUTES/VARIABLE_VALUE'. Every edge is
recorded, so an object shared by two parents has two parents in the graph as well. The result is
the node list TF's `_CHECKPOINTABLE_OBJECT_GRAPH` holds and the {key: variable} to save.

Reading (`translate`) walks a checkpoint's graph alongside the objects that exist now and
builds the `trie` a restore matches against, named the way minitf's objects announce their
children (so values of objects created later wait for them): an edge of an existing object is
followed under its minitf name; a child no existing object matches is renamed (`keras_view.rename`)
and kept for later. Keras 3 optimizer slots (`_momentums/<i>` beside `_trainable_variables/<i>`)
and TF 2 slot references (`slot_variables`) become slot records on their variable's node.
"""
from collections import deque

from minitf.checkpoint import keras_view, protos, trie
from minitf.checkpoint.graph import SLOT_MARK, VALUE_SUFFIX
from minitf.trackable import Trackable
from minitf.variable import Variable

__all__ = ["build", "translate", "escape", "VALUE_ATTRIBUTE"]

VALUE_ATTRIBUTE = "VARIABLE_VALUE"


def escape(name):
    """A child name as it appears in a checkpoint key (TF's escaping of '.' and '/')."""
    return name.replace(".", "..").replace("/", ".S")


class _Junction:
    """A node of TF's graph with no minitf object behind it: a step of a longer TF path (the
    `_variables` list of an optimizer, a Sequential's `_functional` model)."""

    __slots__ = ("children",)

    def __init__(self):
        self.children = []


def _children(obj):
    """[(TF name, child)] of `obj`, the steps of longer TF paths made into junction nodes."""
    if isinstance(obj, _Junction):
        return obj.children
    out, junctions = [], {}
    for tf_path, _, child in keras_view.edges(obj):
        if not isinstance(child, (Variable, Trackable)):
            continue
        level, prefix = out, ()
        for step in tf_path[:-1]:
            prefix += (step,)
            junction = junctions.get(prefix)
            if junction is None:
                junction = junctions[prefix] = _Junction()
                level.append((step, junction))
            level = junction.children
        level.append((tf_path[-1], child))
    return out


def _full_name(var):
    return getattr(var, "path", None) or var.name.split(":")[0]


def build(root, objects=None):
    """(ObjectNode list, {checkpoint key: Variable}) of the graph under `root`.

    A list `objects` receives the object of each node, in node order (a junction for a step of
    a longer TF path; the nodes of legacy slot variables, added last, get none).
    """
    nodes, ids, values = [protos.ObjectNode()], {id(root): 0}, {}
    keep = [root]  # junctions are made per visit: hold them so their ids stay unique
    queue = deque([(root, "")])
    while queue:
        obj, path = queue.popleft()
        node = nodes[ids[id(obj)]]
        for name, child in _children(obj):
            if id(child) not in ids:
                ids[id(child)] = len(nodes)
                keep.append(child)
                new = protos.ObjectNode()
                nodes.append(new)
                child_path = f"{path}/{escape(name)}" if path else escape(name)
                if isinstance(child, Variable):
                    key = child_path + VALUE_SUFFIX
                    new.attributes.append((VALUE_ATTRIBUTE, _full_name(child), key))
                    values[key] = child
                else:
                    queue.append((child, child_path))
            node.children.append((name, ids[id(child)]))
    if objects is not None:
        objects.extend(keep)
    _legacy_slots(nodes, ids, values, keep)
    _mark_values(nodes)
    return nodes, values


def _legacy_slots(nodes, ids, values, objects):
    """Slots of objects that keep TF 2's slot references (`_checkpoint_slots()` on something
    other than a Keras optimizer): a node per slot, keyed under its variable's path."""
    key_of = {ids[id(v)]: k[:-len(VALUE_SUFFIX)] for k, v in values.items()}
    paths = _object_paths(nodes)
    for obj in objects:
        slots = getattr(obj, "_checkpoint_slots", None)
        if slots is None or isinstance(obj, keras_view.Optimizer):
            continue
        owner = ids[id(obj)]
        for var, slot_name, slot in slots():
            var_id = ids.get(id(var))
            if var_id not in key_of or id(slot) in ids:
                continue
            key = f"{key_of[var_id]}{SLOT_MARK}{paths[owner]}/{escape(slot_name)}{VALUE_SUFFIX}"
            ids[id(slot)] = len(nodes)
            nodes.append(protos.ObjectNode(attributes=[(VALUE_ATTRIBUTE, _full_name(slot), key)]))
            nodes[owner].slots.append((var_id, slot_name, ids[id(slot)]))
            values[key] = slot


def _object_paths(nodes):
    paths, queue = {0: ""}, deque([0])
    while queue:
        i = queue.popleft()
        for name, child in nodes[i].children:
            if child not in paths:
                paths[child] = f"{paths[i]}/{escape(name)}" if paths[i] else escape(name)
                queue.append(child)
    return paths


def _mark_values(nodes):
    """Set has_checkpoint_values: a node with a value, or with one below it."""
    parents = [[] for _ in nodes]
    for i, node in enumerate(nodes):
        for _, child in node.children:
            parents[child].append(i)
        for original, _, slot in node.slots:
            parents[slot].append(i)
    marked = [bool(node.attributes) for node in nodes]
    queue = deque(i for i, m in enumerate(marked) if m)
    while queue:
        for parent in parents[queue.popleft()]:
            if not marked[parent]:
                marked[parent] = True
                queue.append(parent)
    for node, mark in zip(nodes, marked):
        node.has_values = mark


def _value_key(node):
    for name, _, key in node.attributes:
        if name == VALUE_ATTRIBUTE and key:
            return key
    return None


def _follow(nodes, start, path):
    """The node reached from `start` along the child names `path`, or None."""
    current = start
    for step in path:
        current = next((c for n, c in nodes[current].children if n == step), None)
        if current is None:
            return None
    return current


def _link(node, parts, target):
    for part in parts[:-1]:
        node = node.children.setdefault(part, trie.Node())
    node.children.setdefault(parts[-1], target)


def translate(nodes, root):
    """The restore trie for graph `nodes` (ObjectNode list) matched against `root` now."""
    tries = {}

    def trie_node(i):
        if i not in tries:
            tries[i] = trie.Node()
            tries[i].key = _value_key(nodes[i])
        return tries[i]

    slot_records = []  # (optimizer node, variable node, slot name, slot node)
    seen = set()
    work = deque([(0, root)])
    while work:
        i, obj = work.popleft()
        if i in seen:
            continue
        seen.add(i)
        here, proto = trie_node(i), nodes[i]
        names = [n for n, _ in proto.children]
        optimizer_like = keras_view.is_optimizer_node(names)
        if optimizer_like:
            slot_records.extend(_keras_slots(nodes, i))
        slot_records.extend((i, o, name, s) for o, name, s in proto.slots)
        matched = set()
        live = obj if isinstance(obj, Trackable) else None
        if live is not None:
            for tf_path, name, child in keras_view.edges(live):
                target = _follow(nodes, i, tf_path)
                if target is None:
                    continue
                matched.add(tf_path[0])
                _link(here, name.split("/"), trie_node(target))
                work.append((target, child))
            own = dict(live._checkpoint_dependencies())
        for name, child in proto.children:
            if name in matched:
                continue
            if live is None and optimizer_like and name in keras_view.OPTIMIZER_LISTS:
                continue  # a Keras optimizer made later: its slots come from the slot records
            new_name = keras_view.rename(live, name)
            if new_name is None:
                continue
            _link(here, [new_name], trie_node(child))
            work.append((child, own.get(new_name) if live is not None else None))
    root_trie = trie_node(0)
    paths = trie.first_paths(root_trie)
    for owner, var, slot_name, slot in slot_records:
        key = _value_key(nodes[slot])
        opt_path = paths.get(id(tries.get(owner)))
        if key and opt_path is not None:
            slot_record = (opt_path, slot_name, key)
            if slot_record not in trie_node(var).slots:
                trie_node(var).slots.append(slot_record)
    return root_trie


def _keras_slots(nodes, optimizer):
    """Slot records of a Keras 3 optimizer node: item i of each slot list belongs to item i of
    `_trainable_variables`."""
    children = dict((n, c) for n, c in reversed(nodes[optimizer].children))
    trainable = children.get("_trainable_variables")
    if trainable is None:
        return []
    variables = dict(nodes[trainable].children)
    out = []
    for name, list_node in nodes[optimizer].children:
        if name in keras_view.OPTIMIZER_LISTS and name not in (
                "_variables", "_trainable_variables", "_trainable_variables_indices"):
            for index, slot in nodes[list_node].children:
                if index in variables:
                    out.append((optimizer, variables[index], keras_view.KERAS_SLOT + name, slot))
    return out
