"""Compiled plans (minitf/graph/compiler): a traced function's plan gives bitwise the results of
the interpreter (plans switched off), for training steps, Keras loops, random ops, guards that
fail, new shapes, outer tapes, in-place optimizer updates and ops the recording cannot follow."""
import os
import subprocess
import sys

import numpy as np
import pytest

import minitf as tf
from minitf.nest import nest
from minitf.graph.compiler import plan as plans
from minitf.graph.compiler.interception import intercepting, recording_into
from minitf.graph.compiler.recording import Recorder

L = tf.keras.layers


@pytest.fixture(autouse=True)
def _one_thread():
    # a matmul's last bits may depend on the thread count, which otherwise follows the load
    old = tf.config.threading.get_intra_op_parallelism_threads()
    tf.config.threading.set_intra_op_parallelism_threads(1)
    yield
    tf.config.threading.set_intra_op_parallelism_threads(old)


def _run(build, calls, use_plans):
    old = plans.set_enabled(use_plans)
    try:
        tf.keras.utils.set_random_seed(0)
        step, state, args = build()
        outputs = [nest.map_structure(lambda t: np.array(t), step(*args(i))) for i in range(calls)]
        return outputs, [np.array(v.numpy()) for v in state], step
    finally:
        plans.set_enabled(old)


def _entries(step):
    found = []
    for concrete in step._concrete_functions():
        if concrete._plans is not None:
            found.extend(concrete._plans.entries.values())
    return found


def _assert_equal(got, want):
    for a, b in zip(nest.flatten(got), nest.flatten(want)):
        a, b = np.asarray(a), np.asarray(b)
        assert a.dtype == b.dtype and a.shape == b.shape
        np.testing.assert_array_equal(a, b)


def _same_as_interpreter(build, calls=5):
    """Run `build`'s step `calls` times with plans and without: bitwise the same outputs and
    state. Returns the step's plan entries (of the run with plans)."""
    got, state_got, step = _run(build, calls, True)
    want, state_want, _ = _run(build, calls, False)
    assert len(got) == len(want) and len(state_got) == len(state_want)
    for a, b in zip(got, want):
        _assert_equal(a, b)
    _assert_equal(state_got, state_want)
    return _entries(step)


def _planned(entries, runs):
    planned = [e for e in entries if e.plan is not None]
    assert planned, [e.reason for e in entries]
    assert sum(e.runs for e in planned) >= runs
    return planned[0]


# -- the four workloads of benchmarks/bench_traced_steps.py, small ------------------------------

def _linear():
    rng = np.random.default_rng(0)
    x = tf.constant(rng.normal(size=100).astype("float32"))
    y = x * 3.0 + 2.0 + tf.constant(rng.normal(size=100).astype("float32"))
    w, b = tf.Variable(5.0), tf.Variable(0.0)

    @tf.function
    def step():
        with tf.GradientTape() as t:
            loss = tf.reduce_mean(tf.square(y - (w * x + b)))
        dw, db = t.gradient(loss, [w, b])
        w.assign_sub(0.1 * dw)
        b.assign_sub(0.1 * db)
        return loss
    return step, [w, b], lambda i: ()


def _mlp():
    rng = np.random.default_rng(0)
    model = tf.keras.Sequential([L.Input((20,)), L.Dense(16, activation="relu"), L.Dense(5)])
    loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    opt = tf.keras.optimizers.Adam(1e-2)
    batches = [(rng.random((8, 20), dtype=np.float32), rng.integers(0, 5, 8)) for _ in range(3)]

    @tf.function
    def step(x, y):
        with tf.GradientTape() as tape:
            loss = loss_fn(y, model(x, training=True))
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))
        return loss
    return step, model.weights, lambda i: batches[i % 3]


