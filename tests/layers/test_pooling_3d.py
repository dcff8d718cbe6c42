"""MaxPooling3D, AveragePooling3D, GlobalMaxPooling3D, GlobalAveragePooling3D: values against a
reshape reference, shapes in both layouts, configs, gradients, aliases."""
import json

import numpy as np
import pytest

import minitf as tf
from minitf import layers


def _blocks(x, k):
    """[N, D/k, H/k, W/k, C, k^3] windows of an NDHWC array whose sizes divide by k."""
    n, d, h, w, c = x.shape
    v = x.reshape(n, d // k, k, h // k, k, w // k, k, c)
    return v.transpose(0, 1, 3, 5, 7, 2, 4, 6).reshape(n, d // k, h // k, w // k, c, k ** 3)


@pytest.mark.parametrize("fmt", ["channels_last", "channels_first"])
def test_pool_values_match_reshape_reference(fmt):
    x = np.random.default_rng(0).standard_normal((2, 4, 6, 2, 3)).astype("float32")
    xin = x if fmt == "channels_last" else np.transpose(x, (0, 4, 1, 2, 3))
    back = (lambda y: y) if fmt == "channels_last" else (lambda y: np.transpose(y, (0, 2, 3, 4, 1)))
    np.testing.assert_allclose(back(layers.MaxPooling3D(data_format=fmt)(xin).numpy()), _blocks(x, 2).max(-1))
    np.testing.assert_allclose(back(layers.AveragePooling3D(2, data_format=fmt)(xin).numpy()),
                               _blocks(x, 2).mean(-1), rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(layers.GlobalMaxPooling3D(data_format=fmt)(xin).numpy(), x.max(axis=(1, 2, 3)))
    np.testing.assert_allclose(layers.GlobalAveragePooling3D(data_format=fmt)(xin).numpy(),
                               x.mean(axis=(1, 2, 3)), rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("make,in_shape,out_shape", [
    (lambda: layers.MaxPooling3D(), (1, 5, 6, 7, 2), (1, 2, 3, 3, 2)),
    (lambda: layers.MaxPooling3D(3, strides=1, padding="same"), (1, 5, 6, 7, 2), (1, 5, 6, 7, 2)),
    (lambda: layers.AveragePooling3D((1, 2, 3), strides=(1, 1, 2)), (1, 5, 6, 7, 2), (1, 5, 5, 3, 2)),
    (lambda: layers.AveragePooling3D(2, padding="same", data_format="channels_first"), (1, 2, 5, 6, 7),
     (1, 2, 3, 3, 4)),
    (lambda: layers.GlobalMaxPooling3D(keepdims=True), (2, 3, 4, 5, 6), (2, 1, 1, 1, 6)),
    (lambda: layers.GlobalAveragePooling3D(data_format="channels_first", keepdims=True), (2, 3, 4, 5, 6),
     (2, 3, 1, 1, 1)),
    (lambda: layers.GlobalAveragePooling3D(), (2, 3, 4, 5, 6), (2, 6)),
])
def test_shapes_match_compute_output_shape(make, in_shape, out_shape):
    layer = make()
    assert layer(np.ones(in_shape, "float32")).shape == out_shape
    assert tuple(layer.compute_output_shape(in_shape)) == out_shape


@pytest.mark.parametrize("make", [
    lambda: layers.AveragePooling3D(2, strides=(1, 2, 1), padding="same", dtype="float64"),
    lambda: layers.GlobalMaxPooling3D(dtype="float64"),
    lambda: layers.GlobalAveragePooling3D(data_format="channels_first", dtype="float64"),
])
def test_input_gradients(make, input_grads_close):
    x = np.random.default_rng(1).permutation(48).reshape(1, 2, 3, 4, 2) / 7.0  # distinct values: no ties
    input_grads_close(make(), x)


def test_max_pooling_gradient_routes_to_window_maxima_and_refuses_float64_as_tf():
    x = np.random.default_rng(1).permutation(192).reshape(2, 2, 4, 4, 3).astype("float32")
    x = tf.constant(x)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = layers.MaxPooling3D()(x)
    g = tape.gradient(y, x).numpy()
    is_max = _blocks(x.numpy(), 2) == _blocks(x.numpy(), 2).max(-1, keepdims=True)
    np.testing.assert_array_equal(_blocks(g, 2), is_max.astype("float32"))
    with pytest.raises(tf.errors.InvalidArgumentError, match="float64"):
        layers.MaxPooling3D(dtype="float64")(np.ones((1, 2, 2, 2, 1)))


@pytest.mark.parametrize("cls,kwargs", [
    (layers.MaxPooling3D, dict(pool_size=(1, 2, 3), strides=2, padding="same", data_format="channels_first")),
    (layers.AveragePooling3D, dict(pool_size=3)),
    (layers.GlobalMaxPooling3D, dict(keepdims=True)),
])
def test_configs_round_trip(cls, kwargs):
    layer = cls(**kwargs)
    config = json.loads(json.dumps(layer.get_config()))
    assert cls.from_config(config).get_config() == layer.get_config()


def test_aliases_errors_and_int_inputs():
    assert layers.MaxPool3D is layers.MaxPooling3D and layers.AvgPool3D is layers.AveragePooling3D
    assert layers.GlobalMaxPool3D is layers.GlobalMaxPooling3D
    assert layers.GlobalAvgPool3D is layers.GlobalAveragePooling3D
    assert tf.keras.layers.deserialize({"class_name": "MaxPool3D", "config": {}}).pool_size == (2, 2, 2)
    with pytest.raises(TypeError):
        layers.AveragePooling3D()  # pool_size is required, as in Keras 3
    with pytest.raises(ValueError, match="ndim=5"):
        layers.MaxPooling3D()(np.ones((1, 4, 4, 1), "float32"))
    with pytest.raises(tf.errors.InvalidArgumentError, match="padding"):
        layers.MaxPooling3D(padding="full")(np.ones((1, 4, 4, 4, 1), "float32"))
    y = layers.GlobalAveragePooling3D()(np.arange(8, dtype="int32").reshape(1, 2, 2, 2, 1))
    assert y.dtype == tf.float32 and float(y[0, 0]) == 3.5
