"""The trie a restore walks: saved values arranged by the path of names that leads to them.

Each node has children by name, the key of the value saved for the object at that path (if
any) and the optimizer slots saved for it. A node may be reached along several paths (an object
shared by two parents), and paths may loop back (an object referring to an ancestor), so code
that walks the trie keeps track of what it has seen.

`from_keys` builds it from minitf's HDF5 keys ('model/w/.ATTRIBUTES/VARIABLE_VALUE', slot keys
'<variable path>/.OPTIMIZER_SLOT/<optimizer path>/<slot>/.ATTRIBUTES/VARIABLE_VALUE') and the
aliases stored beside them; `object_graph.translate` builds it from a TF object graph.
"""
from minitf.checkpoint import graph

__all__ = ["Node", "from_keys", "graft_aliases", "descend_create", "first_paths"]


class Node:
    """One step of the trie: children by name, a value key, slot records."""

    __slots__ = ("children", "key", "slots")

    def __init__(self):
        self.children = {}
        self.key = None
        self.slots = []  # (optimizer path, slot name, key)

    def find(self, parts):
        """The node at the path `parts` below this one, or None."""
        node = self
        for part in parts:
            node = node.children.get(part)
            if node is None:
                return None
        return node

    def keys(self, _seen=None):
        """Every checkpoint key in this subtree (a node shared through an alias counts once)."""
        seen = _seen if _seen is not None else set()
        out, stack = [], [self]
        while stack:
            node = stack.pop()
            if id(node) in seen:
                continue
            seen.add(id(node))
            if node.key:
                out.append(node.key)
            out.extend(key for _, _, key in node.slots)
            stack.extend(node.children.values())
        return out


def descend_create(node, path):
    """The node at '/'-separated `path` below `node`, made where missing."""
    for part in path.split("/"):
        node = node.children.setdefault(part, Node())
    return node


def from_keys(keys):
    """The trie of minitf's value and slot keys (other keys are ignored)."""
    root = Node()
    for key in keys:
        if not key.endswith(graph.VALUE_SUFFIX):
            continue
        body = key[:-len(graph.VALUE_SUFFIX)]
        if graph.SLOT_MARK in body:
            var_path, rest = body.split(graph.SLOT_MARK, 1)
            opt_path, _, slot_name = rest.rpartition("/")
            descend_create(root, var_path).slots.append((opt_path, slot_name, key))
        else:
            descend_create(root, body).key = key
    return root


def graft_aliases(root, aliases):
    """Make each alias path lead to the same trie node as the path it stands for."""
    for alias, target in aliases.items():
        if target == alias or alias.startswith(target + "/"):
            continue  # a path back into its own subtree would make the trie a cycle
        node = root.find(target.split("/"))
        if node is None:
            continue
        parent_path, _, last = alias.rpartition("/")
        parent = descend_create(root, parent_path) if parent_path else root
        parent.children.setdefault(last, node)


def first_paths(root):
    """{id(node): its first path from `root`, breadth first} for every reachable node."""
    paths, queue = {id(root): ""}, [(root, "")]
    for node, path in queue:  # the list grows while it is walked: breadth first
        for name, child in node.children.items():
            if id(child) not in paths:
                child_path = f"{path}/{name}" if path else name
                paths[id(child)] = child_path
                queue.append((child, child_path))
    return paths
