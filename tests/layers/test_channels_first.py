"""data_format='channels_first' for the convolution and pooling layers.

Each layer built channels_first must give, with the same weights, the channels_last layer's
result on the transposed input; shapes, configs, gradients and errors are checked too, and
(optionally) outputs against TensorFlow's own channels_first layers."""
import numpy as np
import pytest

import minitf as tf
from minitf import layers
from minitf.gradient_checker import assert_gradients_close

# id -> (factory(layers_module, data_format, **kwargs), channels_last input shape)
CASES = {
    "conv1d_same_strided": (lambda L, f, **k: L.Conv1D(3, 3, strides=2, padding="same",
                                                        data_format=f, **k), (2, 9, 4)),
    "conv1d_causal_dilated": (lambda L, f, **k: L.Conv1D(3, 2, padding="causal", dilation_rate=2,
                                                          data_format=f, **k), (2, 7, 2)),
    # Output steps (5) differ from filters (4): TF 2.21's grouped channels_first Conv1D adds
    # the bias along the steps axis when the two sizes are equal, a TF quirk.
    "conv1d_groups": (lambda L, f, **k: L.Conv1D(4, 3, groups=2, data_format=f, **k), (1, 7, 4)),
    "conv2d": (lambda L, f, **k: L.Conv2D(3, 3, strides=(2, 1), padding="same",
                                          activation="tanh", data_format=f, **k), (2, 6, 5, 2)),
    "conv2d_groups_dilated": (lambda L, f, **k: L.Conv2D(4, (2, 3), groups=2, dilation_rate=(1, 2),
                                                          data_format=f, **k), (1, 5, 7, 4)),
    "conv2d_transpose": (lambda L, f, **k: L.Conv2DTranspose(3, 3, strides=2, data_format=f, **k),
                         (1, 3, 4, 2)),
    "conv2d_transpose_same_outpad": (
        lambda L, f, **k: L.Conv2DTranspose(2, (3, 2), strides=2, padding="same",
                                            output_padding=1, data_format=f, **k), (2, 3, 3, 2)),
    "depthwise": (lambda L, f, **k: L.DepthwiseConv2D(3, depth_multiplier=2, padding="same",
                                                      data_format=f, **k), (1, 5, 4, 3)),
    "separable": (lambda L, f, **k: L.SeparableConv2D(4, 3, strides=2, depth_multiplier=2,
                                                      data_format=f, **k), (1, 7, 6, 3)),
    "max_pool1d": (lambda L, f, **k: L.MaxPooling1D(3, strides=2, padding="same", data_format=f,
                                                    **k), (2, 8, 3)),
    "avg_pool1d": (lambda L, f, **k: L.AveragePooling1D(2, data_format=f, **k), (2, 7, 3)),
    "max_pool2d": (lambda L, f, **k: L.MaxPooling2D((2, 3), padding="same", data_format=f, **k),
                   (1, 5, 7, 2)),
    "avg_pool2d": (lambda L, f, **k: L.AveragePooling2D(3, strides=2, padding="same",
                                                        data_format=f, **k), (2, 6, 5, 3)),
    "global_avg1d": (lambda L, f, **k: L.GlobalAveragePooling1D(data_format=f, **k), (2, 5, 3)),
    "global_max1d_keepdims": (lambda L, f, **k: L.GlobalMaxPooling1D(data_format=f, keepdims=True,
                                                                      **k), (2, 5, 3)),
    "global_avg2d_keepdims": (lambda L, f, **k: L.GlobalAveragePooling2D(
        data_format=f, keepdims=True, **k), (2, 3, 4, 3)),
    "global_max2d": (lambda L, f, **k: L.GlobalMaxPooling2D(data_format=f, **k), (2, 3, 4, 3)),
}


def to_first(a):
    """NWC -> NCW or NHWC -> NCHW (rank-2 arrays stay as they are)."""
    a = np.asarray(a)
    return a if a.ndim == 2 else np.moveaxis(a, -1, 1)


def first_shape(shape):
    """A channels_last shape list in channels_first order."""
    shape = list(shape)
    return shape if len(shape) == 2 else [shape[0], shape[-1]] + shape[1:-1]


