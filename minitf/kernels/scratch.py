"""Per-thread scratch buffers for the host kernels' intermediates.

Fresh host buffers of a few hundred KB or more come from mmap or a heap that glibc trims on
free, and page-faulting them in can cost as much as the pass that fills them (DCGAN's 5x5
stride-2 Winograd input gradient: 17.8 ms with fresh buffers, 12.6 ms reused). A `Scratch`
keeps a few named buffers per thread and hands out views of them; a slot holds one
intermediate at a time, and nothing returned to a kernel's caller may live in a slot.
"""
import math
import threading

import numpy as np

__all__ = ["Scratch"]


class Scratch:
    """Named, per-thread host buffers up to `max_bytes` each (larger requests get fresh arrays).

    Each kernel module keeps its own `Scratch`, so slot names only need to be distinct within
    a module.
    """

    def __init__(self, max_bytes):
        self.max_bytes = max_bytes
        self._local = threading.local()

    def __call__(self, slot, shape, dtype):
        """An uninitialised numpy array of `shape` and `dtype`: a view of this thread's buffer
        `slot`, grown when too small (a fresh array above `max_bytes`)."""
        dtype = np.dtype(dtype)
        size = math.prod(shape) * dtype.itemsize
        if size > self.max_bytes:
            return np.empty(shape, dtype=dtype)
        buffers = self._local.__dict__.setdefault("buffers", {})
        buf = buffers.get(slot)
        if buf is None or buf.nbytes < size:
            buf = buffers[slot] = np.empty(max(size, 64), dtype=np.uint8)
        return buf[:size].view(dtype).reshape(shape)
