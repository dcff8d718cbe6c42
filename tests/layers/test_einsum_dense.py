"""EinsumDense: kernel and bias shapes for Keras' three equation forms, fan-aware initializers,
configs, errors, and float64 finite-difference gradients."""
import numpy as np
import pytest

import minitf as tf
from minitf import layers
from minitf.gradient_checker import assert_gradients_close
from minitf.layers.einsum_dense import analyze_equation


def f64(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape)


@pytest.mark.parametrize("equation,output_shape,bias_axes,input_shape,kernel,bias,out", [
    ("ab,bc->ac", 64, "c", (None, 32), [32, 64], [64], [None, 64]),
    ("abc,cd->abd", (None, 64), "d", (None, 32, 128), [128, 64], [64], [None, None, 64]),
    ("...b,bc->...c", 64, "c", (None, 32, 128), [128, 64], [64], [None, 32, 64]),
    ("abc,cde->abde", (None, 2, 3), "de", (None, 5, 8), [8, 2, 3], [2, 3], [None, None, 2, 3]),
    ("abcd,cde->abe", (None, 8), "e", (None, 5, 2, 3), [2, 3, 8], [8], [None, None, 8]),
    ("ab...,bc->ac...", 6, "c", (None, 3, 2), [3, 6], [6, 1], [None, 6, 2]),
    ("abc,cd->abd", (4, 5), "b", (None, 4, 7), [7, 5], [4, 1], [None, 4, 5]),
])
def test_shapes_match_keras(equation, output_shape, bias_axes, input_shape, kernel, bias, out):
    got = analyze_equation(equation, bias_axes, input_shape, output_shape)
    assert (got[0], got[1], got[2]) == (kernel, bias, out)


def test_layer_computes_the_einsum_plus_bias_and_activation():
    layer = layers.EinsumDense("abc,cde->abde", output_shape=(None, 2, 3), bias_axes="de",
                               activation="tanh", dtype="float64")
    x = f64(4, 5, 6)
    y = layer(x).numpy()
    k, b = layer.kernel.numpy(), layer.bias.numpy()
    assert k.shape == (6, 2, 3) and b.shape == (2, 3)
    np.testing.assert_allclose(y, np.tanh(np.einsum("abc,cde->abde", x, k) + b), rtol=1e-12)
    assert layer.compute_output_shape((None, 5, 6)) == tf.TensorShape([None, None, 2, 3])


def test_kernel_initializer_gets_the_kernel_fans():
    """A [dim, heads, size] kernel is scaled like a [dim, heads * size] Dense kernel (as Keras)."""
    layer = layers.EinsumDense("abc,cde->abde", output_shape=(None, 64, 64), kernel_initializer="glorot_uniform")
    layer.build((None, 5, 64))
    limit = np.sqrt(6.0 / (64 + 64 * 64))
    k = layer.kernel.numpy()
    assert np.abs(k).max() <= limit and np.abs(k).max() > 0.9 * limit
    assert layer.get_config()["kernel_initializer"]["config"]["input_axes"] is None


def test_no_bias_config_round_trip_and_regularizers():
    layer = layers.EinsumDense("ab,bc->ac", 3, kernel_regularizer="l2", activity_regularizer="l1", name="ed")
    config = layer.get_config()
    assert config["bias_axes"] is None and config["output_shape"] == (3,) and config["activation"] == "linear"
    clone = layers.EinsumDense.from_config(config)
    assert clone.get_config() == config
    layer(np.ones((2, 4), "float32"))
    assert layer.bias is None and len(layer.weights) == 1 and len(layer.losses) == 2


@pytest.mark.parametrize("kwargs,shape,match", [
    ({"equation": "a,b,c->d", "output_shape": 2}, (None, 3), "invalid einsum equation"),
    ({"equation": "ab,bc->ac", "output_shape": 2, "bias_axes": "x"}, (None, 3), "(?i)bias dimension 'x'"),
    ({"equation": "ab,bc->acz", "output_shape": (2, 2)}, (None, 3), "(?i)dimension 'z' was specified"),
    ({"equation": "ab,bcz->ac", "output_shape": 2}, (None, 3), "(?i)weight dimension 'z'"),
    ({"equation": "abc,cd->abd", "output_shape": (5, 2)}, (None, 4, 3), "do not match"),
])
def test_bad_equations_are_value_errors(kwargs, shape, match):
    with pytest.raises(ValueError, match=match):
        layers.EinsumDense(**kwargs).build(shape)


def test_lora_and_quantization_are_refused():
    with pytest.raises(NotImplementedError, match="lora_rank"):
        layers.EinsumDense("ab,bc->ac", 2, lora_rank=2)
    with pytest.raises(NotImplementedError, match="quantization_config"):
        layers.EinsumDense("ab,bc->ac", 2, quantization_config={"mode": "int8"})


@pytest.mark.parametrize("equation,output_shape,bias_axes,shape", [
    ("abc,cde->abde", (None, 2, 3), "de", (2, 3, 4)),
    ("...b,bc->...c", 3, "c", (2, 3, 4)),
    ("ab...,bc->ac...", 3, "c", (2, 4, 2)),
])
def test_gradients(equation, output_shape, bias_axes, shape, weight_grads_close):
    layer = layers.EinsumDense(equation, output_shape, bias_axes=bias_axes, activation="tanh", dtype="float64")
    x = f64(*shape)
    layer(x)
    assert_gradients_close(lambda t: layer(t), [x])
    weight_grads_close(layer, tf.constant(x))
