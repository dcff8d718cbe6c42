"""Dice and Tversky losses: values against numpy formulas, gradients (float64 finite
differences), axes, the Loss classes' configs and reductions, lookup by name, fit()."""
import numpy as np
import pytest

import minitf as tf
from minitf.gradient_checker import assert_gradients_close

L = tf.keras.losses
RNG = np.random.default_rng(0)
Y = RNG.integers(0, 2, size=(3, 4)).astype("float64")
P = RNG.uniform(0, 1, size=(3, 4))


def _tversky(y, p, alpha=0.5, beta=0.5, axis=None):
    tp = (y * p).sum(axis)
    return 1 - tp / (tp + alpha * (y * (1 - p)).sum(axis) + beta * ((1 - y) * p).sum(axis) + 1e-7)


@pytest.mark.parametrize("axis", [None, -1, 0, (0, 1)])
def test_values(axis):
    dice = 1 - 2 * (Y * P).sum(axis) / (Y.sum(axis) + P.sum(axis) + 1e-7)
    np.testing.assert_allclose(L.dice(Y, P, axis=axis).numpy(), dice, rtol=1e-10)
    np.testing.assert_allclose(L.tversky(Y, P, axis=axis).numpy(), dice, rtol=1e-6)  # alpha = beta = 0.5
    np.testing.assert_allclose(L.tversky(Y, P, alpha=0.3, beta=0.7, axis=axis).numpy(),
                               _tversky(Y, P, 0.3, 0.7, axis), rtol=1e-10)


def test_perfect_and_disjoint():
    y = np.array([[1.0, 0.0, 1.0]])
    assert float(L.dice(y, y)) == pytest.approx(0.0, abs=1e-6)
    assert float(L.dice(y, 1 - y)) == pytest.approx(1.0)
    assert float(L.tversky(np.zeros((1, 3)), np.zeros((1, 3)))) == pytest.approx(1.0)  # 0 / eps


@pytest.mark.parametrize("axis", [None, -1])
def test_gradients(axis):
    assert_gradients_close(lambda p: L.dice(Y, p, axis=axis), [P])
    assert_gradients_close(lambda p: L.tversky(Y, p, alpha=0.2, beta=0.8, axis=axis), [P])


def test_classes_configs_and_lookup():
    d = L.Dice(reduction="sum", axis=-1)
    assert d.get_config() == {"name": "dice", "reduction": "sum", "axis": -1}
    np.testing.assert_allclose(d(Y, P).numpy(), L.dice(Y, P, axis=-1).numpy().sum(), rtol=1e-6)
    t = L.Tversky(0.3, 0.7, name="tv")
    assert t.get_config() == {"name": "tv", "reduction": "sum_over_batch_size", "alpha": 0.3, "beta": 0.7,
                              "axis": None}
    assert L.Tversky.from_config(t.get_config()).get_config() == t.get_config()
    np.testing.assert_allclose(t(Y, P).numpy(), _tversky(Y, P, 0.3, 0.7), rtol=1e-6)
    assert L.get("dice") is L.dice and isinstance(L.get("Tversky"), L.Tversky)


def test_fit_with_dice():
    x = RNG.normal(size=(32, 4)).astype("float32")
    y = (x[:, :2] > 0).astype("float32")
    model = tf.keras.Sequential([tf.keras.Input((4,)), tf.keras.layers.Dense(2, activation="sigmoid")])
    model.compile("adam", L.Dice(axis=-1))
    history = model.fit(x, y, epochs=4, batch_size=8, verbose=0)
    assert history.history["loss"][-1] < history.history["loss"][0]
