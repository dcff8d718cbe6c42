"""tf.distribute: running one training script as several replicas.

Across processes, Horovod's design on TF's API: `mpiexec -n N python train.py` starts N copies
of the script; `MultiWorkerMirroredStrategy()` joins them (MPI for numpy arrays, NCCL for GPU
arrays), each reads its shard of the data, `optimizer.apply_gradients` sums the gradients across
them, and variables created in `strategy.scope()` start from rank 0's values. Within a process,
`MirroredStrategy` over several CPU devices runs one replica per device, as TF does.
"""
from minitf.distribute import cluster_resolver, experimental  # noqa: F401
from minitf.distribute.input import (DistributedDataset, DistributedIterator, InputContext,  # noqa: F401
                                     InputOptions, InputReplicationMode)
from minitf.distribute.mirrored import (MirroredStrategy, MultiWorkerMirroredStrategy,  # noqa: F401
                                        OneDeviceStrategy)
from minitf.distribute.reduce_op import ReduceOp  # noqa: F401
from minitf.distribute.replica_context import ReplicaContext  # noqa: F401
from minitf.distribute.values import DistributedValues  # noqa: F401
from minitf.distribute.strategy import (RunOptions, Strategy, StrategyExtended,  # noqa: F401
                                        experimental_set_strategy,
                                        get_replica_context, get_strategy, has_strategy,
                                        in_cross_replica_context)

__all__ = ["Strategy", "StrategyExtended", "OneDeviceStrategy", "MirroredStrategy",
           "MultiWorkerMirroredStrategy", "ReduceOp", "ReplicaContext", "InputContext",
           "InputOptions", "InputReplicationMode", "RunOptions", "DistributedValues",
           "DistributedDataset", "DistributedIterator", "get_strategy", "has_strategy",
           "in_cross_replica_context", "get_replica_context",
           "experimental_set_strategy", "experimental", "cluster_resolver"]