def randn(shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape)


def layer_pair(case, **kwargs):
    """The (channels_last, channels_first) float64 layers of a case, built, same random weights."""
    make, shape = CASES[case]
    last = make(layers, "channels_last", dtype="float64", **kwargs)
    first = make(layers, "channels_first", dtype="float64", **kwargs)
    x = randn(shape)
    last(tf.constant(x))
    first(tf.constant(to_first(x)))
    weights = [randn(w.shape, seed=i + 1) for i, w in enumerate(last.get_weights())]
    last.set_weights(weights)
    first.set_weights(weights)
    return last, first, x


@pytest.mark.parametrize("case", sorted(CASES))
def test_matches_channels_last_on_transposed_input(case):
    last, first, x = layer_pair(case)
    assert [w.shape for w in first.get_weights()] == [w.shape for w in last.get_weights()]
    want = last(tf.constant(x)).numpy()
    got = first(tf.constant(to_first(x)))
    assert got.dtype == tf.float64
    assert got.shape.as_list() == first_shape(want.shape)
    np.testing.assert_allclose(got.numpy(), to_first(want), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("case", sorted(CASES))
def test_compute_output_shape(case):
    last, first, x = layer_pair(case)
    in_shape = [None] + first_shape(x.shape)[1:]
    out = first.compute_output_shape(in_shape).as_list()
    assert out == [None] + first_shape(last(tf.constant(x)).shape.as_list())[1:]
    assert out[1:] == first(tf.constant(to_first(x))).shape.as_list()[1:]


@pytest.mark.parametrize("case", sorted(CASES))
def test_get_config_round_trips(case):
    _, first, x = layer_pair(case)
    config = first.get_config()
    assert config["data_format"] == "channels_first"
    clone = type(first).from_config(config)
    assert clone.data_format == "channels_first"
    xf = tf.constant(to_first(x))
    clone(xf)
    clone.set_weights(first.get_weights())
    np.testing.assert_array_equal(clone(xf).numpy(), first(xf).numpy())


def test_bias_is_added_on_channel_axis():
    conv = layers.Conv2D(3, 1, data_format="channels_first", kernel_initializer="zeros",
                         dtype="float64")
    conv(tf.zeros([1, 2, 4, 5], tf.float64))
    conv.bias.assign([1.0, 2.0, 3.0])
    y = conv(tf.zeros([1, 2, 4, 5], tf.float64)).numpy()
    assert y.shape == (1, 3, 4, 5)
    np.testing.assert_array_equal(y[0, :, 2, 3], [1.0, 2.0, 3.0])
    np.testing.assert_array_equal(y[0, 1], np.full((4, 5), 2.0))


def test_build_takes_channels_from_axis_1():
    conv = layers.Conv2D(6, 3, data_format="channels_first")
    conv.build((None, 5, 8, 9))
    assert conv.kernel.shape.as_list() == [3, 3, 5, 6]
    depthwise = layers.DepthwiseConv2D(2, depth_multiplier=3, data_format="channels_first")
    depthwise.build((None, 4, 8, 9))
    assert depthwise.depthwise_kernel.shape.as_list() == [2, 2, 4, 3]
    assert depthwise.bias.shape.as_list() == [12]
    with pytest.raises(ValueError, match="channel dimension"):
        layers.Conv1D(2, 3, data_format="channels_first").build((None, None, 7))


def test_input_with_wrong_channel_count_is_rejected():
    conv = layers.Conv2D(2, 3, data_format="channels_first")
    conv(tf.zeros([1, 3, 5, 5]))
    with pytest.raises(ValueError, match=r"axis 1 .*value 3"):
        conv(tf.zeros([1, 4, 5, 5]))


@pytest.mark.parametrize("make", [
    lambda f: layers.Conv1D(2, 3, data_format=f), lambda f: layers.Conv2D(2, 3, data_format=f),
    lambda f: layers.Conv2DTranspose(2, 3, data_format=f),
    lambda f: layers.DepthwiseConv2D(3, data_format=f),
    lambda f: layers.SeparableConv2D(2, 3, data_format=f),
    lambda f: layers.MaxPooling1D(data_format=f), lambda f: layers.AveragePooling2D(2, data_format=f),
    lambda f: layers.GlobalMaxPooling2D(data_format=f),
    lambda f: layers.GlobalAveragePooling1D(data_format=f)])
def test_invalid_data_format_raises_value_error_naming_layer_and_choices(make):
    with pytest.raises(ValueError) as info:
        make("NCHW_bad")
    message = str(info.value)
    assert "channels_first" in message and "channels_last" in message
    assert "NCHW_bad" in message
    assert "Layer '" in message


def test_data_format_is_case_insensitive_and_none_follows_backend(monkeypatch):
    assert layers.Conv2D(2, 3, data_format="Channels_First").data_format == "channels_first"
    assert layers.Conv1D(2, 3).data_format == "channels_last"
    assert layers.MaxPooling1D(2).data_format == "channels_last"
    tf.keras.backend.set_image_data_format("channels_first")
    try:
        assert layers.Conv2D(2, 3).data_format == "channels_first"
        assert layers.GlobalAveragePooling2D().data_format == "channels_first"
    finally:
        tf.keras.backend.set_image_data_format("channels_last")


# -- gradients (float64 central differences) ---------------------------------------------------

@pytest.mark.parametrize("case", ["conv2d", "conv2d_transpose", "depthwise", "separable",
                                  "conv1d_causal_dilated", "max_pool2d", "avg_pool1d",
                                  "max_pool1d", "global_max1d_keepdims", "global_avg2d_keepdims"])
def test_input_gradients(case):
    _, first, x = layer_pair(case)
    assert_gradients_close(lambda t: first(t), [tf.constant(to_first(x))])


@pytest.mark.parametrize("case", ["conv2d", "conv2d_transpose", "depthwise", "conv1d_groups"])
def test_weight_gradients(case, weight_grads_close):
    _, first, x = layer_pair(case)
    weight_grads_close(first, tf.constant(to_first(x)))


def test_conv2d_second_order_input_gradient():
    conv = layers.Conv2D(2, 2, activation="tanh", data_format="channels_first", dtype="float64")
    x = tf.constant(randn((1, 2, 3, 3)))
    conv(x)
    assert_gradients_close(lambda t: conv(t), [x], order=2)


# -- optional: TensorFlow's own channels_first layers -------------------------------------------

@pytest.mark.parametrize("case", sorted(CASES))
def test_matches_tensorflow_channels_first(case):
    """TF 2.21 on CPU runs these channels_first layers eagerly (Keras 3 transposes where the
    kernels need NHWC), so the comparison is with TF's channels_first layer directly."""
    tf_ref = pytest.importorskip("tensorflow")
    make, shape = CASES[case]
    ref = make(tf_ref.keras.layers, "channels_first")
    mine = make(layers, "channels_first")
    x = to_first(randn(shape)).astype("float32")
    ref(tf_ref.constant(x))
    mine(tf.constant(x))
    weights = [(0.5 * randn(tuple(w.shape), seed=i + 1)).astype("float32")
               for i, w in enumerate(ref.weights)]
    ref.set_weights(weights)
    mine.set_weights(weights)
    xr, xm = tf_ref.constant(x), tf.constant(x)
    with tf_ref.GradientTape() as tape_ref:
        tape_ref.watch(xr)
        y_ref = ref(xr)
        loss_ref = tf_ref.reduce_sum(y_ref * y_ref)
    with tf.GradientTape() as tape:
        tape.watch(xm)
        y = mine(xm)
        loss = tf.reduce_sum(y * y)
    assert y.shape.as_list() == list(y_ref.shape)
    assert mine.compute_output_shape(x.shape).as_list() == \
        list(ref.compute_output_shape(x.shape))
    np.testing.assert_allclose(y.numpy(), y_ref.numpy(), rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(tape.gradient(loss, xm).numpy(),
                               tape_ref.gradient(loss_ref, xr).numpy(), rtol=1e-4, atol=1e-4)
