"""The strategies: OneDeviceStrategy, MirroredStrategy (the devices of this process) and
MultiWorkerMirroredStrategy (one replica per process, joined by MPI or NCCL).

Variables created inside a multi-replica strategy's scope (or its `run`) start equal on every
replica: trainable ones take rank 0's initial value by a broadcast at creation, as Horovod's
broadcast of the initial weights does (the other variables start from constants).
"""
import contextlib
import os
import sys

from minitf import backend
from minitf.config import config
from minitf import distribution_context as _context
from minitf.distribute import cluster
from minitf.distribute.cluster_resolver.cluster_resolver import MpiClusterResolver
from minitf.distribute.collective import LocalCollective
from minitf.distribute.local_replicas import LocalReplicas
from minitf.distribute.options import CommunicationOptions
from minitf.distribute.strategy import Strategy, StrategyExtended
from minitf.variable import Variable, VariableSynchronization
from minitf.api_export import export

__all__ = ["OneDeviceStrategy", "MirroredStrategy", "MultiWorkerMirroredStrategy"]

_LOCAL = "/job:localhost/replica:0/task:0/device:"


def _canonical(device_name):
    kind, index = backend.parse_device(device_name)
    if kind is None:
        raise ValueError(f"{device_name!r} does not name a device; use e.g. '/cpu:0' or '/gpu:0'.")
    return f"{_LOCAL}{kind}:{index}"


def _on_variable_created(var):
    """Record a variable made in a strategy's scope; with several replicas, give the trainable
    ones rank 0's value."""
    entry = _context.top()
    if entry is None:
        return
    strategy = entry[0]
    strategy._created.add(var._id)
    local = strategy.extended._local
    if local is not None and var.synchronization != VariableSynchronization.ON_READ:
        var._replica_writes = local.variable_write  # the replicas' writes combine by its aggregation
    if var.trainable and strategy._num_replicas > 1:
        workers = strategy.extended._worker_collective  # the local replicas share the variable
        if workers.size > 1:
            var._set(workers.broadcast([var._value], 0)[0])
        var._distribute_strategy = strategy  # its updates are summed over the replicas anywhere


def _install_hook():
    if _on_variable_created not in Variable._creation_hooks:
        Variable._creation_hooks.append(_on_variable_created)


def _end_job_on_uncaught_exception():
    """After an uncaught exception, print it and end this process at once: the other workers,
    waiting in a collective this one will never join, are then stopped by the MPI launcher
    instead of hanging (what `python -m mpi4py` does)."""
    previous = sys.excepthook
    if getattr(previous, "_minitf_ends_job", False):
        return

    def hook(kind, value, traceback):
        try:
            previous(kind, value, traceback)
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(1)

    hook._minitf_ends_job = True
    sys.excepthook = hook


@export("distribute.OneDeviceStrategy")
class OneDeviceStrategy(Strategy):
    """Runs on one device: variables and computation are placed on `device`.

    Args:
      device: a device string such as '/cpu:0' or '/gpu:0'.
    """

    def __init__(self, device):
        self._device = _canonical(device)
        super().__init__(StrategyExtended(self, LocalCollective(), (self._device,)))
        _install_hook()