def _dcgan():
    generator = tf.keras.Sequential([
        L.Input((10,)), L.Dense(4 * 4 * 8, use_bias=False), L.BatchNormalization(), L.LeakyReLU(),
        L.Reshape((4, 4, 8)), L.Conv2DTranspose(4, (3, 3), strides=(2, 2), padding="same", use_bias=False),
        L.BatchNormalization(), L.LeakyReLU(),
        L.Conv2DTranspose(1, (3, 3), strides=(1, 1), padding="same", use_bias=False, activation="tanh")])
    discriminator = tf.keras.Sequential([
        L.Input((8, 8, 1)), L.Conv2D(4, (3, 3), strides=(2, 2), padding="same"), L.LeakyReLU(),
        L.Dropout(0.3), L.Flatten(), L.Dense(1)])
    bce = tf.keras.losses.BinaryCrossentropy(from_logits=True)
    g_opt, d_opt = tf.keras.optimizers.Adam(1e-3), tf.keras.optimizers.Adam(1e-3)
    images = tf.constant(np.random.default_rng(0).random((6, 8, 8, 1), dtype=np.float32) * 2 - 1)

    @tf.function
    def step():
        noise = tf.random.normal([6, 10])
        with tf.GradientTape() as gen_tape, tf.GradientTape() as disc_tape:
            generated = generator(noise, training=True)
            real_output = discriminator(images, training=True)
            fake_output = discriminator(generated, training=True)
            gen_loss = bce(tf.ones_like(fake_output), fake_output)
            disc_loss = bce(tf.ones_like(real_output), real_output) + bce(tf.zeros_like(fake_output), fake_output)
        g_grads = gen_tape.gradient(gen_loss, generator.trainable_variables)
        d_grads = disc_tape.gradient(disc_loss, discriminator.trainable_variables)
        g_opt.apply_gradients(zip(g_grads, generator.trainable_variables))
        d_opt.apply_gradients(zip(d_grads, discriminator.trainable_variables))
        return gen_loss, disc_loss
    return step, generator.weights + discriminator.weights, lambda i: ()


def _deepdream():
    inputs = L.Input((None, None, 3))
    a = L.Conv2D(4, 3, activation="relu", padding="same")(inputs)
    b = L.MaxPooling2D(2)(a)
    c = L.Conv2D(4, 3, activation="relu")(L.BatchNormalization()(b))
    model = tf.keras.Model(inputs, [b, c])
    img0 = np.random.default_rng(0).random((12, 12, 3), dtype=np.float32) * 2 - 1

    @tf.function
    def step(img):
        with tf.GradientTape() as tape:
            tape.watch(img)
            activations = model(tf.expand_dims(img, 0))
            loss = tf.add_n([tf.reduce_mean(x) for x in activations])
        grads = tape.gradient(loss, img)
        grads /= tf.math.reduce_std(grads) + 1e-8
        return tf.clip_by_value(img + grads * 0.01, -1, 1)
    def args(i):
        return (tf.constant(img0 + i * 0.01),)
    return step, model.weights, args


@pytest.mark.parametrize("build", [_linear, _mlp, _dcgan, _deepdream], ids=["linear", "mlp", "dcgan", "deepdream"])
def test_training_steps_run_as_plans_with_the_interpreters_bits(build):
    entry = _planned(_same_as_interpreter(build, calls=5), runs=2)
    assert entry.fallbacks == 0


def test_a_plan_runs_pure_ops_without_host_steps():
    entry = _planned(_same_as_interpreter(_linear, calls=4), runs=2)
    hosts = [entry.program.operations[s[1]].type for s in entry.program.steps if s[0] == "host"]
    assert hosts == ["AssignSubVariableOp", "AssignSubVariableOp"]


def test_dropout_batchnorm_and_random_draws_keep_their_host_steps():
    entry = _planned(_same_as_interpreter(_dcgan, calls=4), runs=2)
    hosts = {entry.program.operations[s[1]].type for s in entry.program.steps if s[0] == "host"}
    # Keras' Dropout draws its mask with a stateless op seeded from its SeedGenerator: a host step,
    # so every run draws a new mask (and the gradient, compiled, uses that run's mask)
    assert {"Normal", "UpdateMoving", "ApplyGradients", "StatelessUniform"} <= hosts


# -- Keras loops ---------------------------------------------------------------------------------

