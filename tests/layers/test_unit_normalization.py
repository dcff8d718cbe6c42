"""UnitNormalization: unit L2 norm along the axes, zero slices, config, errors, gradients."""
import json

import numpy as np
import pytest

import minitf as tf
from minitf import layers


def test_rows_get_unit_norm():
    x = np.random.default_rng(0).standard_normal((3, 4, 5)).astype("float32")
    y = layers.UnitNormalization()(x).numpy()
    np.testing.assert_allclose(np.linalg.norm(y, axis=-1), 1.0, rtol=1e-6)
    y = layers.UnitNormalization(axis=[1, 2])(x).numpy()
    np.testing.assert_allclose(np.sqrt((y ** 2).sum(axis=(1, 2))), 1.0, rtol=1e-6)
    np.testing.assert_allclose(y, x / np.sqrt((x ** 2).sum(axis=(1, 2), keepdims=True)), rtol=1e-6)


def test_zero_slice_stays_zero_with_keras_gradient():
    x = tf.constant(np.array([[0.0, 0.0], [3.0, 4.0]], "float32"))
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = layers.UnitNormalization()(x)
    np.testing.assert_allclose(y.numpy(), [[0, 0], [0.6, 0.8]], rtol=1e-6)
    g = tape.gradient(y, x).numpy()
    assert np.all(np.isfinite(g))
    np.testing.assert_allclose(g[0], [1e12, 1e12], rtol=1e-6)  # Keras clamps 1/norm at 1/1e-12


def test_gradients_float64(input_grads_close):
    layer = layers.UnitNormalization(axis=[-1, -2], dtype="float64")
    input_grads_close(layer, np.random.default_rng(1).standard_normal((2, 3, 2)), order=2)


def test_config_masks_and_errors():
    layer = layers.UnitNormalization(axis=(1, 2))
    config = json.loads(json.dumps(layer.get_config()))
    assert layers.UnitNormalization.from_config(config).axis == [1, 2]
    assert layer.weights == [] and layer.built
    with pytest.raises(TypeError, match="axis"):
        layers.UnitNormalization(axis="last")
    with pytest.raises(ValueError, match="out of bounds"):
        layers.UnitNormalization(axis=3).compute_output_shape((2, 3))
    with pytest.raises(tf.errors.InvalidArgumentError):
        layers.UnitNormalization(axis=3)(np.ones((2, 3), "float32"))
    inp = tf.keras.Input((4,), dtype="int32")
    out = layers.UnitNormalization()(layers.Embedding(5, 3, mask_zero=True)(inp))
    assert out._keras_mask is not None
