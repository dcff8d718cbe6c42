"""tf.distribute.ReplicaContext: what code running inside `Strategy.run` sees of its replica."""
import numpy as np

from minitf import distribution_context as _context
from minitf.distribute._values import all_gather_structure, all_reduce_structure
from minitf.distribute.reduce_op import as_reduce_op
from minitf.distribute.values import regroup, select_replica
from minitf.tensor import Tensor
from minitf.api_export import export

__all__ = ["ReplicaContext"]


@export("distribute.ReplicaContext")
class ReplicaContext:
    """The replica a function passed to `Strategy.run` runs as.

    `tf.distribute.get_replica_context()` returns it inside `run` (and a default one, of a
    single replica, outside every strategy). Its collectives (`all_reduce`, `all_gather`) must
    be called by every replica in the same order, as in TF.

    Args:
      strategy: the `tf.distribute.Strategy` the replica belongs to.
      replica_id_in_sync_group: this replica's number, 0 to `num_replicas_in_sync - 1`.
      local_index: its number among the replicas of this process.
    """

    def __init__(self, strategy, replica_id_in_sync_group, local_index=0):
        self._strategy = strategy
        self._replica_id = int(replica_id_in_sync_group)
        self._local_index = int(local_index)

    @property
    def strategy(self):
        """The strategy this replica belongs to."""
        return self._strategy

    @property
    def num_replicas_in_sync(self):
        """How many replicas compute in step with this one."""
        return self._strategy.num_replicas_in_sync

    @property
    def replica_id_in_sync_group(self):
        """This replica's number among the replicas in sync (an int32 scalar tensor)."""
        return Tensor(np.asarray(self._replica_id, dtype=np.int32))

    @property
    def devices(self):
        """The devices this replica runs on (a tuple of device strings)."""
        devices = self._strategy.extended.worker_devices
        return (devices[self._local_index],) if len(devices) > 1 else devices

    def all_reduce(self, reduce_op, value, options=None):
        """`value` (a tensor or nested structure of them) summed or averaged over the replicas;
        every replica gets the result."""
        op = as_reduce_op(reduce_op)
        return all_reduce_structure(self._strategy.extended._collective, op, value)

    def all_gather(self, value, axis, options=None):
        """Every replica's `value` concatenated along `axis`, in replica order."""
        return all_gather_structure(self._strategy.extended._collective, value, axis)

    def merge_call(self, merge_fn, args=(), kwargs=None):
        """Run `merge_fn(strategy, *args, **kwargs)` once in cross-replica context and return
        its result. With several replicas in this process, every replica must call it: the
        function then runs once, with arguments that differ between the replicas passed as
        PerReplica values, and each replica gets its component of a PerReplica result. (With
        one replica per process, each process runs it for its replica.)"""
        replicas = self._strategy.extended._local
        if replicas is not None:
            strategy = self._strategy

            def combine(per_replica):
                merged_args = regroup([a for a, _ in per_replica])
                merged_kwargs = regroup([k for _, k in per_replica])
                result = merge_fn(strategy, *merged_args, **merged_kwargs)
                return [select_replica(result, i) for i in range(len(per_replica))]
            return replicas.merge("merge_call", (tuple(args), dict(kwargs or {})), combine)
        _context.push(self._strategy, None)
        try:
            return merge_fn(self._strategy, *args, **(kwargs or {}))
        finally:
            _context.pop()

    def __repr__(self):
        return (f"<tf.distribute.ReplicaContext replica {self._replica_id} of "
                f"{self.num_replicas_in_sync}>")
