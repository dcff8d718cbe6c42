"""One protocol: each built-in rule (minitf.optimizers.rules) runs the same way wherever it is
called: cut into cache blocks over threads or whole, through `apply`, Keras' `update_step`, a
subclass's `super().update_step` or a traced step."""
import numpy as np
import pytest

import minitf as tf
from minitf.indexed_slices import IndexedSlices
from minitf.kernels import cupy as device_kernels
from minitf.kernels import numpy as numpy_kernels
from minitf.kernels import threads
from minitf.optimizers import (SGD, Adam, AdamW, RMSprop, Adagrad, Adadelta, Adamax, Nadam,
                               Ftrl)

MAKERS = {
    "sgd": lambda: SGD(0.1), "sgd_nesterov": lambda: SGD(0.1, momentum=0.9, nesterov=True),
    "adam": lambda: Adam(0.01), "amsgrad": lambda: Adam(0.01, amsgrad=True),
    "adamw": lambda: AdamW(0.01), "adamax": lambda: Adamax(0.01), "nadam": lambda: Nadam(0.01),
    "rmsprop": lambda: RMSprop(0.01, momentum=0.5, centered=True), "adagrad": lambda: Adagrad(0.1),
    "adadelta": lambda: Adadelta(1.0),
    "ftrl": lambda: Ftrl(0.1, l1_regularization_strength=0.01, l2_shrinkage_regularization_strength=0.01,
                         beta=0.5),
}


def _train(make, shapes, steps=3, seed=0, dtype=np.float32):
    rng = np.random.default_rng(seed)
    variables = [tf.Variable(rng.normal(size=s).astype(dtype)) for s in shapes]
    opt = make()
    for _ in range(steps):
        grads = [tf.constant(rng.normal(size=s).astype(dtype)) for s in shapes]
        opt.apply_gradients(zip(grads, variables))
    return [v.numpy() for v in variables] + [s.numpy() for _, _, s in opt._checkpoint_slots()]


@pytest.fixture
def three_threads():
    threads.set_intra_op_threads(3)  # the worker pool, whatever the machine's default
    yield
    threads.set_intra_op_threads(0)


@pytest.mark.parametrize("name", sorted(MAKERS))
def test_blocks_threads_and_whole_arrays_give_the_same_bits(name, monkeypatch, three_threads):
    # one variable of ~7 blocks and many mid-sized ones: the step's blocks go to the pool
    shapes = [(700, 650)] + [(150, 200)] * 6 + [(3, 5)]
    threaded = _train(MAKERS[name], shapes)
    monkeypatch.setattr(numpy_kernels, "_PARALLEL_MIN_BLOCKS", 10 ** 9)  # every block on this thread
    single = _train(MAKERS[name], shapes)
    monkeypatch.setattr(numpy_kernels, "update_variables", device_kernels.update_variables)
    whole = _train(MAKERS[name], shapes)  # the device kernel's path: one pass per whole array
    for a, b, c in zip(threaded, single, whole):
        np.testing.assert_array_equal(a, b)
        np.testing.assert_array_equal(a, c)
    assert not np.array_equal(threaded[0], _train(lambda: SGD(0.0), shapes)[0])


def test_a_step_with_enough_mid_sized_variables_uses_the_worker_pool(monkeypatch, three_threads):
    shared = []
    real = numpy_kernels._share
    monkeypatch.setattr(numpy_kernels, "_share", lambda items, run, parallel: (
        shared.append(len(items)), real(items, run, parallel)))
    _train(MAKERS["adam"], [(150, 200)] * 8, steps=1)  # 8 variables of half a block each
    assert shared == [8]
    shared.clear()
    _train(MAKERS["adam"], [(10, 10)] * 8, steps=1)  # small ones stay on the calling thread
    assert shared == []


@pytest.mark.parametrize("name", sorted(MAKERS))
def test_keras_update_step_runs_the_same_rule(name):
    rng = np.random.default_rng(3)
    w0 = rng.normal(size=(4, 3))
    grads = [rng.normal(size=(4, 3)) for _ in range(3)]
    a, b = tf.Variable(w0), tf.Variable(w0)
    via_apply, direct = MAKERS[name](), MAKERS[name]()
    direct.build([b])
    for g in grads:
        via_apply.apply_gradients([(tf.constant(g), a)])
        if direct.weight_decay:
            b.assign_sub(b * (direct.weight_decay * float(direct.learning_rate)))
        direct.update_step(tf.constant(g), b, direct.learning_rate)
        direct.iterations.assign_add(1)
    np.testing.assert_array_equal(a.numpy(), b.numpy())


