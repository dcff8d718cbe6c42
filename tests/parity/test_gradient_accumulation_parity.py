"""`gradient_accumulation_steps` against Keras 3 (TF 2.21): after every step the weights, Keras'
`iterations` and every optimizer variable (accumulators included, in Keras' order) are the same,
for several optimizers and with clipping, weight decay, EMA and a schedule; and the same under
`fit`."""
import numpy as np
import pytest

import minitf

tf_ref = pytest.importorskip("tensorflow")

RS = np.random.RandomState(0)
W0 = [RS.normal(size=(4, 3)).astype("float32"), RS.normal(size=(3,)).astype("float32")]
GRADS = [[RS.normal(size=w.shape).astype("float32") for w in W0] for _ in range(7)]

CASES = [
    ("SGD", dict(momentum=0.9), 3),
    ("SGD", dict(global_clipnorm=0.5), 2),
    ("Adam", {}, 3),
    ("Adam", dict(clipnorm=0.3, amsgrad=True), 2),
    ("AdamW", dict(weight_decay=0.1), 3),
    ("RMSprop", dict(momentum=0.5), 2),
    ("Adagrad", {}, 2),
    ("Nadam", {}, 3),
    ("Adam", dict(use_ema=True, ema_momentum=0.5), 2),
]


def _run(lib, name, kwargs, steps):
    variables = [lib.Variable(w) for w in W0]
    optimizer = getattr(lib.keras.optimizers, name)(learning_rate=0.1, gradient_accumulation_steps=steps,
                                                    **kwargs)
    trace = []
    for grads in GRADS:
        optimizer.apply_gradients(zip([lib.constant(g) for g in grads], variables))
        trace.append(([np.asarray(v) for v in variables], int(np.asarray(optimizer.iterations)),
                      [np.asarray(v) for v in optimizer.variables]))
    return trace


def _same_values_in_any_order(mine, ref):
    """Each of `mine` equals a different one of `ref` (same shape, same values)."""
    left = list(ref)
    for a in mine:
        match = next((i for i, b in enumerate(left) if np.shape(a) == np.shape(b)
                      and np.allclose(a, b, rtol=2e-5, atol=2e-6)), None)
        assert match is not None, f"no Keras variable equals {a}"
        left.pop(match)


@pytest.mark.parametrize("name, kwargs, steps", CASES)
def test_same_weights_counts_and_variables_as_keras(name, kwargs, steps):
    ref, mine = _run(tf_ref, name, kwargs, steps), _run(minitf, name, kwargs, steps)
    for (w_ref, it_ref, v_ref), (w, it, v) in zip(ref, mine):
        assert it == it_ref
        for a, b in zip(w, w_ref):
            np.testing.assert_allclose(a, b, rtol=2e-5, atol=2e-6)
        assert len(v) == len(v_ref)
        if not kwargs.get("use_ema") and name != "Nadam":
            # the step count, the learning rate and the accumulators come first, in Keras' order
            # (the EMA averages and Nadam's u_product sit elsewhere in minitf: not this change's)
            for a, b in zip(v[:2 + len(W0)], v_ref[:2 + len(W0)]):
                np.testing.assert_allclose(a, b, rtol=2e-5, atol=2e-6)
        _same_values_in_any_order(v, v_ref)


def test_a_schedule_reads_every_step_as_in_keras():
    def run(lib):
        schedule = lib.keras.optimizers.schedules.ExponentialDecay(0.5, decay_steps=1, decay_rate=0.5)
        variables = [lib.Variable(w) for w in W0]
        optimizer = lib.keras.optimizers.SGD(schedule, gradient_accumulation_steps=2)
        for grads in GRADS[:6]:
            optimizer.apply_gradients(zip([lib.constant(g) for g in grads], variables))
        return [np.asarray(v) for v in variables]
    for a, b in zip(run(minitf), run(tf_ref)):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_fit_with_accumulation_matches_keras():
    x = RS.normal(size=(24, 4)).astype("float32")
    y = RS.normal(size=(24, 2)).astype("float32")

    def train(lib):
        model = lib.keras.Sequential([lib.keras.Input((4,)), lib.keras.layers.Dense(3, activation="tanh"),
                                      lib.keras.layers.Dense(2)])
        model.set_weights([np.linspace(-1, 1, w.size).reshape(w.shape).astype("float32")
                           for w in model.get_weights()])
        model.compile(optimizer=lib.keras.optimizers.Adam(0.05, gradient_accumulation_steps=3), loss="mse")
        history = model.fit(x, y, batch_size=4, epochs=3, verbose=0, shuffle=False)
        return model.get_weights(), history.history["loss"], int(np.asarray(model.optimizer.iterations))
    (w_ref, loss_ref, it_ref), (w, loss, it) = train(tf_ref), train(minitf)
    assert it == it_ref == 6
    np.testing.assert_allclose(loss, loss_ref, rtol=1e-5)
    for a, b in zip(w, w_ref):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)
