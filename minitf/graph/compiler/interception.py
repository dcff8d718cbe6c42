"""The calls a recording must see that numpy's dispatch protocols do not show it.

`numpy.asarray` and its siblings never dispatch on their argument: given a traced array they
would ask it for a plain one (an escape), and ops call them on every result
(`xp.asarray(xp.sum(v), dtype=v.dtype)`). `numpy.empty`, `zeros`, `ones` and `full` take no
array: a buffer an op allocates and then fills with traced values is traced from the start. The CPU kernels (`minitf.kernels.numpy`) compute
into buffers they allocate, which a recording cannot follow; recorded as one opaque call each,
a plan calls the same kernel with the same arguments.

While at least one recording runs, `intercepting()` puts wrappers in their place: on the
thread that records, and only while it runs a node's own code (not a host node's), a call that
holds a traced array is recorded; every other call goes straight to the original function.
Nothing is replaced while no recording runs, so eager code pays nothing.
"""
import contextlib
import threading
import types

import numpy as np

from minitf.graph.compiler.traced_array import TracedArray
from minitf.kernels import numpy as host_kernels

__all__ = ["intercepting", "recording_into", "not_recording", "active_recorder"]

_CONVERTERS = ("asarray", "array", "asanyarray", "ascontiguousarray", "asfortranarray")
# Buffers an op allocates and then fills with traced values: traced from the start (a plain
# buffer written with traced values would be an escape).
_CREATORS = ("empty", "zeros", "ones", "full")
# Kernels that are not array functions (geometry, decorators, the worker pool) stay as they are;
# kernels that update their arguments in place (optimizer steps) must not see traced arrays.
_NOT_KERNELS = frozenset(("half_through_float32", "use_tap_rectangles", "tap_rectangles",
                          "map_blocks"))
_WRITES_FIRST = frozenset(("scatter_at",))
_UPDATES = frozenset(("update_variables",))

_local = threading.local()
_lock = threading.Lock()
_installed = [0, None]  # how many recordings run; the originals while they do


def active_recorder():
    """The recorder of this thread's recording, while a node's own code runs (else None)."""
    return getattr(_local, "recorder", None)


@contextlib.contextmanager
def recording_into(recorder):
    """Record this thread's intercepted calls into `recorder`."""
    saved = getattr(_local, "recorder", None)
    _local.recorder = recorder
    try:
        yield
    finally:
        _local.recorder = saved


@contextlib.contextmanager
def not_recording():
    """Run code unrecorded on this thread (a host node, a gradient of one)."""
    saved = getattr(_local, "recorder", None)
    _local.recorder = None
    try:
        yield
    finally:
        _local.recorder = saved


def _holds_traced(value, recorder=None, depth=0):
    """Whether `value` holds a traced array (or an object a recorded kernel made)."""
    if type(value) is TracedArray:
        return True
    if isinstance(value, (list, tuple)) and depth < 4:
        return any(_holds_traced(v, recorder, depth + 1) for v in value)
    if type(value) is dict and depth < 4:
        return any(_holds_traced(v, recorder, depth + 1) for v in value.values())
    return recorder is not None and recorder.made(value)


def _converter(original):
    def convert(a, *args, **kwargs):
        recorder = getattr(_local, "recorder", None)
        if recorder is None or not _holds_traced(a):
            return original(a, *args, **kwargs)
        return recorder.call(original, (a,) + args, kwargs, shaped=False)
    convert.__wrapped__ = original
    return convert


def _creator(original):
    def create(*args, **kwargs):
        recorder = getattr(_local, "recorder", None)
        if recorder is None or recorder.depth or recorder.off:
            return original(*args, **kwargs)
        shaped = _holds_traced(args[:1]) or _holds_traced(kwargs.get("shape"))
        return recorder.call(original, args, kwargs, shaped=shaped)
    create.__wrapped__ = original
    return create


def _kernel(name, original):
    def kernel(*args, **kwargs):
        recorder = getattr(_local, "recorder", None)
        if recorder is None or not (_holds_traced(args, recorder) or _holds_traced(kwargs, recorder)):
            return original(*args, **kwargs)
        if name in _UPDATES:
            recorder.escape(f"the kernel {name} updates traced arrays in place")
            real, _, _ = recorder.unwrap(tuple(args))
            real_kwargs, _, _ = recorder.unwrap(dict(kwargs))
            return original(*real, **real_kwargs)
        return recorder.opaque(original, args, kwargs, writes_first=name in _WRITES_FIRST)
    kernel.__wrapped__ = original
    kernel.__name__ = name
    return kernel


def _install():
    originals = {}
    for name in _CONVERTERS:
        originals[(np, name)] = getattr(np, name)
        setattr(np, name, _converter(originals[(np, name)]))
    for name in _CREATORS:
        originals[(np, name)] = getattr(np, name)
        setattr(np, name, _creator(originals[(np, name)]))
    for name in dir(host_kernels):
        value = getattr(host_kernels, name)
        if name.startswith("_") or name in _NOT_KERNELS or not isinstance(value, types.FunctionType):
            continue
        originals[(host_kernels, name)] = value
        setattr(host_kernels, name, _kernel(name, value))
    return originals


@contextlib.contextmanager
def intercepting():
    """Keep the wrappers in place while the block runs (nested and concurrent uses count)."""
    with _lock:
        if _installed[0] == 0:
            _installed[1] = _install()
        _installed[0] += 1
    try:
        yield
    finally:
        with _lock:
            _installed[0] -= 1
            if _installed[0] == 0:
                for (owner, name), original in _installed[1].items():
                    setattr(owner, name, original)
                _installed[1] = None
