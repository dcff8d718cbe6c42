"""Each optimizer against its Keras 3 update formula written out in numpy, plus the base API."""
import math

import numpy as np
import pytest

import minitf as tf
from minitf.indexed_slices import IndexedSlices
from minitf.optimizers import SGD, Adam, AdamW, RMSprop, Adagrad, Adadelta, Adamax, Nadam
from minitf.optimizers.schedules import schedules

# Learning rates exactly representable in float32 (Keras keeps the rate in a float32 variable).
LR = 2.0 ** -7
RNG = np.random.default_rng(0)
W0 = RNG.normal(size=(3, 4))
GRADS = [RNG.normal(size=(3, 4)) for _ in range(4)]


def run(opt, steps=4, w0=W0):
    var = tf.Variable(w0)
    for g in GRADS[:steps]:
        opt.apply_gradients([(tf.constant(g), var)])
    return var.numpy()


def ref_sgd(lr, momentum=0.0, nesterov=False):
    w, m = W0.copy(), np.zeros_like(W0)
    for g in GRADS:
        if momentum == 0:
            w = w - lr * g
            continue
        m = momentum * m - lr * g
        w = w + (momentum * m - lr * g if nesterov else m)
    return w


def ref_adam(lr, b1=0.9, b2=0.999, eps=1e-7, amsgrad=False, wd=0.0):
    w, m, v, vh = W0.copy(), np.zeros_like(W0), np.zeros_like(W0), np.zeros_like(W0)
    for t, g in enumerate(GRADS, 1):
        w = w - w * wd * lr
        alpha = lr * math.sqrt(1 - b2 ** t) / (1 - b1 ** t)
        m = m + (g - m) * (1 - b1)
        v = v + (g * g - v) * (1 - b2)
        vh = np.maximum(vh, v)
        w = w - m * alpha / (np.sqrt(vh if amsgrad else v) + eps)
    return w


@pytest.mark.parametrize("momentum,nesterov", [(0.0, False), (0.9, False), (0.9, True)])
def test_sgd_matches_formula(momentum, nesterov):
    got = run(SGD(0.125, momentum=momentum, nesterov=nesterov))
    np.testing.assert_allclose(got, ref_sgd(0.125, momentum, nesterov), rtol=1e-12)


@pytest.mark.parametrize("amsgrad", [False, True])
def test_adam_matches_formula(amsgrad):
    got = run(Adam(LR, amsgrad=amsgrad))
    np.testing.assert_allclose(got, ref_adam(LR, amsgrad=amsgrad), rtol=1e-12)


def test_adamw_decouples_weight_decay():
    got = run(AdamW(LR, weight_decay=0.1))
    np.testing.assert_allclose(got, ref_adam(LR, wd=0.1), rtol=1e-12)
    assert not np.allclose(got, ref_adam(LR))


@pytest.mark.parametrize("momentum,centered", [(0.0, False), (0.5, False), (0.5, True)])
def test_rmsprop_matches_formula(momentum, centered):
    lr, rho, eps = LR, 0.9, 1e-7
    w, v, mom, a = W0.copy(), np.zeros_like(W0), np.zeros_like(W0), np.zeros_like(W0)
    for g in GRADS:
        v = rho * v + (1 - rho) * g * g
        if centered:
            a = rho * a + (1 - rho) * g
            denom = v - a * a + eps
        else:
            denom = v + eps
        inc = lr * g / np.sqrt(denom)
        if momentum > 0:
            mom = momentum * mom + inc
            w = w - mom
        else:
            w = w - inc
    got = run(RMSprop(lr, momentum=momentum, centered=centered))
    np.testing.assert_allclose(got, w, rtol=1e-12)


def test_adagrad_matches_formula():
    lr, eps = 0.125, 1e-7
    w, acc = W0.copy(), np.full_like(W0, 0.1)
    for g in GRADS:
        acc = acc + g * g
        w = w - lr * g / np.sqrt(acc + eps)
    np.testing.assert_allclose(run(Adagrad(lr)), w, rtol=1e-12)


