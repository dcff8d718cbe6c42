"""The NCCL implementation of the collective seam: one GPU per process, cupy arrays reduced on the
device by NCCL (`cupy.cuda.nccl`), the processes found and bootstrapped through MPI.

MPI does the small host-side work: it broadcasts NCCL's unique id from rank 0, runs the
agreement check before each collective (the same one `MpiCollective` runs) and carries the
object variants and the barrier. numpy arrays given to this group go through MPI as well.
Like the MPI group, a deadline (`timeout_seconds`) turns a dead peer into a
DeadlineExceededError: the NCCL calls are queued on the current stream and the stream is
polled; on expiry the communicator is aborted, which frees the GPU from the stuck kernels.
"""
import time

import numpy as np

from minitf import backend
from minitf.errors import errors
from minitf.distribute.collective import Collective, REDUCTIONS
from minitf.distribute.mpi_collective import DEFAULT_BUCKET_BYTES, MpiCollective, bucket_plan

__all__ = ["NcclCollective", "import_nccl"]

_NCCL_DTYPES = {  # numpy dtype name -> name of cupy.cuda.nccl's constant
    "float16": "NCCL_FLOAT16", "float32": "NCCL_FLOAT32", "float64": "NCCL_FLOAT64",
    "bfloat16": "NCCL_BFLOAT16", "int8": "NCCL_INT8", "uint8": "NCCL_UINT8", "int32": "NCCL_INT32",
    "uint32": "NCCL_UINT32", "int64": "NCCL_INT64", "uint64": "NCCL_UINT64",
}


def import_nccl():
    """`cupy.cuda.nccl`, or ImportError saying what is missing."""
    cupy = backend.gpu_policy().info.cupy
    if cupy is None:
        raise ImportError(f"NcclCollective needs cupy and a GPU: {backend.gpu_policy().info.reason or 'no GPU'}. "
                          f"Install cupy-cuda12x on a machine with NVIDIA GPUs, or use the MPI (RING) "
                          f"implementation for CPU arrays.")
    try:
        from cupy.cuda import nccl  # lazy: optional dependency (cupy's NCCL bindings)
    except ImportError as e:
        raise ImportError(f"cupy is installed but its NCCL bindings could not be imported ({e}); install "
                          f"NCCL for your CUDA version (e.g. pip install nvidia-nccl-cu12) or use the "
                          f"RING (MPI) implementation.") from e
    if not getattr(nccl, "available", True):
        raise ImportError("cupy was built without NCCL (cupy.cuda.nccl.available is False); install a cupy "
                          "wheel with NCCL support or use the RING (MPI) implementation.")
    return nccl


