"""Who are we: the world of a multi-process tf.distribute job, and the collective that joins it.

minitf's multi-worker transport is MPI: the job is launched with `mpiexec -n N python script.py`
and every process finds its rank in the MPI world. TF_CONFIG (TF's way of describing a cluster
of gRPC servers) is read too, for scripts written for TF: its worker count must match the MPI
world, and its chief rule (the 'chief' task, else worker 0) names rank 0. TF_CONFIG without an
MPI launcher is an error that says how to launch.

`make_collective` builds the group a strategy talks to: `LocalCollective` for one process,
`MpiCollective` under mpiexec, `NcclCollective` for arrays on GPUs.
"""
import json
import os

import numpy as np

from minitf import backend
from minitf.distribute.collective import LocalCollective
from minitf.distribute.mpi_collective import MPI_INSTALL_HINT, MpiCollective, import_mpi
from minitf.distribute.nccl_collective import NcclCollective

__all__ = ["ClusterInfo", "resolve_cluster", "make_collective", "launcher_world_size", "IMPLEMENTATIONS"]

IMPLEMENTATIONS = ("AUTO", "RING", "NCCL")

# Environment variables MPI launchers set in every process they start (size, rank).
_LAUNCHER_VARS = (
    ("PMI_SIZE", "PMI_RANK"),                              # MPICH hydra, Intel MPI
    ("OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_RANK"),      # Open MPI
    ("PMIX_SIZE", "PMIX_RANK"),                            # PMIx launchers
    ("MV2_COMM_WORLD_SIZE", "MV2_COMM_WORLD_RANK"),        # MVAPICH
    ("MPI_LOCALNRANKS", "MPI_LOCALRANKID"),                # MPICH, one node
)


class ClusterInfo:
    """The world as this process sees it.

    Attributes:
      num_workers: how many processes take part (the MPI world size; 1 when not launched).
      task_id: this process's number in [0, num_workers) (its MPI rank); 0 is the chief.
      task_type: 'chief' or 'worker', TF's names (TF_CONFIG's, or 'worker' without one).
      task_index: the index within `task_type`, as TF_CONFIG's task.index.
      is_chief: True for the process that writes checkpoints and summaries.
      source: 'local', 'tf_config', 'mpi' or 'tf_config+mpi': where the answer came from.
      has_chief: whether the cluster has a 'chief' task (TF_CONFIG named one); rank 0 is it.
    """

    def __init__(self, num_workers=1, task_id=0, task_type="worker", task_index=0, is_chief=True,
                 source="local", has_chief=False):
        self.num_workers = num_workers
        self.task_id = task_id
        self.task_type = task_type
        self.task_index = task_index
        self.is_chief = is_chief
        self.source = source
        self.has_chief = has_chief

    def __repr__(self):
        return (f"ClusterInfo(num_workers={self.num_workers}, task_id={self.task_id}, task_type={self.task_type!r}, "
                f"task_index={self.task_index}, is_chief={self.is_chief}, source={self.source!r}, "
                f"has_chief={self.has_chief})")


def launcher_world_size(env=None):
    """The world size an MPI launcher announced in the environment, or None when none did.

    A launcher that sets only a rank variable gives -1 (launched, size unknown until MPI starts).
    """
    env = os.environ if env is None else env
    for size_var, _ in _LAUNCHER_VARS:
        value = env.get(size_var)
        if value:
            try:
                return int(value)
            except ValueError:
                continue
    if any(env.get(rank_var) for _, rank_var in _LAUNCHER_VARS):
        return -1
    return None


def _parse_tf_config(text):
    try:
        config = json.loads(text)
    except json.JSONDecodeError as e:
        raise ValueError(f"TF_CONFIG is not valid JSON ({e}): {text[:200]!r}") from e
    if not isinstance(config, dict):
        raise ValueError(f"TF_CONFIG must be a JSON object with 'cluster' and 'task', got {text[:200]!r}")
    cluster = config.get("cluster") or {}
    task = config.get("task") or {}
    unsupported = sorted(set(cluster) - {"chief", "worker"})
    if unsupported:
        raise ValueError(f"TF_CONFIG's cluster has {unsupported} jobs; minitf's MultiWorkerMirroredStrategy "
                         f"runs 'chief' and 'worker' tasks only (parameter servers and evaluators are not "
                         f"supported)")
    chiefs = list(cluster.get("chief") or [])
    workers = list(cluster.get("worker") or [])
    if len(chiefs) > 1:
        raise ValueError(f"TF_CONFIG's cluster has {len(chiefs)} chief tasks; TF allows at most one")
    return chiefs, workers, task


