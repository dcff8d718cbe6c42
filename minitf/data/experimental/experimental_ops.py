"""tf.data.experimental's own functions and AutoShardPolicy."""
import enum

from minitf.dtypes import dtypes
from minitf.data.dataset import Dataset
from minitf.api_export import export


@export("data.experimental.AutoShardPolicy")
class AutoShardPolicy(enum.IntEnum):
    """How tf.distribute splits a dataset between workers (`options.experimental_distribute.
    auto_shard_policy`). minitf's multi-worker input splits each global batch by data for every
    policy but OFF, with which every worker reads the whole dataset."""
    OFF = -1
    AUTO = 0
    FILE = 1
    DATA = 2
    HINT = 3


@export("data.experimental.cardinality")
def cardinality(dataset):
    """The number of elements of `dataset` as an int64 tensor (or a cardinality constant)."""
    return dataset.cardinality()


@export("data.experimental.Counter")
def Counter(start=0, step=1, dtype=dtypes.int64, name=None):  # noqa: N802 (TF's name)
    """Deprecated alias of `tf.data.Dataset.counter`: `start`, `start + step`, ... forever."""
    return Dataset.counter(start, step, dtype)


@export("data.experimental.sample_from_datasets")
def sample_from_datasets(datasets, weights=None, seed=None, stop_on_empty_dataset=False,
                         rerandomize_each_iteration=None):
    """Alias of `tf.data.Dataset.sample_from_datasets`."""
    return Dataset.sample_from_datasets(datasets, weights, seed, stop_on_empty_dataset, rerandomize_each_iteration)


@export("data.experimental.choose_from_datasets")
def choose_from_datasets(datasets, choice_dataset, stop_on_empty_dataset=True):
    """Alias of `tf.data.Dataset.choose_from_datasets`."""
    return Dataset.choose_from_datasets(datasets, choice_dataset, stop_on_empty_dataset)


@export("data.experimental.dense_to_ragged_batch")
def dense_to_ragged_batch(batch_size, drop_remainder=False, row_splits_dtype=dtypes.int64):
    """Deprecated form of `Dataset.ragged_batch`, for `dataset.apply(...)`: batches whose
    components of partly unknown shape become RaggedTensors."""
    def _apply_fn(dataset):
        return dataset.ragged_batch(batch_size, drop_remainder, row_splits_dtype)
    return _apply_fn
