"""Distributed input: tf.distribute.InputContext and the datasets strategies hand to replicas.

Every worker iterates its own dataset. Each step the workers agree (one tiny all-reduce) on
whether any of them still has data; a worker whose data ran out takes an empty batch, so all
workers take the same number of steps and none waits forever in a collective.
"""
import enum
import math

import numpy as np

from minitf.errors import errors
from minitf.nest import nest
from minitf.data import structure as st
from minitf.data.dataset import Dataset
from minitf.data.optional import next_as_optional
from minitf.data.transformations import BatchDataset
from minitf.distribute.values import PerReplica
from minitf.tensor import Tensor
from minitf.api_export import export

__all__ = ["InputContext", "InputOptions", "InputReplicationMode", "DistributedDataset",
           "DistributedDatasetsFromFunction", "DistributedIterator", "check_dataset"]


@export("distribute.InputReplicationMode")
class InputReplicationMode(enum.Enum):
    """Whether an input function builds one dataset per worker (the only mode with one replica
    per process) or one per replica."""

    PER_WORKER = "PER_WORKER"
    PER_REPLICA = "PER_REPLICA"


@export("distribute.InputOptions")
class InputOptions:
    """Options of the distributed-dataset methods, accepted for TF compatibility: with one
    replica per process the batches are already where the replica computes."""

    def __init__(self, experimental_fetch_to_device=None,
                 experimental_replication_mode=InputReplicationMode.PER_WORKER,
                 experimental_place_dataset_on_device=False, experimental_per_replica_buffer_size=1):
        self.experimental_fetch_to_device = experimental_fetch_to_device
        self.experimental_replication_mode = experimental_replication_mode
        self.experimental_place_dataset_on_device = experimental_place_dataset_on_device
        self.experimental_per_replica_buffer_size = experimental_per_replica_buffer_size


@export("distribute.InputContext")
class InputContext:
    """What a `distribute_datasets_from_function` input function learns about the job.

    Args:
      num_input_pipelines: how many input pipelines (workers) there are.
      input_pipeline_id: this pipeline's number, 0 to `num_input_pipelines - 1`.
      num_replicas_in_sync: how many replicas take a step together.
    """

    def __init__(self, num_input_pipelines=1, input_pipeline_id=0, num_replicas_in_sync=1):
        self._num_input_pipelines = num_input_pipelines
        self._input_pipeline_id = input_pipeline_id
        self._num_replicas_in_sync = num_replicas_in_sync

    @property
    def num_replicas_in_sync(self):
        """How many replicas take a step together."""
        return self._num_replicas_in_sync

    @property
    def input_pipeline_id(self):
        """This pipeline's number (shard with `dataset.shard(num_input_pipelines, input_pipeline_id)`)."""
        return self._input_pipeline_id

    @property
    def num_input_pipelines(self):
        """How many input pipelines there are."""
        return self._num_input_pipelines

    def get_per_replica_batch_size(self, global_batch_size):
        """`global_batch_size` divided by the number of replicas (ValueError when it does not divide)."""
        if global_batch_size % self._num_replicas_in_sync != 0:
            raise ValueError(f"The `global_batch_size` {global_batch_size} is not divisible by "
                             f"`num_replicas_in_sync` {self._num_replicas_in_sync} ")
        return global_batch_size // self._num_replicas_in_sync

    def __str__(self):
        return (f"tf.distribute.InputContext(input pipeline id {self._input_pipeline_id}, total: "
                f"{self._num_input_pipelines})")

    __repr__ = __str__


def check_dataset(dataset, where):
    """TypeError naming `where` unless `dataset` is a tf.data.Dataset."""
    if not isinstance(dataset, Dataset):
        raise TypeError(f"{where}: expected a tf.data.Dataset, got {type(dataset).__name__}. Build "
                        "one with tf.data.Dataset.from_tensor_slices(...).batch(global_batch_size).")