def _identity(rank, has_chief):
    """(task_type, task_index, is_chief) of MPI rank `rank`, TF's ordering: chief first, then workers."""
    if has_chief:
        return ("chief", 0, True) if rank == 0 else ("worker", rank - 1, False)
    return "worker", rank, rank == 0


def resolve_cluster(env=None, comm=None):
    """The `ClusterInfo` of this process: from the MPI world (and TF_CONFIG when it is set).

    A launcher's environment variables (PMI_SIZE, OMPI_COMM_WORLD_SIZE, ...) say whether MPI is
    in play, so a plain `python script.py` never initializes MPI. Raises ValueError for a
    TF_CONFIG without an MPI launcher or whose worker count differs from the MPI world size, and
    ImportError when several processes were launched but mpi4py is missing.
    """
    env = os.environ if env is None else env
    tf_config = env.get("TF_CONFIG", "").strip()
    launched = launcher_world_size(env)
    chiefs, workers, task = _parse_tf_config(tf_config) if tf_config else ([], [], {})
    configured = len(chiefs) + len(workers)
    if comm is None and launched is None:
        if configured > 1:
            raise ValueError(
                f"TF_CONFIG describes {configured} workers, but this process was not started by an MPI "
                f"launcher. minitf's multi-worker transport is MPI, not TF's gRPC servers: start all "
                f"workers at once with `mpiexec -n {configured} python your_script.py` (TF_CONFIG may then "
                f"stay set, or be dropped), with mpi4py installed ({MPI_INSTALL_HINT}).")
        if configured == 1:
            task_type, index = task.get("type", "worker"), int(task.get("index", 0))
            return ClusterInfo(1, 0, task_type, index, True, "tf_config", has_chief=bool(chiefs))
        return ClusterInfo()
    if comm is None:
        comm = import_mpi().COMM_WORLD
    size, rank = comm.Get_size(), comm.Get_rank()
    if configured and configured != size:
        raise ValueError(
            f"TF_CONFIG describes {configured} workers ({len(chiefs)} chief, {len(workers)} worker) but the "
            f"MPI job has {size} processes. Launch with `mpiexec -n {configured}`, or make TF_CONFIG's "
            f"cluster list {size} tasks (or unset TF_CONFIG: under mpiexec the MPI world is enough).")
    task_type, task_index, is_chief = _identity(rank, bool(chiefs))
    return ClusterInfo(size, rank, task_type, task_index, is_chief, "tf_config+mpi" if configured else "mpi",
                       has_chief=bool(chiefs))


def _gpu_default():
    policy = backend.gpu_policy()
    return policy.gpu_usable() and policy.module() is not np


def make_collective(implementation="AUTO", timeout_seconds=None, env=None, comm=None, **options):
    """The `Collective` joining this process to the others of its job.

    Args:
      implementation: "AUTO", "RING" (MPI) or "NCCL" (TF's CommunicationImplementation names).
        AUTO picks NCCL when the default device is a GPU and MPI otherwise; RING always MPI.
      timeout_seconds: passed to the MPI/NCCL group (None: no deadline).
      env: the environment to read (os.environ by default); comm: an mpi4py communicator to use
        instead of COMM_WORLD.
      options: more keyword arguments for the group (e.g. bucket_bytes).

    One process without a launcher gets a `LocalCollective` (for "NCCL" too: one GPU needs no
    communication). Under mpiexec every implementation builds its MPI or NCCL group, even with
    one process, so `mpiexec -n 1` exercises the real path.
    """
    name = getattr(implementation, "name", implementation)
    name = str(name).upper() if name is not None else "AUTO"
    if name not in IMPLEMENTATIONS:
        raise ValueError(f"make_collective: unknown implementation {implementation!r}; use one of "
                         f"{IMPLEMENTATIONS} (tf.distribute.experimental.CommunicationImplementation)")
    env = os.environ if env is None else env
    resolve_cluster(env, comm)  # raises for a TF_CONFIG that contradicts the launch
    if comm is None and launcher_world_size(env) is None:
        return LocalCollective()
    use_nccl = name == "NCCL" or (name == "AUTO" and _gpu_default())
    if use_nccl:
        return NcclCollective(comm=comm, timeout_seconds=timeout_seconds, **options)
    return MpiCollective(comm=comm, timeout_seconds=timeout_seconds, **options)