def test_fit_evaluate_predict_with_plans_match_the_interpreter():
    rng = np.random.default_rng(1)
    x, y = rng.random((70, 6), dtype=np.float32), rng.integers(0, 3, 70)

    def train(use_plans):
        old = plans.set_enabled(use_plans)
        try:
            tf.keras.utils.set_random_seed(0)
            model = tf.keras.Sequential([L.Input((6,)), L.Dense(8, activation="relu"), L.BatchNormalization(),
                                         L.Dropout(0.25), L.Dense(3)])
            model.compile(optimizer="adam", metrics=["accuracy"],
                          loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True))
            history = model.fit(x, y, batch_size=16, epochs=3, verbose=0)
            evaluated = model.evaluate(x, y, batch_size=16, verbose=0)
            predicted = model.predict(x, batch_size=16, verbose=0)
            return history.history, evaluated, predicted, [w.numpy() for w in model.weights], model
        finally:
            plans.set_enabled(old)

    got, want = train(True), train(False)
    assert got[0] == want[0] and got[1] == want[1]
    _assert_equal(got[2:4], want[2:4])
    entries = _entries(got[4].train_function)
    assert sum(e.runs for e in entries) >= 8  # 5 batches an epoch, two of them recorded


# -- random ops, BatchNormalization ----------------------------------------------------------------

def test_seeded_random_ops_draw_as_in_the_interpreter():
    def build():
        tf.random.set_seed(3)

        @tf.function
        def step(x):
            a = tf.random.normal([3], seed=1)
            b = tf.random.uniform([3])
            return a, b, tf.nn.dropout(x, 0.5, seed=2) + a
        return step, [], lambda i: (tf.constant(np.arange(3, dtype=np.float32) + i),)
    entry = _planned(_same_as_interpreter(build, calls=6), runs=4)
    assert entry.fallbacks == 0


def test_batch_normalization_training_updates_moving_statistics_as_the_interpreter():
    def build():
        bn = L.BatchNormalization(momentum=0.5)
        rng = np.random.default_rng(2)
        batches = [rng.random((5, 3), dtype=np.float32) for _ in range(4)]

        @tf.function
        def step(x):
            with tf.GradientTape() as tape:
                y = bn(x, training=True)
                loss = tf.reduce_sum(y * y)
            return y, tape.gradient(loss, bn.trainable_variables)
        return step, bn.weights, lambda i: (tf.constant(batches[i % 4]),)
    _planned(_same_as_interpreter(build, calls=6), runs=4)


# -- when a plan gives the call back, or is not made -------------------------------------------------

def test_a_failed_guard_falls_back_to_the_interpreter():
    @tf.function
    def loss(logits, labels):
        return tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels, logits))
    logits = tf.constant(np.random.default_rng(0).random((4, 3), dtype=np.float32))
    for _ in range(3):
        loss(logits, tf.constant([0, 1, 2, 1]))
    (entry,) = _entries(loss)
    assert entry.plan is not None and entry.runs == 1
    with pytest.raises(tf.errors.InvalidArgumentError, match="label value of 5"):
        loss(logits, tf.constant([0, 1, 5, 1]))
    assert entry.fallbacks == 1
    expected = float(tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits([2, 2, 0, 1], logits)))
    assert float(loss(logits, tf.constant([2, 2, 0, 1]))) == expected and entry.runs == 2


def test_a_new_input_shape_makes_a_new_plan():
    @tf.function(input_signature=[tf.TensorSpec([None, 2], tf.float32)])
    def f(x):
        return tf.reduce_sum(x * x, axis=0)
    results = [f(tf.ones([n, 2]) * n).numpy() for n in (3, 3, 3, 5, 5, 5, 5)]
    assert [list(r) for r in results] == [[27.0, 27.0]] * 3 + [[125.0, 125.0]] * 4
    (concrete,) = f._concrete_functions()
    assert len(concrete._plans.entries) == 2
    assert [e.runs for e in concrete._plans.entries.values()] == [1, 2]


def test_an_outer_tape_runs_the_interpreter():
    v = tf.Variable(2.0)

    @tf.function
    def f(x):
        return x * v * v
    for _ in range(3):
        f(tf.constant(3.0))
    (entry,) = _entries(f)
    runs = entry.runs
    with tf.GradientTape() as tape:
        y = f(tf.constant(3.0))
    assert float(tape.gradient(y, v)) == 12.0 and entry.runs == runs


