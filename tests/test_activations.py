"""Keras activations: values against numpy formulas, float64 gradient checks, lookup by name."""
import math

import numpy as np
import pytest

import minitf as tf
from minitf.gradient_checker import assert_gradients_close
from minitf.activations import activations



X = np.array([-3.1, -1.2, -0.4, 0.3, 0.9, 2.5, 7.2])
X2 = np.array([[-2.3, 0.4, 1.7], [0.2, -0.6, 3.1]])


def _sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


_erf = np.vectorize(math.erf)
ALPHA, SCALE = 1.6732632423543772848170429916717, 1.0507009873554804934193349852946

REFERENCE = {
    "relu": lambda x: np.maximum(x, 0),
    "sigmoid": _sigmoid,
    "tanh": np.tanh,
    "linear": lambda x: x,
    "elu": lambda x: np.where(x > 0, x, np.exp(x) - 1),
    "selu": lambda x: SCALE * np.where(x > 0, x, ALPHA * (np.exp(x) - 1)),
    "softplus": lambda x: np.log1p(np.exp(x)),
    "softsign": lambda x: x / (np.abs(x) + 1),
    "swish": lambda x: x * _sigmoid(x),
    "silu": lambda x: x * _sigmoid(x),
    "gelu": lambda x: 0.5 * x * (1 + _erf(x / np.sqrt(2))),
    "leaky_relu": lambda x: np.where(x >= 0, x, 0.2 * x),
    "exponential": np.exp,
    "hard_sigmoid": lambda x: np.clip(x + 3, 0, 6) / 6,
    "relu6": lambda x: np.clip(x, 0, 6),
    "softmax": lambda x: np.exp(x) / np.exp(x).sum(-1, keepdims=True),
    "log_softmax": lambda x: x - np.log(np.exp(x).sum(-1, keepdims=True)),
    "mish": lambda x: x * np.tanh(np.log1p(np.exp(x))),
    "hard_silu": lambda x: x * np.clip(x + 3, 0, 6) / 6,
}
SMOOTH = ["sigmoid", "tanh", "elu", "selu", "softplus", "swish", "gelu", "exponential",
          "softmax", "log_softmax", "mish", "linear"]
KINKED = ["relu", "softsign", "leaky_relu", "hard_sigmoid", "relu6", "hard_silu"]


@pytest.mark.parametrize("name", sorted(REFERENCE))
@pytest.mark.parametrize("x", [X, X2], ids=["vector", "matrix"])
def test_values_match_numpy(name, x):
    fn = activations.get(name)
    got = fn(tf.constant(x))
    np.testing.assert_allclose(np.asarray(got), REFERENCE[name](x), rtol=1e-6, atol=1e-12)


@pytest.mark.parametrize("name", sorted(REFERENCE))
def test_float32_stays_float32(name):
    got = activations.get(name)(tf.constant(X2, dtype=tf.float32))
    assert got.dtype == tf.float32
    np.testing.assert_allclose(np.asarray(got), REFERENCE[name](X2), rtol=2e-5, atol=1e-6)


@pytest.mark.parametrize("name", SMOOTH)
def test_gradients_second_order(name):
    fn = activations.get(name)
    for x in (X2, X[:4]):
        assert_gradients_close(fn, [tf.constant(x)], order=2)


@pytest.mark.parametrize("name", KINKED)
def test_gradients_away_from_kinks(name):
    # points stay clear of 0, -3, 3 and 6 where the derivative jumps
    x = np.array([[-4.2, -1.3, 0.7], [2.2, 4.5, 7.1]])
    assert_gradients_close(activations.get(name), [tf.constant(x)])


def test_scalar_input():
    np.testing.assert_allclose(float(activations.elu(tf.constant(-1.5, tf.float64))), np.exp(-1.5) - 1)
    assert_gradients_close(activations.gelu, [tf.constant(0.7, tf.float64)], order=2)


