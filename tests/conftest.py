"""Shared test switches: the GPU run, the `gpu` marker, and a fake GPU array module.

* ``pytest --gpu`` or ``MINITF_TEST_DEVICE=gpu`` runs the whole suite with the GPU as the default
  device (new tensors go to cupy); it stops at once when no GPU is usable. Without it the suite
  runs with the CPU as the default device, so results do not depend on the machine.
* ``@pytest.mark.gpu`` tests need cupy and a usable GPU and are skipped cleanly otherwise.
* ``MINITF_REQUIRE_TF=1`` (set by CI's TF run) turns every skip caused by a missing or broken
  TensorFlow into a failure, so the comparisons with TF cannot silently stop running;
  ``MINITF_TF_TESTS_ONLY=1`` keeps only the test files that compare with TF.
* The `fake_gpu` fixture installs a placement policy backed by `FakeCupy`: a numpy-backed module
  whose arrays (`FakeDeviceArray`) refuse direct numpy calls, as cupy arrays do. It lets CPU-only
  CI check that ops stay on the array module of their inputs and that placement logic is right.
"""
import os
import threading
import types

import numpy as np
import pytest

from minitf import backend


# -- command line and markers ------------------------------------------------------------------

def pytest_addoption(parser):
    parser.addoption("--gpu", action="store_true", default=False,
                     help="run the whole suite with the GPU (cupy) as minitf's default device")


def _gpu_run_requested(config):
    return config.getoption("--gpu") or os.environ.get("MINITF_TEST_DEVICE", "").lower() == "gpu"


def pytest_configure(config):
    config.addinivalue_line("markers", "gpu: needs cupy and a usable GPU (skipped otherwise)")
    if _gpu_run_requested(config):
        if not backend.gpu_available():
            raise pytest.UsageError("--gpu / MINITF_TEST_DEVICE=gpu asked for a GPU run, but no GPU is "
                                    f"usable ({backend.gpu_policy().info.reason or 'GPU hidden'})")
        backend.set_default_device("GPU")
    else:
        backend.set_default_device("CPU")


def _uses_tensorflow(path, cache={}):  # noqa: B006 (a per-run cache of file checks)
    """Whether a test file compares with TensorFlow: everything under tests/parity, and any
    other file whose source names it."""
    if path not in cache:
        cache[path] = "parity" in path.parts or "tensorflow" in path.read_text(encoding="utf-8")
    return cache[path]


def _keep_tf_tests_only(config, items):
    """MINITF_TF_TESTS_ONLY=1 (CI's TF run, after the whole suite ran without TF) keeps the tests
    that compare with TensorFlow and deselects the rest."""
    if os.environ.get("MINITF_TF_TESTS_ONLY") != "1":
        return
    kept, dropped = [], []
    for item in items:
        (kept if _uses_tensorflow(item.path) else dropped).append(item)
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = kept


def pytest_collection_modifyitems(config, items):
    _keep_tf_tests_only(config, items)
    if backend.gpu_available():
        return
    reason = backend.gpu_policy().info.reason or "the GPU is hidden"
    skip = pytest.mark.skip(reason=f"needs cupy and a usable GPU: {reason}")
    for item in items:
        if item.get_closest_marker("gpu") is not None:
            item.add_marker(skip)


def _fail_if_tf_was_required(report):
    """Under MINITF_REQUIRE_TF=1, a skip for a missing TensorFlow becomes a failure."""
    if not report.skipped or os.environ.get("MINITF_REQUIRE_TF") != "1":
        return
    reason = str(report.longrepr[-1]) if isinstance(report.longrepr, tuple) else str(report.longrepr)
    if "tensorflow" in reason.lower():
        report.outcome = "failed"
        report.longrepr = f"MINITF_REQUIRE_TF=1 but TensorFlow is unusable: {reason}"


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    _fail_if_tf_was_required(outcome.get_result())


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector):
    outcome = yield
    _fail_if_tf_was_required(outcome.get_result())


@pytest.fixture
def gpu_default():
    """Make the GPU the default device for one test (for GPU-marked tests)."""
    previous = backend.set_default_device("GPU")
    yield backend.cupy_module()
    backend.set_default_device(previous)


