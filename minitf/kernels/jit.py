"""numba, when installed (the `fast` extra): loops compiled to machine code for the few places
where numpy's one-pass-per-operation costs the most (fused elementwise chains of compiled plans,
the Philox generator). Everything here is optional: without numba the callers keep their numpy
code, which gives the same bits."""
import importlib.util
import os

__all__ = ["available", "compiled"]

_found = []


def available():
    """Whether numba can be used: installed, and not turned off with MINITF_NUMBA=0."""
    if not _found:
        _found.append(os.environ.get("MINITF_NUMBA", "1") != "0" and importlib.util.find_spec("numba") is not None)
    return _found[0]


def compiled(fn):
    """`fn` compiled by numba (nogil, no bounds checks, numpy's division rules: x / 0 is inf or
    nan, not an exception). No fastmath: float operations keep their IEEE rounding and order.
    A function from a source file is cached on disk by numba (recompiled when the file changes),
    so only the first process pays its compilation; generated functions compile per process."""
    import numba  # lazy: optional dependency (the `fast` extra), imported on first use
    options = dict(nogil=True, boundscheck=False, error_model="numpy")
    if os.path.isfile(fn.__code__.co_filename):
        try:
            return numba.njit(cache=True, **options)(fn)
        except RuntimeError:  # nowhere writable to cache in (numba tries the package, then the user's cache)
            pass
    return numba.njit(**options)(fn)
