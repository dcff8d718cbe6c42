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


def test_relu_follows_keras3_on_integers_and_at_the_threshold():
    x = np.array([[-3, -1, 0, 1, 2, 5]], np.int32)
    out = layers.ReLU(threshold=1.0)(x)  # integers stay integers; x == threshold gives 0
    assert out.dtype == tf.int32
    np.testing.assert_array_equal(out.numpy(), [[0, 0, 0, 0, 2, 5]])
    assert layers.ReLU(max_value=2.5)(x).dtype == tf.int32
    np.testing.assert_array_equal(layers.ReLU(max_value=2.5)(x).numpy(), [[0, 0, 0, 1, 2, 2]])
    slope = layers.ReLU(negative_slope=0.5)(x)  # leaky_relu casts integers to float32
    assert slope.dtype == tf.float32
    np.testing.assert_array_equal(slope.numpy(), [[-1.5, -0.5, 0, 1, 2, 5]])
    with pytest.raises(tf.errors.InvalidArgumentError, match="AddV2"):
        layers.ReLU(negative_slope=0.5, threshold=1.0)(x)
    with pytest.raises(TypeError):
        layers.ReLU(negative_slope=0.5, max_value=2.0)(x)
    xf = np.array([-3, 0.5, 1, 2, 5], np.float32)
    np.testing.assert_array_equal(layers.ReLU(threshold=1.0)(xf).numpy(), [0, 0, 0, 2, 5])
    np.testing.assert_array_equal(layers.ReLU(negative_slope=0.5, max_value=2.0, threshold=1.0)(xf)
                                  .numpy(), [-2, -0.25, 0, 2, 2])


def test_elu_and_softmax_reject_integer_inputs_like_their_ops():
    x = np.array([[1, -2, 3]], np.int32)
    for layer in (layers.ELU(), layers.ELU(alpha=0.5), layers.Softmax(), layers.Softmax(axis=[0, 1])):
        with pytest.raises(tf.errors.InvalidArgumentError):
            layer(x)
    xf = np.array([[1.0, -2.0, 3.0]], np.float32)
    np.testing.assert_allclose(layers.ELU(alpha=0.5)(xf).numpy(),
                               [[1.0, 0.5 * np.expm1(-2.0), 3.0]], rtol=1e-6)


def test_softmax_mask_zeroes_masked_positions():
    x = np.array([[1.0, 2.0, 3.0]], np.float32)
    out = layers.Softmax()(x, mask=np.array([[True, False, True]]))
    e = np.exp([1.0, 3.0]) / np.exp([1.0, 3.0]).sum()
    np.testing.assert_allclose(out.numpy(), [[e[0], 0.0, e[1]]], rtol=1e-6)
    both = layers.Softmax(axis=[0, 1])(x).numpy()
    np.testing.assert_allclose(both, np.exp(x) / np.exp(x).sum(), rtol=1e-6)


def test_activation_layer_does_not_cast_integers():
    # Keras 3 applies the function as is: relu keeps int32, float-only kernels raise
    x = tf.constant([[-1, 2]])
    out = layers.Activation("relu")(x)
    assert out.dtype == tf.int32
    np.testing.assert_array_equal(out.numpy(), [[0, 2]])
    assert layers.Activation("linear")(x).dtype == tf.int32
    assert layers.Activation("tanh")(x).dtype == tf.float32
    with pytest.raises(tf.errors.InvalidArgumentError):
        layers.Activation("sigmoid")(x)
    with pytest.raises(TypeError):
        layers.Activation("hard_sigmoid")(x)


def test_softmax_layer_of_a_scalar_raises_like_tf():
    x = tf.constant(2.0)
    with pytest.raises(tf.errors.AbortedError):
        layers.Softmax()(x)
    with pytest.raises(tf.errors.InvalidArgumentError):  # keras.activations.softmax, as TF 2.21
        layers.Activation("softmax")(x)
    for axis in (0, (0,)):
        with pytest.raises(tf.errors.InvalidArgumentError):
            layers.Softmax(axis=axis)(x)
