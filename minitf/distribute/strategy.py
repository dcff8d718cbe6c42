"""tf.distribute.Strategy, its `extended` half, the default strategy and the functions that say
which strategy and context the calling code is in.

A strategy's replicas are the processes of its collective group (Horovod's design), each with
one device, or, for a MirroredStrategy over several devices, the replicas of this one process
(`minitf.distribute.local_replicas`). `Strategy.run` calls the function once per replica of the
process; cross-replica operations (`reduce`, `gather`) combine the local replicas' values and
are collectives over the group. A group of one replica makes them identities.
"""
import contextlib

from minitf.device import device as _device_scope_of
from minitf import distribution_context as _context
from minitf.distribute._values import (all_gather_structure, gather_local_replicas, reduce_local_replicas,
                                       reduce_to_cross_replica)
from minitf.distribute.collective import LocalCollective
from minitf.distribute.input import (DistributedDataset, DistributedDatasetsFromFunction,
                                     InputContext, check_dataset)
from minitf.distribute.local_replicas import ReplicaCollective
from minitf.distribute.options import CommunicationOptions
from minitf.distribute.reduce_op import as_reduce_op
from minitf.distribute.replica_context import ReplicaContext
from minitf.distribute.values import DistributedValues, regroup, select_replica
from minitf.api_export import export

__all__ = ["Strategy", "StrategyExtended", "RunOptions", "ValueContext", "get_strategy", "has_strategy",
           "in_cross_replica_context", "get_replica_context", "get_cross_replica_context",
           "experimental_set_strategy"]

_CROSS_REPLICA_ONLY = ("Method requires being in cross-replica context, use "
                       "get_replica_context().merge_call()")


@export("distribute.StrategyExtended")
class StrategyExtended:
    """The less common half of a strategy's API (`strategy.extended`): devices, the worker's
    role, and per-variable updates."""

    def __init__(self, strategy, collective, devices, task_type=None, task_id=0, is_chief=True,
                 communication_options=None, local_replicas=None):
        self._strategy = strategy
        # `_collective` reaches every replica (from a replica's thread, the local ones too);
        # `_worker_collective` joins the processes (one call per process)
        self._local = local_replicas if local_replicas is not None and local_replicas.count > 1 else None
        self._worker_collective = collective
        self._collective = ReplicaCollective(self._local, collective) if self._local else collective
        self._devices = tuple(devices)
        self._task_type = task_type
        self._task_id = task_id
        self._is_chief = is_chief
        self._communication_options = communication_options or CommunicationOptions()

    def _in_multi_worker_mode(self):
        """Whether the replicas span several processes."""
        return self._worker_collective.size > 1

    @property
    def worker_devices(self):
        """The devices this process's replicas run on."""
        return self._devices

    @property
    def parameter_devices(self):
        """The devices holding this process's copies of the variables."""
        return self._devices

    @property
    def should_checkpoint(self):
        """Whether this worker writes checkpoints (the chief only)."""
        return self._is_chief

    @property
    def should_save_summary(self):
        """Whether this worker writes summaries (the chief only)."""
        return self._is_chief

    @property
    def experimental_should_init(self):
        """Whether this worker initializes variables (every worker does: rank 0's values are
        then broadcast)."""
        return True

    @property
    def experimental_between_graph(self):
        """True: every worker runs its own copy of the program."""
        return True

    @property
    def experimental_require_static_shapes(self):
        """False: per-replica batches may differ in size (the last, partial ones)."""
        return False

    def colocate_vars_with(self, colocate_with_variable):
        """A scope placing new variables with `colocate_with_variable` (one device here: a no-op)."""
        return contextlib.nullcontext()

    def update(self, var, fn, args=(), kwargs=None, group=True):
        """Run `fn(var, *args, **kwargs)` to update `var` (in cross-replica context; PerReplica
        arguments give their first component, the replicas' variables being one)."""
        return fn(var, *select_replica(tuple(args), 0), **select_replica(dict(kwargs or {}), 0))

    def value_container(self, value):
        """The value itself: the replicas of a process share one variable."""
        return value

    def variable_created_in_scope(self, v):
        """Whether `v` was created inside this strategy's scope."""
        return getattr(v, "_id", None) in self._strategy._created

    def reduce_to(self, reduce_op, value, destinations, options=None):
        """`value` combined over the replicas (the destinations are this process's device)."""
        return self._strategy._reduce(as_reduce_op(reduce_op), value, None)

    def batch_reduce_to(self, reduce_op, value_destination_pairs, options=None):
        """`reduce_to` for each (value, destinations) pair."""
        return [self.reduce_to(reduce_op, v, d, options) for v, d in value_destination_pairs]

    def all_reduce_arrays(self, arrays, op="sum"):
        """Raw arrays (numpy or cupy) each reduced elementwise over every replica (`op` one of
        "sum", "mean", "max", "min"), as a new list: one collective for the whole list. minitf's
        hook for the Keras tier (the optimizers sum their gradients with it), not TF API."""
        return self._collective.allreduce(arrays, op)


