"""GroupNormalization: a numpy reference, groups=-1 / groups=1, channels-first axes, dtypes,
weights and config, errors, and float64 finite-difference gradients."""
import numpy as np
import pytest

import minitf as tf
from minitf import layers
from minitf.gradient_checker import assert_gradients_close


def f64(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape)


def _reference(x, groups, axis, eps, gamma=None, beta=None):
    x = np.moveaxis(x, axis, -1)
    c = x.shape[-1]
    g = x.reshape(x.shape[:-1] + (groups, c // groups))
    axes = tuple(range(1, g.ndim - 2)) + (g.ndim - 1,)
    mean, var = g.mean(axes, keepdims=True), g.var(axes, keepdims=True)
    out = ((g - mean) / np.sqrt(var + eps)).reshape(x.shape)
    if gamma is not None:
        out = out * gamma
    if beta is not None:
        out = out + beta
    return np.moveaxis(out, -1, axis)


@pytest.mark.parametrize("groups,axis,shape", [(2, -1, (2, 3, 3, 4)), (4, -1, (2, 5, 4)), (3, 1, (2, 6, 2, 2)),
                                              (1, -1, (3, 2, 6)), (2, -3, (2, 4, 3, 3))])
def test_matches_numpy(groups, axis, shape):
    gn = layers.GroupNormalization(groups=groups, axis=axis, epsilon=0.01, dtype="float64")
    x = f64(*shape) * 3 + 1
    gn(x)
    c = shape[axis]
    gn.gamma.assign(np.linspace(0.5, 2.0, c))
    gn.beta.assign(np.linspace(-1.0, 1.0, c))
    bshape = [1] * len(shape)
    bshape[axis] = c
    expected = _reference(x, groups, axis % len(shape), 0.01, np.linspace(0.5, 2.0, c),
                          np.linspace(-1.0, 1.0, c)) if axis in (-1, len(shape) - 1) else \
        _reference(x, groups, axis % len(shape), 0.01) * np.linspace(0.5, 2.0, c).reshape(bshape) + \
        np.linspace(-1.0, 1.0, c).reshape(bshape)
    np.testing.assert_allclose(gn(x).numpy(), expected, rtol=1e-10, atol=1e-10)


def test_instance_and_layer_norm_special_cases():
    x = f64(2, 3, 4)
    inst = layers.GroupNormalization(groups=-1, dtype="float64")
    y = inst(x).numpy()
    assert inst.groups == 4 and inst.get_config()["groups"] == 4  # resolved at build, as Keras
    np.testing.assert_allclose(y, (x - x.mean(1, keepdims=True)) / np.sqrt(x.var(1, keepdims=True) + 1e-3),
                               rtol=1e-10)
    one = layers.GroupNormalization(groups=1, dtype="float64")(x).numpy()
    m, v = x.mean((1, 2), keepdims=True), x.var((1, 2), keepdims=True)
    np.testing.assert_allclose(one, (x - m) / np.sqrt(v + 1e-3), rtol=1e-10)


def test_weights_order_dtypes_and_config():
    gn = layers.GroupNormalization(groups=2, center=False, name="gn")
    y = gn(np.ones((2, 4), "float16"))
    assert [w.path for w in gn.weights] == ["gn/gamma"] and y.dtype == tf.float32
    gn2 = layers.GroupNormalization(groups=2, name="gn2")
    gn2(tf.ones((2, 4)))
    assert [w.path for w in gn2.weights] == ["gn2/gamma", "gn2/beta"]
    assert gn2(tf.ones((2, 4), tf.float64)).dtype == tf.float32
    config = gn2.get_config()
    assert {k: config[k] for k in ("groups", "axis", "epsilon", "center", "scale")} == {
        "groups": 2, "axis": -1, "epsilon": 1e-3, "center": True, "scale": True}
    assert layers.GroupNormalization.from_config(config).get_config() == config


@pytest.mark.parametrize("kwargs,shape,match", [
    ({"groups": 0}, None, "groups"), ({"groups": 2.0}, None, "groups"),
    ({"groups": 5}, (2, 4), "cannot be more than"), ({"groups": 3}, (2, 4), "must be a multiple"),
    ({"groups": 2, "axis": 3}, (2, 4), "out of bounds"),
])
def test_errors(kwargs, shape, match):
    with pytest.raises(ValueError, match=match):
        layers.GroupNormalization(**kwargs).build(shape)


def test_unknown_channel_count_is_refused():
    with pytest.raises(ValueError, match="defined dimension"):
        layers.GroupNormalization(groups=2).build((None, None))


@pytest.mark.parametrize("groups,axis", [(2, -1), (3, 1)])
def test_gradients(groups, axis, weight_grads_close):
    gn = layers.GroupNormalization(groups=groups, axis=axis, dtype="float64")
    x = f64(2, 6, 3) if axis == 1 else f64(2, 3, 4)
    gn(x)
    gn.gamma.assign(np.linspace(0.5, 1.5, gn.gamma.shape[0]))
    assert_gradients_close(lambda t: gn(t), [x])
    weight_grads_close(gn, tf.constant(x))