def leading_size(element):
    """The examples in a batch: the first dimension of its first array leaf (1 for scalars)."""
    for leaf in nest.flatten(element):
        value = leaf._value if isinstance(leaf, Tensor) else leaf
        if isinstance(value, np.ndarray) or hasattr(value, "__cuda_array_interface__"):
            return int(value.shape[0]) if value.ndim else 1
    return 1


def replica_part(element, per_replica, replica):
    """Replica `replica`'s part of a global batch: examples [replica*per_replica,
    (replica+1)*per_replica), clipped to the batch (so a short last batch leaves the later
    replicas fewer or none). Leaves are tensors or numpy arrays (None passes through)."""
    size = leading_size(element)
    return _rows(element, min(replica * per_replica, size), min((replica + 1) * per_replica, size))


def local_replica_parts(element, count, declared=None, even=False):
    """A worker's batch split between its `count` local replicas as TF's MirroredStrategy splits
    it: replica i takes examples [i*p, (i+1)*p) with p = ceil(batch size / count) (so a short
    batch leaves the last replicas fewer or none), or, with `even` (AutoShardPolicy.OFF), the
    `declared` batch size dealt out as evenly as possible, earlier replicas first."""
    size = leading_size(element)
    if not even:
        per = math.ceil(size / count)
        return PerReplica([replica_part(element, per, i) for i in range(count)])
    total = declared or size
    sizes = [total // count + (1 if i < total % count else 0) for i in range(count)]
    parts, start = [], 0
    for n in sizes:
        stop = min(start + n, size)
        parts.append(_rows(element, start, stop))
        start = stop
    return PerReplica(parts)


def _rows(element, start, stop):
    """Examples [start, stop) of every leaf of a batch."""
    def cut(leaf):
        if leaf is None:
            return None
        if isinstance(leaf, Tensor):
            return Tensor(leaf._value[start:stop])
        if isinstance(leaf, np.ndarray):
            return leaf[start:stop]
        raise TypeError(f"cannot split a batch holding a {type(leaf).__name__} between replicas; use "
                        "distribute_datasets_from_function and batch per replica.")
    return nest.map_structure(cut, element)


def _empty_from_spec(spec):
    def empty(leaf_spec):
        shape = [0] + [d if d is not None else 0 for d in list(leaf_spec.shape)[1:]]
        return Tensor(np.zeros(shape, dtype=leaf_spec.dtype.as_numpy_dtype))
    return st.map_leaves(empty, spec)


def _declared_batch_size(dataset):
    """The batch size of the last `batch()` of `dataset`'s pipeline, or None."""
    node = dataset._node
    while node is not None:
        if isinstance(node, BatchDataset):
            return int(node._batch_size)
        node = getattr(node, "_input", None)
    return None


def _shard_policy(dataset):
    policy = dataset.options().experimental_distribute.auto_shard_policy
    name = getattr(policy, "name", policy)
    return "OFF" if name in ("OFF", -1) else "DATA"


@export("distribute.DistributedIterator")
class DistributedIterator:
    """Iterates a distributed dataset: each `next()` is this replica's batch of the step."""

    def __init__(self, local_batches, collective, element_spec, replicas=1):
        self._local = local_batches
        self._collective = collective
        self._element_spec = element_spec
        self._replicas = replicas
        self._exhausted = False
        self._finished = False
        self._template = None

    @property
    def element_spec(self):
        """The structure of TensorSpecs of one replica's batch."""
        return self._element_spec

    def __iter__(self):
        return self

    def _empty(self):
        template = self._template
        if isinstance(template, PerReplica):
            template = template.values[0]
        if template is not None:
            empty = st.map_leaves(lambda t: Tensor(t._value[:0]), template)
        else:
            empty = _empty_from_spec(self._element_spec)
        return PerReplica([empty] * self._replicas) if self._replicas > 1 else empty

    def __next__(self):
        if self._finished:
            raise StopIteration
        element = None
        if not self._exhausted:
            try:
                element = next(self._local)
            except StopIteration:
                self._exhausted = True
        if self._collective.size > 1:  # do any of the workers still have data?
            flag = np.asarray([0 if element is None else 1], dtype=np.int64)
            anyone = int(self._collective.allreduce([flag], "sum")[0][0]) > 0
        else:
            anyone = element is not None
        if not anyone:
            self._finished = True
            raise StopIteration
        if element is None:
            return self._empty()
        self._template = element
        return element

    def get_next(self):
        """This replica's next batch; OutOfRangeError once no worker has data left."""
        try:
            return next(self)
        except StopIteration:
            raise errors.OutOfRangeError(None, None, "End of sequence") from None

    def get_next_as_optional(self):
        """A tf.experimental.Optional of this replica's next batch, empty once no worker has
        data left (every worker gets an empty one at the same step)."""
        return next_as_optional(lambda: next(self), self._optional_spec(), self)

    def _optional_spec(self):
        spec = self._element_spec
        return PerReplica([spec] * self._replicas) if self._replicas > 1 else spec


class _DistributedBase:
    def __init__(self, dataset, collective, options, replicas=1):
        self._dataset = dataset
        self._collective = collective
        self._options = options
        self._replicas = replicas

    @property
    def element_spec(self):
        """The structure of TensorSpecs of one replica's batch."""
        return self._dataset.element_spec

    def __iter__(self):
        return DistributedIterator(self._local_batches(), self._collective, self.element_spec, self._replicas)

    def _local_batches(self):
        return iter(self._dataset)


@export("distribute.DistributedDataset")
class DistributedDataset(_DistributedBase):
    """A dataset of GLOBAL batches that each worker reads its part of.

    Each worker iterates the whole pipeline (its shuffles seeded as rank 0's) and keeps
    its replica's slice of every global batch: with G examples per batch and n replicas,
    replica r takes examples [r*ceil(G/n), (r+1)*ceil(G/n)), so every example is used once
    and the last, partial batch leaves some replicas a smaller or empty batch. With
    `AutoShardPolicy.OFF` every worker reads every slice, one per step.
    """

    def _global_batches(self):
        """The dataset's iterator, its shuffles seeded as on rank 0 so that every worker sees
        the same global batches (an unseeded shuffle draws its seed per process)."""
        iterator = iter(self._dataset)
        seeds, keys = getattr(iterator, "_seeds", None), getattr(iterator, "_keys", None)
        if self._collective.size > 1 and seeds is not None:
            chosen = self._collective.broadcast_object((seeds.numpy(), keys.numpy()), 0)
            seeds.assign(chosen[0])
            keys.assign(chosen[1])
        return iterator

    def _local_batches(self):
        n, rank = self._collective.size, self._collective.rank
        declared = _declared_batch_size(self._dataset)
        off = _shard_policy(self._dataset) == "OFF"
        for element in self._global_batches():
            if n == 1:
                parts = [element]
            else:
                per = math.ceil((declared or leading_size(element)) / n)
                parts = [replica_part(element, per, r) for r in (range(n) if off else (rank,))]
            for part in parts:
                if self._replicas > 1:
                    part = local_replica_parts(part, self._replicas, declared and math.ceil(declared / n), off)
                yield part


class DistributedDatasetsFromFunction(_DistributedBase):
    """The per-worker datasets an input function built; workers whose data runs out first
    take empty batches until every worker's data is done. With several replicas in a process,
    each step gives the replicas consecutive elements of the dataset."""

    def _local_batches(self):
        if self._replicas == 1:
            yield from iter(self._dataset)
            return
        group = []
        for element in self._dataset:  # consecutive elements go to the replicas in turn
            group.append(element)
            if len(group) == self._replicas:
                yield PerReplica(group)
                group = []
        if group:  # the data ran out mid-step: the remaining replicas take empty batches
            empty = st.map_leaves(lambda t: Tensor(t._value[:0]), group[0])
            yield PerReplica(group + [empty] * (self._replicas - len(group)))