def test_adadelta_matches_formula():
    lr, rho, eps = 1.0, 0.95, 1e-7
    w, eg, ed = W0.copy(), np.zeros_like(W0), np.zeros_like(W0)
    for g in GRADS:
        eg = rho * eg + (1 - rho) * g * g
        delta = -np.sqrt(ed + eps) * g / np.sqrt(eg + eps)
        ed = rho * ed + (1 - rho) * delta * delta
        w = w + lr * delta
    np.testing.assert_allclose(run(Adadelta(lr)), w, rtol=1e-12)


def test_adamax_matches_formula():
    lr, b1, b2, eps = LR, 0.9, 0.999, 1e-7
    w, m, u = W0.copy(), np.zeros_like(W0), np.zeros_like(W0)
    for t, g in enumerate(GRADS, 1):
        m = m + (g - m) * (1 - b1)
        u = np.maximum(b2 * u, np.abs(g))
        w = w - lr * m / ((1 - b1 ** t) * (u + eps))
    np.testing.assert_allclose(run(Adamax(lr)), w, rtol=1e-12)


def test_nadam_matches_formula():
    lr, b1, b2, eps = LR, 0.9, 0.999, 1e-7
    w, m, v, uprod = W0.copy(), np.zeros_like(W0), np.zeros_like(W0), 1.0
    for t, g in enumerate(GRADS, 1):
        u_t = b1 * (1 - 0.5 * 0.96 ** t)
        u_t1 = b1 * (1 - 0.5 * 0.96 ** (t + 1))
        uprod = uprod * u_t
        uprod1 = uprod * u_t1
        m = m + (g - m) * (1 - b1)
        v = v + (g * g - v) * (1 - b2)
        m_hat = u_t1 * m / (1 - uprod1) + (1 - u_t) * g / (1 - uprod)
        v_hat = v / (1 - b2 ** t)
        w = w - lr * m_hat / (np.sqrt(v_hat) + eps)
    np.testing.assert_allclose(run(Nadam(lr)), w, rtol=1e-6)


def test_torch_adam_agrees():
    torch = pytest.importorskip("torch")
    # Keras adds epsilon to sqrt(v), torch to sqrt(v / (1 - beta_2^t)): the two rules differ by
    # about 4e-7 here at eps=1e-7 (torch 2.11), so compare them where epsilon is negligible;
    # torch's step counter is a float32 tensor, which leaves about 1e-7 relative
    w = torch.tensor(W0.copy(), requires_grad=True)
    opt = torch.optim.Adam([w], lr=0.01, eps=1e-14)
    for g in GRADS:
        w.grad = torch.tensor(g)
        opt.step()
    np.testing.assert_allclose(run(Adam(0.01, epsilon=1e-14)), w.detach().numpy(), rtol=1e-6)


def test_defaults_match_keras():
    assert SGD().get_config()["learning_rate"] == pytest.approx(0.01)
    adam = Adam()
    assert (adam.beta_1, adam.beta_2, adam.epsilon, adam.amsgrad) == (0.9, 0.999, 1e-7, False)
    assert AdamW().weight_decay == 0.004
    r = RMSprop()
    assert (r.rho, r.momentum, r.epsilon, r.centered) == (0.9, 0.0, 1e-7, False)
    assert Adagrad().initial_accumulator_value == 0.1
    assert Adadelta().rho == 0.95


def test_sparse_sgd_updates_rows_and_sums_duplicates():
    var = tf.Variable(np.ones((5, 2)))
    values = tf.constant([[1.0, 2.0], [3.0, 4.0], [1.0, 1.0]])
    indices = tf.constant([0, 3, 0])
    SGD(0.5).apply_gradients([(IndexedSlices(values, indices, tf.constant([5, 2])), var)])
    dense = np.zeros((5, 2))
    np.add.at(dense, [0, 3, 0], values.numpy())
    np.testing.assert_allclose(var.numpy(), 1.0 - 0.5 * dense)


