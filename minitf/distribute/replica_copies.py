"""Per-replica values of variables that the replicas of one process write each for itself.

TF's mirrored variable holds one copy per replica. A write inside `run` to a variable without
aggregation (BatchNormalization's moving statistics, a random generator's state) changes only
the writing replica's copy, that replica reads its own copy from then on, and cross-replica
code reads the first replica's. minitf's replicas share one Variable and take turns, so the
copies are swapped in and out of it as the turn passes from one replica to the next.

A variable gets copies when a replica writes it during a run. If only the first replica wrote it
(an optimizer's or loss-scale update made once for all replicas), its value is everyone's again
when the run ends; once a later replica has written it, the copies persist across runs until a
write outside the replicas (cross-replica code, a checkpoint restore) makes them equal again.
"""

__all__ = ["ReplicaCopies"]


class _Copies:
    __slots__ = ("var", "values", "diverged", "settled")

    def __init__(self, var, values):
        self.var = var
        self.values = values  # replica index -> array, for the replicas not swapped in
        self.diverged = False  # a replica other than the first wrote it: copies persist
        self.settled = None  # the array left in the variable at the end of the last run


class ReplicaCopies:
    """The per-replica copies of one process's `count` replicas.

    Args:
      count: how many replicas the process runs.
    """

    def __init__(self, count):
        self._count = count
        self._copies = {}  # variable id -> _Copies
        self._active = 0  # whose copies the variables hold now

    def begin_run(self):
        """Start a `run`: the first replica's copies are in; a variable written since the last
        run by anything but the replicas holds one value for all again."""
        self._active = 0
        for key, copies in list(self._copies.items()):
            if copies.var._value is not copies.settled:
                del self._copies[key]

    def activate(self, index):
        """Swap replica `index`'s copies into the variables."""
        if index == self._active:
            return
        for copies in self._copies.values():
            copies.values[self._active] = copies.var._value
            copies.var._value = copies.values[index]
        self._active = index

    def replica_writes(self, var, index):
        """Replica `index` (the active one) is about to write its own copy of `var`."""
        copies = self._copies.get(var._id)
        if copies is None:
            current = var._value
            copies = self._copies[var._id] = _Copies(var, {i: current for i in range(self._count)})
        if index != 0:
            copies.diverged = True

    def forget(self, var):
        """`var` is written for every replica at once: one value for all again."""
        self._copies.pop(var._id, None)

    def end_run(self):
        """End a `run`: the first replica's copies are in; copies only the first replica wrote
        become everyone's value."""
        self.activate(0)
        for key, copies in list(self._copies.items()):
            if not copies.diverged:
                del self._copies[key]
            else:
                copies.settled = copies.var._value
