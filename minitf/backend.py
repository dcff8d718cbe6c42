"""The array-module seam: which module (numpy or cupy) holds a value, and where new values go.

Every op asks `array_module(value)` for the module of its inputs instead of calling numpy, so the
same op code runs on cupy arrays. Device placement (`tf.device`) chooses the module that
creates new values from Python data.

GPU support is optional. At import, cupy is tried; when it is missing nothing is said, and when
it is installed but no GPU or driver is usable, minitf warns once and runs on numpy. The
environment variable ``MINITF_DEVICE`` overrides detection for a whole run: ``cpu`` never touches
cupy, ``gpu`` makes a missing GPU an error instead of a fallback.

Placement follows TensorFlow: with a usable, visible GPU and no `tf.device` scope, new tensors
from Python or numpy data go to the GPU; inside a scope they go to the scope's device (a GPU
scope on a machine without one falls back to the CPU, TF's soft placement). Ops run where their
inputs live; when inputs live on different devices, `target_module` picks where they meet.
"""
import importlib.util
import os
import re
import threading
import warnings

import numpy as np

_MODULE_BY_TYPE = {np.ndarray: np}
_EXTRA_MODULES = []  # (array type, module) pairs registered by other backends (cupy, tests)

CPU = "CPU"
GPU = "GPU"
_TF_PREFIX = "/job:localhost/replica:0/task:0/device:"


# -- the array module of a value ---------------------------------------------------------------

def register_array_module(array_type, module):
    """Teach the seam that values of `array_type` are handled by `module` (e.g. cupy)."""
    if not any(t is array_type and m is module for t, m in _EXTRA_MODULES):
        _EXTRA_MODULES.append((array_type, module))
    _MODULE_BY_TYPE[array_type] = module


def unregister_array_module(array_type):
    """Forget a module registered with `register_array_module` (tests use fake modules)."""
    _EXTRA_MODULES[:] = [(t, m) for t, m in _EXTRA_MODULES if t is not array_type]
    for cached in [t for t in _MODULE_BY_TYPE if t is not np.ndarray and issubclass(t, array_type)]:
        del _MODULE_BY_TYPE[cached]


def array_module(value):
    """The array module (numpy, cupy, ...) that owns `value`."""
    mod = _MODULE_BY_TYPE.get(type(value))
    if mod is not None:
        return mod
    for array_type, module in _EXTRA_MODULES:
        if isinstance(value, array_type):
            _MODULE_BY_TYPE[type(value)] = module
            return module
    if isinstance(value, (np.ndarray, np.generic)):
        _MODULE_BY_TYPE[type(value)] = np
    return np


def to_host(value):
    """A numpy array (or numpy scalar) with the data of `value`, wherever it lives.

    numpy values come back as they are; device arrays are copied to the host with their
    `.get()` (cupy's API); anything else goes through `np.asarray`.
    """
    if type(value) is np.ndarray or isinstance(value, np.generic):
        return value
    get = getattr(value, "get", None)
    if get is not None and callable(get):
        return get()
    return np.asarray(value)


def coerce_to_module(value, xp):
    """`value` (a raw array) as an array of module `xp`, copying across devices when needed.

    Returns `value` itself when it already belongs to `xp`. A copy to a GPU module lands on the
    GPU that is current for it (the one a `tf.device` scope selected).
    """
    if array_module(value) is xp:
        return value
    host = to_host(value)
    if xp is np:
        return np.asarray(host)
    return xp.asarray(host)


def target_module(*values):
    """The array module where raw `values` living on different devices should meet.

    TF's rule: the device of the active `tf.device` scope when there is one, else the GPU
    (the first non-numpy module among the values). With all values on one module, that module.
    """
    modules = [array_module(v) for v in values]
    first = modules[0]
    if all(m is first for m in modules):
        return first
    if _placement.scoped():
        return _placement.module()
    for m in modules:
        if m is not np:
            return m
    return np


# -- GPU detection -----------------------------------------------------------------------------

class _GpuInfo:
    """What the import-time probe found: cupy (or None), how many GPUs, and why not when none."""

    def __init__(self, cupy=None, count=0, installed=False, reason=""):
        self.cupy = cupy
        self.count = count
        self.installed = installed
        self.reason = reason


def _import_cupy():
    import cupy  # lazy: optional dependency (the `gpu` extra)
    return cupy


