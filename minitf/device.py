"""tf.device and the differentiable copy of tensors between devices.

`with tf.device('/GPU:0'):` places the tensors and variables created inside on that device; ops
keep running where their inputs live. When an op meets inputs on two devices, `unify` copies
them to one device (the scope's, else the GPU) with a recorded copy whose gradient copies the
cotangent back, so tapes differentiate through device moves.
"""
from minitf import backend
from minitf.recording import register_batchable

__all__ = ["device", "copy_to_module", "unify"]


class device:  # noqa: N801 (TF's name)
    """Context manager that places new tensors and variables on the device `device_name`.

    Accepts TF's spellings: '/GPU:0', '/CPU:0', 'GPU:1', 'gpu:0', '/device:GPU:0' and
    '/job:localhost/replica:0/task:0/device:GPU:0'. A spec without a device type (such as
    '/job:localhost' or '') keeps the enclosing device; `None` clears enclosing scopes.
    A GPU that does not exist (no GPU, an index past the last one, or GPUs hidden with
    `tf.config.set_visible_devices`) falls back to the CPU, like TF's soft placement.
    """

    def __init__(self, device_name):
        if callable(device_name):
            raise RuntimeError("tf.device does not support functions when eager execution is enabled.")
        self._name = device_name
        self._kind, self._index = backend.parse_device(device_name)
        self._tokens = []

    def __enter__(self):
        policy = backend.gpu_policy()
        if self._name is None:
            token = ("reset", policy._scopes.stack)
            policy._scopes.stack = []
        else:
            token = ("push", policy.push(self._kind, self._index))
        self._tokens.append(token)
        return self

    def __exit__(self, *exc):
        kind, token = self._tokens.pop()
        policy = backend.gpu_policy()
        if kind == "reset":
            policy._scopes.stack = token
        else:
            policy.pop(token)
        return False

    def __repr__(self):
        return f"tf.device({self._name!r})"


def copy_to_module(x, xp):
    """Tensor `x` copied to array module `xp` (itself when it is there already), differentiably."""
    from minitf.ops._core import Tensor, _state, record
    src = backend.array_module(x._value)
    if src is xp:
        return x
    y = Tensor(backend.coerce_to_module(x._value, xp))
    if _state.active:
        record("CopyToDevice", (x,), (y,), lambda g: copy_to_module(g, src))
    return y


def unify(*tensors):
    """The tensors moved to one device (TF's rule: the scope's device, else the GPU).

    Returns them unchanged, as a tuple, when they already share an array module.
    """
    xp = backend.target_module(*(t._value for t in tensors))
    return tuple(copy_to_module(t, xp) for t in tensors)


register_batchable("CopyToDevice")