@pytest.mark.parametrize("make", [lambda: Adam(0.1), lambda: SGD(0.1, momentum=0.9), lambda: RMSprop(0.1)])
def test_sparse_matches_dense_path(make):
    values = [RNG.normal(size=(2, 3)) for _ in range(3)]
    idx = tf.constant([1, 1])
    sparse_var, dense_var = tf.Variable(np.ones((4, 3))), tf.Variable(np.ones((4, 3)))
    opt_s, opt_d = make(), make()
    for val in values:
        grad = IndexedSlices(tf.constant(val), idx, tf.constant([4, 3]))
        opt_s.apply_gradients([(grad, sparse_var)])
        opt_d.apply_gradients([(grad.to_dense(), dense_var)])
    np.testing.assert_allclose(sparse_var.numpy(), dense_var.numpy(), rtol=1e-12)


def test_none_gradients_warn_and_all_none_raises():
    a, b = tf.Variable(1.0, name="alpha"), tf.Variable(2.0, name="beta")
    opt = SGD(1.0)
    with pytest.warns(UserWarning, match="beta"):
        opt.apply_gradients([(tf.constant(1.0), a), (None, b)])
    assert a.numpy() == 0.0 and b.numpy() == 2.0
    with pytest.raises(ValueError, match="No gradients provided for any variable.*beta"):
        opt.apply_gradients([(None, b)])


def test_minimize_with_callable_and_tape():
    x = tf.Variable(3.0)
    opt = SGD(0.1)
    opt.minimize(lambda: x * x, [x])
    assert x.numpy() == pytest.approx(3.0 - 0.1 * 6.0)
    with tf.GradientTape() as tape:
        loss = x * x
    opt.minimize(loss, [x], tape=tape)
    assert x.numpy() == pytest.approx(2.4 - 0.1 * 4.8)
    assert int(opt.iterations.numpy()) == 2
    with pytest.raises(ValueError, match="tape"):
        opt.minimize(x * x, [x])


def test_clipping_options():
    g = np.array([3.0, 4.0])
    v = tf.Variable(np.zeros(2))
    SGD(1.0, clipnorm=1.0).apply_gradients([(tf.constant(g), v)])
    np.testing.assert_allclose(v.numpy(), -g / 5.0)
    v = tf.Variable(np.zeros(2))
    SGD(1.0, clipvalue=3.5).apply_gradients([(tf.constant(g), v)])
    np.testing.assert_allclose(v.numpy(), [-3.0, -3.5])
    v, w = tf.Variable(np.zeros(2)), tf.Variable(np.zeros(2))
    SGD(1.0, global_clipnorm=5.0).apply_gradients([(tf.constant(g), v), (tf.constant(g), w)])
    np.testing.assert_allclose(v.numpy(), -g / math.sqrt(2))
    with pytest.raises(ValueError, match="Only one of"):
        SGD(clipnorm=1.0, clipvalue=1.0)


def test_ema_tracks_average_and_overwrites():
    v = tf.Variable(np.zeros(2))
    opt = SGD(1.0, use_ema=True, ema_momentum=0.5, ema_overwrite_frequency=3)
    ws, avg = [], None
    for step in range(2):
        opt.apply_gradients([(tf.constant([1.0, 2.0]), v)])
        w = v.numpy().copy()
        avg = w if avg is None else 0.5 * avg + 0.5 * w
        ws.append(w)
    np.testing.assert_allclose(opt.get_slot(v, "average").numpy(), avg)
    opt.apply_gradients([(tf.constant([1.0, 2.0]), v)])  # third step: overwrite with average
    avg = 0.5 * avg + 0.5 * (ws[-1] - [1.0, 2.0])
    np.testing.assert_allclose(v.numpy(), avg)


def test_learning_rate_forms_and_schedule_uses_iterations():
    v = tf.Variable(0.0)
    sched = schedules.PiecewiseConstantDecay([0], [1.0, 0.5])
    opt = SGD(sched)
    opt.apply_gradients([(tf.constant(1.0), v)])
    opt.apply_gradients([(tf.constant(1.0), v)])
    assert v.numpy() == pytest.approx(-1.5)
    opt = SGD(0.1)
    opt.learning_rate = 0.2
    assert float(opt.learning_rate.numpy()) == pytest.approx(0.2)
    assert any(v is opt.learning_rate for v in opt.variables)