# -- a fake GPU array module -------------------------------------------------------------------

class _Allow(threading.local):
    depth = 0


_allow = _Allow()
_current = types.SimpleNamespace(device=0)

# numpy functions that only read metadata: fine on device arrays (cupy arrays allow them too)
_METADATA_FUNCTIONS = {"shape", "ndim", "size", "result_type", "iscomplexobj", "isrealobj"}


class DirectNumpyCall(TypeError):
    """A numpy function was called on a device array instead of going through its array module."""


class FakeDeviceArray(np.ndarray):
    """A numpy array pretending to live on a GPU.

    Operators and methods (a * b, a.sum(), a.reshape(...), a[i]) work as on cupy arrays; calling
    numpy functions on it directly (np.exp(a), np.transpose(a)) or mixing it with numpy arrays
    raises DirectNumpyCall, which is what would break (or silently copy) on a real GPU.
    """

    def __array_finalize__(self, obj):
        self.device_id = getattr(obj, "device_id", _current.device)

    @property
    def device(self):
        """Where the array lives: an object with `.id`, like cupy's Device."""
        return types.SimpleNamespace(id=self.device_id)

    def get(self):
        """A host numpy copy (cupy's API)."""
        return np.array(self.view(np.ndarray), copy=True)

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        host_scalar_operator = method == "__call__" and any(isinstance(i, np.generic) for i in inputs)
        if _allow.depth == 0 and not host_scalar_operator:
            raise DirectNumpyCall(f"numpy.{ufunc.__name__} was called directly on a device array; "
                                  f"use xp = array_module(value) and xp.{ufunc.__name__}")
        for i in inputs:
            if type(i) is np.ndarray:
                raise DirectNumpyCall(f"numpy.{ufunc.__name__} mixes a host numpy array {i.shape} with a "
                                      "device array; create arrays with the inputs' array module")
        device_id = next(i.device_id for i in inputs if isinstance(i, FakeDeviceArray)) \
            if any(isinstance(i, FakeDeviceArray) for i in inputs) else _current.device
        if "out" in kwargs:
            kwargs["out"] = tuple(_unwrap(o) for o in kwargs["out"])
        result = getattr(ufunc, method)(*_unwrap(inputs), **kwargs)
        return _wrap(result, device_id)

    def __array_function__(self, func, types_, args, kwargs):
        if func.__name__ in _METADATA_FUNCTIONS or _allow.depth:
            return _wrap(func(*_unwrap(args), **_unwrap(kwargs)), self.device_id)
        raise DirectNumpyCall(f"numpy.{func.__name__} was called directly on a device array; use "
                              f"xp = array_module(value) and xp.{func.__name__}")

    def __repr__(self):
        return f"FakeDeviceArray({self.view(np.ndarray)!r}, device={self.device_id})"

    __str__ = __repr__


def _allowing(method):
    def run(self, *args, **kwargs):
        _allow.depth += 1
        try:
            return method(self, *args, **kwargs)
        finally:
            _allow.depth -= 1
    run.__name__ = method.__name__
    return run


_OPERATORS_AND_METHODS = [
    f"__{p}{name}__" for name in ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "matmul",
                                  "and", "or", "xor", "lshift", "rshift", "divmod")
    for p in ("", "r", "i") if not (p == "i" and name == "divmod")
] + ["__neg__", "__pos__", "__abs__", "__invert__", "__eq__", "__ne__", "__lt__", "__le__", "__gt__",
     "__ge__", "__contains__", "sum", "mean", "max", "min", "prod", "any", "all", "std", "var",
     "cumsum", "cumprod", "clip", "round", "dot", "conj", "conjugate", "trace", "ptp"]
for _name in _OPERATORS_AND_METHODS:
    if hasattr(np.ndarray, _name):
        setattr(FakeDeviceArray, _name, _allowing(getattr(np.ndarray, _name)))


def _unwrap(obj):
    """Plain numpy views of FakeDeviceArrays inside `obj` (lists, tuples and dicts too)."""
    if isinstance(obj, FakeDeviceArray):
        return obj.view(np.ndarray)
    if isinstance(obj, (list, tuple)):
        items = [_unwrap(o) for o in obj]
        return type(obj)(*items) if hasattr(obj, "_fields") else type(obj)(items)
    if isinstance(obj, dict):
        return {k: _unwrap(v) for k, v in obj.items()}
    return obj


