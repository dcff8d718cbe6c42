"""Worker: every collective of MpiCollective on deterministic data; results pickled per rank.

Usage: mpiexec -n N python collectives.py OUT_DIR
"""
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402

from minitf import backend  # noqa: E402
from minitf.distribute import cluster  # noqa: E402
from minitf.distribute.mpi_collective import MpiCollective  # noqa: E402


class DeviceArray:
    """A stand-in for a cupy array: data reachable only through get(), as on a GPU."""

    def __init__(self, data):
        self.data = data

    def get(self):
        return self.data


class DeviceModule:
    """The stand-in's array module: asarray copies host data 'to the device'."""

    @staticmethod
    def asarray(host):
        return DeviceArray(np.array(host))


def caught(call):
    try:
        call()
    except Exception as e:  # the test asserts on the type and message
        return type(e).__name__, str(e)
    return None


def main(out_dir):
    group = cluster.make_collective("RING", timeout_seconds=30)
    rank, size = group.rank, group.size
    res = {"rank": rank, "size": size, "kind": type(group).__name__}
    info = cluster.resolve_cluster()
    res["cluster"] = (info.num_workers, info.task_id, info.task_type, info.task_index, info.is_chief, info.source)
    chief_config = {"cluster": {"chief": ["h:0"], "worker": [f"h:{i}" for i in range(1, size)]},
                    "task": {"type": "worker", "index": 0}}
    info = cluster.resolve_cluster(dict(os.environ, TF_CONFIG=json.dumps(chief_config)))
    res["chief_cluster"] = (info.num_workers, info.task_id, info.task_type, info.task_index, info.is_chief,
                            info.source)
    wrong = {"cluster": {"worker": [f"h:{i}" for i in range(size + 2)]}, "task": {"type": "worker", "index": 0}}
    res["wrong_size"] = caught(lambda: cluster.resolve_cluster(dict(os.environ, TF_CONFIG=json.dumps(wrong))))

    # allreduce: many arrays of mixed dtypes and shapes, one big array, default and tiny buckets
    for bucket_bytes in (None, 256):
        g = group if bucket_bytes is None else MpiCollective(timeout_seconds=30, bucket_bytes=bucket_bytes)
        for op in ("sum", "mean", "max", "min"):
            arrays = common.contributions(rank, 40, with_bool=op in ("max", "min")) + [common.big_array(rank)]
            before = [a.copy() for a in arrays]
            out = g.allreduce(arrays, op)
            res[("allreduce", bucket_bytes, op)] = out
            res[("untouched", bucket_bytes, op)] = all(np.array_equal(a, b) for a, b in zip(arrays, before))
    res["empty_list"] = group.allreduce([], "sum")

    # broadcast from the last rank, allgather with uneven first dims
    res["broadcast"] = group.broadcast(common.contributions(rank, 12, seed=3), root=size - 1)
    res["allgather"] = group.allgather(np.full((rank, 3), rank + 0.5, np.float32))
    res["allgather_f16"] = group.allgather(np.arange(rank + 1, dtype=np.float16))
    res["allgather_bool"] = group.allgather(np.array([rank % 2 == 0] * (rank + 2)))
    res["bcast_object"] = group.broadcast_object({"from": rank, "payload": list(range(rank + 3))}, root=1 % size)
    res["gather_object"] = group.allgather_object(("rank", rank, "x" * rank))
    group.barrier()

    # mismatched calls: an error on every rank naming the difference, then the group still works
    res["mismatch_shape"] = caught(lambda: group.allreduce([np.ones(3), np.ones(rank + 2)]))
    res["mismatch_dtype"] = caught(lambda: group.allreduce([np.ones(4, np.float32 if rank == 0 else np.float64)]))
    res["mismatch_op"] = caught(lambda: group.allreduce([np.ones(4)], "sum" if rank == 0 else "max"))
    res["mismatch_count"] = caught(lambda: group.allreduce([np.ones(2)] * (1 if rank == 0 else 2)))
    res["mismatch_kind"] = caught(lambda: group.allreduce([np.ones(2)]) if rank == 0
                                  else group.broadcast([np.ones(2)]))
    res["mismatch_gather"] = caught(lambda: group.allgather(np.ones((2, 1 + (rank > 0)))))
    # an unpacked (big) array whose size differs: caught before its MPI call, never started
    res["mismatch_big"] = caught(lambda: group.allreduce([np.ones(300_000 + rank, np.float32), np.ones(3)]))
    # groups with different bucket sizes would pack the same arrays into MPI calls of different sizes
    odd = MpiCollective(timeout_seconds=30, bucket_bytes=256 if rank == 0 else 4096)
    res["mismatch_bucket"] = caught(lambda: odd.allreduce([np.full(40, rank + 1.0, np.float32)] * 10))
    res["mismatch_bucket_bcast"] = caught(lambda: odd.broadcast([np.ones(40, np.float32)] * 10))
    res["after_mismatch"] = group.allreduce([np.ones(5)], "sum")[0]
    res["bad_op"] = caught(lambda: group.allreduce([np.ones(2)], "prod"))
    res["bool_sum"] = caught(lambda: group.allreduce([np.ones(2, bool)], "sum"))

    # device arrays (cupy's interface): copied to the host, reduced, copied back
    backend.register_array_module(DeviceArray, DeviceModule)
    dev = group.allreduce([DeviceArray(np.full(3, rank, np.float32))], "sum")
    res["device_sum"] = (type(dev[0]).__name__, dev[0].get())
    dev = group.broadcast([DeviceArray(np.full(2, rank, np.int64))], root=0)
    res["device_bcast"] = (type(dev[0]).__name__, dev[0].get())
    dev = group.allgather(DeviceArray(np.full((1, 2), rank, np.float64)))
    res["device_gather"] = [(type(d).__name__, d.get()) for d in dev]
    group.close()
    res["after_close"] = caught(lambda: group.barrier())
    common.write(out_dir, rank, res)


if __name__ == "__main__":
    main(sys.argv[1])
