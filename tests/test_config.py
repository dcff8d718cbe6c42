"""tf.config: device listing, visibility, memory growth and the tf.test GPU queries."""
import numpy as np
import pytest

import minitf as tf
from minitf import backend
from minitf.config import config
from minitf.device import device


def test_this_machine_lists_one_cpu_and_its_gpus():
    cpus = tf.config.list_physical_devices("CPU")
    assert cpus == [config.PhysicalDevice(name="/physical_device:CPU:0", device_type="CPU")]
    gpus = tf.config.list_physical_devices("GPU")
    assert len(gpus) == backend.gpu_count()
    assert tf.config.list_physical_devices() == cpus + gpus


def test_devices_are_namedtuples_with_tf_fields():
    cpu = tf.config.list_physical_devices("CPU")[0]
    assert cpu.name == "/physical_device:CPU:0" and cpu.device_type == "CPU"
    name, kind = cpu
    assert (name, kind) == (cpu.name, cpu.device_type)
    assert repr(cpu) == "PhysicalDevice(name='/physical_device:CPU:0', device_type='CPU')"


def test_fake_gpus_are_listed_physically_and_logically(fake_two_gpus):
    gpus = tf.config.list_physical_devices("GPU")
    assert [g.name for g in gpus] == ["/physical_device:GPU:0", "/physical_device:GPU:1"]
    assert all(g.device_type == "GPU" for g in gpus)
    logical = tf.config.list_logical_devices("GPU")
    assert [d.name for d in logical] == ["/device:GPU:0", "/device:GPU:1"]
    assert [d.name for d in tf.config.list_logical_devices()][0] == "/device:CPU:0"
    assert tf.config.get_visible_devices("GPU") == gpus


def test_device_type_filter_is_exact():
    assert tf.config.list_physical_devices("TPU") == []


def test_hiding_the_gpus_makes_everything_run_on_numpy(fake_two_gpus):
    cpus = tf.config.list_physical_devices("CPU")
    gpus = tf.config.list_physical_devices("GPU")
    tf.config.set_visible_devices([], "GPU")
    assert tf.config.get_visible_devices() == cpus
    assert tf.config.list_logical_devices("GPU") == []
    assert tf.config.list_physical_devices("GPU") == gpus  # still there, only hidden
    assert type(tf.constant([1.0])._value) is np.ndarray
    with device("/GPU:0"):
        t = tf.constant([1.0]) * 2.0
    assert type(t._value) is np.ndarray and t.device.endswith("CPU:0")
    assert not tf.test.is_gpu_available() and tf.test.gpu_device_name() == ""
    tf.config.set_visible_devices(cpus + gpus)
    assert isinstance(tf.constant([1.0])._value, fake_two_gpus.ndarray)


def test_set_visible_devices_accepts_a_single_device(fake_gpu):
    cpu = tf.config.list_physical_devices("CPU")[0]
    tf.config.set_visible_devices(cpu)
    assert tf.config.get_visible_devices() == [cpu]
    tf.config.experimental.set_visible_devices(tf.config.list_physical_devices("GPU"), "GPU")
    assert len(tf.config.get_visible_devices("GPU")) == 1


def test_set_visible_devices_rejects_unknown_devices_and_a_hidden_cpu(fake_gpu):
    with pytest.raises(ValueError, match="Unrecognized device"):
        tf.config.set_visible_devices([config.PhysicalDevice("/physical_device:GPU:7", "GPU")])
    with pytest.raises(ValueError, match="CPU cannot be hidden"):
        tf.config.set_visible_devices(tf.config.list_physical_devices("GPU"))
    with pytest.raises(ValueError, match="device_type 'CPU'"):
        tf.config.set_visible_devices(tf.config.list_physical_devices("GPU"), "CPU")


def test_memory_growth_is_remembered_for_gpus(fake_gpu):
    gpu = tf.config.list_physical_devices("GPU")[0]
    assert tf.config.experimental.get_memory_growth(gpu) is False
    tf.config.experimental.set_memory_growth(gpu, True)
    assert tf.config.experimental.get_memory_growth(gpu) is True
    tf.config.experimental.set_memory_growth(gpu, False)
    assert tf.config.experimental.get_memory_growth(gpu) is False
    assert "grows" in tf.config.experimental.set_memory_growth.__doc__


def test_memory_growth_rejects_the_cpu_and_unknown_devices():
    cpu = tf.config.list_physical_devices("CPU")[0]
    with pytest.raises(ValueError, match="non-GPU device /physical_device:CPU:0"):
        tf.config.experimental.set_memory_growth(cpu, True)
    with pytest.raises(ValueError, match="unrecognized device"):
        tf.config.experimental.get_memory_growth(config.PhysicalDevice("/physical_device:GPU:9", "GPU"))


def test_gpu_queries_with_a_fake_gpu(fake_gpu):
    assert tf.test.is_gpu_available()
    assert tf.test.is_gpu_available(cuda_only=True, min_cuda_compute_capability=(7, 0))
    assert not tf.test.is_gpu_available(min_cuda_compute_capability=(9, 0))
    assert tf.test.gpu_device_name() == "/device:GPU:0"
    assert tf.test.is_built_with_cuda()


def test_gpu_queries_agree_with_this_machine():
    assert tf.test.is_gpu_available() == backend.gpu_available()
    assert tf.test.gpu_device_name() == ("/device:GPU:0" if backend.gpu_available() else "")
    assert tf.test.is_built_with_cuda() == backend.cupy_installed()


def test_tf_test_reexports_config_functions():
    assert tf.test.is_gpu_available is config.is_gpu_available
    assert tf.test.gpu_device_name is config.gpu_device_name
    assert tf.test.is_built_with_cuda is config.is_built_with_cuda


def test_soft_device_placement_is_always_on():
    tf.config.set_soft_device_placement(False)
    assert tf.config.get_soft_device_placement() is True


def test_experimental_namespace_mirrors_the_stable_names():
    for name in ("list_physical_devices", "list_logical_devices", "set_visible_devices",
                 "get_visible_devices"):
        assert getattr(tf.config.experimental, name) is getattr(tf.config, name)


def test_a_cpu_split_into_logical_devices():
    cpu = tf.config.list_physical_devices("CPU")[0]
    assert tf.config.get_logical_device_configuration(cpu) is None
    try:
        tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * 3)
        assert len(tf.config.get_logical_device_configuration(cpu)) == 3
        names = [d.name for d in tf.config.list_logical_devices("CPU")]
        assert names == ["/device:CPU:0", "/device:CPU:1", "/device:CPU:2"]
        with tf.device("/CPU:2"):  # placeable; runs on the host like every CPU
            assert float(tf.constant(2.0) * 3.0) == 6.0
        assert tf.config.experimental.VirtualDeviceConfiguration is tf.config.LogicalDeviceConfiguration
        assert repr(tf.config.LogicalDeviceConfiguration(memory_limit=10)) == (
            "LogicalDeviceConfiguration(memory_limit=10, experimental_priority=None, "
            "experimental_device_ordinal=None)")  # TF 2.21's repr
        with pytest.raises(ValueError, match="LogicalDeviceConfiguration"):
            tf.config.set_logical_device_configuration(cpu, [])
    finally:
        tf.config.set_logical_device_configuration(cpu, None)
    assert len(tf.config.list_logical_devices("CPU")) == 1
