"""Conv1D, Conv2D, Conv2DTranspose, DepthwiseConv2D, SeparableConv2D."""
import numpy as np
import pytest

import minitf as tf
from minitf import layers


def f64(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape)


@pytest.mark.parametrize("layer,in_shape,out_shape", [
    (lambda: layers.Conv2D(4, 3), (2, 7, 7, 3), (2, 5, 5, 4)),
    (lambda: layers.Conv2D(4, 3, strides=2, padding="same"), (1, 7, 7, 2), (1, 4, 4, 4)),
    (lambda: layers.Conv2D(4, 3, dilation_rate=2), (1, 7, 7, 2), (1, 3, 3, 4)),
    (lambda: layers.Conv2D(4, 1, groups=2), (1, 3, 3, 4), (1, 3, 3, 4)),
    (lambda: layers.Conv2DTranspose(3, 3, strides=2, padding="same"), (1, 4, 4, 2), (1, 8, 8, 3)),
    (lambda: layers.Conv2DTranspose(3, 3, strides=2), (1, 4, 4, 2), (1, 9, 9, 3)),
    (lambda: layers.Conv2DTranspose(3, 3, strides=2, padding="same", output_padding=1),
     (1, 4, 4, 2), (1, 8, 8, 3)),
    (lambda: layers.Conv1D(5, 3), (2, 9, 2), (2, 7, 5)),
    (lambda: layers.Conv1D(5, 3, padding="causal"), (2, 9, 2), (2, 9, 5)),
    (lambda: layers.DepthwiseConv2D(3, depth_multiplier=2), (1, 6, 6, 3), (1, 4, 4, 6)),
    (lambda: layers.SeparableConv2D(4, 3, padding="same"), (1, 5, 5, 3), (1, 5, 5, 4)),
])
def test_output_shapes_dtypes_and_compute_output_shape(layer, in_shape, out_shape):
    lay = layer()
    y = lay(np.zeros(in_shape, "float32"))
    assert tuple(y.shape.as_list()) == out_shape and y.dtype == tf.float32
    assert lay.compute_output_shape((None,) + in_shape[1:]).as_list() == [None, *out_shape[1:]]


def test_conv2d_matches_direct_sum():
    conv = layers.Conv2D(2, 2, dtype="float64", bias_initializer="ones")
    x = f64(1, 3, 3, 1)
    y = conv(x).numpy()
    k = conv.kernel.numpy()
    manual = np.zeros((1, 2, 2, 2))
    for i in range(2):
        for j in range(2):
            manual[0, i, j] = np.sum(x[0, i:i + 2, j:j + 2, :, None] * k, axis=(0, 1, 2)) + 1.0
    np.testing.assert_allclose(y, manual, rtol=1e-12)


def test_conv_weight_names_and_counts():
    c = layers.Conv2D(8, 3)
    c(np.zeros((1, 5, 5, 3), "float32"))
    assert [v.name for v in c.weights] == ["kernel", "bias"]
    assert [v.path for v in c.weights] == ["conv2d/kernel", "conv2d/bias"]
    assert c.kernel.shape == (3, 3, 3, 8) and c.count_params() == 3 * 3 * 3 * 8 + 8
    t = layers.Conv2DTranspose(8, 3)
    t(np.zeros((1, 5, 5, 3), "float32"))
    assert t.kernel.shape == (3, 3, 8, 3)
    s = layers.SeparableConv2D(8, 3)
    s(np.zeros((1, 5, 5, 3), "float32"))
    assert [v.name for v in s.weights] == ["depthwise_kernel", "pointwise_kernel", "bias"]


@pytest.mark.parametrize("make,shape", [
    (lambda: layers.Conv2D(2, 2, strides=2, padding="same", dtype="float64"), (1, 3, 3, 2)),
    (lambda: layers.Conv2D(2, 1, groups=2, dtype="float64"), (1, 2, 2, 2)),
    (lambda: layers.Conv2DTranspose(2, 2, strides=2, dtype="float64"), (1, 2, 2, 2)),
    (lambda: layers.Conv1D(2, 2, padding="causal", dtype="float64"), (2, 3, 2)),
    (lambda: layers.DepthwiseConv2D(2, dtype="float64"), (1, 3, 3, 2)),
    (lambda: layers.SeparableConv2D(2, 2, dtype="float64"), (1, 3, 3, 2)),
])
def test_weight_and_input_gradients(make, shape, weight_grads_close, input_grads_close):
    weight_grads_close(make(), f64(*shape))
    input_grads_close(make(), f64(*shape))