@export("distribute.Strategy")
class Strategy:
    """Runs a computation as several replicas in sync, with shared variables.

    Build the model, optimizer and metrics inside `strategy.scope()`, feed batches from
    `experimental_distribute_dataset` or `distribute_datasets_from_function`, run a step with
    `strategy.run(step_fn, args=(batch,))`, and combine per-replica results with
    `strategy.reduce`. The subclasses pick the replicas: `OneDeviceStrategy`,
    `MirroredStrategy`, `MultiWorkerMirroredStrategy`.
    """

    def __init__(self, extended):
        self._extended = extended
        self._created = set()
        workers = extended._worker_collective
        count = extended._local.count if extended._local else 1
        self._replica_contexts = [ReplicaContext(self, workers.rank * count + i, i) for i in range(count)]
        self._replica_context = self._replica_contexts[0]

    # -- facts -------------------------------------------------------------------------------
    @property
    def extended(self):
        """The `StrategyExtended` half of the API."""
        return self._extended

    @property
    def num_replicas_in_sync(self):
        """How many replicas compute each step in step with each other."""
        return self._extended._collective.size

    @property
    def _num_replicas(self):
        return self._extended._collective.size

    @property
    def _replica_id(self):
        return self._replica_context._replica_id

    # -- contexts ----------------------------------------------------------------------------
    def _check_cross_replica(self):
        entry = _context.top()
        if entry is not None and entry[1] is not None:
            raise RuntimeError(_CROSS_REPLICA_ONLY)

    def _check_not_mixing(self):
        entry = _context.top()
        if entry is not None and entry[0] is not self and not isinstance(entry[0], _DefaultDistributionStrategy):
            raise RuntimeError(f"Mixing different tf.distribute.Strategy objects: {entry[0]} is "
                               f"not {self}")

    @contextlib.contextmanager
    def scope(self):
        """A context in which this strategy is current: variables created inside (also lazily,
        by layers built inside `run`) start with the same values on every replica."""
        self._check_cross_replica()
        self._check_not_mixing()
        _context.push(self, None)
        try:
            with self._device_scope():
                yield self
        finally:
            _context.pop()

    def _device_scope(self):
        devices = self._extended.worker_devices
        if devices and type(self) is not _DefaultDistributionStrategy:
            return _device_scope_of(devices[0])
        return contextlib.nullcontext()

    def run(self, fn, args=(), kwargs=None, options=None):
        """Call `fn(*args, **kwargs)` once for each replica of this process (in replica context)
        and return the results: a value that differs between the replicas comes back as a
        PerReplica (read its components with `experimental_local_results`). A PerReplica
        argument gives each replica its own component. Collectives inside `fn` (gradients in
        `apply_gradients`, `get_replica_context().all_reduce`) meet the other replicas' calls."""
        self._check_cross_replica()
        self._check_not_mixing()
        local = self._extended._local
        if local is not None:
            args, kwargs = tuple(args), dict(kwargs or {})
            calls = [(select_replica(args, i), select_replica(kwargs, i)) for i in range(local.count)]
            return regroup(local.call_for_each_replica(self, fn, calls, self._replica_contexts))
        _context.push(self, self._replica_context)
        try:
            with self._device_scope():
                return fn(*args, **(kwargs or {}))
        finally:
            _context.pop()

    # -- cross-replica operations ----------------------------------------------------------
    def reduce(self, reduce_op, value, axis):
        """Combine a per-replica `value` across the replicas.

        With `axis=None`, the replicas' values are summed or averaged elementwise. With an
        axis, each replica's value is first summed along it, and MEAN divides by the number of
        elements along that axis on all replicas together: the mean over every example of
        the global batch, right even when replicas hold batches of different sizes.

        Args:
          reduce_op: `tf.distribute.ReduceOp.SUM` or `MEAN` (or 'SUM'/'MEAN').
          value: the per-replica value (a tensor or a nested structure of them).
          axis: None, or the axis (or axes) to reduce within each replica too.

        Raises:
          RuntimeError: when called inside `run` (replica context).
        """
        self._check_cross_replica()
        return self._reduce(as_reduce_op(reduce_op), value, axis)

    def _reduce(self, op, value, axis):
        if self._extended._local is None:
            return reduce_to_cross_replica(self._extended._collective, op, value, axis)
        return reduce_local_replicas(op, value, axis)

    def gather(self, value, axis):
        """The replicas' values concatenated along `axis`, in replica order (cross-replica)."""
        self._check_cross_replica()
        if self._extended._local is None:
            return all_gather_structure(self._extended._collective, value, axis)
        return gather_local_replicas(value, axis)

    def experimental_local_results(self, value):
        """The values of this process's replicas, as a tuple: a PerReplica's components, or
        `(value,)` for any other value."""
        if isinstance(value, DistributedValues):
            return value.values
        return (value,)

    def experimental_distribute_values_from_function(self, value_fn):
        """`value_fn(ctx)` for each replica of this process, ctx a
        `tf.distribute.experimental.ValueContext`; with several local replicas, the values
        regrouped as `run`'s results are (a tuple of PerReplica for a function returning a tuple)."""
        values = [value_fn(ValueContext(c._replica_id, self._num_replicas)) for c in self._replica_contexts]
        return values[0] if len(values) == 1 else regroup(values)

    # -- input -------------------------------------------------------------------------------
    def experimental_distribute_dataset(self, dataset, options=None):
        """`dataset` (batched with the GLOBAL batch size) split between the replicas: each worker
        reads its share of every global batch (TF's sharding by data; by batches with
        `AutoShardPolicy.OFF`), and all workers take the same number of steps. With several
        replicas in this process each element is a PerReplica of the replicas' parts.

        Raises:
          TypeError: when `dataset` is not a tf.data.Dataset.
        """
        self._check_cross_replica()
        check_dataset(dataset, "experimental_distribute_dataset")
        return DistributedDataset(dataset, self._extended._worker_collective, options, self._local_count)

    def distribute_datasets_from_function(self, dataset_fn, options=None):
        """The per-replica datasets `dataset_fn(input_context)` builds, one per worker (the
        function batches with the per-replica batch size and shards as it sees fit); workers
        whose data runs out first take empty batches until every worker is done. With several
        replicas in this process, each step gives them consecutive elements (a PerReplica)."""
        self._check_cross_replica()
        workers = self._extended._worker_collective
        context = InputContext(workers.size, workers.rank, self.num_replicas_in_sync)
        dataset = dataset_fn(context)
        check_dataset(dataset, "distribute_datasets_from_function's dataset_fn")
        return DistributedDatasetsFromFunction(dataset, workers, options, self._local_count)

    @property
    def _local_count(self):
        return self._extended._local.count if self._extended._local else 1

    experimental_distribute_datasets_from_function = distribute_datasets_from_function

    def __repr__(self):
        return f"<tf.distribute.{type(self).__name__} with {self.num_replicas_in_sync} replica(s)>"


