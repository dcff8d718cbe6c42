"""tf.nest: flatten and rebuild nested structures of lists, tuples, namedtuples and dicts."""
from minitf.api_export import export

__all__ = ["flatten", "pack_sequence_as", "packer", "map_structure", "is_nested", "assert_same_structure"]


@export("nest.is_nested")
def is_nested(structure):
    """True for lists, tuples (named too) and dicts; everything else is a leaf."""
    return isinstance(structure, (list, tuple, dict))


def _children(structure):
    if isinstance(structure, dict):
        return [structure[k] for k in sorted(structure, key=_sort_key)]
    return list(structure)


def _sort_key(key):
    return (type(key).__name__, key) if not isinstance(key, (int, float)) else ("", key)


@export("nest.flatten")
def flatten(structure, expand_composites=False):
    """The leaves of `structure`, depth first, dict entries in sorted key order."""
    if not is_nested(structure):
        return [structure]
    out = []
    stack = [structure]
    # iterative depth-first walk keeps deep structures off the recursion limit
    while stack:
        item = stack.pop()
        if is_nested(item):
            stack.extend(reversed(_children(item)))
        else:
            out.append(item)
    return out


def _rebuild(template, children):
    if isinstance(template, dict):
        keys = sorted(template, key=_sort_key)
        rebuilt = dict(zip(keys, children))
        return type(template)((k, rebuilt[k]) for k in template) if type(template) is not dict \
            else {k: rebuilt[k] for k in template}
    if isinstance(template, tuple) and hasattr(template, "_fields"):
        return type(template)(*children)
    return type(template)(children)


@export("nest.pack_sequence_as")
def pack_sequence_as(structure, flat_sequence, expand_composites=False):
    """Rebuild `structure` with its leaves replaced, in order, by `flat_sequence`."""
    flat_sequence = list(flat_sequence)
    n_leaves = len(flatten(structure))
    if n_leaves != len(flat_sequence):
        raise ValueError(f"Could not pack sequence: structure has {n_leaves} leaves but "
                         f"flat_sequence has {len(flat_sequence)} elements.")
    it = iter(flat_sequence)

    def build(s):
        if not is_nested(s):
            return next(it)
        return _rebuild(s, [build(c) for c in _children(s)])

    return build(structure)


def packer(structure):
    """A function `pack(leaves)` equal to `pack_sequence_as(structure, leaves)`, with the walk
    over `structure` done once, here: for structures rebuilt on every call (a graph node's
    arguments)."""
    count = 0

    def make(s):
        nonlocal count
        if not is_nested(s):
            count += 1
            return count - 1
        parts = [make(c) for c in _children(s)]
        if type(s) in (tuple, list) and all(type(p) is int for p in parts):
            kind = type(s)
            return lambda leaves: kind([leaves[i] for i in parts])
        return lambda leaves: _rebuild(s, [leaves[p] if type(p) is int else p(leaves) for p in parts])

    root = make(structure)
    n_leaves = count

    def pack(leaves):
        if len(leaves) != n_leaves:
            raise ValueError(f"Could not pack sequence: structure has {n_leaves} leaves but "
                             f"flat_sequence has {len(leaves)} elements.")
        return leaves[root] if type(root) is int else root(leaves)
    return pack


@export("nest.map_structure")
def map_structure(func, *structures, **kwargs):
    """Apply `func` leaf-wise across structures of the same shape, keeping that shape."""
    if not structures:
        raise ValueError("map_structure needs at least one structure.")
    for other in structures[1:]:
        assert_same_structure(structures[0], other)
    flats = [flatten(s) for s in structures]
    return pack_sequence_as(structures[0], [func(*leaves) for leaves in zip(*flats)])


@export("nest.assert_same_structure")
def assert_same_structure(nest1, nest2, check_types=True, expand_composites=False):
    """Raise ValueError (or TypeError) when two structures nest differently."""
    if is_nested(nest1) != is_nested(nest2):
        raise ValueError(f"The two structures don't have the same nested structure: {nest1!r} vs {nest2!r}")
    if not is_nested(nest1):
        return
    if check_types and type(nest1) is not type(nest2) and not (
            isinstance(nest1, dict) and isinstance(nest2, dict)):
        raise TypeError(f"The two structures don't have the same sequence type: "
                        f"{type(nest1).__name__} vs {type(nest2).__name__}")
    c1, c2 = _children(nest1), _children(nest2)
    if len(c1) != len(c2) or (isinstance(nest1, dict) and set(nest1) != set(nest2)):
        raise ValueError(f"The two structures don't have the same number of elements: {nest1!r} vs {nest2!r}")
    for a, b in zip(c1, c2):
        assert_same_structure(a, b, check_types)