@export("distribute.MirroredStrategy")
class MirroredStrategy(Strategy):
    """Synchronous training on the devices of one process.

    With one device (the default: the GPU when one is visible, else the CPU) it is a single
    replica. Several CPU devices (`MirroredStrategy(["cpu:0", "cpu:1"])`, as TF's guides and
    tests use logical CPUs) give one replica each, run in turn in this process: `run` returns
    PerReplica values, distributed datasets split each batch between the replicas, and
    `apply_gradients` sums the replicas' gradients and updates the shared variables once.
    For several GPUs, run one process per GPU with `MultiWorkerMirroredStrategy` under
    `mpiexec -n <GPUs>` (Horovod's design).

    Args:
      devices: None (the local device), or a list of device strings.
      cross_device_ops: accepted for TF compatibility (the replicas' values are combined in
        this process).

    Raises:
      ValueError: for several GPUs, devices of mixed kinds, or an empty list.
    """

    def __init__(self, devices=None, cross_device_ops=None):
        if devices is None:
            gpus = config.list_logical_devices("GPU")
            if len(gpus) > 1:
                raise ValueError(self._several(f"{len(gpus)} GPUs are visible"))
            devices = [gpus[0].name] if gpus else ["/device:CPU:0"]
        if isinstance(devices, str):
            devices = [devices]
        devices = list(devices)
        if not devices:
            raise ValueError("MirroredStrategy: `devices` cannot be empty.")
        canonical = sorted({_canonical(d) for d in devices}, key=backend.parse_device)  # by kind, then index
        if len(canonical) > 1 and any(":GPU:" in d for d in canonical):
            raise ValueError(self._several(f"devices={devices} names {len(canonical)} devices"))
        super().__init__(StrategyExtended(self, LocalCollective(), tuple(canonical),
                                          local_replicas=LocalReplicas(canonical)))
        _install_hook()

    @staticmethod
    def _several(what):
        return (f"MirroredStrategy: {what}, but minitf runs one GPU replica per process. Start one "
                f"process per GPU with `mpiexec -n <number of GPUs> python script.py` and use "
                f"tf.distribute.MultiWorkerMirroredStrategy() (each process takes its own GPU), "
                f"or hide all GPUs but one (CUDA_VISIBLE_DEVICES) to keep MirroredStrategy.")


@export("distribute.MultiWorkerMirroredStrategy")
class MultiWorkerMirroredStrategy(Strategy):
    """Synchronous training over several processes, one replica each.

    Launch the same script in every process with `mpiexec -n N python script.py`; without
    a launcher the strategy has one replica and behaves like MirroredStrategy. Each step's
    gradients are summed across the processes by `optimizer.apply_gradients` (one all-reduce
    for all of them), variables created in `scope()` start from rank 0's values, and rank 0
    is the chief (it writes checkpoints). TF_CONFIG, when set, must agree with the launch.

    Args:
      cluster_resolver: None (the MPI launch), or a `ClusterResolver` kept as
        `strategy.cluster_resolver` (the group is still the MPI world).
      communication_options: a `tf.distribute.experimental.CommunicationOptions`: the
        implementation (AUTO, RING = MPI, NCCL), a timeout for each collective, and
        `bytes_per_pack` (the size of the buffers gradients are packed in).

    Raises:
      ImportError: in a multi-process launch without mpi4py (install "minitf[mpi]").
      ValueError: for a TF_CONFIG that contradicts the launch, or bad options.
    """

    def __init__(self, cluster_resolver=None, communication_options=None):
        if communication_options is None:
            communication_options = CommunicationOptions()
        if not isinstance(communication_options, CommunicationOptions):
            raise ValueError("communication_options must be a "
                             "tf.distribute.experimental.CommunicationOptions, got "
                             f"{type(communication_options).__name__}.")
        info = cluster.resolve_cluster()
        extra = {}
        if communication_options.bytes_per_pack:
            extra["bucket_bytes"] = communication_options.bytes_per_pack
        collective = cluster.make_collective(communication_options.implementation.name,
                                             communication_options.timeout_seconds, **extra)
        self._cluster_resolver = cluster_resolver or MpiClusterResolver(info)
        device = "/device:GPU:0" if config.list_logical_devices("GPU") else "/device:CPU:0"
        worker = f"/job:worker/replica:0/task:{info.task_id}{device}"
        super().__init__(StrategyExtended(self, collective, (worker,), info.task_type,
                                          info.task_index, info.is_chief, communication_options))
        if collective.size > 1:
            _context.set_worker(info.is_chief, info.task_id)
            _end_job_on_uncaught_exception()
        _install_hook()

    @property
    def cluster_resolver(self):
        """The `ClusterResolver` describing the job (task_type, task_id, cluster_spec())."""
        return self._cluster_resolver

    def _device_scope(self):
        # each process already runs on its own default device; the collective picks the GPU
        return contextlib.nullcontext()

    def close(self):
        """Release the collective group (further collectives fail)."""
        self.extended._collective.close()
        _context.clear_worker()