def test_an_optimizer_updating_in_place_keeps_an_earlier_read():
    def build():
        w = tf.Variable(np.ones(3, np.float32))
        opt = tf.keras.optimizers.SGD(0.5)

        @tf.function
        def step(x):
            before = w.read_value()
            with tf.GradientTape() as tape:
                loss = tf.reduce_sum(w * x)
            opt.apply_gradients([(tape.gradient(loss, w), w)])
            return before, w.read_value()
        return step, [w], lambda i: (tf.constant([1.0, 2.0, 3.0]),)
    got, _, _ = _run(build, 4, True)
    for i, (before, after) in enumerate(got):
        np.testing.assert_array_equal(before, 1 - 0.5 * np.array([1, 2, 3]) * i)
        np.testing.assert_array_equal(after, before - 0.5 * np.array([1, 2, 3]))
    _planned(_same_as_interpreter(build, calls=4), runs=2)


def test_an_op_the_recording_cannot_follow_runs_as_a_host_step():
    def build():
        @tf.function
        def step(x):
            values, _ = tf.unique(x)  # its kernel leaves the recording
            return tf.reduce_sum(values * 2.0) + x
        return step, [], lambda i: (tf.constant([1.5, 2.0 + i, 1.5, 0.5]),)
    entry = _planned(_same_as_interpreter(build, calls=5), runs=2)
    assert entry.recordings == 3  # the first one escaped: unique runs as a host step since
    assert [entry.program.operations[s[1]].type for s in entry.program.steps if s[0] == "host"] == ["Unique"]
    # its output's shape is not the graph's to fix: a plan checks it before using it
    assert any(s[0] == "shape" for s in entry.program.steps)


def test_an_escaping_op_whose_output_changes_shape_falls_back():
    @tf.function
    def f(x):
        values, _ = tf.unique(x)
        return tf.reduce_sum(values * 2.0)
    for _ in range(4):
        assert float(f(tf.constant([1.0, 2.0, 1.0]))) == 6.0
    (entry,) = _entries(f)
    assert entry.plan is not None and entry.runs == 1
    assert float(f(tf.constant([1.0, 2.0, 3.0]))) == 12.0 and entry.fallbacks == 1


def test_a_guard_after_an_effect_keeps_the_interpreter():
    def build():
        v = tf.Variable([0])
        logits = tf.constant([[1.0, 2.0, 3.0]])

        @tf.function
        def step():
            v.assign_add([1])
            # the label check reads the variable's new value: it cannot move before the write
            return tf.keras.losses.sparse_categorical_crossentropy(v.read_value() % 3, logits, from_logits=True)
        return step, [v], lambda i: ()
    entries = _same_as_interpreter(build, calls=3)
    assert entries and all(e.plan is None and e.dead for e in entries)
    assert "guard" in entries[0].reason


def test_nested_functions_and_variable_arguments():
    def build():
        a, b = tf.Variable(1.0), tf.Variable(10.0)

        @tf.function
        def inner(x):
            return tf.tanh(x) * 2.0

        @tf.function
        def step(var, x):
            var.assign_add(inner(x))
            return var.read_value() * 2.0
        return step, [a, b], lambda i: ((a, b)[i % 2], tf.constant(0.5 * i))
    _planned(_same_as_interpreter(build, calls=8), runs=4)


def test_mixed_precision_with_a_loss_scale_optimizer():
    def build():
        tf.keras.mixed_precision.set_global_policy("mixed_float16")
        try:
            model = tf.keras.Sequential([L.Input((4,)), L.Dense(3), L.Dense(2, dtype="float32")])
        finally:
            tf.keras.mixed_precision.set_global_policy("float32")
        opt = tf.keras.mixed_precision.LossScaleOptimizer(tf.keras.optimizers.SGD(0.1))
        x = tf.constant(np.random.default_rng(3).random((5, 4), dtype=np.float32))

        @tf.function
        def step():
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(tf.square(model(x)))
                scaled = opt.scale_loss(loss) if hasattr(opt, "scale_loss") else opt.get_scaled_loss(loss)
            grads = tape.gradient(scaled, model.trainable_variables)
            if not hasattr(opt, "scale_loss"):
                grads = opt.get_unscaled_gradients(grads)
            opt.apply_gradients(zip(grads, model.trainable_variables))
            return loss
        return step, model.weights, lambda i: ()
    _same_as_interpreter(build, calls=5)


