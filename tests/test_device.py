"""tf.device placement and cross-device copies.

The first part runs everywhere on two fake GPUs (see tests/conftest.py). The `gpu`-marked part
needs cupy and a real GPU and is skipped cleanly without one: placement, copies, CPU/GPU
numerical agreement, a training step and a checkpoint written from GPU variables.
"""
import threading

import numpy as np
import pytest

import minitf as tf
from minitf import backend
from minitf.device import device
from minitf.ops._core import copy_to_module, unify

GPU0 = "/job:localhost/replica:0/task:0/device:GPU:0"
GPU1 = "/job:localhost/replica:0/task:0/device:GPU:1"
CPU0 = "/job:localhost/replica:0/task:0/device:CPU:0"


# -- placement, on fake GPUs -------------------------------------------------------------------

@pytest.mark.parametrize("name, expected", [
    ("/GPU:0", GPU0), ("GPU:1", GPU1), ("gpu:0", GPU0), ("/device:GPU:1", GPU1),
    ("/job:localhost/replica:0/task:0/device:GPU:0", GPU0), ("/CPU:0", CPU0), ("cpu:0", CPU0),
])
def test_scope_places_new_tensors_and_variables(name, expected, fake_two_gpus):
    with device(name):
        t = tf.constant([1.0, 2.0])
        v = tf.Variable(tf.zeros([2]))
        z = tf.ones([3])
    for x in (t, v, z):
        assert x.device == expected
    on_gpu = expected != CPU0
    assert isinstance(t._value, fake_two_gpus.ndarray) == on_gpu
    if on_gpu:
        assert t._value.device.id == int(expected[-1])


def test_a_gpu_that_does_not_exist_falls_back_to_the_cpu(fake_gpu):
    with device("/GPU:5"):
        t = tf.constant(1.0)
        assert backend.current_device() == CPU0
    assert t.device == CPU0 and type(t._value) is not fake_gpu.ndarray


def test_a_gpu_scope_without_any_gpu_places_on_the_cpu():
    if backend.gpu_available():
        pytest.skip("this machine has a GPU")
    with device("/GPU:0"):
        t = tf.constant([1.0]) + 1.0
    assert t.device == CPU0 and type(t.numpy()) is np.ndarray


def test_scopes_nest_and_restore(fake_two_gpus):
    assert backend.current_device() == GPU0
    with device("/CPU:0"):
        with device("/GPU:1"):
            assert tf.constant(1.0).device == GPU1
            with device(""):  # no device type: keep the enclosing one
                assert tf.constant(1.0).device == GPU1
            with device("/job:localhost"):
                assert tf.constant(1.0).device == GPU1
        assert tf.constant(1.0).device == CPU0
        with device(None):  # clears enclosing scopes: back to the default device
            assert tf.constant(1.0).device == GPU0
        assert tf.constant(1.0).device == CPU0
    assert backend.current_device() == GPU0


def test_the_scope_is_restored_after_an_exception(fake_gpu):
    with pytest.raises(KeyError):
        with device("/CPU:0"):
            raise KeyError("boom")
    assert backend.current_device() == GPU0


def test_device_object_can_be_reused(fake_gpu):
    cpu = device("/CPU:0")
    for _ in range(2):
        with cpu:
            assert tf.constant(1.0).device == CPU0
        assert tf.constant(1.0).device == GPU0
    assert repr(cpu) == "tf.device('/CPU:0')"


def test_device_functions_are_refused_in_eager_mode():
    with pytest.raises(RuntimeError, match="does not support functions"):
        device(lambda op: "/CPU:0")


def test_device_scopes_are_per_thread(fake_gpu):
    seen = []
    with device("/CPU:0"):
        worker = threading.Thread(target=lambda: seen.append(tf.constant(1.0).device))
        worker.start()
        worker.join()
        assert tf.constant(1.0).device == CPU0
    assert seen == [GPU0]


def test_ops_run_where_their_inputs_live(fake_gpu):
    x = tf.constant([1.0, 2.0])  # on the fake GPU (the default)
    with device("/CPU:0"):
        y = tf.exp(x) + tf.reduce_sum(x)
    assert y.device == GPU0


def test_numpy_and_repr_work_for_device_tensors(fake_gpu):
    t = tf.constant([[1.0, 2.0]])
    assert type(t.numpy()) is np.ndarray
    assert "numpy=array([[1., 2.]]" in repr(t)
    assert float(tf.reduce_sum(t)) == 3.0


