"""tf.config: the physical and logical devices minitf can run on, and which of them are visible.

There is always one CPU (numpy). GPUs are those cupy can use. Hiding the GPUs with
`set_visible_devices([], 'GPU')` makes every new tensor live on numpy, even inside
`tf.device('/GPU:0')` scopes (soft placement), as on a machine without a GPU.

`tf.config.threading` sizes minitf's CPU thread pools (see `minitf.kernels.threads`).
"""
import collections

from minitf import _host_tuning, backend
from minitf.kernels import threads as _threads
from minitf.api_export import export, export_value

__all__ = ["PhysicalDevice", "LogicalDevice", "LogicalDeviceConfiguration", "list_physical_devices",
           "list_logical_devices", "set_logical_device_configuration", "get_logical_device_configuration",
           "set_visible_devices", "get_visible_devices", "experimental", "is_gpu_available",
           "is_built_with_cuda", "gpu_device_name", "get_soft_device_placement",
           "set_soft_device_placement", "threading", "run_functions_eagerly", "functions_run_eagerly"]


@export("config.PhysicalDevice")
class PhysicalDevice(collections.namedtuple("PhysicalDevice", ["name", "device_type"])):
    """A device found on this machine, e.g. PhysicalDevice(name='/physical_device:GPU:0', device_type='GPU')."""

    __slots__ = ()


@export("config.LogicalDevice")
class LogicalDevice(collections.namedtuple("LogicalDevice", ["name", "device_type"])):
    """A device ops can be placed on, e.g. LogicalDevice(name='/device:GPU:0', device_type='GPU')."""

    __slots__ = ()


_memory_growth = {}  # physical device name -> bool, as set by the user


def _all_physical():
    devices = [PhysicalDevice("/physical_device:CPU:0", "CPU")]
    devices += [PhysicalDevice(f"/physical_device:GPU:{i}", "GPU") for i in range(backend.gpu_count())]
    return devices


def _visible_gpu_count():
    policy = backend.gpu_policy()
    return policy.info.count if policy.gpu_visible else 0


@export("config.list_physical_devices")
def list_physical_devices(device_type=None):
    """The devices of `device_type` ('CPU', 'GPU'; None for all) on this machine, visible or not."""
    return [d for d in _all_physical() if device_type is None or d.device_type == device_type]


@export("config.get_visible_devices")
def get_visible_devices(device_type=None):
    """The physical devices of `device_type` (None for all) that minitf may place tensors on."""
    visible = _all_physical()[:1 + _visible_gpu_count()]
    return [d for d in visible if device_type is None or d.device_type == device_type]


@export("config.LogicalDeviceConfiguration")
class LogicalDeviceConfiguration(collections.namedtuple(
        "LogicalDeviceConfiguration", ["memory_limit", "experimental_priority", "experimental_device_ordinal"])):
    """One logical device to make out of a physical one (`set_logical_device_configuration`).

    `memory_limit` (MB, for GPUs) and the experimental fields are kept as given; minitf does not
    partition memory, so they change nothing.
    """

    __slots__ = ()

    def __new__(cls, memory_limit=None, experimental_priority=None, experimental_device_ordinal=None):
        return super().__new__(cls, memory_limit, experimental_priority, experimental_device_ordinal)


_logical_configs = {}  # physical device name -> [LogicalDeviceConfiguration]


@export("config.set_logical_device_configuration")
def set_logical_device_configuration(device, logical_devices):
    """Split physical `device` into the `logical_devices` listed (LogicalDeviceConfiguration
    objects): a CPU into several CPUs (/CPU:0, /CPU:1, ...), as the TF guides do to try
    multi-device code on one machine. `None` undoes it.

    Logical devices of one physical device share its array module: ops placed on /CPU:1 run on
    the host like /CPU:0, and their tensors report /CPU:0 as their device (TF: /CPU:1). Unlike
    TF (RuntimeError once the runtime has started), minitf lets this be changed at any time.
    """
    if not isinstance(device, PhysicalDevice) or device not in _all_physical():
        raise ValueError(f"Unrecognized device: {device!r}; pass one of tf.config.list_physical_devices()")
    if logical_devices is None:
        _logical_configs.pop(device.name, None)
        return
    configs = list(logical_devices)
    if not configs or not all(isinstance(c, LogicalDeviceConfiguration) for c in configs):
        raise ValueError("logical_devices must be a non-empty list of tf.config.LogicalDeviceConfiguration")
    _logical_configs[device.name] = configs


