"""Device-specific fast paths on raw arrays (no Tensor, no tape).

The ops keep TF's API, the argument checks, the shape arithmetic and the gradient rules; the
work on the arrays that differs by device lives here, one module per array module:
`minitf.kernels.numpy` (CPU: BLAS tuning, cache blocking, threads) and `minitf.kernels.cupy`
(GPU, and any other array module registered with the backend). Both expose the same
functions; an op picks its set with `for_module(xp)`:

    kernels.for_module(array_module(x)).conv2d(x, w, geo)

`minitf.kernels.threads` owns the CPU thread counts (BLAS pool and minitf's worker pool).
"""
import numpy as np

from minitf.kernels import cupy as _device_kernels
from minitf.kernels import numpy as _host_kernels
from minitf.kernels import threads  # noqa: F401  (the thread-count owner, part of the seam)

__all__ = ["for_module", "threads"]


def for_module(xp):
    """The kernel module for array module `xp`: numpy's for numpy, the device kernels else."""
    return _host_kernels if xp is np else _device_kernels