def test_the_switch_and_its_environment_variable():
    old = plans.set_enabled(False)
    try:
        assert not plans.enabled()

        @tf.function
        def f(x):
            return x + 1.0
        for _ in range(3):
            f(tf.constant(1.0))
        assert _entries(f) == []
    finally:
        plans.set_enabled(old)
    code = "import minitf.graph.compiler.plan as p; print(p.enabled())"
    env = dict(os.environ, MINITF_COMPILED_PLANS="0")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
    assert out.stdout.strip() == "False"


# -- the recorder ------------------------------------------------------------------------------

def _recorded(fn, *arrays):
    recorder = Recorder()
    traced = [recorder.new(a) for a in arrays]
    with intercepting(), recording_into(recorder):
        result = fn(*traced)
    recorder.finish()
    return recorder, result


def test_conversions_and_new_buffers_are_recorded():
    recorder, result = _recorded(lambda a: np.asarray(np.sum(a), dtype=np.float32) + np.zeros(2),
                                 np.arange(3.0))
    assert not recorder.escaped
    names = [getattr(s[1], "__name__", s[1]) for s in recorder.steps]
    assert names == ["sum", "asarray", "zeros", "add"]
    np.testing.assert_array_equal(result.array, [3.0, 3.0])


def test_a_traced_value_written_into_a_plain_array_escapes():
    plain = np.zeros(3)
    recorder, _ = _recorded(lambda a: np.add(a, 1.0, out=plain), np.arange(3.0))
    assert recorder.escaped and "untraced array" in recorder.escaped[0][0]


def test_python_values_read_from_data_are_guards():
    recorder, value = _recorded(lambda a: bool((a > 1).any()), np.arange(3.0))
    assert value is True and recorder.steps[-1] == ("guard", "bool", recorder.steps[-1][2], True)


# -- many ops, each traced and called until its plan runs ------------------------------------------

