"""ReLU, LeakyReLU, ELU, Softmax layers."""
import numpy as np
import pytest

import minitf as tf
from minitf import layers

X = np.array([[-2.0, -0.5, 0.5, 3.0, 8.0]], "float32")


def test_values():
    np.testing.assert_allclose(layers.ReLU()(X).numpy(), np.maximum(X, 0))
    np.testing.assert_allclose(layers.ReLU(max_value=6.0)(X).numpy(), np.clip(X, 0, 6))
    np.testing.assert_allclose(layers.ReLU(negative_slope=0.1, threshold=1.0)(X).numpy(),
                               np.where(X >= 1, X, 0.1 * (X - 1)), rtol=1e-6)
    np.testing.assert_allclose(layers.LeakyReLU()(X).numpy(), np.where(X >= 0, X, 0.3 * X),
                               rtol=1e-6)
    assert layers.LeakyReLU(alpha=0.2).negative_slope == pytest.approx(0.2)
    np.testing.assert_allclose(layers.ELU()(X).numpy(), np.where(X > 0, X, np.expm1(X)),
                               rtol=1e-6)
    e = np.exp(X - X.max())
    np.testing.assert_allclose(layers.Softmax()(X).numpy(), e / e.sum(), rtol=1e-6)


def test_gradients(input_grads_close):
    x = np.array([[-1.3, -0.4, 0.6, 2.1]])
    for layer in (layers.LeakyReLU(dtype="float64"), layers.ELU(dtype="float64"),
                  layers.ReLU(max_value=1.0, dtype="float64")):
        input_grads_close(layer, x)
    input_grads_close(layers.Softmax(dtype="float64"), x, order=2)


def test_bad_arguments():
    with pytest.raises(ValueError, match="max_value"):
        layers.ReLU(max_value=-1)
    with pytest.raises(ValueError, match="threshold"):  # Keras 3 rejects a negative threshold
        layers.ReLU(threshold=-1.0)


def test_leaky_relu_of_integers_is_float32():
    out = layers.LeakyReLU()(np.array([[-2, 3]], np.int32))
    assert out.dtype == tf.float32  # Keras' leaky_relu works in floats
    np.testing.assert_allclose(out.numpy(), [[-0.6, 3.0]], rtol=1e-6)
