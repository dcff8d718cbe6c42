"""Allreduce bandwidth of minitf's MpiCollective against raw mpi4py on the same buffers.

Workloads: the gradient list of the MLP 784-512-512-10 (6 float32 arrays, 2.7 MB), 100 small
float32 arrays (a many-layer model's gradients) and one 64 MiB float32 buffer. Contenders:

  minitf           MpiCollective().allreduce(arrays, "sum"): the agreement allgather started,
                   the arrays copied into 4 MiB buckets while it is in flight, then one polled
                   non-blocking in-place MPI call per bucket
  minitf+timeout   the same with timeout_seconds=600 (the deadline is checked while polling)
  minitf unchecked the same with check_signatures=False (no agreement allgather): what the
                   check costs
  mpi4py           comm.Allreduce(array, out) for each array (what a hand-written loop does)
  mpi4py packed    the arrays concatenated by hand, one comm.Allreduce, split back (bucketing by hand)

Each round runs every contender, in a new random order (the same on every rank), for --block
consecutive calls (a barrier before each) and times all but the first: a contender meets the
allocator state its own previous call left, as in a training loop that reduces the same list
every step. Calls interleaved one by one measured the neighbours instead: a contender whose
buffers had the sizes of the previous one's freed buffers ran ~10% faster (warm reused memory).
Rounds alternate, so drifts in machine load hit all contenders alike. The table gives the
median, the spread (25th-75th percentile) and the bus bandwidth of rank 0's times. The goal is
minitf within 10% of mpi4py.

    mpiexec -n 2 python benchmarks/bench_allreduce.py [--rounds 30] [--block 4]
"""
import argparse
import os
import time

import numpy as np

from minitf.distribute.mpi_collective import MpiCollective, import_mpi


def workloads(rng):
    """(name, list of float32 arrays) pairs: shapes equal on every rank, values from `rng`."""
    mlp = [(784, 512), (512,), (512, 512), (512,), (512, 10), (10,)]
    shape_rng = np.random.default_rng(0)
    small = [tuple(int(d) for d in shape_rng.integers(4, 40, size=int(shape_rng.integers(1, 3))))
             for _ in range(100)]
    return [
        ("MLP 784-512-512-10 (6 arrays)", [rng.standard_normal(s).astype(np.float32) for s in mlp]),
        ("100 small arrays", [rng.standard_normal(s).astype(np.float32) for s in small]),
        ("one 64 MiB buffer", [rng.standard_normal(16 * 1024 * 1024).astype(np.float32)]),
    ]


def raw_allreduce(comm, mpi):
    """comm.Allreduce into fresh output arrays, one call per array (outputs made outside the timing
    would flatter mpi4py: minitf's results are new arrays too)."""
    def run(arrays):
        outs = [np.empty_like(a) for a in arrays]
        for a, o in zip(arrays, outs):
            comm.Allreduce(a, o, op=mpi.SUM)
        return outs
    return run


def packed_allreduce(comm, mpi):
    """One blocking comm.Allreduce of the concatenated arrays, split back into new arrays."""
    def run(arrays):
        buf = np.concatenate([a.reshape(-1) for a in arrays])
        comm.Allreduce(mpi.IN_PLACE, buf, op=mpi.SUM)
        bounds = np.cumsum([0] + [a.size for a in arrays])
        return [buf[lo:hi].reshape(a.shape) for a, lo, hi in zip(arrays, bounds, bounds[1:])]
    return run


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--block", type=int, default=4, help="consecutive calls per contender and round")
    args = parser.parse_args()
    mpi = import_mpi()
    comm = mpi.COMM_WORLD
    rank, size = comm.Get_rank(), comm.Get_size()
    contenders = [
        ("minitf", MpiCollective(comm).allreduce),
        ("minitf+timeout", MpiCollective(comm, timeout_seconds=600).allreduce),
        ("minitf unchecked", MpiCollective(comm, check_signatures=False).allreduce),
        ("mpi4py", raw_allreduce(comm, mpi)),
        ("mpi4py packed", packed_allreduce(comm, mpi)),
    ]
    if rank == 0:
        print(f"allreduce over {size} processes ({mpi.Get_library_version().splitlines()[0].strip()}), "
              f"{args.rounds} rounds, blocks of {max(2, args.block)} calls, "
              f"OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS', 'unset')}")
    for title, arrays in workloads(np.random.default_rng(rank)):
        nbytes = sum(a.nbytes for a in arrays)
        reference = dict(contenders)["mpi4py"]
        expected = reference(arrays)
        for name, fn in contenders:
            got = fn(arrays)
            assert all(np.allclose(g, e) for g, e in zip(got, expected)), f"{name} disagrees with mpi4py"
        rounds = args.rounds if nbytes < 2 ** 25 else max(5, args.rounds // 3)
        times = {name: [] for name, _ in contenders}
        order_rng = np.random.default_rng(1)  # seeded alike on every rank: all ranks call the same contender
        for _ in range(rounds):
            for k in order_rng.permutation(len(contenders)):
                name, fn = contenders[k]
                for call in range(max(2, args.block)):
                    comm.Barrier()
                    start = time.perf_counter()
                    fn(arrays)
                    if call:  # the first call of a block meets the previous contender's leftovers
                        times[name].append(time.perf_counter() - start)
        if rank == 0:
            print(f"\n== {title}: {nbytes / 2 ** 20:.2f} MiB in {len(arrays)} arrays, {rounds} rounds, "
                  f"{len(times['mpi4py'])} timed calls each")
            base = np.median(times["mpi4py"])
            for name, _ in contenders:
                t = np.array(times[name])
                median, low, high = np.median(t), np.percentile(t, 25), np.percentile(t, 75)
                busbw = 2 * (size - 1) / size * nbytes / median / 1e9  # the usual ring-allreduce bus bandwidth
                print(f"  {name:<16} median {median * 1e3:9.3f} ms  (p25-p75 {low * 1e3:.3f}-{high * 1e3:.3f})  "
                      f"busbw {busbw:6.2f} GB/s  time/mpi4py {median / base:5.2f}x")


if __name__ == "__main__":
    main()
