"""Keras regularizers (and constraints, which are small): values, gradients, configs, lookup."""
import numpy as np
import pytest

import minitf as tf
from minitf import constraints
from minitf.regularizers import regularizers

W = np.array([[0.5, -1.5, 2.0], [-0.25, 3.0, -0.75]])


def test_values():
    w = tf.constant(W)
    np.testing.assert_allclose(float(regularizers.L1(0.3)(w)), 0.3 * np.abs(W).sum())
    np.testing.assert_allclose(float(regularizers.L2(0.2)(w)), 0.2 * (W ** 2).sum())
    np.testing.assert_allclose(float(regularizers.L1L2(l1=0.1, l2=0.4)(w)),
                               0.1 * np.abs(W).sum() + 0.4 * (W ** 2).sum())
    np.testing.assert_allclose(float(regularizers.l1_l2()(w)), 0.01 * np.abs(W).sum() + 0.01 * (W ** 2).sum())
    assert float(regularizers.L1L2()(w)) == 0.0
    assert float(regularizers.L1()(w)) == pytest.approx(0.01 * np.abs(W).sum())


def test_gradients():
    w = tf.constant(W)
    with tf.GradientTape() as tape:
        tape.watch(w)
        loss = regularizers.L1L2(l1=0.1, l2=0.4)(w)
    np.testing.assert_allclose(np.asarray(tape.gradient(loss, w)), 0.1 * np.sign(W) + 0.8 * W)


def test_orthogonal_regularizer():
    w = np.array([[1.0, 0.0], [1.0, 1.0], [0.0, 2.0]])
    rows = w / np.linalg.norm(w, axis=1, keepdims=True)
    gram = np.abs(rows @ rows.T)
    expected = 0.1 * (gram.sum() - np.trace(gram)) / 6
    np.testing.assert_allclose(float(regularizers.OrthogonalRegularizer(0.1)(tf.constant(w))), expected)


def test_config_and_get():
    assert regularizers.L1L2(l1=0.5).get_config() == {"l1": 0.5, "l2": 0.0}
    assert regularizers.L2(0.3).get_config() == {"l2": 0.3}
    r = regularizers.L1L2.from_config({"l1": 0.2, "l2": 0.1})
    assert (r.l1, r.l2) == (0.2, 0.1)
    assert isinstance(regularizers.get("l2"), regularizers.L2)
    assert regularizers.get("l1").l1 == 0.01
    assert isinstance(regularizers.get(regularizers.serialize(r)), regularizers.L1L2)
    fn = lambda x: tf.reduce_sum(x)  # noqa: E731
    assert regularizers.get(fn) is fn and regularizers.get(None) is None
    with pytest.raises(ValueError):
        regularizers.get("l3")
    with pytest.raises(ValueError):
        regularizers.L1(-1.0)


def test_constraints():
    w = tf.constant(W)
    norms = np.linalg.norm(W, axis=0, keepdims=True)
    got = np.asarray(constraints.MaxNorm(max_value=2.0)(w))
    np.testing.assert_allclose(got, W * np.clip(norms, 0, 2) / (1e-7 + norms))
    np.testing.assert_allclose(np.asarray(constraints.NonNeg()(w)), np.maximum(W, 0))
    np.testing.assert_allclose(np.asarray(constraints.UnitNorm(axis=1)(w)),
                               W / (1e-7 + np.linalg.norm(W, axis=1, keepdims=True)))
    mm = np.asarray(constraints.MinMaxNorm(min_value=1.0, max_value=2.0, rate=0.5)(w))
    desired = 0.5 * np.clip(norms, 1, 2) + 0.5 * norms
    np.testing.assert_allclose(mm, W * desired / (1e-7 + norms))
    assert isinstance(constraints.get("non_neg"), constraints.NonNeg)
    assert constraints.get("max_norm").get_config() == {"max_value": 2, "axis": 0}
    assert constraints.get(None) is None
    with pytest.raises(ValueError):
        constraints.get("positive")
