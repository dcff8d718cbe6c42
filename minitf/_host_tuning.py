"""glibc malloc settings applied when minitf is imported (set MINITF_HOST_TUNING=0 to skip).

By default glibc hands freed blocks above a moving threshold back to the OS, so each training
step's large arrays page-fault all over again when the next step allocates them; that costs
15-25% of a CNN training step on numpy. Raising the mmap and trim thresholds keeps freed memory
(up to 1 GiB at the top of the heap) for reuse, which is what PyTorch's CPU tuning guide gets by
swapping in jemalloc or tcmalloc. The process's resident size then stays near its peak.
"""
import ctypes
import os
import sys

_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3
_MMAP_THRESHOLD = 32 << 20   # glibc's upper limit on 64-bit
_TRIM_THRESHOLD = 1 << 30


def enabled(environ=os.environ):
    """Whether tuning is wanted: on unless MINITF_HOST_TUNING is 0/false/no/off."""
    return environ.get("MINITF_HOST_TUNING", "1").strip().lower() not in ("0", "false", "no", "off")


def keep_freed_memory(environ=os.environ):
    """Raise glibc's mmap and trim thresholds; True when both took effect."""
    if not sys.platform.startswith("linux") or not enabled(environ):
        return False
    try:
        mallopt = ctypes.CDLL("libc.so.6").mallopt
    except (OSError, AttributeError):  # not glibc (musl, ...)
        return False
    mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
    return bool(mallopt(_M_MMAP_THRESHOLD, _MMAP_THRESHOLD)) and bool(
        mallopt(_M_TRIM_THRESHOLD, _TRIM_THRESHOLD))
