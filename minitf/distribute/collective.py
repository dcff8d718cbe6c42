"""The collective seam of tf.distribute: one process's end of a group of processes that reduce,
broadcast and gather arrays together.

A strategy never talks to MPI or NCCL itself; it holds a `Collective` and calls the methods
below on raw arrays (numpy on the CPU, cupy on a GPU). `LocalCollective` is the group of one
process (the default strategy, OneDeviceStrategy, a job launched without mpiexec); the MPI and
NCCL implementations live in their own modules and are chosen by `minitf.distribute.cluster`.
"""
__all__ = ["Collective", "LocalCollective", "REDUCTIONS"]

REDUCTIONS = ("sum", "mean", "max", "min")


class Collective:
    """One process's end of a group of `size` processes, this one numbered `rank` (0 is the chief).

    Every method is collective: all processes of the group must call it, in the same order, with
    arrays of the same shapes and dtypes (except `allgather`, whose first dimensions may differ).
    Arrays are raw numpy or cupy arrays; results come back on the arrays' own module.
    """

    rank = 0
    size = 1
    name = "local"

    def allreduce(self, arrays, op="sum"):
        """Each array of the list `arrays` reduced elementwise over the processes (`op` one of
        "sum", "mean", "max", "min"), as a new list in the same order."""
        raise NotImplementedError

    def broadcast(self, arrays, root=0):
        """The arrays of process `root`, on every process (a new list; `root`'s own included)."""
        raise NotImplementedError

    def allgather(self, array):
        """The list of every process's `array`, in rank order (first dimensions may differ)."""
        raise NotImplementedError

    def broadcast_object(self, obj, root=0):
        """A small picklable Python object of process `root`, on every process."""
        raise NotImplementedError

    def allgather_object(self, obj):
        """The list of every process's small picklable Python object, in rank order."""
        raise NotImplementedError

    def barrier(self):
        """Return once every process of the group has called it."""
        raise NotImplementedError

    def close(self):
        """Release the group's resources (communicators, buffers); later calls are errors."""


class LocalCollective(Collective):
    """The group of one process: every collective is the identity (copies, so callers may write)."""

    def allreduce(self, arrays, op="sum"):
        if op not in REDUCTIONS:
            raise ValueError(f"allreduce: unknown reduction {op!r}; use one of {REDUCTIONS}")
        return [a.copy() for a in arrays]

    def broadcast(self, arrays, root=0):
        return [a.copy() for a in arrays]

    def allgather(self, array):
        return [array.copy()]

    def broadcast_object(self, obj, root=0):
        return obj

    def allgather_object(self, obj):
        return [obj]

    def barrier(self):
        return None
