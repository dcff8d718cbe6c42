"""tf.distribute.DistributedValues: one value per replica of a process, as `Strategy.run` returns
them and distributed datasets yield them when a strategy has several replicas in one process."""
from minitf.nest import nest
from minitf.api_export import export

__all__ = ["DistributedValues", "PerReplica", "select_replica", "regroup"]


@export("distribute.DistributedValues")
class DistributedValues:
    """Values held one per local replica (replica i's value is `values[i]`).

    Pass one to `Strategy.run` (each replica receives its own component), reduce it with
    `Strategy.reduce`, or read its components with `Strategy.experimental_local_results`.
    """

    def __init__(self, values):
        self._values = tuple(values)

    @property
    def values(self):
        """The components, in replica order (a tuple)."""
        return self._values

    def _listing(self, show):
        rows = ",\n".join(f"  {i}: {show(v)}" for i, v in enumerate(self._values))
        return f"{type(self).__name__}:{{\n{rows}\n}}"

    def __str__(self):
        return self._listing(str)

    def __repr__(self):
        return self._listing(repr)


class PerReplica(DistributedValues):
    """Values that may differ between the replicas (each replica's result, or its batch)."""


def select_replica(structure, index):
    """`structure` with every DistributedValues leaf replaced by its component `index`."""
    return nest.map_structure(
        lambda leaf: leaf.values[index] if isinstance(leaf, DistributedValues) else leaf, structure)


def regroup(results):
    """One structure from the replicas' `results` (a list, one per replica): a leaf that is the
    same object on every replica stays itself, other leaves become PerReplica values. Raises
    ValueError when the replicas returned different structures."""
    first = results[0]
    if all(r is first for r in results):
        return first
    try:
        for other in results[1:]:
            nest.assert_same_structure(first, other)
    except (ValueError, TypeError) as e:
        raise ValueError(f"Strategy.run: the replicas returned values of different structures ({e}); "
                         "every replica must return the same structure.") from None

    def group(*leaves):
        if all(leaf is leaves[0] for leaf in leaves):
            return leaves[0]
        return PerReplica(leaves)
    return nest.map_structure(group, *results)