def test_slots_created_lazily_per_variable():
    a, b = tf.Variable(np.ones(3)), tf.Variable(np.ones(2))
    opt = Adam()
    assert len(opt.variables) == 2  # iterations + learning rate
    opt.apply_gradients([(tf.constant(np.ones(3)), a)])
    assert len(opt.variables) == 4
    assert opt.get_slot(a, "m").shape == (3,)
    with pytest.raises(KeyError):
        opt.get_slot(b, "m")
    assert opt.iterations.dtype == tf.int64


def test_config_round_trip_and_get():
    opt = Adam(learning_rate=schedules.ExponentialDecay(0.1, 10, 0.5), beta_1=0.8, clipnorm=2.0)
    again = tf.optimizers.deserialize(tf.optimizers.serialize(opt))
    assert isinstance(again, Adam) and again.beta_1 == 0.8 and again.clipnorm == 2.0
    assert again.learning_rate._value_at(10) == pytest.approx(0.05)
    assert isinstance(tf.optimizers.get("rmsprop"), RMSprop)
    with pytest.raises(ValueError, match="nope"):
        tf.optimizers.get("nope")


def test_float32_variable_gets_float32_update():
    v = tf.Variable(np.ones(3, np.float32))
    Adam(0.1).apply_gradients([(tf.constant(np.ones(3)), v)])
    assert v.dtype == tf.float32
    np.testing.assert_allclose(v.numpy(), 0.9, rtol=1e-5)


def test_gradient_shape_mismatch_names_variable():
    v = tf.Variable(np.ones(3), name="kern")
    with pytest.raises(ValueError, match="kern"):
        SGD().apply_gradients([(tf.constant(np.ones(2)), v)])


def test_adam_blocked_path_on_large_variables_matches_formula():
    rng = np.random.default_rng(5)
    w0 = rng.normal(size=(300, 250))  # more elements than one cache block
    grads = [rng.normal(size=w0.shape) for _ in range(3)]
    var, opt = tf.Variable(w0), Adam(LR, amsgrad=True)
    for g in grads:
        opt.apply_gradients([(tf.constant(g.T.copy().T), var)])  # non-contiguous-safe input
    w, m, v, vh = w0.copy(), 0 * w0, 0 * w0, 0 * w0
    for t, g in enumerate(grads, 1):
        alpha = LR * math.sqrt(1 - 0.999 ** t) / (1 - 0.9 ** t)
        m = m + (g - m) * 0.1
        v = v + (g * g - v) * (1 - 0.999)
        vh = np.maximum(vh, v)
        w = w - m * alpha / (np.sqrt(vh) + 1e-7)
    np.testing.assert_allclose(var.numpy(), w, rtol=1e-10, atol=1e-14)
    gt = tf.constant(np.asfortranarray(grads[0]))
    opt.apply_gradients([(gt, var)])  # a Fortran-ordered gradient is read correctly
    assert np.isfinite(var.numpy()).all()


@pytest.mark.parametrize("amsgrad", [False, True])
def test_adam_threaded_blocks_give_the_single_thread_bits(monkeypatch, amsgrad):
    from minitf.kernels import numpy as numpy_kernels, threads
    threads.set_intra_op_threads(3)  # the worker pool, whatever the machine's default
    rng = np.random.default_rng(6)
    w0 = rng.normal(size=(700, 600)).astype(np.float32)  # ~26 blocks: shared out over threads
    grads = [rng.normal(size=w0.shape).astype(np.float32) for _ in range(3)]

    def train():
        var, opt = tf.Variable(w0), Adam(LR, amsgrad=amsgrad)
        for g in grads:
            opt.apply_gradients([(tf.constant(g), var)])
        return var.numpy(), opt.get_slot(var, "v").numpy()
    threaded = train()
    monkeypatch.setattr(numpy_kernels, "_PARALLEL_MIN_BLOCKS", 10 ** 9)  # every block on this thread
    single = train()
    threads.set_intra_op_threads(0)
    for a, b in zip(threaded, single):
        np.testing.assert_array_equal(a, b)
    assert not np.array_equal(threaded[0], w0)


