"""Shared by the worker scripts and the tests: each rank's deterministic contribution, and
writing a rank's results where the `run_mpi` fixture looks for them."""
import pathlib
import pickle

import numpy as np

DTYPES = ("float32", "float64", "int32", "int64", "float16", "uint8")


def shapes(count, seed=0):
    """`count` (shape, dtype) pairs, the same on every rank: mostly small, a few 0-d and empty."""
    rng = np.random.default_rng(seed)
    out = []
    for i in range(count):
        ndim = int(rng.integers(0, 4))
        shape = tuple(int(d) for d in rng.integers(1, 7, size=ndim))
        if i % 17 == 5:
            shape = (0, 3)
        out.append((shape, DTYPES[i % len(DTYPES)]))
    return out


def contributions(rank, count, seed=0, with_bool=False):
    """Rank `rank`'s arrays (values differ by rank; small integers so sums cannot overflow)."""
    rng = np.random.default_rng(1000 + 7 * rank + seed)
    arrays = []
    for shape, dtype in shapes(count, seed):
        if dtype.startswith("float"):
            arrays.append(rng.standard_normal(shape).astype(dtype))
        else:
            arrays.append(rng.integers(0, 20, size=shape).astype(dtype))
    if with_bool:
        arrays.append(rng.integers(0, 2, size=(3, 4)).astype(bool))
    return arrays


def big_array(rank, n=300_000):
    """One array larger than a small bucket (and than several default alignment units)."""
    return np.arange(n, dtype=np.float32) * (rank + 1)


def write(out_dir, rank, results):
    """Pickle this rank's `results` dict to <out_dir>/rank<rank>.pkl."""
    pathlib.Path(out_dir, f"rank{rank}.pkl").write_bytes(pickle.dumps(results))