def detect_gpu(env=None, importer=_import_cupy, warn=True):
    """Probe for cupy and a usable GPU, honouring ``MINITF_DEVICE`` ('cpu', 'gpu' or unset).

    Returns a `_GpuInfo`. Never raises for a missing or broken cupy unless ``MINITF_DEVICE=gpu``
    asked for a GPU, in which case RuntimeError says why none is usable. When cupy is installed
    but unusable, one warning is issued (if `warn`).
    """
    env = os.environ if env is None else env
    wanted = env.get("MINITF_DEVICE", "").strip().lower()
    if wanted not in ("", "cpu", "gpu", "auto"):
        raise ValueError(f"MINITF_DEVICE={env.get('MINITF_DEVICE')!r} is not understood; "
                         "use 'cpu', 'gpu' or leave it unset")
    if wanted == "cpu":
        installed = importlib.util.find_spec("cupy") is not None
        return _GpuInfo(installed=installed, reason="MINITF_DEVICE=cpu")
    try:
        cupy = importer()
    except ImportError:
        info = _GpuInfo(reason="cupy is not installed")
    except Exception as e:  # a broken CUDA install can fail in many ways at import
        info = _GpuInfo(installed=True, reason=f"importing cupy failed: {type(e).__name__}: {e}")
    else:
        info = _probe_devices(cupy)
    if info.count == 0 and wanted == "gpu":
        raise RuntimeError(f"MINITF_DEVICE=gpu but no GPU is usable ({info.reason}); install "
                           "cupy-cuda12x on a machine with an NVIDIA GPU, or unset MINITF_DEVICE")
    if info.count == 0 and info.installed and warn:
        warnings.warn(f"minitf: cupy is installed but no GPU is usable ({info.reason}); "
                      "running on the CPU with numpy. Set MINITF_DEVICE=cpu to silence this.",
                      RuntimeWarning, stacklevel=3)
    return info


def _probe_devices(cupy):
    """Count the GPUs cupy can use; 0 with a reason when the driver or runtime is unusable."""
    try:
        count = int(cupy.cuda.runtime.getDeviceCount())
    except Exception as e:
        return _GpuInfo(installed=True, reason=f"{type(e).__name__}: {e}")
    if count <= 0:
        return _GpuInfo(installed=True, reason="the CUDA runtime reports 0 devices")
    return _GpuInfo(cupy=cupy, count=count, installed=True)


# -- device names ------------------------------------------------------------------------------

_SPEC_PART = re.compile(r"^(job|replica|task|device):(.*)$", re.IGNORECASE)
_DEVICE_PART = re.compile(r"^([A-Za-z_]+)(?::(\d+|\*))?$")


def parse_device(name):
    """(device_type, index) named by a TF device string, or (None, None) when it names none.

    Accepts '/GPU:0', 'GPU:1', 'gpu:0', '/device:CPU:0', 'CPU',
    '/job:localhost/replica:0/task:0/device:GPU:0' and partial specs such as '/job:localhost'.
    The type comes back upper-case; a missing index is 0. Malformed strings raise ValueError.
    """
    if name is None:
        return None, None
    if not isinstance(name, str):
        raise TypeError(f"tf.device expects a device name string, got {type(name).__name__}: {name!r}")
    text = name.strip()
    if text.startswith("/physical_device:"):
        text = text[len("/physical_device:"):]
    kind, index = None, None
    for part in (p for p in text.split("/") if p):
        m = _SPEC_PART.match(part)
        if m and m.group(1).lower() != "device":
            continue  # job / replica / task: one process, nothing to choose
        device_text = m.group(2) if m else part
        d = _DEVICE_PART.match(device_text)
        if d is None:
            raise ValueError(f"Unknown attribute or malformed device '{part}' in device name "
                             f"{name!r}; expected something like '/GPU:0' or '/CPU:0'")
        kind = d.group(1).upper()
        index = 0 if d.group(2) in (None, "*") else int(d.group(2))
    return kind, index


def tf_device_name(kind, index=0):
    """TF's full device string, e.g. '/job:localhost/replica:0/task:0/device:GPU:0'."""
    return f"{_TF_PREFIX}{kind}:{index}"


# -- placement ---------------------------------------------------------------------------------

class _Scopes(threading.local):
    def __init__(self):
        self.stack = []  # (kind, index) of active tf.device scopes, innermost last


