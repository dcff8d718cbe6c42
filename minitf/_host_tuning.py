"""Opt-in glibc malloc tuning: keep freed memory for reuse instead of returning it to the OS.

By default glibc hands freed blocks above a moving threshold back to the OS, so each training
step's large arrays page-fault all over again when the next step allocates them. Raising the
mmap and trim thresholds keeps freed memory (up to 1 GiB at the top of the heap) for reuse,
which is what PyTorch's CPU tuning guide gets by swapping in jemalloc or tcmalloc. The price is
process-wide: the resident size stays near its peak, for minitf's arrays and everybody else's.

So it is never a side effect of `import minitf`. Turn it on with the environment variable
`MINITF_HOST_MALLOC_TUNING=1` (read when minitf is imported), or call
`minitf.config.experimental.keep_freed_memory()` at any time.
"""
import ctypes
import os
import sys

__all__ = ["ENV_VAR", "enabled", "keep_freed_memory", "apply_if_requested"]

ENV_VAR = "MINITF_HOST_MALLOC_TUNING"
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3
_MMAP_THRESHOLD = 32 << 20   # glibc's upper limit on 64-bit
_TRIM_THRESHOLD = 1 << 30


def enabled(environ=os.environ):
    """Whether the environment asks for the tuning: MINITF_HOST_MALLOC_TUNING is 1/true/yes/on."""
    return environ.get(ENV_VAR, "").strip().lower() in ("1", "true", "yes", "on")


def keep_freed_memory():
    """Raise glibc's mmap and trim thresholds now; True when both took effect (False off glibc)."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        mallopt = ctypes.CDLL("libc.so.6").mallopt
    except (OSError, AttributeError):  # not glibc (musl, ...)
        return False
    mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
    return bool(mallopt(_M_MMAP_THRESHOLD, _MMAP_THRESHOLD)) and bool(
        mallopt(_M_TRIM_THRESHOLD, _TRIM_THRESHOLD))


def apply_if_requested(environ=os.environ):
    """Apply the tuning when the environment asks for it (called by `import minitf`)."""
    return keep_freed_memory() if enabled(environ) else False


apply_if_requested()  # opt-in (MINITF_HOST_MALLOC_TUNING=1): runs when `import minitf` loads this module
