"""The MPI implementation of the collective seam: one process of an mpiexec job, talking to the
others through an mpi4py communicator (Horovod's and ChainerMN's design).

Small arrays are packed into a few contiguous buffers ("buckets", Horovod's fusion buffer) so a
list of a hundred gradients costs a handful of MPI calls instead of a hundred. Every
collective opens with a tiny allgather of a hash of what this process is about to do (the
method, the op, the shapes and dtypes, the bucket size): processes that disagree get an
InvalidArgumentError naming the difference instead of silently reducing mismatched buffers. No
data moves before that check has passed; allreduce hides its latency behind the copies into the
buffers it reduces in place, made while the hash is in flight. With `timeout_seconds` set, the MPI
calls are non-blocking and polled against a deadline, so a dead or stuck peer becomes a
DeadlineExceededError (what TF's collectives raise on their timeout) instead of a hang.

mpi4py is optional (the `mpi` extra); it is imported when a group is first built.
Device (cupy) arrays are copied to the host, reduced there and copied back: CUDA-aware MPI is
not assumed. NCCL (`nccl_collective`) is the device-side path.
"""
import atexit
import fcntl
import functools
import hashlib
import operator
import pickle
import struct
import sys
import termios
import time

import numpy as np

from minitf import backend
from minitf.errors import errors
from minitf.distribute.collective import Collective, REDUCTIONS

__all__ = ["MpiCollective", "import_mpi", "MPI_INSTALL_HINT", "DEFAULT_BUCKET_BYTES"]

MPI_INSTALL_HINT = 'pip install "minitf[mpi]" (mpi4py and an MPI library such as the mpich wheel)'
DEFAULT_BUCKET_BYTES = 4 * 1024 * 1024  # Horovod's fusion buffer is a few MiB, too
_ALIGN = 64  # byte alignment of each array inside a packed buffer
# MPI moves a non-blocking collective's data only while the process tests it, so a timed sleep
# between tests stalls big transfers; after a short pure spin, polling only yields the CPU.
_SPIN_SECONDS = 0.01
_POLLS_PER_CLOCK = 64  # a poll is well under a microsecond; reading the clock on each slows progress
# Before aborting, wait this long at most for the launcher to read what this process printed.
_DRAIN_SECONDS = 2.0
_CACHE_SIZE = 256  # distinct call layouts remembered (a training loop has a handful)
_BUCKETED = ("allreduce", "broadcast")  # collectives whose MPI calls depend on bucket_bytes
_MPI_OPS = {"sum": "SUM", "mean": "SUM", "max": "MAX", "min": "MIN"}
_SHAPE = operator.attrgetter("shape")
_DTYPE = operator.attrgetter("dtype")


def import_mpi():
    """The `mpi4py.MPI` module, or ImportError saying how to install it."""
    try:
        from mpi4py import MPI  # lazy: optional dependency (mpi extra)
    except ImportError as e:
        raise ImportError(f"minitf's multi-process tf.distribute runs on MPI, and mpi4py could not be "
                          f"imported ({e}). Install it with {MPI_INSTALL_HINT}, then launch the script "
                          f"with `mpiexec -n N python script.py`.") from e
    return MPI


def _digest(text):
    """A 62-bit hash of `text`, equal in every process (Python's hash() is salted per process)."""
    return int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "little") >> 2


def _reduce_dtype(dtype, op):
    """The dtype MPI reduces `dtype` in for `op` (half floats in float32, bools as uint8)."""
    if dtype == np.bool_:
        if op in ("sum", "mean"):
            raise errors.InvalidArgumentError(
                None, None, f"allreduce: op={op!r} is not defined for bool arrays; use 'max' (any) or "
                f"'min' (all), or cast to an integer dtype first")
        return np.dtype(np.uint8)
    if dtype.kind == "c" and op in ("max", "min"):
        raise errors.InvalidArgumentError(
            None, None, f"allreduce: op={op!r} is not defined for complex arrays ({dtype}); use 'sum' or 'mean'")
    if dtype.kind == "f" and dtype.itemsize < 4 or dtype.kind == "V" or dtype.name == "bfloat16":
        return np.dtype(np.float32)
    if dtype.kind not in "biufc":
        raise errors.InvalidArgumentError(
            None, None, f"allreduce: arrays of dtype {dtype} cannot be reduced; use a numeric dtype")
    return dtype