@export("config.get_logical_device_configuration")
def get_logical_device_configuration(device):
    """The logical devices set for physical `device`, or None when it was never split."""
    return _logical_configs.get(device.name)


@export("config.list_logical_devices")
def list_logical_devices(device_type=None):
    """The logical devices of `device_type` (None for all): one per visible physical device, or
    as many as `set_logical_device_configuration` made of it."""
    out, counts = [], {}
    for d in get_visible_devices(device_type):
        for _ in _logical_configs.get(d.name, [None]):
            index = counts.get(d.device_type, 0)
            counts[d.device_type] = index + 1
            out.append(LogicalDevice(f"/device:{d.device_type}:{index}", d.device_type))
    return out


@export("config.set_visible_devices")
def set_visible_devices(devices, device_type=None):
    """Make only `devices` (a PhysicalDevice or a list of them) visible, for `device_type` if given.

    With `device_type`, devices of other types are left as they are. The CPU always stays
    visible (TF requires one). minitf can show all GPUs or none: hiding any GPU hides them all.
    Unlike TF this may be called after tensors exist; tensors already on a GPU stay there.
    """
    if isinstance(devices, PhysicalDevice):
        devices = [devices]
    devices = list(devices)
    known = _all_physical()
    for d in devices:
        if not any(d == k for k in known):
            raise ValueError(f"Unrecognized device: {d!r}; use tf.config.list_physical_devices()")
        if device_type is not None and d.device_type != device_type:
            raise ValueError(f"set_visible_devices: {d.name} is not of device_type {device_type!r}")
    if device_type in (None, "CPU") and not any(d.device_type == "CPU" for d in devices):
        raise ValueError("set_visible_devices: the CPU cannot be hidden; include "
                         "tf.config.list_physical_devices('CPU')[0] in devices")
    if device_type in (None, "GPU"):
        gpus = [d for d in devices if d.device_type == "GPU"]
        backend.gpu_policy().gpu_visible = backend.gpu_count() > 0 and len(gpus) == backend.gpu_count()


def _check_gpu(device, what):
    if not isinstance(device, PhysicalDevice) or not any(device == d for d in _all_physical()):
        raise ValueError(f"{what}: unrecognized device {device!r}; use tf.config.list_physical_devices('GPU')")
    if device.device_type != "GPU":
        raise ValueError(f"{what}: cannot set memory growth on non-GPU device {device.name}")


def set_memory_growth(device, enable):
    """Accepted for compatibility and remembered, but changes nothing.

    TensorFlow reserves most GPU memory up front unless growth is enabled; cupy's memory pool
    already grows on demand, so there is nothing to switch. Raises ValueError for a device that
    is not a GPU of this machine, as TF does.
    """
    _check_gpu(device, "set_memory_growth")
    _memory_growth[device.name] = bool(enable)


def get_memory_growth(device):
    """The memory-growth flag last set for GPU `device` (False when never set)."""
    _check_gpu(device, "get_memory_growth")
    return _memory_growth.get(device.name, False)


class _Experimental:
    """tf.config.experimental: the older spellings of the device functions plus memory growth."""

    list_physical_devices = staticmethod(list_physical_devices)
    list_logical_devices = staticmethod(list_logical_devices)
    set_visible_devices = staticmethod(set_visible_devices)
    # the older names of the logical-device configuration
    VirtualDeviceConfiguration = LogicalDeviceConfiguration
    set_virtual_device_configuration = staticmethod(set_logical_device_configuration)
    get_virtual_device_configuration = staticmethod(get_logical_device_configuration)
    get_visible_devices = staticmethod(get_visible_devices)
    set_memory_growth = staticmethod(set_memory_growth)
    get_memory_growth = staticmethod(get_memory_growth)
    # minitf's own: keep freed host memory for reuse (glibc malloc thresholds; see _host_tuning)
    keep_freed_memory = staticmethod(_host_tuning.keep_freed_memory)

    @staticmethod
    def enable_op_determinism():
        """Make repeated runs give the same bits: the CPU thread count no longer follows other
        processes' load but stays at every core the process may use (a count set with
        tf.config.threading still wins). minitf's ops are otherwise deterministic already; call
        it with tf.keras.utils.set_random_seed for runs that must repeat exactly, such as a
        training run resumed from a checkpoint."""
        _threads.enable_determinism()