_X = np.random.default_rng(5).normal(size=(4, 6)).astype(np.float32)
_IMG = np.random.default_rng(6).normal(size=(2, 6, 6, 3)).astype(np.float32)
_OPS = {
    "unary": lambda x: tf.exp(x) + tf.math.log1p(tf.abs(x)) + tf.tanh(x) * tf.sigmoid(x) + tf.nn.softplus(x),
    "binary": lambda x: tf.maximum(x, 0.1) / (tf.minimum(x, 2.0) ** 2 + 1.0) - tf.math.floormod(x, 0.3),
    "compare": lambda x: tf.where(x > 0, x, -x) + tf.cast(tf.logical_and(x > -1, x < 1), tf.float32),
    "reductions": lambda x: [tf.reduce_sum(x, 0), tf.reduce_mean(x, 1, keepdims=True), tf.reduce_max(x),
                             tf.reduce_prod(x, 1), tf.math.reduce_logsumexp(x, 1), tf.math.reduce_std(x)],
    "arg": lambda x: [tf.argmax(x, 1), tf.argmin(x, 0), tf.argsort(x, 1), tf.sort(x, 0)],
    "top_k": lambda x: tf.math.top_k(x, 3),
    "matmul": lambda x: [tf.matmul(x, x, transpose_b=True), tf.linalg.matvec(x, x[0]), x @ tf.ones([6, 2])],
    "softmax": lambda x: [tf.nn.softmax(x), tf.nn.log_softmax(x, axis=0)],
    "shape": lambda x: [tf.reshape(x, [2, 12]), tf.transpose(x), tf.concat([x, x], 1), tf.stack([x, x]),
                        tf.expand_dims(x, 0), tf.squeeze(x[None]), tf.tile(x, [2, 1]), tf.reverse(x, [1])],
    "slicing": lambda x: [x[1:3, ::2], x[:, -1], tf.gather(x, [3, 0, 3]), tf.gather_nd(x, [[0, 1], [2, 3]]),
                          tf.slice(x, [1, 1], [2, 3]), tf.split(x, 2, axis=1)[1], tf.unstack(x)[2]],
    "scan": lambda x: [tf.cumsum(x, 1), tf.math.cumprod(x, 0, exclusive=True)],
    "one_hot": lambda x: tf.one_hot(tf.cast(tf.abs(x[:, 0]) * 2, tf.int32), 4),
    "clip": lambda x: [tf.clip_by_value(x, -0.5, 0.5), tf.clip_by_norm(x, 1.0), tf.norm(x, axis=1)],
    "einsum": lambda x: tf.einsum("ij,kj->ik", x, x),
    "segments": lambda x: [tf.math.segment_sum(x, [0, 0, 1, 2]), tf.math.unsorted_segment_max(x, [1, 0, 1, 0], 2)],
    "linalg": lambda x: [tf.linalg.inv(tf.matmul(x, x, transpose_b=True) + tf.eye(4)),
                         tf.linalg.det(tf.matmul(x, x, transpose_b=True) + tf.eye(4))],
    "fft": lambda x: tf.math.abs(tf.signal.fft(tf.complex(x, x))),
    "cast": lambda x: [tf.cast(x, tf.float16), tf.cast(x * 10, tf.int32), tf.cast(x, tf.float64) * 2],
    "pad": lambda x: [tf.pad(x, [[1, 0], [0, 2]]), tf.pad(x, [[1, 1], [2, 2]], mode="REFLECT")],
    "masks": lambda x: [tf.boolean_mask(x, x[:, 0] > 0), tf.where(x > 0.5)],
    "gradients": lambda x: _tape_gradients(x),
}
_IMAGE_OPS = {
    "conv": lambda img: tf.nn.conv2d(img, tf.ones([3, 3, 3, 2]) * 0.1, 1, "SAME"),
    "conv_strided": lambda img: tf.nn.conv2d(img, tf.ones([3, 3, 3, 2]) * 0.1, 2, "VALID"),
    "depthwise": lambda img: tf.nn.depthwise_conv2d(img, tf.ones([3, 3, 3, 1]) * 0.1, [1, 1, 1, 1], "SAME"),
    "pool": lambda img: [tf.nn.max_pool2d(img, 2, 2, "VALID"), tf.nn.avg_pool2d(img, 3, 1, "SAME")],
    "resize": lambda img: [tf.image.resize(img, [9, 9]), tf.image.resize(img, [4, 4], method="nearest")],
    "image_gradients": lambda img: _tape_gradients(img, conv=True),
}


def _tape_gradients(x, conv=False):
    w = tf.ones([3, 3, x.shape[-1], 2]) * 0.2 if conv else tf.ones([x.shape[-1], 3]) * 0.2
    with tf.GradientTape() as tape:
        tape.watch([x, w])
        if conv:
            y = tf.nn.max_pool2d(tf.nn.relu(tf.nn.conv2d(x, w, 1, "SAME")), 2, 2, "VALID")
        else:
            y = tf.nn.leaky_relu(tf.matmul(x, w)) * tf.reduce_mean(tf.square(x))
        flat = tf.reshape(y, [x.shape[0], -1])
        loss = tf.reduce_sum(tf.nn.softmax(flat) * tf.cumsum(tf.ones_like(flat), axis=1))
    return tape.gradient(loss, [x, w])


@pytest.mark.parametrize("name", sorted(_OPS) + sorted(_IMAGE_OPS))
def test_op_plans_give_the_eager_results(name):
    fn = _OPS.get(name) or _IMAGE_OPS[name]
    value = _X if name in _OPS else _IMG
    want = nest.map_structure(np.asarray, fn(tf.constant(value)))
    traced = tf.function(fn)
    for _ in range(6):  # two recordings (more when one escapes), then the plan
        _assert_equal(nest.map_structure(np.asarray, traced(tf.constant(value))), want)
    _planned(_entries(traced), runs=2)


# -- max pooling and its gradients, recorded into plans -------------------------------------------

def _max_pool_and_gradients(pool, x, w, c):
    """The pool, its input gradient (MaxPoolGrad) and, through an outer tape, the gradient of that
    with respect to the upstream weights `w` (MaxPoolGradGrad)."""
    with tf.GradientTape() as outer:
        outer.watch(w)
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = pool(x)
            loss = tf.reduce_sum(y * w)
        dx = tape.gradient(loss, x)
        second = tf.reduce_sum(dx * c)
    return [y, dx, outer.gradient(second, w)]


