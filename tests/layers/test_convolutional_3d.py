"""Conv3D, Conv1DTranspose, Conv3DTranspose: shapes in both layouts, configs, weights, errors,
float64 gradients w.r.t. inputs and weights, and training."""
import json

import numpy as np
import pytest

import minitf as tf
from minitf import layers


def f64(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape)


@pytest.mark.parametrize("make,in_shape,out_shape", [
    (lambda: layers.Conv3D(4, 3), (2, 5, 6, 7, 3), (2, 3, 4, 5, 4)),
    (lambda: layers.Conv3D(4, 3, strides=2, padding="same"), (1, 5, 6, 7, 2), (1, 3, 3, 4, 4)),
    (lambda: layers.Conv3D(4, (1, 2, 3), dilation_rate=2), (1, 5, 6, 7, 2), (1, 5, 4, 3, 4)),
    (lambda: layers.Conv3D(4, 1, groups=2), (1, 2, 3, 3, 4), (1, 2, 3, 3, 4)),
    (lambda: layers.Conv3D(4, 2, data_format="channels_first"), (1, 3, 4, 5, 6), (1, 4, 3, 4, 5)),
    (lambda: layers.Conv3DTranspose(3, 3, strides=2, padding="same"), (1, 2, 3, 4, 2), (1, 4, 6, 8, 3)),
    (lambda: layers.Conv3DTranspose(3, 3, strides=2), (1, 2, 3, 4, 2), (1, 5, 7, 9, 3)),
    (lambda: layers.Conv3DTranspose(3, 3, strides=(2, 1, 2), output_padding=(1, 0, 0)), (1, 2, 3, 4, 2),
     (1, 6, 5, 9, 3)),
    (lambda: layers.Conv3DTranspose(3, 2, data_format="channels_first"), (1, 2, 3, 4, 5), (1, 3, 4, 5, 6)),
    (lambda: layers.Conv1DTranspose(3, 3, strides=2), (2, 5, 2), (2, 11, 3)),
    (lambda: layers.Conv1DTranspose(3, 3, strides=2, padding="same", output_padding=1), (2, 5, 2), (2, 10, 3)),
    (lambda: layers.Conv1DTranspose(3, 2, dilation_rate=2, data_format="channels_first"), (2, 2, 5), (2, 3, 7)),
])
def test_output_shapes_match_compute_output_shape(make, in_shape, out_shape):
    layer = make()
    y = layer(np.random.default_rng(0).standard_normal(in_shape).astype("float32"))
    assert y.shape == out_shape
    assert tuple(layer.compute_output_shape(in_shape)) == out_shape
    assert tuple(layer.compute_output_shape((None,) + in_shape[1:])) == (None,) + out_shape[1:]


def test_weights_names_shapes_and_order_follow_keras():
    conv = layers.Conv3D(6, (1, 2, 3), groups=2)
    conv(np.zeros((1, 3, 3, 4, 4), "float32"))
    assert [(v.name, tuple(v.shape)) for v in conv.weights] == [("kernel", (1, 2, 3, 2, 6)), ("bias", (6,))]
    tr = layers.Conv3DTranspose(5, 2, use_bias=False)
    tr(np.zeros((1, 3, 3, 3, 4), "float32"))
    assert [(v.name, tuple(v.shape)) for v in tr.weights] == [("kernel", (2, 2, 2, 5, 4))]
    tr1 = layers.Conv1DTranspose(5, 3)
    tr1(np.zeros((1, 4, 2), "float32"))
    assert [(v.name, tuple(v.shape)) for v in tr1.weights] == [("kernel", (3, 5, 2)), ("bias", (5,))]


def _numpy_conv3d(x, k, b):
    """A direct NDHWC 'valid' stride-1 convolution."""
    kd, kh, kw = k.shape[:3]
    out = np.zeros((x.shape[0], x.shape[1] - kd + 1, x.shape[2] - kh + 1, x.shape[3] - kw + 1, k.shape[4]))
    for a in range(kd):
        for i in range(kh):
            for j in range(kw):
                out += x[:, a:a + out.shape[1], i:i + out.shape[2], j:j + out.shape[3]] @ k[a, i, j]
    return out + b


def test_conv3d_values_and_both_layouts_agree():
    x = f64(2, 4, 5, 3, 3)
    last = layers.Conv3D(2, 2, dtype="float64")
    first = layers.Conv3D(2, 2, dtype="float64", data_format="channels_first")
    last(x)
    first(np.transpose(x, (0, 4, 1, 2, 3)))
    first.set_weights([f64(2, 2, 2, 3, 2, seed=1), np.array([0.5, -1.0])])
    last.set_weights(first.get_weights())
    expect = _numpy_conv3d(x, *first.get_weights())
    np.testing.assert_allclose(last(x).numpy(), expect, rtol=1e-12)
    np.testing.assert_allclose(np.transpose(first(np.transpose(x, (0, 4, 1, 2, 3))).numpy(), (0, 2, 3, 4, 1)),
                               expect, rtol=1e-12)


def test_conv3d_transpose_is_the_adjoint_of_conv3d():
    x = f64(1, 4, 6, 4, 3)
    conv = layers.Conv3D(2, 3, strides=2, padding="same", use_bias=False, dtype="float64")
    y = conv(x)
    tr = layers.Conv3DTranspose(3, 3, strides=2, padding="same", use_bias=False, dtype="float64")
    g = f64(*y.shape, seed=2)
    tr(g)
    tr.set_weights(conv.get_weights())
    back = tr(g).numpy()
    assert back.shape == (1, 4, 6, 4, 3)  # 'same' transposed: sizes * strides
    np.testing.assert_allclose(np.sum(y.numpy() * g), np.sum(x * back), rtol=1e-10)