class GpuPlacement:
    """The placement policy: where new values go, and TF's device string of a value.

    Holds the probe result, whether the GPU is visible (`tf.config.set_visible_devices`), the
    process-wide default device kind used outside any scope, and the per-thread scope stack.
    """

    def __init__(self, info):
        self.info = info
        self.gpu_visible = info.count > 0
        self.default_kind = GPU if info.count > 0 else CPU
        self._scopes = _Scopes()

    # where things are -----------------------------------------------------------------
    def gpu_usable(self):
        """True when cupy found a GPU and it has not been hidden."""
        return self.gpu_visible and self.info.cupy is not None

    def resolve(self, kind, index):
        """The (kind, index) a request actually gets: soft placement sends missing GPUs to CPU."""
        if kind == GPU and self.gpu_usable() and 0 <= index < self.info.count:
            return GPU, index
        return CPU, 0

    def scoped(self):
        """True inside a `tf.device` scope (of this thread)."""
        return bool(self._scopes.stack)

    def current(self):
        """(kind, index) where new values go now."""
        stack = self._scopes.stack
        if stack:
            return stack[-1]
        return self.resolve(self.default_kind, 0)

    def module(self):
        """The array module that creates new values now."""
        stack = self._scopes.stack
        kind = stack[-1][0] if stack else (self.default_kind if self.gpu_usable() else CPU)
        return self.info.cupy if kind == GPU else np

    def device_name(self, value):
        """TF's device string for `value`: CPU:0 for numpy, GPU:<id> for other modules."""
        if array_module(value) is np:
            return tf_device_name(CPU, 0)
        device = getattr(value, "device", None)
        return tf_device_name(GPU, int(getattr(device, "id", 0) or 0))

    # scopes ----------------------------------------------------------------------------
    def push(self, kind, index):
        """Enter a device scope; returns an exit token for `pop`. (None, None) keeps the outer one."""
        if kind is None:
            resolved = self.current() if self.scoped() else None
        else:
            resolved = self.resolve(kind, index)
        cuda_ctx = None
        if resolved is not None and resolved[0] == GPU:
            cuda_ctx = self.info.cupy.cuda.Device(resolved[1])
            cuda_ctx.__enter__()
        if resolved is not None:
            self._scopes.stack.append(resolved)
        return resolved, cuda_ctx

    def pop(self, token):
        """Leave the scope entered by `push`."""
        resolved, cuda_ctx = token
        if resolved is not None:
            self._scopes.stack.pop()
        if cuda_ctx is not None:
            cuda_ctx.__exit__(None, None, None)


class _CpuPlacement:
    """A placement policy that keeps everything on numpy (handy for tests and hidden GPUs)."""

    def module(self):
        return np

    def device_name(self, value):
        return tf_device_name(CPU, 0)


_gpu_policy = GpuPlacement(detect_gpu())
_placement = _gpu_policy


def set_placement(policy):
    """Install a placement policy (tests install fake ones); returns the previous one.

    A policy needs `module()` and `device_name(value)`; `scoped()` and `current()` are optional.
    """
    global _placement
    previous, _placement = _placement, policy
    return previous


def placement():
    """The active placement policy."""
    return _placement


def gpu_policy():
    """The GPU placement policy built at import (tf.config and tf.device talk to it)."""
    return _gpu_policy


def set_gpu_policy(policy):
    """Replace the GPU placement policy (tests install one backed by a fake GPU module).

    Also makes it the active placement when the old GPU policy was active. Returns the previous
    GPU policy; registers the policy's array type with the seam.
    """
    global _gpu_policy, _placement
    previous = _gpu_policy
    if _placement is previous:
        _placement = policy
    _gpu_policy = policy
    if policy.info.cupy is not None:
        register_array_module(policy.info.cupy.ndarray, policy.info.cupy)
    return previous


def default_module():
    """The array module that new tensors made from Python or numpy data are placed on."""
    return _placement.module()


def device_name(value):
    """TF's device string for where `value` lives."""
    return _placement.device_name(value)


def current_device():
    """TF's full device string of where new tensors go now (the active scope or the default)."""
    current = getattr(_placement, "current", None)
    if current is None:
        return tf_device_name(GPU if _placement.module() is not np else CPU, 0)
    return tf_device_name(*current())


def gpu_count():
    """Number of GPUs cupy can use (0 without cupy, a driver or with MINITF_DEVICE=cpu)."""
    return _gpu_policy.info.count


def gpu_available():
    """True when a GPU is usable and visible, so GPU scopes really place on it."""
    return _gpu_policy.gpu_usable()


def cupy_installed():
    """True when cupy could be found (even if no GPU is usable)."""
    return _gpu_policy.info.installed


def cupy_module():
    """The cupy module when a GPU is usable, else None."""
    return _gpu_policy.info.cupy


def set_default_device(kind):
    """Make `kind` ('CPU' or 'GPU') where new tensors go outside any `tf.device` scope.

    Returns the previous kind. minitf's tests use it to run the suite on either device; a
    'GPU' default on a machine without a usable GPU places on the CPU.
    """
    kind = kind.upper()
    if kind not in (CPU, GPU):
        raise ValueError(f"set_default_device: expected 'CPU' or 'GPU', got {kind!r}")
    previous, _gpu_policy.default_kind = _gpu_policy.default_kind, kind
    return previous


if _gpu_policy.info.cupy is not None:
    register_array_module(_gpu_policy.info.cupy.ndarray, _gpu_policy.info.cupy)
