"""Worker: NcclCollective on cupy arrays (one GPU per process; `mpiexec -n 1` is a valid group).

Usage: mpiexec -n N python nccl.py OUT_DIR
Results are pickled as numpy arrays with the type name of what the collective returned.
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402

from minitf import backend  # noqa: E402
from minitf.distribute import cluster  # noqa: E402
from minitf.distribute.nccl_collective import NcclCollective  # noqa: E402


def host(values):
    return [("numpy" if backend.array_module(v) is np else "cupy", backend.to_host(v)) for v in values]


def main(out_dir):
    cupy = backend.gpu_policy().info.cupy
    group = cluster.make_collective("NCCL", timeout_seconds=60)
    rank, size = group.rank, group.size
    res = {"kind": type(group).__name__, "size": size}
    for bucket_bytes in (None, 256):
        g = group if bucket_bytes is None else NcclCollective(timeout_seconds=60, bucket_bytes=bucket_bytes)
        for op in ("sum", "mean", "max", "min"):
            arrays = common.contributions(rank, 30, with_bool=op in ("max", "min")) + [common.big_array(rank)]
            res[("allreduce", bucket_bytes, op)] = host(g.allreduce([cupy.asarray(a) for a in arrays], op))
        if bucket_bytes is not None:
            g.close()
    res["broadcast"] = host(group.broadcast([cupy.asarray(a) for a in common.contributions(rank, 12, seed=3)],
                                            root=size - 1))
    res["allgather"] = host(group.allgather(cupy.full((rank + 1, 3), rank + 0.5, cupy.float32)))
    res["numpy_allreduce"] = host(group.allreduce([np.full(3, rank + 1.0)], "sum"))
    res["objects"] = (group.broadcast_object({"r": rank}, 0), group.allgather_object(rank))
    group.barrier()
    group.close()
    common.write(out_dir, rank, res)


if __name__ == "__main__":
    main(sys.argv[1])
