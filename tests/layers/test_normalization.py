"""BatchNormalization (training vs inference, moving statistics) and LayerNormalization."""
import numpy as np
import pytest

import minitf as tf
from minitf import layers


def f64(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape)


def test_batchnorm_weights_and_trainability():
    bn = layers.BatchNormalization()
    bn(np.zeros((2, 3), "float32"))
    assert [v.path for v in bn.weights] == [
        "batch_normalization/gamma", "batch_normalization/beta",
        "batch_normalization/moving_mean", "batch_normalization/moving_variance"]
    assert len(bn.trainable_weights) == 2 and len(bn.non_trainable_weights) == 2


def test_batchnorm_training_uses_batch_stats_and_updates_moving_stats():
    bn = layers.BatchNormalization(momentum=0.9, epsilon=1e-3, dtype="float64")
    x = f64(8, 2, 3) * 3 + 1
    y = bn(x, training=True).numpy()
    mean, var = x.mean(axis=(0, 1)), x.var(axis=(0, 1))
    np.testing.assert_allclose(y, (x - mean) / np.sqrt(var + 1e-3), rtol=1e-10)
    np.testing.assert_allclose(bn.moving_mean.numpy(), 0.1 * mean, rtol=1e-12)
    np.testing.assert_allclose(bn.moving_variance.numpy(), 0.9 + 0.1 * var, rtol=1e-12)


def test_batchnorm_inference_uses_moving_stats_and_leaves_them():
    bn = layers.BatchNormalization(dtype="float64")
    x = f64(4, 3)
    bn(x)
    bn.moving_mean.assign([1.0, 2.0, 3.0])
    bn.moving_variance.assign([4.0, 4.0, 4.0])
    for training in (None, False):
        y = bn(x, training=training).numpy()
        np.testing.assert_allclose(y, (x - [1, 2, 3]) / np.sqrt(4 + 1e-3), rtol=1e-12)
    np.testing.assert_array_equal(bn.moving_mean.numpy(), [1.0, 2.0, 3.0])


def test_frozen_batchnorm_runs_in_inference_mode_even_when_training():
    bn = layers.BatchNormalization(dtype="float64")
    x = f64(4, 3)
    bn(x)
    bn.trainable = False
    y = bn(x, training=True).numpy()
    np.testing.assert_allclose(y, x / np.sqrt(1 + 1e-3), rtol=1e-12)
    np.testing.assert_array_equal(bn.moving_mean.numpy(), np.zeros(3))


def test_batchnorm_gradients(weight_grads_close, input_grads_close):
    weight_grads_close(layers.BatchNormalization(dtype="float64"), f64(5, 3),
                       training=True)
    input_grads_close(layers.BatchNormalization(dtype="float64"), f64(4, 2, 3), training=True)


def test_layer_normalization_values_and_gradients(weight_grads_close, input_grads_close):
    ln = layers.LayerNormalization(dtype="float64")
    x = f64(3, 5)
    y = ln(x).numpy()
    expected = (x - x.mean(-1, keepdims=True)) / np.sqrt(x.var(-1, keepdims=True) + 1e-3)
    np.testing.assert_allclose(y, expected, rtol=1e-10)
    assert [v.name for v in ln.weights] == ["gamma", "beta"]
    weight_grads_close(layers.LayerNormalization(dtype="float64"), f64(2, 4))
    input_grads_close(layers.LayerNormalization(axis=[1, 2], dtype="float64"), f64(2, 2, 3))


def test_float32_input_keeps_float32():
    y = layers.BatchNormalization()(np.ones((2, 4, 4, 3), "float32"), training=True)
    assert y.dtype == tf.float32 and y.shape == (2, 4, 4, 3)


def test_normalization_layers_cast_integer_inputs_to_float32():
    x = np.arange(24, dtype=np.uint8).reshape(2, 3, 4)
    # (LayerNormalization truncates back to the integer dtype: see the dtype test below)
    for layer in (tf.keras.layers.BatchNormalization(),):
        out = layer(x, training=True)
        assert out.dtype == tf.float32
        np.testing.assert_allclose(out.numpy(), layer(x.astype(np.float32), training=True).numpy(),
                                   rtol=1e-6)


def test_axis_out_of_range_raises_index_error_as_keras3():
    for layer in (layers.BatchNormalization(axis=2), layers.LayerNormalization(axis=[1, 2])):
        with pytest.raises(IndexError, match="out of range"):
            layer(np.zeros((2, 3), "float32"))


def test_layer_normalization_dtypes_follow_keras3():
    # no autocast: an integer input is normalized in float32, truncated back to its integer
    # dtype, then cast to the compute dtype; float16 rounds through float16
    x = np.array([[1, 2, 4]], np.int32)
    out = layers.LayerNormalization()(x)
    assert out.dtype == tf.float32
    np.testing.assert_array_equal(out.numpy(), [[-1.0, 0.0, 1.0]])
    exact = layers.LayerNormalization()(x.astype("float32")).numpy()
    half = layers.LayerNormalization()(x.astype("float16"))
    assert half.dtype == tf.float32
    np.testing.assert_array_equal(half.numpy(), exact.astype("float16").astype("float32"))
    wide = layers.LayerNormalization()(x.astype("float64"))
    assert wide.dtype == tf.float32
    np.testing.assert_allclose(wide.numpy(), exact, rtol=1e-6)
