"""Add, Subtract, Multiply, Average, Maximum, Minimum, Concatenate and functional forms."""
import numpy as np
import pytest

import minitf as tf
from minitf import layers


A = np.array([[1.0, -2.0, 3.0]], "float32")
B = np.array([[4.0, 5.0, -6.0]], "float32")


@pytest.mark.parametrize("cls,fn,expected", [
    (layers.Add, layers.add, A + B), (layers.Subtract, layers.subtract, A - B),
    (layers.Multiply, layers.multiply, A * B), (layers.Average, layers.average, (A + B) / 2),
    (layers.Maximum, layers.maximum, np.maximum(A, B)),
    (layers.Minimum, layers.minimum, np.minimum(A, B)),
])
def test_elementwise_merges(cls, fn, expected):
    np.testing.assert_allclose(cls()([A, B]).numpy(), expected)
    np.testing.assert_allclose(fn([A, B]).numpy(), expected)


def test_concatenate_and_errors():
    np.testing.assert_array_equal(layers.Concatenate()([A, B]).numpy(),
                                  np.concatenate([A, B], -1))
    np.testing.assert_array_equal(layers.concatenate([A, B], axis=0).numpy(),
                                  np.concatenate([A, B], 0))
    with pytest.raises(ValueError, match="Concatenate"):
        layers.Concatenate(axis=0)([np.ones((1, 2)), np.ones((1, 3))])
    with pytest.raises(ValueError, match="incompatible shapes"):
        layers.Add()([np.ones((1, 2)), np.ones((1, 3))])
    with pytest.raises(ValueError, match="list"):
        layers.Add()(A)
    with pytest.raises(ValueError, match="exactly 2"):
        layers.Subtract()([A, A, A])


def test_merge_gradients():
    import minitf as tf
    from minitf.gradient_checker import assert_gradients_close
    a = tf.constant(np.random.default_rng(0).standard_normal((2, 3)))
    b = tf.constant(np.random.default_rng(1).standard_normal((2, 3)))
    for layer in (layers.Multiply(dtype="float64"), layers.Average(dtype="float64"),
                  layers.Concatenate(dtype="float64"), layers.Maximum(dtype="float64")):
        assert_gradients_close(lambda x, y: layer([x, y]), [a, b])


def test_merge_layers_promote_integer_inputs_next_to_float_ones():
    a = np.arange(6, dtype=np.uint8).reshape(2, 3)
    b = np.ones((2, 3), np.float32)
    L = tf.keras.layers
    for layer in (L.Add(), L.Subtract(), L.Multiply(), L.Average(), L.Maximum(),
                  L.Concatenate()):
        assert layer([a, b]).dtype == tf.float32, type(layer).__name__
    assert L.Add()([a, a]).dtype == tf.uint8  # all-integer inputs keep their dtype
