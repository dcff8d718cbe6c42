"""Dense, Activation, Lambda: values, shapes, dtypes, gradients."""
import numpy as np
import pytest

import minitf as tf
from minitf import layers


def f64(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape)


@pytest.mark.parametrize("shape", [(3, 4), (2, 3, 4)])
def test_dense_matches_numpy_for_batched_inputs(shape):
    d = layers.Dense(5, activation="tanh", dtype="float64")
    x = f64(*shape)
    y = d(x)
    expected = np.tanh(x @ d.kernel.numpy() + d.bias.numpy())
    assert y.shape == shape[:-1] + (5,) and y.dtype == tf.float64
    np.testing.assert_allclose(y.numpy(), expected, rtol=1e-12)
    assert d.compute_output_shape((None,) + shape[1:]).as_list() == [None, *shape[1:-1], 5]


def test_dense_gradients(weight_grads_close, input_grads_close):
    d = layers.Dense(3, activation="tanh", dtype="float64")
    weight_grads_close(d, f64(2, 4))
    input_grads_close(layers.Dense(2, activation="tanh", dtype="float64"), f64(2, 3), order=2)


def test_dense_without_bias_and_unknown_last_dim_error():
    d = layers.Dense(2, use_bias=False)
    d(np.ones((1, 3), "float32"))
    assert [v.name for v in d.weights] == ["kernel"]
    with pytest.raises(ValueError, match="last dimension"):
        layers.Dense(2).build(tf.TensorShape([None, None]))
    with pytest.raises(ValueError, match="units"):
        layers.Dense(0)


def test_activation_and_lambda():
    x = tf.constant([[-1.0, 2.0]])
    np.testing.assert_allclose(layers.Activation("relu")(x).numpy(), [[0.0, 2.0]])
    lam = layers.Lambda(lambda t, k: t * k, arguments={"k": 3.0})
    np.testing.assert_allclose(lam(x).numpy(), [[-3.0, 6.0]])
    assert lam.weights == []


def test_lambda_output_shape_mask_and_config():
    lam = layers.Lambda(lambda t: tf.concat([t, t], axis=-1), output_shape=(6,))
    assert lam.compute_output_shape((4, 3)).as_list() == [4, 6]
    by_fn = layers.Lambda(tf.square, output_shape=lambda s: (s[0], 1))
    assert tuple(by_fn.compute_output_shape((5, 2))) == (5, 1)
    masked = layers.Lambda(tf.square, mask=lambda x, m: m)
    assert masked.compute_mask(None, "m") == "m"
    config = layers.Lambda(lambda t, k=2: t * k, arguments={"k": 3}).get_config()
    assert config["function"]["class_name"] == "__lambda__"
    assert config["function"]["config"]["defaults"] == (2,)
    assert config["arguments"] == {"k": 3}
    with pytest.raises(ValueError, match="safe_mode"):
        layers.Lambda.from_config(config)
    seen = []
    copy = layers.Lambda.from_config(config, safe_mode=False)
    np.testing.assert_allclose(copy(tf.constant([1.0, 2.0])).numpy(), [3.0, 6.0])
    passes_training = layers.Lambda(lambda t, training=None: seen.append(training) or t)
    passes_training(tf.constant([1.0]), training=True)
    assert seen == [True]


def test_dense_promotes_integer_and_bool_inputs_like_keras():
    # Keras' matmul promotes int/bool operands: a uint8 image batch gives float32 outputs
    x = np.arange(12, dtype=np.uint8).reshape(3, 4)
    layer = tf.keras.layers.Dense(2, kernel_initializer="ones")
    for value in (x, x.astype(np.int32), tf.constant(x.astype(np.int64)), x > 5):
        y = layer(value)
        assert y.dtype == tf.float32
    np.testing.assert_allclose(layer(x).numpy(), np.tile(x.sum(1, keepdims=True), (1, 2)))
    assert layer(x.astype(np.float64)).dtype == tf.float32  # floats are autocast