def test_relu_options():
    x = tf.constant(X)
    np.testing.assert_allclose(np.asarray(activations.relu(x, max_value=2.0)), np.clip(X, 0, 2))
    np.testing.assert_allclose(np.asarray(activations.relu(x, negative_slope=0.1)),
                               np.where(X > 0, X, 0.1 * X))
    np.testing.assert_allclose(np.asarray(activations.relu(x, threshold=1.0)), np.where(X > 1, X, 0))
    expected = np.where(X > 1.0, X, 0.0)
    expected = np.minimum(expected, 5.0) - 0.5 * np.maximum(1.0 - X, 0)
    np.testing.assert_allclose(
        np.asarray(activations.relu(x, negative_slope=0.5, max_value=5.0, threshold=1.0)), expected)
    assert_gradients_close(lambda t: activations.relu(t, negative_slope=0.3, max_value=4.0),
                           [tf.constant(np.array([-2.1, 0.5, 3.3, 6.0]))])


def test_elu_alpha_and_gelu_approximate():
    np.testing.assert_allclose(np.asarray(activations.elu(tf.constant(X), alpha=0.5)),
                               np.where(X > 0, X, 0.5 * (np.exp(X) - 1)))
    c = np.sqrt(2 / np.pi)
    np.testing.assert_allclose(np.asarray(activations.gelu(tf.constant(X), approximate=True)),
                               0.5 * X * (1 + np.tanh(c * (X + 0.044715 * X ** 3))), rtol=1e-12)
    assert_gradients_close(lambda t: activations.gelu(t, approximate=True), [tf.constant(X2)], order=2)


def test_softmax_axis_and_stability():
    big = np.array([[1000.0, 1001.0, 1002.0]])
    got = np.asarray(activations.softmax(tf.constant(big)))
    shifted = np.exp(big - big.max())
    np.testing.assert_allclose(got, shifted / shifted.sum(), rtol=1e-12)
    got0 = np.asarray(activations.softmax(tf.constant(X2), axis=0))
    np.testing.assert_allclose(got0, np.exp(X2) / np.exp(X2).sum(0, keepdims=True), rtol=1e-12)
    assert np.isfinite(np.asarray(activations.log_softmax(tf.constant(big)))).all()
    assert_gradients_close(lambda t: activations.softmax(t, axis=0), [tf.constant(X2)], order=2)


def test_relu_keeps_integer_dtype():
    # Keras 3 does not cast: relu/relu6 (and their options) stay in the input's integer dtype
    x = tf.constant([-3, 0, 2, 9])
    for out, want in [(activations.relu(x), [0, 0, 2, 9]), (activations.relu6(x), [0, 0, 2, 6]),
                      (activations.relu(x, max_value=5.5), [0, 0, 2, 5]),
                      (activations.relu(x, max_value=6), [0, 0, 2, 6]),
                      (activations.relu(x, threshold=1.5), [0, 0, 2, 9]),
                      (activations.relu(x, max_value=5, threshold=1), [0, 0, 2, 5]),
                      (activations.relu([-3, 0, 2, 9]), [0, 0, 2, 9])]:
        assert out.dtype == tf.int32
        np.testing.assert_array_equal(np.asarray(out), want)
    assert activations.relu(tf.constant([-3, 5], tf.int64)).dtype == tf.int64
    assert activations.relu(tf.constant([7], tf.uint8)).dtype == tf.uint8
    with pytest.raises(TypeError, match="0.5"):
        activations.relu(x, negative_slope=0.5, max_value=5)
    with pytest.raises(tf.errors.InvalidArgumentError):
        activations.relu(tf.constant([True]))


def test_integer_input_to_float_kernels_raises_like_keras():
    x = tf.constant([[-3, 0, 2, 7]])
    for name in ["sigmoid", "silu", "swish", "elu", "selu", "softplus", "softsign", "mish",
                 "softmax", "log_softmax"]:
        with pytest.raises(tf.errors.InvalidArgumentError):
            activations.get(name)(x)
    with pytest.raises(tf.errors.InvalidArgumentError):
        activations.elu(x, alpha=0.5)
    with pytest.raises(tf.errors.InvalidArgumentError):
        activations.softmax(x, axis=None)
    with pytest.raises(tf.errors.InvalidArgumentError):
        activations.log_softmax(x, axis=(0, 1))
    with pytest.raises(ValueError, match="floating point"):
        activations.gelu(x)
    for fn in (activations.hard_sigmoid, activations.hard_silu, activations.hard_swish):
        with pytest.raises(TypeError, match="3.0"):
            fn(x)