def bucket_plan(nbytes, bucket_bytes):
    """Consecutive index groups whose byte sizes add up to at most `bucket_bytes` each."""
    buckets, current, filled = [], [], 0
    for i, n in enumerate(nbytes):
        if current and filled + n > bucket_bytes:
            buckets.append(current)
            current, filled = [], 0
        current.append(i)
        filled += -(-n // _ALIGN) * _ALIGN
    if current:
        buckets.append(current)
    return buckets


def _guarded(method):
    """Run a collective method, turning MPI's own exceptions into TF's UnavailableError and
    marking the group broken when it fails or is interrupted midway (its peers may be ahead)."""
    @functools.wraps(method)
    def run(self, *args, **kwargs):
        try:
            return method(self, *args, **kwargs)
        except self._mpi.Exception as e:
            self._break(f"MPI reported: {e}")
            raise errors.UnavailableError(
                None, None, f"MpiCollective.{method.__name__} on rank {self.rank} of {self.size} failed in MPI "
                f"({str(e).splitlines()[0]}). A worker may have died: check the other workers' logs, then "
                f"restart the job (all workers).") from e
        except KeyboardInterrupt:
            self._break(f"{method.__name__} was interrupted")
            raise
    return run


def _describe(arrays):
    return [f"{a.dtype.name}{tuple(a.shape)}" for a in arrays]


class MpiCollective(Collective):
    """A group of processes over an mpi4py communicator (`MPI.COMM_WORLD` when `comm` is None).

    Args:
      comm: the mpi4py communicator; its rank and size are this group's.
      timeout_seconds: None waits forever (TF's default); a number makes every collective raise
        `tf.errors.DeadlineExceededError` when the other processes have not joined in time. The
        group is unusable after a timeout, and the job is aborted when this process exits (an MPI
        collective cannot be cancelled, so MPI could not shut down cleanly).
      bucket_bytes: how many bytes of small arrays are packed into one MPI call.
      check_signatures: compare what every process is about to do (and its bucket_bytes) before
        each collective (one 16-byte allgather); turn off only when the caller guarantees agreement.
    """

    name = "mpi"

    def __init__(self, comm=None, timeout_seconds=None, bucket_bytes=DEFAULT_BUCKET_BYTES,
                 check_signatures=True):
        mpi = import_mpi()
        self._mpi = mpi
        self._comm = mpi.COMM_WORLD if comm is None else comm
        self.rank = self._comm.Get_rank()
        self.size = self._comm.Get_size()
        if timeout_seconds is not None and not timeout_seconds > 0:
            raise ValueError(f"MpiCollective: timeout_seconds must be a positive number or None, "
                             f"got {timeout_seconds!r}")
        if int(bucket_bytes) < 1:
            raise ValueError(f"MpiCollective: bucket_bytes must be positive, got {bucket_bytes!r}")
        self.timeout_seconds = timeout_seconds
        self.bucket_bytes = int(bucket_bytes)
        self.check_signatures = bool(check_signatures)
        self._broken = None  # the message of the failure that left the group unusable
        self._closed = False
        self._digests = {}  # (what, dtypes and shapes) -> agreement hash
        self._layouts = {}  # (op, bucket size, dtypes and shapes) -> allreduce buckets

    @property
    def comm(self):
        """The mpi4py communicator underneath."""
        return self._comm

    def __repr__(self):
        return (f"MpiCollective(rank={self.rank}, size={self.size}, timeout_seconds={self.timeout_seconds}, "
                f"bucket_bytes={self.bucket_bytes})")

    # -- waiting -------------------------------------------------------------------------------

    def _usable(self, what):
        if self._closed:
            raise errors.FailedPreconditionError(
                None, None, f"MpiCollective.{what} on rank {self.rank}: the group was closed; build a new one")
        if self._broken is not None:
            raise errors.UnavailableError(
                None, None, f"MpiCollective.{what} on rank {self.rank}: the group is unusable since an "
                f"earlier collective failed ({self._broken}). Restart the job (all workers).")

    def _wait(self, requests, what):
        """Complete `requests`, polling against the deadline when there is one.

        Polled even without a deadline: a blocking MPI wait spins without yielding the CPU (slow
        when processes outnumber cores) and cannot be interrupted with Ctrl-C. One request is
        tested at a time (any test progresses them all, and a single Test is cheaper than a
        Testall of the list); the clock is read every `_POLLS_PER_CLOCK` polls, then, past the
        spin, on every poll along with a yield.
        """
        start = time.monotonic()
        deadline = start + (self.timeout_seconds if self.timeout_seconds is not None else float("inf"))
        every, polls = _POLLS_PER_CLOCK, 0
        for request in requests:
            while not request.Test():
                polls += 1
                if polls % every:
                    continue
                now = time.monotonic()
                if now >= deadline:
                    self._fail_timeout(what, now - start)
                if now - start > _SPIN_SECONDS:
                    every = 1
                    time.sleep(0)  # yield to other processes on an oversubscribed machine

    def _fail_timeout(self, what, waited):
        message = (f"MpiCollective.{what} on rank {self.rank} of {self.size} timed out after {waited:.1f} s "
                   f"(timeout_seconds={self.timeout_seconds}): the other workers did not join. A worker may "
                   f"have died or be stuck: check the other workers' logs. If they are only slow (a long "
                   f"first step, uneven data), raise the limit with "
                   f"tf.distribute.experimental.CommunicationOptions(timeout_seconds=...).")
        self._break(f"{what} timed out after {waited:.1f} s")
        raise errors.DeadlineExceededError(None, None, message)

    def _break(self, reason):
        """Mark the group unusable. An MPI collective cannot be cancelled, and MPI_Finalize would
        wait for it forever: the whole job is aborted at exit instead (after the caller has
        handled or printed the error)."""
        if self._broken is None:
            atexit.register(self._abort_at_exit)
        self._broken = reason

    def _abort_at_exit(self):
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except Exception:  # a closed stream must not stop the abort
                pass
        _wait_for_output_to_drain(_DRAIN_SECONDS)
        self._comm.Abort(1)

    # -- agreement -----------------------------------------------------------------------------

    def _agree(self, what, arrays=(), count=0, parts=None):
        """Allgather (hash of `what` and the arrays' dtypes and shapes, `count`); raise when the
        hashes differ. `parts` replaces the arrays' descriptions (allgather's unknown first dims).

        Returns the gathered counts (allgather's first dimensions). Every process sees the same
        gathered hashes, so all of them raise together and can exchange the details first.
        """
        self._usable(what)
        if not self.check_signatures and what != "allgather":
            return None
        digest = 0
        if self.check_signatures:
            key = (what, tuple(parts) if parts is not None else tuple((a.dtype, a.shape) for a in arrays))
            digest = self._digests.get(key)
            if digest is None:
                if len(self._digests) > _CACHE_SIZE:
                    self._digests.clear()
                digest = self._digests[key] = self._signature(
                    what, parts if parts is not None else _describe(arrays))
        started = self._start_agree(digest, count)
        self._finish_agree(started, what, arrays, parts)
        return np.frombuffer(started[2], "<i8")[1::2]

    def _signature(self, what, parts):
        """The agreement hash of `what` on arrays described by `parts`. The bucketed collectives
        also hash `bucket_bytes`: workers with different buckets would start MPI calls of
        different sizes."""
        bucketed = f"|bucket_bytes={self.bucket_bytes}" if what.split(" ")[0] in _BUCKETED else ""
        return _digest(what + bucketed + "|" + ";".join(parts))

    def _start_agree(self, digest, count):
        """Start the allgather of (digest, count); finish it with `_finish_agree`.

        Plain bytes rather than numpy arrays: the check runs right after the bucket copies have
        pushed numpy's code out of the CPU caches, where even a small array op costs tens of us.
        """
        mine = digest.to_bytes(8, "little") + int(count).to_bytes(8, "little", signed=True)
        gathered = bytearray(16 * self.size)
        byte = self._mpi.BYTE
        request = self._comm.Iallgather([mine, byte], [gathered, byte])
        request.Test()  # MPI sends only when progressed: send now, so the reply is in by the finish
        return request, mine, gathered

    def _finish_agree(self, started, what, arrays=(), parts=None):
        """Wait for the allgather `_start_agree` began; raise InvalidArgumentError on every process
        when the hashes differ."""
        request, mine, gathered = started
        if not request.Test():  # usually done by now: skip the polling loop's setup
            self._wait([request], what)
        if self.check_signatures and gathered != mine * self.size and any(
                gathered[16 * r:16 * r + 8] != mine[:8] for r in range(self.size)):
            parts = list(parts) if parts is not None else _describe(arrays)
            bucket_bytes = self.bucket_bytes if what.split(" ")[0] in _BUCKETED else None
            calls = [pickle.loads(t) for t in self._gather_bytes(pickle.dumps((what, parts, bucket_bytes)), what)]
            raise errors.InvalidArgumentError(None, None, self._mismatch_message(what, calls))

    def _mismatch_message(self, what, calls):
        first = calls[0]
        other = next(r for r, c in enumerate(calls) if c != first)
        (what_a, parts_a, bucket_a), (what_b, parts_b, bucket_b) = first, calls[other]
        if what_a != what_b:
            detail = f"rank 0 called {what_a} and rank {other} called {what_b}"
        elif len(parts_a) != len(parts_b):
            detail = f"rank 0 passed {len(parts_a)} arrays and rank {other} passed {len(parts_b)}"
        elif parts_a != parts_b:
            i = next(i for i, (a, b) in enumerate(zip(parts_a, parts_b)) if a != b)
            detail = f"array {i} is {parts_a[i]} on rank 0 and {parts_b[i]} on rank {other}"
        else:
            detail = (f"bucket_bytes is {bucket_a} on rank 0 and {bucket_b} on rank {other}, so the arrays "
                      f"would be packed into MPI calls of different sizes; give every worker's group the "
                      f"same bucket_bytes")
        return (f"MpiCollective.{what.split(' ')[0]} on rank {self.rank}: the workers called the collective "
                f"with different arguments ({detail}). Every worker must run the same collectives in the "
                f"same order with arrays of the same shapes and dtypes (same model, same batch shapes).")

    def _gather_bytes(self, data, what):
        """Every process's byte string, in rank order (no agreement check: used by it)."""
        mine = np.frombuffer(data, np.uint8)
        lengths = np.empty(self.size, np.int64)
        self._wait([self._comm.Iallgather(np.array([mine.size], np.int64), lengths)], what)
        out = np.empty(int(lengths.sum()), np.uint8)
        offsets = np.concatenate([[0], np.cumsum(lengths)[:-1]])
        self._wait([self._comm.Iallgatherv(mine, [out, (lengths, offsets), self._mpi.BYTE])], what)
        return [out[o:o + n].tobytes() for o, n in zip(offsets, lengths)]

    # -- arrays --------------------------------------------------------------------------------

    @_guarded
    def allreduce(self, arrays, op="sum"):
        """Each array of `arrays` reduced over the processes; mean is sum / size.

        The mean of integer arrays is a float64 array, as TF's `x / n` on an integer tensor.
        Half-precision floats are reduced in float32 and come back in their own dtype.
        """
        if op not in REDUCTIONS:
            raise ValueError(f"allreduce: unknown reduction {op!r}; use one of {REDUCTIONS}")
        arrays = list(arrays)
        hosts = [a if type(a) is np.ndarray else np.asarray(backend.to_host(a)) for a in arrays]
        what = "allreduce op=" + op
        self._usable(what)
        plan = self._allreduce_plan(op, hosts, what)
        check = self.check_signatures
        if check:  # the signature travels while this process packs its buckets
            started = self._start_agree(plan[0], 0)
        # Every bucket is reduced in place in a new buffer: the copy into it is the one MPI would
        # make from a separate send buffer, made here while the signature is in flight.
        try:
            packed = [np.array(hosts[members[0][0]], dtype=work, order="C") if solo else
                      np.concatenate([hosts[m[0]].reshape(-1) for m in members], dtype=work, casting="same_kind")
                      for work, solo, members in plan[1]]
        except Exception as e:  # out of memory with the allgather in flight: the peers went on without us
            if check:
                self._break(f"allreduce failed while packing its buffers ({type(e).__name__})")
            raise
        if check:  # no data call starts before every process is known to start the same ones
            self._finish_agree(started, what, hosts)
        if not hosts:
            return []
        mpi = self._mpi
        mpi_op, in_place, comm = getattr(mpi, _MPI_OPS[op]), mpi.IN_PLACE, self._comm
        self._wait([comm.Iallreduce(in_place, buf, op=mpi_op) for buf in packed], what)
        results = [None] * len(hosts)
        for (work, solo, members), buf in zip(plan[1], packed):
            if op == "mean":
                if buf.dtype.kind in "fc":
                    buf /= self.size
                else:
                    buf = buf / self.size  # TF: an integer tensor / n is float64
            if solo:
                i, _, _, _, cast = members[0]
                results[i] = buf if cast is None else buf.astype(cast)
                continue
            for i, start, stop, shape, cast in members:
                piece = buf[start:stop].reshape(shape)
                results[i] = piece if cast is None else piece.astype(cast)
        return [r if type(a) is np.ndarray else _like(r, a) for r, a in zip(results, arrays)]

    def _allreduce_plan(self, op, hosts, what):
        """(signature hash, buckets) of an allreduce of `hosts`, cached by op, dtypes and shapes (a
        training loop reduces the same list every step). A bucket is (work dtype, solo, members),
        a member (index, start, stop, shape, dtype to cast back to or None); consecutive arrays of
        one work dtype share a bucket up to `bucket_bytes`, and a bigger array is alone (solo)."""
        key = (op, self.bucket_bytes, tuple(map(_SHAPE, hosts)), tuple(map(_DTYPE, hosts)))
        plan = self._layouts.get(key)
        if plan is not None:
            return plan
        try:
            groups = {}
            for i, h in enumerate(hosts):
                groups.setdefault(_reduce_dtype(h.dtype, op), []).append(i)
        except errors.InvalidArgumentError:
            # an op this dtype cannot take: first make sure every worker made the same call
            # (or name the difference), then every worker raises this same error
            self._agree(what, hosts)
            raise
        buckets = []
        for work, members in groups.items():
            def member(i, start):
                h = hosts[i]
                keep = h.dtype == work or (op == "mean" and h.dtype.kind in "iu")  # integer means stay float64
                return (i, start, start + h.size, h.shape, None if keep else h.dtype)
            for bucket in bucket_plan([hosts[i].size * work.itemsize for i in members], self.bucket_bytes):
                idx = [members[b] for b in bucket]
                offsets = np.concatenate([[0], np.cumsum([hosts[i].size for i in idx])]).tolist()
                buckets.append((work, len(idx) == 1, [member(i, o) for i, o in zip(idx, offsets)]))
        if len(self._layouts) > _CACHE_SIZE:
            self._layouts.clear()
        plan = self._layouts[key] = (self._signature(what, _describe(hosts)), buckets)
        return plan

    @_guarded
    def broadcast(self, arrays, root=0):
        """The arrays of process `root` on every process (new arrays everywhere)."""
        self._check_root(root, "broadcast")
        arrays = list(arrays)
        hosts = [np.asarray(backend.to_host(a)) for a in arrays]
        self._agree(f"broadcast root={root}", hosts)
        if not hosts:
            return []
        pending = []
        for bucket in bucket_plan([h.nbytes for h in hosts], self.bucket_bytes):
            offsets, total = [], 0
            for i in bucket:
                offsets.append(total)
                total += -(-hosts[i].nbytes // _ALIGN) * _ALIGN
            buf = np.empty(total, np.uint8)
            if self.rank == root:
                for i, o in zip(bucket, offsets):
                    h = hosts[i]
                    buf[o:o + h.nbytes].view(h.dtype)[...] = h.reshape(-1)
            pending.append((self._comm.Ibcast(buf, root=root), bucket, offsets, buf))
        self._wait([p[0] for p in pending], f"broadcast root={root}")
        results = [None] * len(hosts)
        for _, bucket, offsets, buf in pending:
            for i, o in zip(bucket, offsets):
                h = hosts[i]
                results[i] = buf[o:o + h.nbytes].view(h.dtype).reshape(h.shape)
        return [_like(r, a) for r, a in zip(results, arrays)]

    @_guarded
    def allgather(self, array):
        """Every process's `array` in rank order; first dimensions may differ (MPI_Allgatherv)."""
        host = np.ascontiguousarray(backend.to_host(array))
        if host.ndim == 0:
            raise errors.InvalidArgumentError(
                None, None, "MpiCollective.allgather: got a scalar (shape ()); gather arrays with at "
                "least one dimension (reshape to [1] first)")
        counts = self._agree("allgather", count=host.shape[0],
                             parts=[f"{host.dtype.name}(?, {', '.join(map(str, host.shape[1:]))})"])
        row = int(np.prod(host.shape[1:], dtype=np.int64)) * host.dtype.itemsize
        nbytes = counts * row
        offsets = np.concatenate([[0], np.cumsum(nbytes)[:-1]]).astype(np.int64)
        out = np.empty(int(nbytes.sum()), np.uint8)
        send = host.reshape(-1).view(np.uint8) if host.size else np.empty(0, np.uint8)
        self._wait([self._comm.Iallgatherv(send, [out, (nbytes, offsets), self._mpi.BYTE])], "allgather")
        parts = [out[o:o + n].view(host.dtype).reshape((int(c),) + host.shape[1:])
                 for o, n, c in zip(offsets, nbytes, counts)]
        return [_like(p, array) for p in parts]

    # -- objects -------------------------------------------------------------------------------

    @_guarded
    def broadcast_object(self, obj, root=0):
        """A small picklable object of process `root`, on every process."""
        self._check_root(root, "broadcast_object")
        self._agree(f"broadcast_object root={root}")
        data = pickle.dumps(obj) if self.rank == root else b""
        length = np.array([len(data)], np.int64)
        self._wait([self._comm.Ibcast(length, root=root)], "broadcast_object")
        buf = np.frombuffer(data, np.uint8).copy() if self.rank == root else np.empty(int(length[0]), np.uint8)
        self._wait([self._comm.Ibcast(buf, root=root)], "broadcast_object")
        return obj if self.rank == root else pickle.loads(buf.tobytes())

    @_guarded
    def allgather_object(self, obj):
        """Every process's small picklable object, in rank order."""
        self._agree("allgather_object")
        return [pickle.loads(b) for b in self._gather_bytes(pickle.dumps(obj), "allgather_object")]

    @_guarded
    def barrier(self):
        """Return once every process has called it (within the timeout, when one is set)."""
        self._agree("barrier")
        self._wait([self._comm.Ibarrier()], "barrier")

    def close(self):
        """Forget the communicator (COMM_WORLD itself is never freed; MPI finalizes it at exit)."""
        self._closed = True

    def _check_root(self, root, what):
        if not isinstance(root, (int, np.integer)) or not 0 <= root < self.size:
            raise ValueError(f"MpiCollective.{what}: root must be a rank in [0, {self.size}), got {root!r}")


def _like(result, original):
    """`result` (numpy) on the array module of `original` (a copy to the GPU for cupy arrays)."""
    if type(original) is np.ndarray or backend.array_module(original) is np:
        return result
    return backend.coerce_to_module(result, backend.array_module(original))


def _unread_bytes(fd):
    """Bytes written to `fd` that its reader has not taken yet (0 unless `fd` is a pipe or socket)."""
    try:
        return struct.unpack("i", fcntl.ioctl(fd, termios.FIONREAD, b"\0\0\0\0"))[0]
    except (OSError, ValueError):
        return 0


def _wait_for_output_to_drain(limit, fds=(1, 2)):
    """Wait until the launcher has read the pipes `fds` (stdout and stderr), for `limit` seconds
    at most. MPI_Abort makes the launcher kill every process and stop relaying output, so the
    error the user needs would otherwise be lost while still in the pipe."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        if not any(_unread_bytes(fd) for fd in fds):
            time.sleep(0.05)  # the launcher relays what it read to mpiexec's own output
            return
        time.sleep(0.01)