class NcclCollective(Collective):
    """A group of processes, one GPU each, reducing cupy arrays with NCCL.

    Args:
      comm: the mpi4py communicator that finds the processes (COMM_WORLD when None).
      timeout_seconds: None waits forever; a number makes a collective that the other processes
        do not join in time raise `tf.errors.DeadlineExceededError` (and aborts the communicator).
      bucket_bytes: how many bytes of small arrays one NCCL call reduces.
      check_signatures: compare shapes, dtypes and ops across processes before each collective.
      device: the GPU this process uses; None picks the process's local rank on its node modulo
        the GPU count (mpiexec usually starts one process per GPU).
    """

    name = "nccl"

    def __init__(self, comm=None, timeout_seconds=None, bucket_bytes=DEFAULT_BUCKET_BYTES,
                 check_signatures=True, device=None):
        self._nccl = import_nccl()
        self._cupy = backend.gpu_policy().info.cupy
        self._host = MpiCollective(comm, timeout_seconds=timeout_seconds, bucket_bytes=bucket_bytes,
                                   check_signatures=check_signatures)
        self.rank, self.size = self._host.rank, self._host.size
        self.timeout_seconds = timeout_seconds
        self.bucket_bytes = int(bucket_bytes)
        if device is None:
            local = self._host.comm.Split_type(self._host._mpi.COMM_TYPE_SHARED)
            device = local.Get_rank() % max(1, self._cupy.cuda.runtime.getDeviceCount())
            local.Free()
        self.device = int(device)
        self._cupy.cuda.Device(self.device).use()
        unique_id = self._nccl.get_unique_id() if self.rank == 0 else None
        unique_id = self._host.broadcast_object(unique_id, root=0)
        self._comm = self._nccl.NcclCommunicator(self.size, unique_id, self.rank)
        self._broken = None

    def __repr__(self):
        return (f"NcclCollective(rank={self.rank}, size={self.size}, device={self.device}, "
                f"timeout_seconds={self.timeout_seconds})")

    # -- plumbing ------------------------------------------------------------------------------

    def _is_device(self, arrays):
        return bool(arrays) and all(backend.array_module(a) is self._cupy for a in arrays)

    def _dtype(self, dtype, what):
        name = _NCCL_DTYPES.get(np.dtype(dtype).name)
        constant = getattr(self._nccl, name, None) if name else None
        if constant is None:
            raise errors.InvalidArgumentError(
                None, None, f"NcclCollective.{what}: NCCL cannot carry {np.dtype(dtype).name} arrays; cast "
                f"to one of {sorted(_NCCL_DTYPES)} first")
        return constant

    def _stream(self):
        return self._cupy.cuda.get_current_stream()

    def _wait(self, stream, what):
        """Wait for the NCCL work queued on `stream`, against the deadline when there is one."""
        if self.timeout_seconds is None:
            stream.synchronize()
            return
        event = stream.record()
        start = time.monotonic()
        pause = 0.0001
        while not event.done:
            waited = time.monotonic() - start
            if waited >= self.timeout_seconds:
                self._broken = f"{what} timed out after {waited:.1f} s"
                self._comm.abort()
                raise errors.DeadlineExceededError(
                    None, None, f"NcclCollective.{what} on rank {self.rank} of {self.size} (GPU {self.device}) "
                    f"timed out after {waited:.1f} s (timeout_seconds={self.timeout_seconds}): the other "
                    f"workers did not join, so the NCCL communicator was aborted. A worker may have died or "
                    f"be stuck: check the other workers' logs. If they are only slow, raise the limit with "
                    f"tf.distribute.experimental.CommunicationOptions(timeout_seconds=...).")
            time.sleep(pause)
            pause = min(pause * 2, 0.005)

    def _usable(self, what):
        if self._broken is not None:
            raise errors.UnavailableError(
                None, None, f"NcclCollective.{what} on rank {self.rank}: the group is unusable since an "
                f"earlier collective failed ({self._broken}). Restart the job (all workers).")
        if self._comm is None:
            raise errors.FailedPreconditionError(
                None, None, f"NcclCollective.{what} on rank {self.rank}: the group was closed; build a new one")

    # -- arrays --------------------------------------------------------------------------------

    def allreduce(self, arrays, op="sum"):
        """Each cupy array reduced over the processes on the GPUs; numpy arrays go through MPI.

        mean is sum / size; integer means are float64 (TF's `x / n`)."""
        if op not in REDUCTIONS:
            raise ValueError(f"allreduce: unknown reduction {op!r}; use one of {REDUCTIONS}")
        arrays = list(arrays)
        if not self._is_device(arrays):
            return self._host.allreduce(arrays, op)
        self._usable("allreduce")
        self._host._agree(f"allreduce op={op}", arrays)
        xp, nccl = self._cupy, self._nccl
        nccl_op = {"sum": nccl.NCCL_SUM, "mean": nccl.NCCL_SUM, "max": nccl.NCCL_MAX, "min": nccl.NCCL_MIN}[op]
        work = [np.dtype(np.uint8) if a.dtype == np.bool_ else a.dtype for a in arrays]
        if any(a.dtype == np.bool_ for a in arrays) and op in ("sum", "mean"):
            raise errors.InvalidArgumentError(
                None, None, f"allreduce: op={op!r} is not defined for bool arrays; use 'max' (any) or 'min' (all)")
        groups = {}
        for i, w in enumerate(work):
            groups.setdefault(w, []).append(i)
        stream = self._stream()
        pending = []
        nccl.groupStart()
        try:
            for w, members in groups.items():
                constant = self._dtype(w, "allreduce")
                for bucket in bucket_plan([arrays[i].size * w.itemsize for i in members], self.bucket_bytes):
                    idx = [members[b] for b in bucket]
                    if len(idx) == 1:
                        send = xp.ascontiguousarray(arrays[idx[0]], dtype=w).reshape(-1)
                        buf = xp.empty(send.size, w)
                    else:
                        buf = xp.concatenate([arrays[i].astype(w, copy=False).reshape(-1) for i in idx])
                        send = buf
                    if buf.size:
                        self._comm.allReduce(send.data.ptr, buf.data.ptr, buf.size, constant, nccl_op, stream.ptr)
                    pending.append((idx, buf))
        finally:
            nccl.groupEnd()
        self._wait(stream, f"allreduce op={op}")
        results = [None] * len(arrays)
        for idx, buf in pending:
            if op == "mean":
                buf = buf / self.size if buf.dtype.kind in "iu" else buf * (1.0 / self.size)
            offset = 0
            for i in idx:
                a = arrays[i]
                piece = buf[offset:offset + a.size].reshape(a.shape)
                offset += a.size
                if piece.dtype != a.dtype and not (op == "mean" and a.dtype.kind in "iu"):
                    piece = piece.astype(a.dtype)
                results[i] = piece
        return results

    def broadcast(self, arrays, root=0):
        """The cupy arrays of process `root` on every process (numpy arrays go through MPI)."""
        arrays = list(arrays)
        if not self._is_device(arrays):
            return self._host.broadcast(arrays, root)
        self._usable("broadcast")
        self._host._check_root(root, "broadcast")
        self._host._agree(f"broadcast root={root}", arrays)
        xp, nccl = self._cupy, self._nccl
        stream = self._stream()
        out = [xp.array(a, copy=True, order="C") if self.rank == root else xp.empty(a.shape, a.dtype)
               for a in arrays]
        nccl.groupStart()
        try:
            for buf in (b for b in out if b.nbytes):
                self._comm.bcast(buf.data.ptr, buf.nbytes, nccl.NCCL_UINT8, root, stream.ptr)
        finally:
            nccl.groupEnd()
        self._wait(stream, f"broadcast root={root}")
        return out

    def allgather(self, array):
        """Every process's cupy `array` in rank order; first dimensions may differ (padded to the
        largest for NCCL's equal-count allgather, then sliced)."""
        if backend.array_module(array) is not self._cupy:
            return self._host.allgather(array)
        self._usable("allgather")
        if array.ndim == 0:
            raise errors.InvalidArgumentError(
                None, None, "NcclCollective.allgather: got a scalar (shape ()); gather arrays with at least "
                "one dimension (reshape to [1] first)")
        xp, nccl = self._cupy, self._nccl
        trailing = ", ".join(map(str, array.shape[1:]))
        counts = self._host._agree("allgather", count=array.shape[0], parts=[f"{array.dtype.name}(?, {trailing})"])
        row = int(np.prod(array.shape[1:], dtype=np.int64)) * array.dtype.itemsize
        slot = int(counts.max()) * row
        send = xp.zeros(slot, xp.uint8)
        mine = xp.ascontiguousarray(array).reshape(-1).view(xp.uint8)
        send[:mine.size] = mine
        recv = xp.empty(slot * self.size, xp.uint8)
        stream = self._stream()
        if slot:
            self._comm.allGather(send.data.ptr, recv.data.ptr, slot, nccl.NCCL_UINT8, stream.ptr)
        self._wait(stream, "allgather")
        return [recv[r * slot:r * slot + int(c) * row].view(array.dtype).reshape((int(c),) + array.shape[1:])
                for r, c in enumerate(counts)]

    # -- objects and barrier go through MPI ----------------------------------------------------

    def broadcast_object(self, obj, root=0):
        """A small picklable object of process `root`, on every process (over MPI)."""
        return self._host.broadcast_object(obj, root)

    def allgather_object(self, obj):
        """Every process's small picklable object, in rank order (over MPI)."""
        return self._host.allgather_object(obj)

    def barrier(self):
        """Wait for this GPU's queued work, then for every process (over MPI)."""
        self._usable("barrier")
        self._wait(self._stream(), "barrier")
        self._host.barrier()

    def close(self):
        """Destroy the NCCL communicator (idempotent)."""
        if self._comm is not None:
            self._comm.destroy()
            self._comm = None
        self._host.close()