@pytest.mark.parametrize("make,shape", [
    (lambda: layers.Conv3D(2, 2, strides=(1, 2, 1), padding="same", dtype="float64"), (1, 3, 3, 2, 2)),
    (lambda: layers.Conv3D(2, 1, groups=2, dtype="float64"), (1, 2, 2, 2, 2)),
    (lambda: layers.Conv3D(2, 2, dilation_rate=(2, 1, 1), data_format="channels_first", dtype="float64"),
     (1, 2, 3, 2, 2)),
    (lambda: layers.Conv3DTranspose(2, 2, strides=2, dtype="float64"), (1, 2, 1, 2, 2)),
    (lambda: layers.Conv3DTranspose(2, 2, padding="same", data_format="channels_first", dtype="float64"),
     (1, 2, 2, 1, 2)),
    (lambda: layers.Conv1DTranspose(2, 3, strides=2, output_padding=1, dtype="float64"), (2, 3, 2)),
    (lambda: layers.Conv1DTranspose(2, 2, data_format="channels_first", dtype="float64"), (2, 2, 3)),
])
def test_weight_and_input_gradients(make, shape, weight_grads_close, input_grads_close):
    weight_grads_close(make(), f64(*shape))
    input_grads_close(make(), f64(*shape))


@pytest.mark.parametrize("cls,kwargs", [
    (layers.Conv3D, dict(filters=3, kernel_size=(1, 2, 3), strides=(1, 1, 2), padding="same", groups=1,
                         activation="relu", kernel_regularizer="l2", data_format="channels_first")),
    (layers.Conv3DTranspose, dict(filters=3, kernel_size=2, strides=2, output_padding=1,
                                  bias_constraint="non_neg", activation="tanh")),
    (layers.Conv1DTranspose, dict(filters=2, kernel_size=3, dilation_rate=2, use_bias=False)),
])
def test_config_round_trips_through_json(cls, kwargs):
    layer = cls(**kwargs)
    config = json.loads(json.dumps(layer.get_config()))
    again = cls.from_config(config)
    assert again.get_config() == layer.get_config() | {"name": again.name}
    shape = (1, 4, 4, 4, 4) if cls is not layers.Conv1DTranspose else (1, 4, 4)
    x = np.random.default_rng(0).standard_normal(shape).astype("float32")
    layer(x), again(x)
    again.set_weights(layer.get_weights())
    np.testing.assert_array_equal(layer(x).numpy(), again(x).numpy())
    assert "groups" not in config or cls is layers.Conv3D
    assert ("output_padding" in config) == (cls is not layers.Conv3D)


def test_aliases_and_deserialize_by_name():
    assert layers.Convolution3D is layers.Conv3D
    assert layers.Convolution3DTranspose is layers.Conv3DTranspose
    assert layers.Convolution1DTranspose is layers.Conv1DTranspose
    made = tf.keras.layers.deserialize({"class_name": "Convolution3D", "config": {"filters": 2, "kernel_size": 1}})
    assert isinstance(made, layers.Conv3D)


def test_argument_errors_follow_keras():
    with pytest.raises(ValueError, match="strides > 1"):
        layers.Conv3D(2, 3, strides=2, dilation_rate=2)
    with pytest.raises(ValueError, match="filters"):
        layers.Conv3DTranspose(0, 3)
    with pytest.raises(ValueError, match="output_padding"):
        layers.Conv3DTranspose(2, 3, strides=2, output_padding=2)
    with pytest.raises(ValueError, match="padding"):
        layers.Conv1DTranspose(2, 3, padding="causal")
    with pytest.raises(ValueError, match="evenly divisible"):
        layers.Conv3D(3, 1, groups=2)
    with pytest.raises(ValueError, match="Computed output size"):
        layers.Conv3D(2, 4)(np.zeros((1, 3, 5, 5, 1), "float32"))
    with pytest.raises(ValueError, match="min_ndim=5"):
        layers.Conv3D(2, 1)(np.zeros((1, 3, 5, 1), "float32"))
    with pytest.raises(ValueError, match="incompatible type conversion"):
        layers.Conv3D(2, 1)(np.zeros((1, 3, 5, 5, 1), "int32"))
    with pytest.raises(IndexError, match="rank-5"):
        layers.Conv3DTranspose(2, 1)(np.zeros((1, 3, 5, 5, 1, 1), "float32"))


def test_a_small_3d_model_trains():
    tf.keras.utils.set_random_seed(0)
    rng = np.random.default_rng(0)
    x = rng.standard_normal((16, 4, 6, 6, 1)).astype("float32")
    y = (x.mean(axis=(1, 2, 3, 4)) > 0).astype("float32")[:, None]
    model = tf.keras.Sequential([
        tf.keras.Input((4, 6, 6, 1)), layers.Conv3D(4, 3, padding="same", activation="relu"),
        layers.Conv3DTranspose(2, 2, strides=(1, 2, 2)), layers.Conv3D(2, 2, strides=2),
        layers.Flatten(), layers.Dense(1, activation="sigmoid")])
    model.compile(optimizer=tf.keras.optimizers.Adam(0.01), loss="binary_crossentropy")
    history = model.fit(x, y, epochs=8, batch_size=8, verbose=0)
    assert history.history["loss"][-1] < 0.7 * history.history["loss"][0]