# -- cross-device copies -----------------------------------------------------------------------

def test_copy_to_module_moves_values_and_gradients_back(fake_gpu):
    with device("/CPU:0"):
        x = tf.constant([1.0, 2.0, 3.0], tf.float64)
    with tf.GradientTape() as tape:
        tape.watch(x)
        on_gpu = copy_to_module(x, fake_gpu)
        y = tf.reduce_sum(on_gpu * on_gpu)
    assert on_gpu.device == GPU0 and y.device == GPU0
    g = tape.gradient(y, x)
    assert g.device == CPU0, "the gradient must come back to the source's device"
    np.testing.assert_allclose(g.numpy(), [2.0, 4.0, 6.0])
    assert copy_to_module(x, np) is x


def test_unify_moves_mixed_inputs_to_the_gpu_or_the_scope(fake_gpu):
    with device("/CPU:0"):
        a = tf.constant([1.0, 2.0])
    b = tf.constant([3.0, 4.0])
    ua, ub = unify(a, b)
    assert ua.device == GPU0 and ub is b
    with device("/CPU:0"):
        ua, ub = unify(a, b)
    assert ua is a and ub.device == CPU0
    np.testing.assert_array_equal(ub.numpy(), [3.0, 4.0])
    same = unify(b, b)
    assert same[0] is b and same[1] is b


def test_binary_ops_across_devices(fake_gpu):
    """Operands of one dtype on two devices are copied to one device before the op runs."""
    with device("/CPU:0"):
        a = tf.constant([1.0, 2.0], tf.float64)
    b = tf.constant([3.0, 4.0], tf.float64)
    with tf.GradientTape() as tape:
        tape.watch([a, b])
        c = a * b
    assert c.device == GPU0
    ga, gb = tape.gradient(c, [a, b])
    assert ga.device == CPU0 and gb.device == GPU0
    np.testing.assert_allclose(ga.numpy(), [3.0, 4.0])
    np.testing.assert_allclose(gb.numpy(), [1.0, 2.0])


def test_variables_keep_their_device_on_assign(fake_gpu):
    v = tf.Variable([1.0, 2.0])
    with device("/CPU:0"):
        v.assign(tf.constant([5.0, 6.0]))
    assert v.device == GPU0
    np.testing.assert_array_equal(v.numpy(), [5.0, 6.0])


# -- real GPU (skipped without cupy and a GPU) -------------------------------------------------

def _both_devices(fn, *arrays):
    """fn(*tensors) evaluated with inputs on the CPU and on the GPU; values and gradients."""
    results = []
    for name in ("/CPU:0", "/GPU:0"):
        with device(name):  # the ops too: unpinned, a new tensor (tf.range) goes to the default device
            xs = [tf.constant(a) for a in arrays]
            with tf.GradientTape() as tape:
                tape.watch(xs)
                y = fn(*xs)
            grads = tape.gradient(y, xs)
        results.append((y, grads))
    return results


def _maybe(path):
    """The minitf callable at dotted `path`; a missing one fails the test."""
    obj = tf
    for part in path.split("."):
        obj = getattr(obj, part)
    return obj


@pytest.mark.gpu
def test_gpu_is_the_default_device_and_placement_is_real(gpu_default):
    cupy = backend.cupy_module()
    t = tf.constant([1.0, 2.0])
    v = tf.Variable([[1.0]])
    assert isinstance(t._value, cupy.ndarray) and t.device == GPU0
    assert isinstance(v._value, cupy.ndarray) and v.device == GPU0
    with device("/CPU:0"):
        c = tf.constant([1.0])
    assert type(c._value) is np.ndarray and c.device == CPU0
    assert type(t.numpy()) is np.ndarray and type(np.asarray(t)) is np.ndarray
    assert tf.config.list_physical_devices("GPU")[0].name == "/physical_device:GPU:0"


@pytest.mark.gpu
def test_gpu_cross_device_copies_and_gradients(gpu_default):
    cupy = backend.cupy_module()
    with device("/CPU:0"):
        x = tf.constant([1.0, 2.0], tf.float64)
    with tf.GradientTape() as tape:
        tape.watch(x)
        g = copy_to_module(x, cupy)
        y = tf.reduce_sum(tf.sin(g))
    assert isinstance(g._value, cupy.ndarray)
    grad = tape.gradient(y, x)
    assert grad.device == CPU0
    np.testing.assert_allclose(grad.numpy(), np.cos([1.0, 2.0]), rtol=1e-12)


