"""The one owner of minitf's CPU thread counts.

Two pools run minitf's work on the host: the BLAS library's (OpenBLAS or MKL under numpy, for
every matmul and convolution) and minitf's own worker pool (the optimizers' blocked in-place
updates). Both take their size from one number, the intra-op thread count:

- `tf.config.threading.set_intra_op_parallelism_threads(n)` sets it (0 restores the default);
- the environment variable `MINITF_NUM_THREADS` sets it at start-up;
- `tf.config.experimental.enable_op_determinism()` fixes it at every core the process may use;
- otherwise it follows the load: every core the process may use, less the cores that other
  processes keep busy, re-measured at most once a second between training steps
  (`adapt_to_load`, called by the optimizers and the evaluate/predict loops).

Why follow the load: OpenBLAS's worker threads spin while they wait for work, and a GEMM split
over all cores waits for its slowest share. When another process keeps a core busy, one of
those threads is descheduled and every matmul waits a scheduler time slice for it: the README's
MLP step went from 1.4 ms to 19-43 ms per step on a 2-core machine with one busy competing
process. One thread less per busy core keeps the slowdown proportional to the cores lost, while
an idle machine keeps every core (`benchmarks/bench_threads_under_load.py` measures both).
Other processes' load is read from Linux's /proc/stat for the cores this process may run on,
minus this process's own CPU time; where /proc/stat is missing the count stays at every core.

The BLAS pool is sized when minitf is imported, before any op runs. A GEMM's last bits may
depend on how many threads split it (OpenBLAS blocks a long inner dimension differently when
threaded), so bit-for-bit repeatable runs, such as a run resumed from a checkpoint that must
match an uninterrupted one, call `enable_op_determinism()` or set a count, as TF documents for
its own thread-dependent kernels. An explicit `OPENBLAS_NUM_THREADS`, `MKL_NUM_THREADS` or
`OMP_NUM_THREADS` is the user's choice: minitf then leaves the BLAS pool alone unless the count
is set through the API above. The pool is resized with `threadpoolctl`, the standard way to
size OpenBLAS/MKL/OpenMP pools at run time.
"""
import concurrent.futures
import os
import threading
import time

import threadpoolctl

__all__ = ["available_cores", "adapt_to_load", "busy_cores_of_others", "determinism_enabled",
           "enable_determinism", "intra_op_threads", "load_following_threads", "requested_threads",
           "set_intra_op_threads", "worker_pool", "apply_default"]

ENV_VAR = "MINITF_NUM_THREADS"
_BLAS_ENV_VARS = ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "OMP_NUM_THREADS")
_MAX_WORKERS = 4  # the optimizer's memory-bound passes stop gaining beyond a few threads
_SAMPLE_SECONDS = 1.0  # how often the load is re-measured
_FIRST_SAMPLE_SECONDS = 0.25  # the first time sooner: a busy machine is seen within the first steps
# a core counts as taken once other processes keep half of it busy: a competitor that shares a
# core with one of minitf's spinning BLAS threads gets about two thirds of it
_BUSY_CORE = 0.5
_CLOCK_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100  # /proc/stat's unit

_lock = threading.Lock()
_requested = 0       # set through the API; 0: not set
_deterministic = []  # [True] once enable_determinism() was called
_pool = []           # [(ThreadPoolExecutor or None, its worker count)] for the current count
_applied = []        # [thread count the BLAS pool was last sized to]
_configured = []     # [True] once the default was applied (or skipped for the user's variables)


def available_cores():
    """The number of cores this process may run on (its CPU affinity, else the machine's)."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0)) or 1
    return os.cpu_count() or 1


# -- other processes' load ----------------------------------------------------------------------

class _LoadSample:
    """CPU time used on this process's cores, by everyone and by this process, at one moment."""

    def __init__(self, wall, busy_all, busy_self):
        self.wall, self.busy_all, self.busy_self = wall, busy_all, busy_self


def _read_load_sample(stat_path="/proc/stat"):
    """A `_LoadSample` now, or None where /proc/stat cannot be read (not Linux)."""
    cores = os.sched_getaffinity(0) if hasattr(os, "sched_getaffinity") else None
    try:
        with open(stat_path, "rb") as f:
            lines = f.read().decode("ascii", "replace").splitlines()
    except OSError:
        return None
    busy = 0
    for line in lines:
        if not line.startswith("cpu") or line.startswith("cpu "):
            continue
        name, *fields = line.split()
        if cores is not None and int(name[3:]) not in cores:
            continue
        ticks = [int(v) for v in fields[:8]]  # user nice system idle iowait irq softirq steal
        busy += sum(ticks) - ticks[3] - ticks[4]
    return _LoadSample(time.monotonic(), busy / _CLOCK_TICKS, time.process_time())


def busy_cores_of_others(before, after):
    """How many of this process's cores other processes kept busy between two samples."""
    wall = after.wall - before.wall
    if wall <= 0:
        return 0.0
    others = (after.busy_all - before.busy_all) - (after.busy_self - before.busy_self)
    return max(0.0, others / wall)


def load_following_threads(cores, busy_others):
    """The thread count for `cores` cores when other processes keep `busy_others` of them busy:
    one thread less per core taken, at least one."""
    taken = int(busy_others + (1 - _BUSY_CORE))  # rounds at _BUSY_CORE
    return max(1, min(cores, cores - taken))


class _LoadFollower:
    """The load-following count: every core at first, then re-measured once a second."""

    def __init__(self):
        self.threads = available_cores()
        self.last = _read_load_sample()
        self.interval = _FIRST_SAMPLE_SECONDS

    def update(self, now):
        if self.last is None or now - self.last.wall < min(self.interval, _SAMPLE_SECONDS):
            return self.threads
        sample = _read_load_sample()
        if sample is not None:
            self.threads = load_following_threads(available_cores(), busy_cores_of_others(self.last, sample))
            self.last, self.interval = sample, _SAMPLE_SECONDS
        return self.threads


_follower = _LoadFollower()


# -- the count in force -------------------------------------------------------------------------

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


def determinism_enabled():
    """True once `enable_determinism()` was called."""
    return bool(_deterministic)


def _follows_load():
    return not requested_threads() and not _deterministic


def intra_op_threads():
    """The intra-op thread count in force: the requested one; with determinism on, every core;
    else the load-following count."""
    requested = requested_threads()
    if requested:
        return requested
    if _deterministic:
        return available_cores()
    return _follower.threads


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


def enable_determinism():
    """Fix the default thread count at every core this process may use, whatever the load, so
    that repeated runs give the same bits (a set count still wins)."""
    with _lock:
        _deterministic[:] = [True]
        _resize_pool()
    _size_blas(force=False)


def adapt_to_load():
    """Re-measure other processes' load (at most once a second) and resize both pools when the
    load-following count changes. Cheap enough to call once per training step."""
    if not _follows_load():
        return
    before = _follower.threads
    if _follower.update(time.monotonic()) != before:
        with _lock:
            _resize_pool()
        _size_blas(force=False)


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
