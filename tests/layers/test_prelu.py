"""PReLU: values, alpha's shape with shared axes, masks pass through, config, gradients, training."""
import json

import numpy as np
import pytest

import minitf as tf
from minitf import layers


def test_values_and_alpha_shape():
    x = np.array([[[-2.0, 3.0], [0.0, -1.0]]], "float32")
    layer = layers.PReLU(alpha_initializer=tf.keras.initializers.Constant(0.25))
    np.testing.assert_allclose(layer(x).numpy(), [[[-0.5, 3.0], [0.0, -0.25]]])
    assert [(v.name, tuple(v.shape)) for v in layer.weights] == [("alpha", (2, 2))]
    shared = layers.PReLU(shared_axes=[1, 2])
    shared(np.zeros((3, 4, 5, 6), "float32"))
    assert tuple(shared.alpha.shape) == (1, 1, 6)
    one = layers.PReLU(shared_axes=1)
    one(np.zeros((3, 4, 5), "float32"))
    assert one.shared_axes == [1] and tuple(one.alpha.shape) == (1, 5)
    assert layers.PReLU()(x).numpy().min() == 0.0  # alpha starts at zero: a ReLU


def test_per_channel_alpha_and_input_spec():
    layer = layers.PReLU(shared_axes=[1, 2])
    layer(np.zeros((1, 2, 2, 3), "float32"))
    layer.alpha.assign(np.array([[[0.1, 0.2, 0.3]]], "float32"))
    y = layer(-np.ones((2, 5, 7, 3), "float32")).numpy()
    np.testing.assert_allclose(y[0, 4, 6], [-0.1, -0.2, -0.3])
    with pytest.raises(ValueError):
        layer(np.zeros((1, 2, 2, 4), "float32"))


def test_masks_pass_through():
    inp = tf.keras.Input((4,), dtype="int32")
    h = layers.Embedding(5, 3, mask_zero=True)(inp)
    out = layers.PReLU()(h)
    assert out._keras_mask is not None


def test_gradients(weight_grads_close, input_grads_close):
    x = np.random.default_rng(0).standard_normal((2, 3, 2))
    weight_grads_close(layers.PReLU(alpha_initializer="ones", dtype="float64"), x)
    weight_grads_close(layers.PReLU(shared_axes=[1], dtype="float64"), x)
    layer = layers.PReLU(dtype="float64")
    layer(x)
    layer.alpha.assign(np.full((3, 2), 0.3))
    input_grads_close(layer, x)


def test_config_round_trip_and_training():
    layer = layers.PReLU(alpha_initializer="ones", alpha_regularizer="l2", alpha_constraint="non_neg",
                         shared_axes=[1])
    config = json.loads(json.dumps(layer.get_config()))
    again = layers.PReLU.from_config(config)
    assert again.shared_axes == [1] and isinstance(again.alpha_constraint, tf.keras.constraints.NonNeg)
    x = np.linspace(-2, 2, 40, dtype="float32").reshape(20, 2)
    y = np.where(x > 0, x, 0.5 * x)
    model = tf.keras.Sequential([tf.keras.Input((2,)), layers.PReLU()])
    model.compile(optimizer=tf.keras.optimizers.SGD(0.5), loss="mse")
    model.fit(x, y, epochs=60, batch_size=20, verbose=0)
    np.testing.assert_allclose(model.layers[0].alpha.numpy(), [0.5, 0.5], atol=1e-2)