ALL_OPTIMIZERS = [lambda: SGD(0.1), lambda: SGD(0.1, momentum=0.9, nesterov=True),
                  lambda: Adam(0.1), lambda: Adam(0.1, amsgrad=True), lambda: AdamW(0.1),
                  lambda: RMSprop(0.1, momentum=0.5, centered=True), lambda: Adagrad(0.1),
                  lambda: Adadelta(1.0), lambda: Adamax(0.1), lambda: Nadam(0.1),
                  lambda: tf.optimizers.Ftrl(0.1), lambda: SGD(0.1, use_ema=True,
                                                               ema_overwrite_frequency=1)]


@pytest.mark.parametrize("make", ALL_OPTIMIZERS)
def test_reads_taken_before_a_step_keep_their_values(make):
    # In TF a read is a snapshot: updates after it never show through.
    opt = make()
    var = tf.Variable([[1.0, 2.0], [3.0, 4.0]])
    for step in range(2):  # the first step also creates the slots
        before = var.numpy()
        reads = [var.value(), var.read_value(), tf.identity(var), tf.convert_to_tensor(var),
                 tf.reshape(var, [-1]), var[0]]
        with tf.GradientTape(persistent=True) as tape:
            y = var * 2.0
        opt.apply_gradients([(tf.constant([[1.0, -1.0], [0.5, 2.0]]), var)])
        assert not np.array_equal(var.numpy(), before)
        for r in reads[:4]:
            np.testing.assert_array_equal(r.numpy(), before)
        np.testing.assert_array_equal(reads[4].numpy(), before.reshape(-1))
        np.testing.assert_array_equal(reads[5].numpy(), before[0])
        np.testing.assert_array_equal(y.numpy(), before * 2)
        assert tape.gradient(y, var).numpy().tolist() == [[2.0, 2.0], [2.0, 2.0]]


def test_sparse_step_keeps_earlier_reads():
    var = tf.Variable([[1.0, 2.0], [3.0, 4.0]])
    read = var.value()
    SGD(0.5).apply_gradients([(IndexedSlices(tf.constant([[2.0, 2.0]]), tf.constant([1])),
                               var)])
    assert read.numpy().tolist() == [[1.0, 2.0], [3.0, 4.0]]
    assert var.numpy().tolist() == [[1.0, 2.0], [2.0, 3.0]]


def test_slot_reads_keep_their_values():
    opt = Adam(0.1)
    var = tf.Variable([1.0, 2.0])
    opt.apply_gradients([(tf.constant([1.0, 1.0]), var)])
    m = opt.get_slot(var, "m").value()
    before = m.numpy()
    opt.apply_gradients([(tf.constant([1.0, 1.0]), var)])
    np.testing.assert_array_equal(m.numpy(), before)
    assert not np.array_equal(opt.get_slot(var, "m").numpy(), before)


@pytest.mark.parametrize("make", ALL_OPTIMIZERS)
def test_step_stays_in_place_without_outstanding_reads(make):
    # The fast path: nothing else holds the arrays, so the step writes into them.
    opt = make()
    var = tf.Variable([[1.0, 2.0], [3.0, 4.0]])
    opt.apply_gradients([(tf.constant([[1.0, -1.0], [0.5, 2.0]]), var)])
    ids = [id(var._value)] + [id(s._value) for _, _, s in opt._checkpoint_slots()]
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(var * var)
    grads = tape.gradient(loss, [var])
    opt.apply_gradients(zip(grads, [var]))
    assert [id(var._value)] + [id(s._value) for _, _, s in opt._checkpoint_slots()] == ids


# -- Keras 3 protocol for user subclasses, names, serialize and legacy ------------------------

def _sign_sgd_class():
    class SignSGD(tf.keras.optimizers.Optimizer):
        def __init__(self, learning_rate=0.1, **kwargs):
            super().__init__(learning_rate=learning_rate, name="sign_sgd", **kwargs)

        def update_step(self, gradient, variable, learning_rate):
            variable.assign_sub(tf.sign(gradient) * tf.cast(learning_rate, variable.dtype))
    return SignSGD