def test_a_subclass_calling_super_update_step_takes_the_keras_path():
    calls = []

    class CountingAdam(tf.keras.optimizers.Adam):
        def update_step(self, gradient, variable, learning_rate):
            calls.append(variable.name)
            super().update_step(gradient, variable, learning_rate)

    shapes = [(5, 4), (4,)]
    np.testing.assert_equal(_train(lambda: CountingAdam(0.01), shapes), _train(MAKERS["adam"], shapes))
    assert len(calls) == 6  # 3 steps x 2 variables, one call each


def test_update_step_takes_indexed_slices():
    var, ref = tf.Variable(np.ones((5, 2))), tf.Variable(np.ones((5, 2)))
    opt, ref_opt = Adagrad(0.1), Adagrad(0.1)
    grad = IndexedSlices(tf.constant([[1.0, 2.0], [3.0, 4.0]]), tf.constant([3, 3]), tf.constant([5, 2]))
    opt.update_step(grad, var, opt.learning_rate)
    ref_opt.apply_gradients([(grad, ref)])
    np.testing.assert_array_equal(var.numpy(), ref.numpy())
    assert var.numpy()[0].tolist() == [1.0, 1.0] and var.numpy()[3][0] < 1.0


def test_a_variable_twice_in_one_step_takes_both_updates_in_order():
    var = tf.Variable([1.0, 2.0])
    SGD(0.5, momentum=0.5).apply_gradients([(tf.constant([1.0, 1.0]), var), (tf.constant([2.0, 0.0]), var)])
    # m = -0.5 * g1 -> w = w + m; then m = 0.5 m - 0.5 * g2 -> w = w + m
    np.testing.assert_allclose(var.numpy(), [1.0 - 0.5 - 1.25, 2.0 - 0.5 - 0.25])


@pytest.mark.parametrize("name", ["adam", "sgd_nesterov", "nadam", "ftrl"])
def test_a_traced_step_gives_the_eager_bits(name):
    rng = np.random.default_rng(4)
    x = tf.constant(rng.normal(size=(8, 3)).astype(np.float32))
    results = []
    for traced in (False, True):
        w = tf.Variable(np.linspace(-1, 1, 6).reshape(3, 2).astype(np.float32))
        opt = MAKERS[name]()

        def step():
            with tf.GradientTape() as tape:
                loss = tf.reduce_sum(tf.square(tf.matmul(x, w)))
            opt.apply_gradients([(tape.gradient(loss, w), w)])
        step = tf.function(step) if traced else step
        for _ in range(3):
            step()
        results.append((w.numpy(), [s.numpy() for _, _, s in opt._checkpoint_slots()]))
    np.testing.assert_array_equal(results[0][0], results[1][0])
    for a, b in zip(results[0][1], results[1][1]):
        np.testing.assert_array_equal(a, b)


def test_a_subclass_with_neither_rule_nor_update_step_raises_keras_error():
    class Bare(tf.keras.optimizers.Optimizer):
        pass
    with pytest.raises(NotImplementedError, match="update_step"):  # TF 2.21's class too
        Bare(0.1).apply_gradients([(tf.constant([1.0]), tf.Variable([1.0]))])


@pytest.mark.parametrize("name", sorted(MAKERS))
def test_a_scalar_variable_takes_the_one_element_update(name):
    # Ftrl's rule raised TypeError on 0-d arrays (numpy's power returns a scalar there)
    results = []
    for shape in ((), (1,)):
        var, opt = tf.Variable(np.full(shape, 1.5, np.float32)), MAKERS[name]()
        for g in (0.3, -0.2, 0.7):
            opt.apply_gradients([(tf.constant(np.full(shape, g, np.float32)), var)])
        assert var.shape == shape
        results.append(var.numpy().reshape(-1))
    np.testing.assert_array_equal(results[0], results[1])
    assert results[0][0] != 1.5


def test_ftrl_on_a_scalar_agrees_with_tensorflow():
    tf_ref = pytest.importorskip("tensorflow")
    values = []
    for lib in (tf, tf_ref):
        var = lib.Variable(1.5)
        opt = lib.keras.optimizers.Ftrl(0.1, l1_regularization_strength=0.01)
        for g in (0.3, -0.2, 0.7):
            opt.apply_gradients([(lib.constant(g), var)])
        values.append(float(var.numpy()))
    assert values[0] == values[1]