@export("distribute.RunOptions")
class RunOptions:
    """Options of `Strategy.run`, accepted for TF compatibility (they tune TPU compilation)."""

    def __init__(self, experimental_enable_dynamic_batch_size=True,
                 experimental_bucketizing_dynamic_shape=False, experimental_xla_options=None):
        self.experimental_enable_dynamic_batch_size = experimental_enable_dynamic_batch_size
        self.experimental_bucketizing_dynamic_shape = experimental_bucketizing_dynamic_shape
        self.experimental_xla_options = experimental_xla_options


@export("distribute.experimental.ValueContext")
class ValueContext:
    """What `experimental_distribute_values_from_function`'s function learns of its replica."""

    def __init__(self, replica_id_in_sync_group=0, num_replicas_in_sync=1):
        self.replica_id_in_sync_group = replica_id_in_sync_group
        self.num_replicas_in_sync = num_replicas_in_sync


class _DefaultDistributionStrategy(Strategy):
    """The strategy in force when none was entered: one replica, no-op reductions."""

    def __init__(self):
        super().__init__(StrategyExtended(self, LocalCollective(), ()))

    @contextlib.contextmanager
    def scope(self):
        """A no-op context: the default strategy is current wherever no other one is."""
        self._check_cross_replica()
        yield self

    def run(self, fn, args=(), kwargs=None, options=None):
        """`fn(*args, **kwargs)`, as the one replica."""
        return fn(*args, **(kwargs or {}))


# the name minitf.engine.distributed reads (the class has TF's name)
_DefaultStrategy = _DefaultDistributionStrategy


class _DefaultReplicaContext(ReplicaContext):
    """The replica context outside every strategy: the one replica of the default strategy."""


_DEFAULT = _DefaultDistributionStrategy()
_DEFAULT_REPLICA = _DefaultReplicaContext(_DEFAULT, 0)


@export("distribute.get_strategy")
def get_strategy():
    """The strategy whose scope (or `run`) encloses the caller, else the default strategy."""
    entry = _context.top()
    return entry[0] if entry is not None else _DEFAULT


@export("distribute.has_strategy")
def has_strategy():
    """Whether a strategy other than the default one is current."""
    return _context.top() is not None


@export("distribute.in_cross_replica_context")
def in_cross_replica_context():
    """True inside a strategy's scope but outside its `run` (and in `merge_call`)."""
    entry = _context.top()
    return entry is not None and entry[1] is None


@export("distribute.get_replica_context")
def get_replica_context():
    """The current `ReplicaContext`: the replica inside `run`, the default one outside every
    strategy, None in cross-replica context (inside a scope, outside `run`)."""
    entry = _context.top()
    if entry is None:
        return _DEFAULT_REPLICA
    return entry[1]


def get_cross_replica_context():
    """The current strategy when in cross-replica context (or the default strategy outside
    every strategy), None inside `run`."""
    entry = _context.top()
    if entry is None:
        return _DEFAULT
    return entry[0] if entry[1] is None else None


_set_strategy_scope = []


@export("distribute.experimental_set_strategy")
def experimental_set_strategy(strategy):
    """Make `strategy` current for the rest of the program, as if its scope were entered
    (None returns to the default strategy)."""
    while _set_strategy_scope:
        _set_strategy_scope.pop().__exit__(None, None, None)
    if strategy is not None:
        scope = strategy.scope()
        scope.__enter__()
        _set_strategy_scope.append(scope)