experimental = _Experimental()
export_value("experimental", "config.experimental")


@export("config.get_soft_device_placement")
def get_soft_device_placement():
    """True: a device that does not exist falls back to one that does (always on in minitf)."""
    return True


@export("config.set_soft_device_placement")
def set_soft_device_placement(enabled):
    """Accepted for compatibility; minitf always places softly (missing GPUs fall back to CPU)."""


@export("config.is_gpu_available", "test.is_gpu_available")
def is_gpu_available(cuda_only=False, min_cuda_compute_capability=None):
    """True when a visible GPU can run minitf ops (tf.test.is_gpu_available).

    `min_cuda_compute_capability`, a (major, minor) tuple, additionally requires the first GPU
    to be at least that capable.
    """
    if not backend.gpu_available():
        return False
    if min_cuda_compute_capability is None:
        return True
    cc = str(backend.cupy_module().cuda.Device(0).compute_capability)  # e.g. '80'
    return (int(cc[:-1]), int(cc[-1])) >= tuple(min_cuda_compute_capability)


@export("config.is_built_with_cuda", "test.is_built_with_cuda")
def is_built_with_cuda():
    """True when cupy is installed, whether or not a GPU is usable (tf.test.is_built_with_cuda)."""
    return backend.cupy_installed()


@export("config.gpu_device_name", "test.gpu_device_name")
def gpu_device_name():
    """'/device:GPU:0' when a GPU is usable and visible, else '' (tf.test.gpu_device_name)."""
    return "/device:GPU:0" if backend.gpu_available() else ""


class _Threading:
    """tf.config.threading: the CPU thread counts.

    The intra-op count sizes both CPU pools minitf uses, the BLAS library's (matmuls and
    convolutions) and minitf's own (the optimizers' blocked updates). 0, the default, lets
    minitf choose: every core the process may use, less one per core that other processes keep
    busy (re-measured once a second between steps), which keeps training steps from stalling
    when other work shares the machine; `tf.config.experimental.enable_op_determinism()` fixes
    it at every core. The environment variable MINITF_NUM_THREADS sets it at start-up. minitf
    runs one op at a time, so the inter-op count is remembered but changes nothing.
    """

    _inter_op = 0

    @staticmethod
    def get_intra_op_parallelism_threads():
        """The intra-op thread count set by the user (0 when minitf chooses)."""
        return _threads.requested_threads()

    @staticmethod
    def set_intra_op_parallelism_threads(num_threads):
        """Use `num_threads` threads inside one op (0: minitf's default); applies at once.

        Args:
          num_threads: an int >= 0.

        Raises:
          ValueError: for a negative or non-integer count.
        """
        _threads.set_intra_op_threads(num_threads)

    @classmethod
    def get_inter_op_parallelism_threads(cls):
        """The inter-op thread count last set (0 when never set)."""
        return cls._inter_op

    @classmethod
    def set_inter_op_parallelism_threads(cls, num_threads):
        """Accepted for compatibility and remembered: minitf runs one op at a time."""
        if isinstance(num_threads, bool) or not isinstance(num_threads, int) or num_threads < 0:
            raise ValueError(f"the number of inter-op threads must be an int >= 0, got {num_threads!r}")
        cls._inter_op = num_threads


threading = _Threading()
export_value("threading", "config.threading")


_functions_run_eagerly = [False]


@export("config.run_functions_eagerly")
def run_functions_eagerly(run_eagerly):
    """With True, every `tf.function` runs its Python function eagerly instead of tracing it
    (for debugging: prints, breakpoints and `.numpy()` work inside); False restores graphs."""
    _functions_run_eagerly[0] = bool(run_eagerly)


@export("config.functions_run_eagerly")
def functions_run_eagerly():
    """Whether `run_functions_eagerly(True)` is in effect."""
    return _functions_run_eagerly[0]
