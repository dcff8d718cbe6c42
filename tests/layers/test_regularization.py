"""Dropout, SpatialDropout2D, GaussianNoise: active only with training=True."""
import numpy as np

import minitf as tf
from minitf import layers


def test_dropout_identity_unless_training():
    x = np.ones((50, 40), "float32")
    d = layers.Dropout(0.5)
    np.testing.assert_array_equal(d(x).numpy(), x)
    np.testing.assert_array_equal(d(x, training=False).numpy(), x)
    y = d(x, training=True).numpy()
    assert set(np.unique(y)) <= {0.0, 2.0}
    assert 0.35 < (y == 0).mean() < 0.65
    assert y.dtype == np.float32


def test_rate_one_drops_everything():
    # Keras 3.15 accepts rate=1.0 and returns zeros in training
    x = np.ones((2, 4, 3), "float32")
    for layer in (layers.Dropout(1.0), layers.SpatialDropout1D(1.0)):
        np.testing.assert_array_equal(layer(x, training=True).numpy(), np.zeros_like(x))
        np.testing.assert_array_equal(layer(x).numpy(), x)


def test_dropout_noise_shape_and_spatial_dropout_drop_whole_slices():
    x = np.ones((4, 30, 6), "float32")
    y = layers.Dropout(0.5, noise_shape=(None, 1, 6))(x, training=True).numpy()
    assert np.all(y == y[:, :1, :])
    z = layers.SpatialDropout2D(0.5)(np.ones((3, 5, 5, 8), "float32"), training=True).numpy()
    assert np.all(z == z[:, :1, :1, :])


def test_gaussian_noise_only_when_training():
    x = np.zeros((200, 50), "float32")
    g = layers.GaussianNoise(0.5)
    np.testing.assert_array_equal(g(x).numpy(), x)
    std = float(np.std(g(x, training=True).numpy()))
    assert 0.45 < std < 0.55


def test_dropout_gradient_matches_mask():
    x = tf.constant(np.ones((10, 10)))
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = layers.Dropout(0.3, dtype="float64")(x, training=True)
    g = tape.gradient(y, x).numpy()
    np.testing.assert_allclose(g, y.numpy())  # x == 1: gradient equals the scaled mask