def _tied_image(shape, seed):
    # few distinct values: most windows hold tied maxima, and TF's gradient goes to the first
    return tf.constant(np.random.default_rng(seed).integers(0, 3, size=shape).astype(np.float32))


_POOLS = {
    "2d_disjoint": (lambda x: tf.nn.max_pool2d(x, 2, 2, "VALID"), (2, 6, 6, 3)),
    "2d_overlapping_same": (lambda x: tf.nn.max_pool2d(x, 3, 2, "SAME"), (2, 7, 7, 3)),
    "2d_stride_1_nchw": (lambda x: tf.transpose(tf.nn.max_pool2d(tf.transpose(x, [0, 3, 1, 2]), [2, 3], 1, "SAME",
                                                                 data_format="NCHW"), [0, 2, 3, 1]), (1, 5, 6, 2)),
    "2d_explicit": (lambda x: tf.nn.max_pool2d(x, 3, 2, [[0, 0], [1, 1], [2, 0], [0, 0]]), (1, 6, 6, 2)),
    "1d": (lambda x: tf.nn.max_pool1d(x, 3, 2, "SAME"), (2, 9, 3)),
    "3d": (lambda x: tf.nn.max_pool3d(x, 2, 1, "VALID"), (1, 3, 4, 4, 2)),
}


@pytest.mark.parametrize("name", sorted(_POOLS))
def test_max_pools_and_their_gradients_record_without_host_steps(name):
    pool, shape = _POOLS[name]
    y_shape = pool(tf.zeros(shape)).shape
    w = tf.constant(np.random.default_rng(1).normal(size=y_shape).astype(np.float32))
    c = tf.constant(np.random.default_rng(2).normal(size=shape).astype(np.float32))
    inputs = [_tied_image(shape, seed) for seed in range(5)]
    fn = lambda x: _max_pool_and_gradients(pool, x, w, c)  # noqa: E731
    eager = [nest.map_structure(np.asarray, fn(x)) for x in inputs]
    traced = tf.function(fn)
    got = [nest.map_structure(np.asarray, traced(x)) for x in inputs]
    old = plans.set_enabled(False)
    try:
        interpreted = tf.function(fn)
        want = [nest.map_structure(np.asarray, interpreted(x)) for x in inputs]
    finally:
        plans.set_enabled(old)
    for g, i, e in zip(got, want, eager):
        _assert_equal(g, i)
        _assert_equal(g, e)
    (entry,) = _entries(traced)
    assert entry.plan is not None and entry.recordings == 2 and entry.runs == 3 and entry.fallbacks == 0
    assert [s for s in entry.program.steps if s[0] in ("host", "hostgrad")] == []


def test_max_pool_gradient_in_a_plan_goes_to_the_first_of_tied_maxima():
    @tf.function
    def grad(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.nn.max_pool2d(x, 3, 2, "SAME")
        return tape.gradient(y, x)

    x = np.zeros((1, 5, 5, 1), np.float32)
    x[0, 1, 1, 0] = x[0, 1, 3, 0] = 1.0  # tied within the windows that hold both
    # windows cover rows (and cols) 0-1 (one row of padding above), 1-3 and 3-4; each window's
    # gradient goes to its first maximum in row-major order (TF 2.21 gives the same)
    want = np.zeros_like(x)
    want[0, 1, 1, 0] = 4  # windows (0, 0), (0, 1), (1, 0), (1, 1): tied with (1, 3) in two
    want[0, 1, 3, 0] = 2  # windows (0, 2), (1, 2)
    want[0, 3, 0, 0] = want[0, 3, 1, 0] = want[0, 3, 3, 0] = 1  # windows (2, *): all zeros
    for _ in range(4):
        np.testing.assert_array_equal(grad(tf.constant(x)).numpy(), want)
    (entry,) = _entries(grad)
    assert entry.plan is not None and entry.runs == 2
    assert [s for s in entry.program.steps if s[0] == "host"] == []
