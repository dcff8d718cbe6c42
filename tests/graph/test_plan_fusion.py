"""Fused elementwise chains (minitf/graph/compiler/fusion.py): with numba installed, a plan runs
chains of elementwise steps as one generated loop, and must give the interpreter's results bit
for bit, special values included (NaN and its sign, +-inf, +-0, subnormals, the extremes)."""
import numpy as np
import pytest

import minitf as tf
from minitf.graph.compiler import plan as plans
from minitf.kernels import jit

pytest.importorskip("numba")

SHAPE = (2, 9, 9, 40)  # 6,480 elements: above fusion.MIN_ELEMENTS


def _specials(dtype):
    info = np.finfo(dtype)
    return np.array([np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0, info.max, -info.max,
                     info.tiny, -info.tiny, info.smallest_subnormal, -info.smallest_subnormal],
                    dtype=dtype)


def _values(seed, dtype, shape=SHAPE):
    rng = np.random.default_rng(seed)
    a = rng.normal(size=shape).astype(dtype)
    special = _specials(dtype)
    flat = a.reshape(-1)
    flat[:special.size * special.size] = np.repeat(special, special.size)  # every pair, with _paired
    return a


def _paired(seed, dtype, shape=SHAPE):
    a = _values(seed, dtype, shape)
    special = _specials(dtype)
    a.reshape(-1)[:special.size * special.size] = np.tile(special, special.size)
    return a


def _fused_steps(fn):
    (concrete,) = fn._concrete_functions()
    (entry,) = concrete._plans.entries.values()
    assert entry.plan is not None, entry.reason
    return [s for s in entry.program.steps if s[0] == "call" and getattr(s[1], "__name__", "").startswith("fused")]


def _bits(a):
    a = np.ascontiguousarray(a)
    return a.view(np.uint8)


def _run(fn, *args):
    """The plan's results on the 4th call, and the interpreter's on the same arguments."""
    for _ in range(3):
        fn(*args)
    got = tf.nest.map_structure(lambda t: t.numpy(), fn(*args))
    old = plans.set_enabled(False)
    try:
        want = tf.nest.map_structure(lambda t: t.numpy(), fn(*args))
    finally:
        plans.set_enabled(old)
    return got, want


def _assert_same(got, want):
    for g, w in zip(tf.nest.flatten(got), tf.nest.flatten(want)):
        assert g.dtype == w.dtype and g.shape == w.shape
        assert np.array_equal(_bits(g), _bits(w))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_batch_norm_and_relu_forward_and_backward(dtype):
    x = tf.constant(_values(0, dtype))
    scale = tf.constant(np.random.default_rng(1).uniform(0.5, 2.0, SHAPE[-1]).astype(dtype))
    offset = tf.constant(np.random.default_rng(2).normal(size=SHAPE[-1]).astype(dtype))
    upstream = tf.constant(_paired(3, dtype))

    @tf.function
    def f(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.nn.relu(x * scale + offset)
            loss = tf.reduce_sum(y * upstream)
        return y, tape.gradient(loss, x)

    got, want = _run(f, x)
    assert _fused_steps(f)  # forward and ReLU gradient chains (one group when nothing reads between)
    _assert_same(got, want)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_every_operation_on_every_pair_of_special_values(dtype):
    a, b = tf.constant(_values(4, dtype)), tf.constant(_paired(5, dtype))
    v = tf.constant(np.linspace(-2, 2, SHAPE[-1]).astype(dtype))

    @tf.function
    def f(a, b):
        s = -(a - b) / v
        return (tf.maximum(a, b) + s, tf.minimum(b, a) * s, tf.maximum(s, 0.5) - a,
                tf.minimum(a, -0.0) * b, tf.cast(a > b, a.dtype), tf.nn.relu(a * b))

    got, want = _run(f, a, b)
    assert _fused_steps(f)
    _assert_same(got, want)


def test_a_value_read_outside_the_chain_stays_right():
    x = tf.constant(_values(6, np.float32))

    @tf.function
    def f(x):
        y = x * 3.0
        total = tf.reduce_sum(tf.where(tf.math.is_finite(y), y, 0.0))  # reads y mid-chain
        z = (y + 1.0) * y
        return z - total, y

    got, want = _run(f, x)
    _assert_same(got, want)


def test_training_steps_with_host_steps_match_the_interpreter():
    def make():
        tf.keras.utils.set_random_seed(7)
        model = tf.keras.Sequential([tf.keras.Input((64,)), tf.keras.layers.Dense(96, activation="relu"),
                                     tf.keras.layers.Dropout(0.3), tf.keras.layers.Dense(10)])
        optimizer = tf.keras.optimizers.Adam(1e-2)
        loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)

        @tf.function
        def step(x, y):
            with tf.GradientTape() as tape:
                loss = loss_fn(y, model(x, training=True))
            optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables),
                                          model.trainable_variables))
            return loss
        return model, step

    rng = np.random.default_rng(8)
    x = tf.constant(rng.normal(size=(32, 64)).astype(np.float32))
    y = tf.constant(rng.integers(0, 10, size=32))
    results = []
    for enabled in (True, False):
        old = plans.set_enabled(enabled)
        try:
            model, step = make()
            losses = [step(x, y).numpy() for _ in range(6)]
            results.append((losses, [w.copy() for w in model.get_weights()]))
        finally:
            plans.set_enabled(old)
        if enabled:
            assert _fused_steps(step)
    (losses_plan, weights_plan), (losses_interp, weights_interp) = results
    assert np.array_equal(np.array(losses_plan), np.array(losses_interp))
    for a, b in zip(weights_plan, weights_interp):
        assert np.array_equal(_bits(a), _bits(b))


def test_small_results_and_a_missing_numba_leave_the_program_alone(monkeypatch):
    small = tf.constant(np.ones((4, 8), np.float32))

    @tf.function
    def f(x):
        return tf.nn.relu(x * 2.0 + 1.0)

    _run(f, small)
    assert not _fused_steps(f)

    monkeypatch.setattr(jit, "_found", [False])
    big = tf.constant(_values(9, np.float32))

    @tf.function
    def g(x):
        return tf.nn.relu(x * 2.0 + 1.0)

    got, want = _run(g, big)
    assert not _fused_steps(g)
    _assert_same(got, want)
