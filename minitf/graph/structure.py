"""Flattening the arguments and results of recorded calls, composite tensors included.

A node's arguments and outputs are nested structures (tf.nest's lists, tuples and dicts) whose
leaves may be composite tensors made of tensors: an IndexedSlices (a sparse gradient) is its
`values` and `indices`. Graphs see through them, so a sparse gradient computed in a traced
function reaches the optimizer's node as graph values, not as the numbers of the trace. Other
packages register their composites (`register_composite`: a RaggedTensor is its flat values and
row splits), so graphs take, pass and return them as their component tensors.
"""
from minitf.nest import nest
from minitf.indexed_slices import IndexedSlices

__all__ = ["Flat", "flatten", "register_composite", "is_composite"]

_REGISTERED = []  # (class, to_components(value) -> [tensors], from_components(parts) -> value)


def register_composite(cls, to_components, from_components):
    """Let graphs open instances of `cls` into `to_components(value)` (a list of tensors) and
    put them back with `from_components(parts)` (parts may be graph values or eager tensors)."""
    _REGISTERED.append((cls, to_components, from_components))


def is_composite(value):
    """True for a value graphs open into its component tensors."""
    return isinstance(value, IndexedSlices) or any(isinstance(value, c) for c, _, _ in _REGISTERED)


def _components(value):
    """(components, rebuild) of a composite tensor, or None for anything else."""
    if type(value) is slice:  # x[i:j] with tensor bounds
        return [value.start, value.stop, value.step], lambda parts: slice(*parts)
    if isinstance(value, IndexedSlices):
        dims = value._dims
        return [value.values, value.indices], lambda parts: IndexedSlices(parts[0], parts[1], dims)
    for cls, to_components, from_components in _REGISTERED:
        if isinstance(value, cls):
            return to_components(value), from_components
    return None


class Flat:
    """The leaves of a structure with composites opened, and how to put it back together."""

    __slots__ = ("leaves", "_structure", "_groups", "_nested", "_pack")

    def __init__(self, structure):
        self._nested = nest.is_nested(structure)
        outer = nest.flatten(structure) if self._nested else [structure]
        leaves, groups = [], []
        for value in outer:
            parts = _components(value)
            if parts is None:
                leaves.append(value)
                groups.append(None)
            else:
                components, rebuild = parts
                groups.append((len(components), rebuild))
                leaves.extend(components)
        self.leaves = leaves
        self._structure = structure
        self._groups = groups if any(g is not None for g in groups) else None
        self._pack = None  # nest.packer of the structure, made on the first rebuild

    def rebuild(self, leaves):
        """The structure with `leaves` (one per leaf of `self.leaves`) in place."""
        if self._groups is not None:
            outer, i = [], 0
            for group in self._groups:
                if group is None:
                    outer.append(leaves[i])
                    i += 1
                else:
                    count, rebuild = group
                    outer.append(rebuild(leaves[i:i + count]))
                    i += count
            leaves = outer
        if not self._nested:
            return leaves[0]
        if self._pack is None:
            self._pack = nest.packer(self._structure)
        return self._pack(leaves)


def flatten(structure):
    """The leaves of `structure`, composite tensors opened into their component tensors."""
    if not nest.is_nested(structure) and _components(structure) is None:
        return [structure]
    return Flat(structure).leaves