def test_integer_input_cast_where_tf_casts():
    # TF's tanh/exp/leaky_relu ops turn integers into float32
    x = tf.constant([-3, 0, 2])
    for fn in (activations.tanh, activations.exponential, activations.leaky_relu):
        assert fn(x).dtype == tf.float32
    assert activations.relu(x, negative_slope=0.5).dtype == tf.float32
    assert activations.linear(x).dtype == tf.int32


def test_softmax_of_scalar_raises_like_tf():
    x = tf.constant(2.0)
    # Keras 3 (TF 2.21) raises InvalidArgumentError for every float dtype, where the eager
    # tf.nn.softmax kernel of float32 raises AbortedError
    with pytest.raises(tf.errors.InvalidArgumentError):
        activations.softmax(x)
    with pytest.raises(tf.errors.InvalidArgumentError):
        activations.log_softmax(x)
    with pytest.raises(tf.errors.InvalidArgumentError):  # float64 has no oneDNN kernel in TF
        activations.softmax(tf.constant(2.0, tf.float64))
    for fn in (activations.softmax, activations.log_softmax):
        with pytest.raises(tf.errors.InvalidArgumentError):
            fn(x, axis=0)
        with pytest.raises(ValueError, match="out of bounds") as info:
            fn(x, axis=(0,))
        assert not isinstance(info.value, IndexError)  # not numpy's AxisError
        # axis=None flattens: a scalar gives 1 (softmax) / 0 (log_softmax), as Keras
        assert float(fn(x, axis=None)) == (1.0 if fn is activations.softmax else 0.0)


def test_softmax_over_several_axes():
    got = np.asarray(activations.softmax(tf.constant(X2), axis=(0, 1)))
    np.testing.assert_allclose(got, np.exp(X2) / np.exp(X2).sum(), rtol=1e-12)
    got = np.asarray(activations.log_softmax(tf.constant(X2), axis=(-1,)))
    np.testing.assert_allclose(got, X2 - np.log(np.exp(X2).sum(-1, keepdims=True)), rtol=1e-12)


def test_serialize_gives_keras_3_names_for_aliases():
    assert activations.serialize(activations.silu) == "silu"
    assert activations.serialize(activations.swish) == "silu"
    assert activations.serialize(activations.hard_silu) == "hard_silu"
    assert activations.serialize(activations.hard_swish) == "hard_silu"
    assert activations.deserialize("swish") is activations.silu


def test_get_and_serialize():
    assert activations.get(None) is activations.linear
    assert activations.get("relu") is activations.relu
    assert activations.get(activations.tanh) is activations.tanh
    custom = lambda x: x * 2  # noqa: E731
    assert activations.get(custom) is custom
    assert activations.serialize(activations.gelu) == "gelu"
    assert activations.deserialize("softsign") is activations.softsign
    assert activations.deserialize({"class_name": "function", "config": "selu"}) is activations.selu
    with pytest.raises(ValueError, match="no_such"):
        activations.get("no_such")
    with pytest.raises(ValueError):
        activations.get(3)
    with pytest.raises(ValueError):
        activations.serialize(custom)


def test_compare_with_tensorflow():
    real_tf = pytest.importorskip("tensorflow")
    for name in ["relu", "elu", "selu", "gelu", "softplus", "softsign", "silu", "softmax", "hard_sigmoid"]:
        want = real_tf.keras.activations.get(name)(real_tf.constant(X2)).numpy()
        np.testing.assert_allclose(np.asarray(activations.get(name)(tf.constant(X2))), want, rtol=1e-6)


def test_softmax_axis_list_is_a_type_error_as_in_keras():
    x = tf.ones([2, 2, 3])
    for fn in (tf.keras.activations.softmax, tf.keras.activations.log_softmax):
        with pytest.raises(TypeError, match="tuple"):
            fn(x, axis=[0, 1])
        assert fn(x, axis=(0, 1)).shape == (2, 2, 3)
