"""Focal cross-entropies: values against numpy formulas, gradients (float64 finite
differences), options, errors, the Loss classes' configs and reductions, lookup by name, fit()."""
import warnings

import numpy as np
import pytest

import minitf as tf
from minitf.gradient_checker import assert_gradients_close

L = tf.keras.losses
RNG = np.random.default_rng(0)
YB = RNG.integers(0, 2, size=(4, 3)).astype("float64")
PB = RNG.uniform(0.05, 0.95, size=(4, 3))
YC = np.eye(3)[RNG.integers(0, 3, 4)]
PC = RNG.uniform(0.05, 1.0, size=(4, 3))


def _bfce(y, p, balance=False, alpha=0.25, gamma=2.0, logits=False, smoothing=0.0, axis=-1):
    y = y * (1 - smoothing) + 0.5 * smoothing
    p = 1 / (1 + np.exp(-p)) if logits else p
    q = np.clip(p, 1e-7, 1 - 1e-7)
    bce = -(y * np.log(q) + (1 - y) * np.log(1 - q))
    p_t = y * p + (1 - y) * (1 - p)
    out = (1 - p_t) ** gamma * bce
    if balance:
        out = (y * alpha + (1 - y) * (1 - alpha)) * out
    return out.mean(axis)


def _cfce(y, p, alpha=0.25, gamma=2.0, logits=False, smoothing=0.0, axis=-1):
    y = y * (1 - smoothing) + smoothing / y.shape[-1]
    if logits:
        e = np.exp(p - p.max(axis, keepdims=True))
        p = e / e.sum(axis, keepdims=True)
    o = np.clip(p / p.sum(axis, keepdims=True), 1e-7, 1 - 1e-7)
    return (alpha * (1 - o) ** gamma * -y * np.log(o)).sum(axis)


@pytest.mark.parametrize("kwargs", [{}, {"apply_class_balancing": True, "alpha": 0.6}, {"gamma": 0.0},
                                    {"from_logits": True}, {"label_smoothing": 0.2}, {"axis": 0}])
def test_binary_values(kwargs):
    names = {"apply_class_balancing": "balance", "from_logits": "logits", "label_smoothing": "smoothing"}
    ref = _bfce(YB, PB, **{names.get(k, k): v for k, v in kwargs.items()})
    np.testing.assert_allclose(L.binary_focal_crossentropy(YB, PB, **kwargs).numpy(), ref, rtol=1e-10)
    assert tf.keras.metrics.binary_focal_crossentropy is L.binary_focal_crossentropy


def test_gamma_zero_is_binary_crossentropy():
    np.testing.assert_allclose(L.binary_focal_crossentropy(YB, PB, gamma=0.0).numpy(),
                               L.binary_crossentropy(YB, PB).numpy(), rtol=1e-12)


@pytest.mark.parametrize("kwargs", [{}, {"alpha": 1.0, "gamma": 0.0}, {"from_logits": True},
                                    {"label_smoothing": 0.1}, {"axis": 0}])
def test_categorical_values(kwargs):
    names = {"from_logits": "logits", "label_smoothing": "smoothing"}
    ref = _cfce(YC, PC, **{names.get(k, k): v for k, v in kwargs.items()})
    np.testing.assert_allclose(L.categorical_focal_crossentropy(YC, PC, **kwargs).numpy(), ref, rtol=1e-10)
    assert tf.keras.metrics.categorical_focal_crossentropy is L.categorical_focal_crossentropy


@pytest.mark.parametrize("logits", [False, True])
def test_gradients(logits):
    assert_gradients_close(lambda p: L.binary_focal_crossentropy(YB, p, from_logits=logits,
                                                                 apply_class_balancing=True), [PB])
    assert_gradients_close(lambda p: L.categorical_focal_crossentropy(YC, p, from_logits=logits), [PC])


def test_errors_and_warnings():
    with pytest.raises(ValueError, match="binary_focal_crossentropy"):
        L.binary_focal_crossentropy(np.ones((2, 3)), np.ones((2, 2)) * 0.5)
    with pytest.raises(ValueError, match="`axis` must be of type `int`"):
        L.categorical_focal_crossentropy(YC, PC, axis=True)
    with pytest.raises(IndexError, match="categorical_focal_crossentropy"):
        L.categorical_focal_crossentropy(0.0, 0.5)
    with pytest.warns(SyntaxWarning, match="num_classes > 1"):
        L.categorical_focal_crossentropy(np.ones((2, 1)), np.ones((2, 1)) * 0.5)


def test_loss_classes_config_reduction_and_lookup():
    loss = L.BinaryFocalCrossentropy(apply_class_balancing=True, alpha=0.5, gamma=1.0, reduction="sum", name="f")
    assert loss.get_config() == {"name": "f", "reduction": "sum", "apply_class_balancing": True, "alpha": 0.5,
                                 "gamma": 1.0, "from_logits": False, "label_smoothing": 0.0, "axis": -1}  # Keras'
    np.testing.assert_allclose(loss(YB, PB).numpy(), _bfce(YB, PB, True, 0.5, 1.0).sum(), rtol=1e-6)
    again = L.BinaryFocalCrossentropy.from_config(loss.get_config())
    assert again.get_config() == loss.get_config()
    cat = L.CategoricalFocalCrossentropy(gamma=1.0)
    assert cat.name == "categorical_focal_crossentropy"
    np.testing.assert_allclose(cat(YC, PC).numpy(), _cfce(YC, PC, gamma=1.0).mean(), rtol=1e-6)
    assert L.get("binary_focal_crossentropy") is L.binary_focal_crossentropy
    assert isinstance(L.get("CategoricalFocalCrossentropy"), L.CategoricalFocalCrossentropy)


def test_fit_by_name_and_object():
    x = RNG.normal(size=(32, 4)).astype("float32")
    y = np.eye(3, dtype="float32")[RNG.integers(0, 3, 32)]
    model = tf.keras.Sequential([tf.keras.Input((4,)), tf.keras.layers.Dense(3, activation="softmax")])
    model.compile("adam", L.CategoricalFocalCrossentropy())
    history = model.fit(x, y, epochs=3, batch_size=8, verbose=0)
    assert history.history["loss"][-1] < history.history["loss"][0]
    model2 = tf.keras.Sequential([tf.keras.Input((4,)), tf.keras.layers.Dense(3, activation="sigmoid")])
    model2.compile("adam", "binary_focal_crossentropy", metrics=["binary_accuracy"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        logs = model2.evaluate(x, y, verbose=0, return_dict=True)
    np.testing.assert_allclose(logs["loss"], np.mean(_bfce(y.astype("float64"), model2.predict(x, verbose=0)
                                                           .astype("float64"))), rtol=1e-4)