def test_keras3_subclass_update_step_is_used():
    opt = _sign_sgd_class()(0.5)
    v = tf.Variable([1.0, -2.0, 3.0])
    opt.apply_gradients([(tf.constant([0.3, -4.0, 0.0]), v)])
    opt.apply_gradients([(tf.constant([0.3, 1.0, -2.0]), v)])
    np.testing.assert_allclose(v.numpy(), [0.0, -2.0, 3.5])
    assert int(opt.iterations.numpy()) == 2 and opt.built


def test_keras3_subclass_build_and_slots_match_sgd_momentum():
    class Momentum(tf.keras.optimizers.Optimizer):
        def __init__(self, learning_rate=0.1, momentum=0.9, **kwargs):
            super().__init__(learning_rate=learning_rate, **kwargs)
            self.momentum = momentum

        def build(self, variables):
            if self.built:
                return
            super().build(variables)
            self.momentums = [self.add_variable_from_reference(v, "momentum") for v in variables]

        def update_step(self, gradient, variable, learning_rate):
            lr = tf.cast(learning_rate, variable.dtype)
            m = self.momentums[self._get_variable_index(variable)]
            self.assign(m, m * self.momentum - gradient * lr)
            self.assign_add(variable, m)

    custom, builtin = Momentum(0.1, 0.9), tf.keras.optimizers.SGD(0.1, momentum=0.9)
    assert custom.name.startswith("momentum")  # Keras' auto_name of the class
    a = [tf.Variable([[0.5, -1.0], [2.0, 0.25]]), tf.Variable([0.1, -0.2])]
    b = [tf.Variable(v.numpy()) for v in a]
    for step in range(3):
        grads = [tf.constant([[0.1, -0.2], [0.3, step * 0.5]]), tf.constant([1.0, -2.0])]
        custom.apply_gradients(zip(grads, a))
        builtin.apply_gradients(zip(grads, b))
    for x, y in zip(a, b):
        np.testing.assert_allclose(x.numpy(), y.numpy(), rtol=1e-6)
    with pytest.raises(ValueError, match="Unknown variable"):
        custom.apply_gradients([(tf.constant([1.0]), tf.Variable([1.0]))])


def test_default_names_follow_keras_auto_name():
    from minitf.keras_core.naming import clear_session
    clear_session()
    assert [tf.keras.optimizers.SGD().name for _ in range(2)] == ["sgd", "sgd_1"]
    assert tf.keras.optimizers.RMSprop().name == "rm_sprop"
    assert tf.keras.optimizers.AdamW().name == "adam_w"
    assert tf.keras.optimizers.Adam(name="mine").name == "mine"
    with pytest.raises(ValueError):  # the name is taken before the argument checks, as in Keras
        tf.keras.optimizers.Adam(clipnorm=1.0, clipvalue=1.0)
    assert tf.keras.optimizers.Adam().name == "adam_1"


def test_serialize_and_deserialize_lower_cases_class_name_in_place():
    ns = tf.keras.optimizers
    config = ns.serialize(ns.SGD(0.5, momentum=0.9))
    assert config["class_name"] == "SGD" and config["module"] == "keras.optimizers"
    assert config["registered_name"] is None
    clone = ns.deserialize(config)
    assert isinstance(clone, ns.SGD) and clone.momentum == 0.9
    assert config["class_name"] == "sgd"  # Keras 3 rewrites the dict it was given
    assert isinstance(ns.deserialize({"class_name": "adamw", "config": {}}), ns.AdamW)


def test_legacy_namespace_is_keras3s():
    legacy = tf.keras.optimizers.legacy
    for name in ("Adagrad", "Adam", "Ftrl", "Optimizer", "RMSprop", "SGD"):
        with pytest.raises(ImportError, match="tf_keras"):
            getattr(legacy, name)(learning_rate=0.1)
    for name in ("Nadam", "Adadelta", "Adamax"):
        assert not hasattr(legacy, name)