def _wrap(obj, device_id=None):
    """FakeDeviceArrays for the arrays in `obj`; numpy scalars become 0-d arrays, as in cupy."""
    if isinstance(obj, (np.ndarray, np.generic)) and not isinstance(obj, FakeDeviceArray):
        out = np.asarray(obj).view(FakeDeviceArray)
        out.device_id = _current.device if device_id is None else device_id
        return out
    if isinstance(obj, (list, tuple)):
        items = [_wrap(o, device_id) for o in obj]
        return type(obj)(*items) if hasattr(obj, "_fields") else type(obj)(items)
    return obj


class _FakeUfunc:
    """A numpy ufunc whose call and methods (reduce, at, outer...) take and give device arrays."""

    def __init__(self, ufunc):
        self._ufunc = ufunc

    def __call__(self, *args, **kwargs):
        return _wrap(self._ufunc(*_unwrap(args), **_unwrap(kwargs)))

    def __getattr__(self, name):
        attr = getattr(self._ufunc, name)
        if callable(attr):
            return lambda *a, **k: _wrap(attr(*_unwrap(a), **_unwrap(k)))
        return attr


class FakeModule:
    """A module-like namespace over numpy (or one of its submodules) working on FakeDeviceArrays.

    Functions receive plain numpy views and their array results come back as FakeDeviceArrays;
    dtypes, classes and constants pass through. `ndarray` is FakeDeviceArray, as `cupy.ndarray`
    is cupy's array type.
    """

    def __init__(self, base=np):
        self._base = base
        self.__name__ = "fake_" + base.__name__

    def __getattr__(self, name):
        if name == "ndarray":
            return FakeDeviceArray
        attr = getattr(self._base, name)
        if isinstance(attr, types.ModuleType):
            wrapped = FakeModule(attr)
        elif isinstance(attr, np.ufunc):
            wrapped = _FakeUfunc(attr)
        elif isinstance(attr, type) or not callable(attr):
            return attr
        else:
            def wrapped(*args, _f=attr, **kwargs):
                return _wrap(_f(*_unwrap(args), **_unwrap(kwargs)))
            wrapped.__name__ = name
        setattr(self, name, wrapped)
        return wrapped

    def __repr__(self):
        return f"<fake device module over {self._base.__name__}>"


class _FakeDevice:
    """cupy.cuda.Device look-alike: a context manager selecting the current fake GPU."""

    compute_capability = "80"

    def __init__(self, index=0):
        self.id = index
        self._previous = []

    def __enter__(self):
        self._previous.append(_current.device)
        _current.device = self.id
        return self

    def __exit__(self, *exc):
        _current.device = self._previous.pop()


def make_fake_cupy(device_count=1):
    """A cupy look-alike: FakeModule over numpy plus `cuda.runtime.getDeviceCount` and `cuda.Device`."""
    fake = FakeModule(np)
    fake.cuda = types.SimpleNamespace(
        runtime=types.SimpleNamespace(getDeviceCount=lambda: device_count), Device=_FakeDevice)
    fake.DirectNumpyCall = DirectNumpyCall
    return fake


@pytest.fixture
def fake_gpu():
    """Install a placement policy with one fake GPU (the default device); restore it afterwards.

    Yields the fake module; `FakeDeviceArray` values are what 'GPU' tensors hold.
    """
    yield from _install_fake_gpu(1)


@pytest.fixture
def fake_two_gpus():
    """Like `fake_gpu`, with two fake GPUs (for device-index placement)."""
    yield from _install_fake_gpu(2)


def _install_fake_gpu(count):
    fake = make_fake_cupy(count)
    info = backend._probe_devices(fake)
    policy = backend.GpuPlacement(info)
    previous = backend.set_gpu_policy(policy)
    try:
        yield fake
    finally:
        backend.set_gpu_policy(previous)
        backend.unregister_array_module(FakeDeviceArray)
        _current.device = 0
