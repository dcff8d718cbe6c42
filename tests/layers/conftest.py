"""Shared fixtures for the layer tests: fresh layer names and a weight-gradient checker."""
import numpy as np
import pytest

import minitf as tf
from minitf.gradient_checker import assert_gradients_close
from minitf.keras_core.naming import clear_session


@pytest.fixture(autouse=True)
def _fresh_names():
    clear_session()
    yield


def _weight_grads_close(layer, x, delta=1e-6, rtol=1e-5, atol=1e-6, **call_kwargs):
    """Tape gradients of sum(layer(x) * r) w.r.t. each weight vs central differences."""
    y = layer(x, **call_kwargs)
    r = tf.constant(np.random.default_rng(1).standard_normal(y.shape.as_list()))

    def objective():
        return float(tf.reduce_sum(layer(x, **call_kwargs) * r))
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(layer(x, **call_kwargs) * r)
    variables = layer.trainable_weights
    grads = tape.gradient(loss, variables)
    assert len(variables) > 0
    for v, g in zip(variables, grads):
        assert g is not None, v.name
        g = _dense(g, v.shape.as_list())
        base = v.numpy().copy()
        num = np.zeros(base.size)
        flat = base.reshape(-1)
        for k in range(base.size):
            vals = []
            for sign in (1, -1):
                pert = flat.copy()
                pert[k] += sign * delta
                v.assign(pert.reshape(base.shape))
                vals.append(objective())
            num[k] = (vals[0] - vals[1]) / (2 * delta)
        v.assign(base)
        np.testing.assert_allclose(g.reshape(-1), num, rtol=rtol, atol=atol, err_msg=v.name)


def _dense(g, shape):
    """A numpy array for a dense gradient or an IndexedSlices one (rows summed)."""
    if hasattr(g, "indices"):
        out = np.zeros(shape)
        np.add.at(out, np.asarray(g.indices), np.asarray(g.values))
        return out
    return np.asarray(g)


@pytest.fixture
def weight_grads_close():
    """Check a layer's weight gradients (float64 layer) against finite differences."""
    return _weight_grads_close


@pytest.fixture
def input_grads_close():
    """Check d layer(x) / dx against finite differences (float64)."""
    def check(layer, x, order=1, **kwargs):
        x = tf.constant(x, dtype=tf.float64)
        layer(x, **kwargs)
        assert_gradients_close(lambda t: layer(t, **kwargs), [x], order=order)
    return check


def f64(*shape, seed=0):
    """A float64 standard-normal array."""
    return np.random.default_rng(seed).standard_normal(shape)
