"""The autocast scope: inside a mixed-precision layer's call, its weights read as the compute dtype.

Keras 3 casts a layer's floating weights to the layer's compute dtype when they are read inside
its `call` (the weights themselves stay float32, so updates keep full precision). `Layer.__call__`
opens `AutocastScope(compute_dtype)` around `call` when its compute and variable dtypes differ;
weights made by `add_weight` (with `autocast=True`, the default) consult `maybe_cast` on every read.
The scope is per thread, like the tape.
"""
import threading

from minitf.dtypes import dtypes
from minitf.ops.constant import cast

__all__ = ["AutocastScope", "current_scope", "maybe_cast"]

_local = threading.local()


def current_scope():
    """The innermost active AutocastScope of this thread, or None."""
    return getattr(_local, "scope", None)


class AutocastScope:
    """A context in which autocasting weights of floating dtype read as `dtype` (None: no cast).

    Gradients flow through the cast back to the float32 weight.
    """

    def __init__(self, dtype):
        self.dtype = None if dtype is None else dtypes.as_dtype(dtype)
        self._outer = None

    def __enter__(self):
        self._outer = current_scope()
        _local.scope = self
        return self

    def __exit__(self, *exc):
        _local.scope = self._outer
        return False

    def maybe_cast(self, value):
        """`value` (a Tensor) cast to the scope's dtype when both are floating and differ."""
        target = self.dtype
        if target is not None and value.dtype.is_floating and target.is_floating and value.dtype != target:
            return cast(value, target)
        return value


def maybe_cast(value):
    """`value` cast by the active scope, or unchanged outside one."""
    scope = current_scope()
    return value if scope is None else scope.maybe_cast(value)
