"""keras.activations celu, glu, hard_shrink, hard_tanh, log_sigmoid, soft_shrink, sparse_plus,
sparse_sigmoid, sparsemax, squareplus, tanh_shrink, threshold: values against numpy formulas,
gradients (float64 finite differences), lookup by name and use in a layer."""
import numpy as np
import pytest

import minitf as tf
from minitf.gradient_checker import assert_gradients_close

A = tf.keras.activations
X = np.array([[-3.0, -1.0, -0.4, 0.0], [0.3, 0.7, 1.0, 2.5]])
XS = np.array([[-3.0, -1.2, -0.4, 0.1], [0.3, 0.7, 1.3, 2.5]])  # away from the kinks


def _sparsemax(x):
    z = np.sort(x, -1)[..., ::-1]
    k = np.arange(1, x.shape[-1] + 1)
    cs = np.cumsum(z, -1)
    support = (1 + k * z) > cs
    kz = support.sum(-1, keepdims=True)
    tau = (np.take_along_axis(cs, kz - 1, -1) - 1) / kz
    return np.maximum(x - tau, 0)


REFS = {
    "celu": (lambda x: np.maximum(x, 0) + np.expm1(np.minimum(x, 0))),
    "hard_shrink": (lambda x: np.where(np.abs(x) > 0.5, x, 0)),
    "hard_tanh": (lambda x: np.clip(x, -1, 1)),
    "log_sigmoid": (lambda x: -np.logaddexp(0, -x)),
    "soft_shrink": (lambda x: np.where(x > 0.5, x - 0.5, np.where(x < -0.5, x + 0.5, 0))),
    "sparse_plus": (lambda x: np.where(x <= -1, 0, np.where(x >= 1, x, (x + 1) ** 2 / 4))),
    "sparse_sigmoid": (lambda x: np.clip((x + 1) / 2, 0, 1)),
    "squareplus": (lambda x: (x + np.sqrt(x * x + 4)) / 2),
    "tanh_shrink": (lambda x: x - np.tanh(x)),
    "sparsemax": _sparsemax,
}


@pytest.mark.parametrize("name", sorted(REFS))
def test_values_and_lookup(name):
    fn = getattr(A, name)
    np.testing.assert_allclose(fn(X).numpy(), REFS[name](X), rtol=1e-12, atol=1e-15)
    assert A.get(name) is fn
    assert A.serialize(fn) == name
    assert fn is not getattr(tf.keras.ops, name)  # Keras' own functions, as in TF


def test_arguments():
    np.testing.assert_allclose(A.celu(X, alpha=2.0).numpy(), np.maximum(X, 0) + 2 * np.expm1(np.minimum(X, 0) / 2))
    np.testing.assert_allclose(A.hard_shrink(X, threshold=1.0).numpy(), np.where(np.abs(X) > 1, X, 0))
    np.testing.assert_allclose(A.soft_shrink(X, threshold=0.0).numpy(), X)
    np.testing.assert_allclose(A.squareplus(X, b=0).numpy(), np.maximum(X, 0))
    np.testing.assert_allclose(A.threshold(X, 0.5, -2.0).numpy(), np.where(X > 0.5, X, -2.0))
    a, b = X[:, :2], X[:, 2:]
    np.testing.assert_allclose(A.glu(X).numpy(), a / (1 + np.exp(-b)), rtol=1e-12)
    np.testing.assert_allclose(A.glu(X, axis=0).numpy(), X[:1] / (1 + np.exp(-X[1:])), rtol=1e-12)
    np.testing.assert_allclose(A.sparsemax(X, axis=0).numpy(), _sparsemax(X.T).T, rtol=1e-12)
    np.testing.assert_allclose(A.sparsemax(X).numpy().sum(-1), [1.0, 1.0])


def test_errors():
    with pytest.raises(ValueError, match="divisible by 2"):
        A.glu(np.ones((2, 3)))


@pytest.mark.parametrize("name", ["celu", "log_sigmoid", "sparse_plus", "sparse_sigmoid", "squareplus",
                                  "tanh_shrink", "soft_shrink", "hard_shrink", "hard_tanh", "glu", "sparsemax"])
def test_gradients(name):
    assert_gradients_close(getattr(A, name), [XS])


def test_threshold_gradient():
    assert_gradients_close(lambda x: A.threshold(x, 0.5, -2.0), [XS])


def test_in_a_layer_by_name():
    layer = tf.keras.layers.Dense(3, activation="squareplus")
    x = np.random.default_rng(0).normal(size=(2, 4)).astype("float32")
    y = layer(x)
    np.testing.assert_allclose(y.numpy(), A.squareplus(x @ layer.kernel.numpy() + layer.bias.numpy()).numpy(),
                               rtol=1e-6)
    assert layer.get_config()["activation"] == "squareplus"