@pytest.mark.gpu
@pytest.mark.parametrize("name, fn, shapes", [
    ("matmul", lambda a, b: tf.reduce_sum(tf.matmul(a, b) ** 2), [(8, 5), (5, 3)]),
    ("reductions", lambda a: tf.reduce_logsumexp(a, axis=1) + tf.reduce_mean(a, 1) * tf.reduce_max(a, 1), [(4, 6)]),
    ("elementwise", lambda a, b: tf.reduce_sum(tf.tanh(a) * tf.sigmoid(b) + tf.exp(-a * a)), [(3, 4), (4,)]),
    ("shapes", lambda a: tf.reduce_sum(tf.transpose(tf.reshape(a, [2, 3, 4]), [2, 0, 1])[1:, :, ::2] ** 2), [(6, 4)]),
    ("conv2d", lambda x, k: tf.reduce_sum(_maybe("nn.conv2d")(x, k, 1, "SAME") ** 2), [(2, 6, 6, 3), (3, 3, 3, 4)]),
    ("max_pool", lambda x: tf.reduce_sum(_maybe("nn.max_pool2d")(x, 2, 2, "VALID") ** 2), [(2, 4, 4, 3)]),
    ("softmax", lambda a: tf.reduce_sum(_maybe("nn.softmax")(a) * tf.range(5, dtype=tf.float32)), [(3, 5)]),
])
def test_cpu_and_gpu_agree(name, fn, shapes):
    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal(s).astype(np.float32) for s in shapes]
    (y_cpu, g_cpu), (y_gpu, g_gpu) = _both_devices(fn, *arrays)
    assert y_gpu.device == GPU0 and y_cpu.device == CPU0
    np.testing.assert_allclose(y_gpu.numpy(), y_cpu.numpy(), rtol=2e-5, atol=1e-5)
    for gg, gc in zip(g_gpu, g_cpu):
        assert gg.device == GPU0
        np.testing.assert_allclose(gg.numpy(), gc.numpy(), rtol=2e-5, atol=1e-5)


def _train(device_name, steps=3):
    layers, optimizers = tf.keras.layers, tf.keras.optimizers
    rng = np.random.default_rng(1)
    x_np, y_np = rng.standard_normal((16, 4)).astype(np.float32), rng.standard_normal((16, 1)).astype(np.float32)
    with device(device_name):
        x, y = tf.constant(x_np), tf.constant(y_np)
        hidden, out = layers.Dense(8, activation="relu"), layers.Dense(1)
        out(hidden(x))
        for v in hidden.weights + out.weights:
            v.assign(rng.standard_normal(v.shape.as_list()).astype(np.float32) * 0.3)
        opt = optimizers.Adam(learning_rate=0.01)
        variables = hidden.trainable_variables + out.trainable_variables
        for _ in range(steps):
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(tf.square(out(hidden(x)) - y))
            opt.apply_gradients(zip(tape.gradient(loss, variables), variables))
    return loss, variables


@pytest.mark.gpu
def test_a_training_step_matches_between_cpu_and_gpu():
    loss_cpu, vars_cpu = _train("/CPU:0")
    loss_gpu, vars_gpu = _train("/GPU:0")
    assert loss_gpu.device == GPU0
    np.testing.assert_allclose(loss_gpu.numpy(), loss_cpu.numpy(), rtol=1e-4)
    for vg, vc in zip(vars_gpu, vars_cpu):
        assert vg.device == GPU0, vg.name
        np.testing.assert_allclose(vg.numpy(), vc.numpy(), rtol=1e-4, atol=1e-5)


@pytest.mark.gpu
def test_checkpoint_written_from_gpu_variables_loads_on_cpu(tmp_path):
    Checkpoint = tf.train.Checkpoint
    with device("/GPU:0"):
        w = tf.Variable(np.arange(6, dtype=np.float32).reshape(2, 3))
        step = tf.Variable(7, dtype=tf.int64)
    assert w.device == GPU0
    path = Checkpoint(w=w, step=step).save(str(tmp_path / "ckpt"))
    with device("/CPU:0"):
        w2 = tf.Variable(tf.zeros([2, 3]))
        step2 = tf.Variable(0, dtype=tf.int64)
    Checkpoint(w=w2, step=step2).restore(path)
    assert w2.device == CPU0 and type(w2._value) is np.ndarray
    np.testing.assert_array_equal(w2.numpy(), w.numpy())
    assert int(step2.numpy()) == 7
