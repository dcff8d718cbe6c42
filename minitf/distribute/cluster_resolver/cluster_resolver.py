"""tf.distribute.cluster_resolver: who the workers of a job are.

minitf's workers are the processes of an MPI launch, so `MpiClusterResolver` describes the job
`cluster.resolve_cluster()` found; `TFConfigClusterResolver` reads TF_CONFIG, for scripts written
for TF (under mpiexec its task must agree with the MPI rank).
"""
import json
import os

from minitf.config import config
from minitf.distribute import cluster as _cluster
from minitf.api_export import export

__all__ = ["ClusterSpec", "ClusterResolver", "MpiClusterResolver", "TFConfigClusterResolver"]


@export("distribute.cluster_resolver.ClusterSpec")
class ClusterSpec:
    """The jobs of a cluster and their tasks' addresses (TF's `tf.train.ClusterSpec`).

    Args:
      cluster: a dict mapping job names to lists of addresses (or dicts index -> address).
    """

    def __init__(self, cluster):
        if isinstance(cluster, ClusterSpec):
            cluster = cluster.as_dict()
        if not isinstance(cluster, dict):
            raise TypeError(f"ClusterSpec: expected a dict of job name -> task addresses, got "
                            f"{type(cluster).__name__}.")
        self._jobs = {job: (dict(tasks) if isinstance(tasks, dict) else dict(enumerate(tasks)))
                      for job, tasks in cluster.items()}

    def as_dict(self):
        """The jobs as a dict: lists of addresses for jobs numbered 0..n-1, else dicts."""
        out = {}
        for job, tasks in self._jobs.items():
            dense = sorted(tasks) == list(range(len(tasks)))
            out[job] = [tasks[i] for i in range(len(tasks))] if dense else dict(tasks)
        return out

    @property
    def jobs(self):
        """The job names."""
        return list(self._jobs)

    def num_tasks(self, job_name):
        """How many tasks job `job_name` has (ValueError for an unknown job)."""
        if job_name not in self._jobs:
            raise ValueError(f"No such job in cluster: {job_name!r}")
        return len(self._jobs[job_name])

    def task_address(self, job_name, task_index):
        """The address of task `task_index` of job `job_name`."""
        if job_name not in self._jobs or task_index not in self._jobs[job_name]:
            raise ValueError(f"No such task: job {job_name!r}, index {task_index}")
        return self._jobs[job_name][task_index]

    def __bool__(self):
        return bool(self._jobs)

    def __eq__(self, other):
        return isinstance(other, ClusterSpec) and self.as_dict() == other.as_dict()

    def __repr__(self):
        return f"ClusterSpec({self.as_dict()!r})"


@export("distribute.cluster_resolver.ClusterResolver")
class ClusterResolver:
    """Base of the resolvers: `cluster_spec()`, `task_type`, `task_id`, `num_accelerators()`."""

    task_type = None
    task_id = None
    rpc_layer = None
    environment = ""

    def cluster_spec(self):
        """The cluster as a `ClusterSpec`."""
        raise NotImplementedError

    def master(self, task_type=None, task_id=None, rpc_layer=None):
        """The address of a task ('' here: MPI needs no server addresses)."""
        return ""

    def num_accelerators(self, task_type=None, task_id=None, config_proto=None):
        """{'GPU': n} for the GPUs this process sees (empty without GPUs)."""
        gpus = len(config.list_logical_devices("GPU"))
        return {"GPU": gpus} if gpus else {}


@export("distribute.cluster_resolver.MpiClusterResolver")
class MpiClusterResolver(ClusterResolver):
    """The job of the current MPI launch: one 'worker' task per process (a 'chief' when
    TF_CONFIG names one), task_id the MPI rank."""

    def __init__(self, info=None):
        self._info = info if info is not None else _cluster.resolve_cluster()
        self.task_type = self._info.task_type
        self.task_id = self._info.task_index

    @property
    def num_workers(self):
        """How many processes the job has."""
        return self._info.num_workers

    @property
    def is_chief(self):
        """Whether this process is the chief."""
        return self._info.is_chief

    def cluster_spec(self):
        """'worker' tasks (and the 'chief' task if there is one), addressed by MPI rank."""
        n = self._info.num_workers
        if self._info.task_type == "chief" or (self._info.task_type == "worker" and
                                               self._info.source == "tf_config+mpi" and
                                               self._has_chief_in_tf_config()):
            return ClusterSpec({"chief": ["mpi-rank-0"],
                                "worker": [f"mpi-rank-{r}" for r in range(1, n)]})
        return ClusterSpec({"worker": [f"mpi-rank-{r}" for r in range(n)]})

    @staticmethod
    def _has_chief_in_tf_config():
        try:
            return bool(json.loads(os.environ.get("TF_CONFIG", "{}")).get("cluster", {}).get("chief"))
        except (ValueError, AttributeError):
            return False


@export("distribute.cluster_resolver.TFConfigClusterResolver")
class TFConfigClusterResolver(ClusterResolver):
    """The cluster TF_CONFIG describes (TF's JSON: {'cluster': {...}, 'task': {'type', 'index'}}).

    Args:
      task_type, task_id: override TF_CONFIG's task.
      rpc_layer, environment: recorded for TF compatibility.
    """

    def __init__(self, task_type=None, task_id=None, rpc_layer=None, environment=None):
        text = os.environ.get("TF_CONFIG", "").strip()
        try:
            config = json.loads(text) if text else {}
        except json.JSONDecodeError as e:
            raise ValueError(f"TFConfigClusterResolver: TF_CONFIG is not valid JSON ({e}).") from e
        self._config = config
        task = config.get("task") or {}
        self.task_type = task_type if task_type is not None else task.get("type")
        self.task_id = task_id if task_id is not None else (int(task["index"]) if "index" in task else None)
        self.rpc_layer = rpc_layer if rpc_layer is not None else config.get("rpc_layer")
        self.environment = environment if environment is not None else config.get("environment", "")

    def cluster_spec(self):
        """TF_CONFIG's cluster (an empty ClusterSpec without TF_CONFIG)."""
        return ClusterSpec(self._config.get("cluster") or {})
