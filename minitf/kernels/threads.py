"""The one owner of minitf's CPU thread counts.

Two pools run minitf's work on the host: the BLAS library's (OpenBLAS or MKL under numpy, for
every matmul and convolution) and minitf's own worker pool (the optimizers' blocked in-place
updates). Both take their size from one number, the intra-op thread count:

- `tf.config.threading.set_intra_op_parallelism_threads(n)` sets it (0 restores the default);
- the environment variable `MINITF_NUM_THREADS` sets it at start-up;
- otherwise it is `default_threads()`: one core less than the process may run on, at least one.

Why not every core: OpenBLAS's worker threads spin while they wait for work, and a GEMM split
over all cores waits for its slowest share. When anything else runs on the machine, one of
those threads is descheduled and every matmul waits a scheduler time slice for it: the README's
MLP step went from 1.4 ms to 19-43 ms per step on a 2-core machine with one busy competing
process. Leaving a core free keeps the slowdown proportional to the cores lost
(`benchmarks/bench_threads_under_load.py` measures it).

The BLAS pool is sized when minitf is imported, before any op runs: a GEMM's last bits may
depend on how many threads split it, so a run resumed from a checkpoint repeats an
uninterrupted one only if every step ran on the same count. An explicit
`OPENBLAS_NUM_THREADS`, `MKL_NUM_THREADS` or `OMP_NUM_THREADS` is the user's choice: minitf
then leaves the BLAS pool alone unless the count is set through the API above. The pool is
resized with `threadpoolctl`, the standard way to size OpenBLAS/MKL/OpenMP pools at run time.
"""
import concurrent.futures
import os
import threading

import threadpoolctl

__all__ = ["available_cores", "default_threads", "intra_op_threads", "requested_threads",
           "set_intra_op_threads", "worker_pool", "apply_default"]

ENV_VAR = "MINITF_NUM_THREADS"
_BLAS_ENV_VARS = ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "OMP_NUM_THREADS")
_MAX_WORKERS = 4  # the optimizer's memory-bound passes stop gaining beyond a few threads

_lock = threading.Lock()
_requested = 0       # set through the API; 0: not set
_pool = []           # [(ThreadPoolExecutor or None, its worker count)] for the current count
_applied = []        # [thread count the BLAS pool was last sized to]
_configured = []     # [True] once the default was applied (or skipped for the user's variables)


def available_cores():
    """The number of cores this process may run on (its CPU affinity, else the machine's)."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0)) or 1
    return os.cpu_count() or 1


def default_threads(cores=None):
    """The intra-op thread count used when none is set: one core less than available, >= 1."""
    cores = available_cores() if cores is None else cores
    return max(1, cores - 1)


def _from_environment(environ=os.environ):
    raw = environ.get(ENV_VAR, "").strip()
    if not raw:
        return 0
    try:
        value = int(raw)
    except ValueError:
        raise ValueError(f"{ENV_VAR} must be a whole number of threads (0 for the default), "
                         f"got {raw!r}") from None
    if value < 0:
        raise ValueError(f"{ENV_VAR} must be >= 0, got {value}")
    return value


def requested_threads():
    """The count set by `set_intra_op_threads` or `MINITF_NUM_THREADS`; 0 when neither is set."""
    return _requested or _from_environment()


def intra_op_threads():
    """The intra-op thread count in force: the requested one, else `default_threads()`."""
    return requested_threads() or default_threads()


def set_intra_op_threads(count):
    """Set the intra-op thread count (0: back to the default) and resize both pools now.

    Raises:
      ValueError: for a negative or non-integer count.
    """
    if isinstance(count, bool) or not isinstance(count, int) or count < 0:
        raise ValueError(f"the number of intra-op threads must be an int >= 0, got {count!r}")
    global _requested
    with _lock:
        _requested = count
        _resize_pool()
    _size_blas(force=count > 0)  # back to the default: a user's OPENBLAS_NUM_THREADS wins again


def _size_blas(force):
    """Size the BLAS pool to `intra_op_threads()`; without `force`, only when the user set no
    BLAS thread variable (their choice wins over minitf's default)."""
    if not force and not requested_threads() and any(os.environ.get(v) for v in _BLAS_ENV_VARS):
        return
    threads = intra_op_threads()
    if _applied and _applied[0] == threads:
        return
    threadpoolctl.threadpool_limits(limits=threads, user_api="blas")
    _applied[:] = [threads]


def apply_default():
    """Size the BLAS pool for minitf's default, once (done when this module is imported)."""
    if not _configured:
        _configured.append(True)
        _size_blas(force=False)


def _resize_pool():
    if _pool and _pool[0][0] is not None:
        _pool[0][0].shutdown(wait=False)
    _pool.clear()


def worker_pool():
    """(pool, workers) for minitf's own parallel kernels, or None for one thread.

    The caller runs a share itself, so the pool holds `intra_op_threads() - 1` workers (at most
    `_MAX_WORKERS - 1`). Made on first use.
    """
    if _pool:
        return _pool[0][0] and _pool[0]
    with _lock:
        if not _pool:
            workers = min(intra_op_threads(), _MAX_WORKERS) - 1
            pool = concurrent.futures.ThreadPoolExecutor(workers, thread_name_prefix="minitf-opt") \
                if workers > 0 else None
            _pool.append((pool, workers))
    return _pool[0][0] and _pool[0]


apply_default()  # before any op runs (see the module docstring)
