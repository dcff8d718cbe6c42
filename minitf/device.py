"""tf.device: the scope that places new tensors and variables.

`with tf.device('/GPU:0'):` places the tensors and variables created inside on that device; ops
keep running where their inputs live. When an op meets inputs on two devices, the ops copy them
to one device with a recorded copy (`minitf.ops._core.unify`), so tapes differentiate through
device moves.
"""
from minitf import backend
from minitf.api_export import export

__all__ = ["device"]


@export("device")
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