def test_bad_arguments():
    with pytest.raises(ValueError, match="padding"):
        layers.Conv2D(2, 3, padding="full")
    with pytest.raises(ValueError, match="kernel_size"):
        layers.Conv2D(2, (3, 3, 3))
    with pytest.raises(ValueError, match="groups"):
        layers.Conv2D(3, 1, groups=2)


def test_constraints_are_objects_and_round_trip_through_json_configs():
    import json
    import minitf as tf
    layer = tf.keras.layers.Conv2D(2, 3, kernel_constraint="non_neg",
                                   bias_constraint=tf.keras.constraints.MaxNorm(2.0))
    assert isinstance(layer.kernel_constraint, tf.keras.constraints.NonNeg)
    config = json.loads(json.dumps(layer.get_config()))
    again = tf.keras.layers.Conv2D.from_config(config)
    assert isinstance(again.kernel_constraint, tf.keras.constraints.NonNeg)
    assert isinstance(again.bias_constraint, tf.keras.constraints.MaxNorm)
    assert again.bias_constraint.get_config()["max_value"] == 2.0
    assert isinstance(tf.keras.layers.BatchNormalization(beta_constraint="non_neg").beta_constraint,
                      tf.keras.constraints.NonNeg)


def test_valid_padding_input_smaller_than_the_kernel_is_a_value_error_in_build():
    # Keras 3 checks the output shape in build, before any op runs
    cases = [(layers.Conv1D(2, 3), (1, 2, 2)), (layers.Conv2D(2, 3), (1, 2, 5, 2)),
             (layers.Conv2D(2, 3, data_format="channels_first"), (1, 2, 2, 5)),
             (layers.SeparableConv2D(2, 3), (1, 2, 5, 2)), (layers.DepthwiseConv2D(3), (1, 2, 5, 2)),
             (layers.Conv1D(2, 2, dilation_rate=3), (1, 3, 2))]
    for layer, shape in cases:
        with pytest.raises(ValueError, match="zero or negative") as info:
            layer(np.ones(shape, "float32"))
        assert not isinstance(info.value, tf.errors.InvalidArgumentError)
    assert layers.Conv2D(2, (2, 3))(np.ones((1, 2, 5, 2), "float32")).shape == (1, 1, 3, 2)
    assert layers.Conv2D(2, 3, padding="same")(np.ones((1, 2, 2, 1), "float32")).shape == (1, 2, 2, 2)


def test_strides_with_dilation_rejected_by_plain_and_transposed_convs_only():
    for make in (lambda: layers.Conv1D(2, 2, strides=2, dilation_rate=2),
                 lambda: layers.Conv2D(2, 2, strides=(2, 1), dilation_rate=(1, 2)),
                 lambda: layers.Conv2DTranspose(2, 2, strides=2, dilation_rate=2)):
        with pytest.raises(ValueError, match="strides > 1"):
            make()
    x = np.ones((1, 7, 7, 2), "float32")
    assert layers.SeparableConv2D(2, 2, strides=2, dilation_rate=2)(x).shape == (1, 3, 3, 2)
    assert layers.DepthwiseConv2D(2, strides=2, dilation_rate=2)(x).shape == (1, 3, 3, 2)
    with pytest.raises(ValueError, match="value > 0"):
        layers.Conv2D(2, 3, strides=0)


def test_integer_inputs_fail_as_in_keras3():
    # Conv2D/Conv2DTranspose cannot convert their float kernel to the input's integer dtype
    # (ValueError); Conv1D and the depthwise convs reach the op (InvalidArgumentError)
    x2 = np.ones((1, 5, 5, 2), np.int32)
    for layer in (layers.Conv2D(2, 3), layers.Conv2DTranspose(2, 3)):
        with pytest.raises(ValueError, match="type conversion") as info:
            layer(x2)
        assert not isinstance(info.value, tf.errors.InvalidArgumentError)
    for layer, x in ((layers.Conv1D(2, 3), np.ones((1, 5, 2), np.int32)),
                     (layers.DepthwiseConv2D(3), x2), (layers.SeparableConv2D(2, 3), x2)):
        with pytest.raises(tf.errors.InvalidArgumentError):
            layer(x)


def test_conv2d_transpose_of_rank_5_raises_index_error():
    with pytest.raises(IndexError, match="rank-4"):
        layers.Conv2DTranspose(2, 2)(np.ones((1, 5, 5, 5, 2), "float32"))
