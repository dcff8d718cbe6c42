"""Ftrl against Keras 3's update formula written in numpy, its argument checks, config and TF."""
import numpy as np
import pytest

import minitf as tf
from minitf.optimizers import Ftrl

RNG = np.random.default_rng(7)
W0 = RNG.normal(size=(4, 3))
GRADS = [RNG.normal(size=(4, 3)) for _ in range(5)]


def ref_ftrl(lr, power=-0.5, init_acc=0.1, l1=0.0, l2=0.0, shrink=0.0, beta=0.0, w0=W0):
    """Keras 3's Ftrl.update_step, step by step in float64."""
    w, n, z = w0.copy(), np.full_like(w0, init_acc), np.zeros_like(w0)
    l2_reg = l2 + beta / (2.0 * lr)
    for g in GRADS:
        n_new = n + g * g
        z = z + (g + 2 * shrink * w - (n_new ** -power - n ** -power) / lr * w)
        quadratic = n_new ** -power / lr + 2 * l2_reg
        w = (np.clip(z, -l1, l1) - z) / quadratic
        n = n_new
    return w, n, z


def run(opt, w0=W0):
    var = tf.Variable(w0)
    for g in GRADS:
        opt.apply_gradients([(tf.constant(g), var)])
    return var, opt


@pytest.mark.parametrize("kwargs", [
    {},
    {"l1_regularization_strength": 0.05},
    {"l2_regularization_strength": 0.3},
    {"l2_shrinkage_regularization_strength": 0.2},
    {"beta": 0.5},
    {"learning_rate_power": -0.7, "initial_accumulator_value": 0.5},
    {"learning_rate_power": 0.0},
    {"l1_regularization_strength": 0.02, "l2_regularization_strength": 0.1,
     "l2_shrinkage_regularization_strength": 0.05, "beta": 0.3, "learning_rate_power": -0.3},
])
def test_ftrl_matches_keras_formula(kwargs):
    lr = 0.25
    var, opt = run(Ftrl(lr, **kwargs))
    keys = {"learning_rate_power": "power", "initial_accumulator_value": "init_acc",
            "l1_regularization_strength": "l1", "l2_regularization_strength": "l2",
            "l2_shrinkage_regularization_strength": "shrink", "beta": "beta"}
    w, n, z = ref_ftrl(lr, **{keys[k]: v for k, v in kwargs.items()})
    np.testing.assert_allclose(var.numpy(), w, rtol=1e-11, atol=1e-14)
    np.testing.assert_allclose(opt.get_slot(var, "accumulator").numpy(), n, rtol=1e-12)
    np.testing.assert_allclose(opt.get_slot(var, "linear").numpy(), z, rtol=1e-11, atol=1e-14)


def test_l1_drives_small_weights_to_exact_zero():
    var, _ = run(Ftrl(0.25, l1_regularization_strength=50.0))
    assert np.all(var.numpy() == 0.0)


def test_slots_and_initial_accumulator():
    var = tf.Variable(np.ones((2, 3), np.float32))
    opt = Ftrl(initial_accumulator_value=0.3)
    opt.build([var])
    acc, lin = opt.get_slot(var, "accumulator"), opt.get_slot(var, "linear")
    np.testing.assert_array_equal(acc.numpy(), np.full((2, 3), 0.3, np.float32))
    np.testing.assert_array_equal(lin.numpy(), np.zeros((2, 3), np.float32))
    assert acc.dtype == tf.float32 and opt.get_slot_names() == ["accumulator", "linear"]


def test_float32_variable_stays_float32_and_close_to_float64():
    var32 = tf.Variable(W0.astype(np.float32))
    opt = Ftrl(0.25, l1_regularization_strength=0.01, beta=0.2)
    for g in GRADS:
        opt.apply_gradients([(tf.constant(g.astype(np.float32)), var32)])
    assert var32.dtype == tf.float32
    w, _, _ = ref_ftrl(0.25, l1=0.01, beta=0.2)
    np.testing.assert_allclose(var32.numpy(), w, rtol=2e-5, atol=1e-6)


@pytest.mark.parametrize("kwargs,name", [
    ({"initial_accumulator_value": -0.1}, "initial_accumulator_value"),
    ({"learning_rate_power": 0.5}, "learning_rate_power"),
    ({"l1_regularization_strength": -1.0}, "l1_regularization_strength"),
    ({"l2_regularization_strength": -1.0}, "l2_regularization_strength"),
    ({"l2_shrinkage_regularization_strength": -1.0}, "l2_shrinkage_regularization_strength"),
])
def test_invalid_arguments_raise_value_error(kwargs, name):
    with pytest.raises(ValueError, match=f"`{name}` needs to be .*Received: {name}="):
        Ftrl(**kwargs)


def test_defaults_config_round_trip_and_get():
    opt = Ftrl()
    assert (opt.learning_rate_power, opt.initial_accumulator_value, opt.beta,
            opt.l1_regularization_strength, opt.l2_regularization_strength,
            opt.l2_shrinkage_regularization_strength) == (-0.5, 0.1, 0.0, 0.0, 0.0, 0.0)
    assert opt.get_config()["learning_rate"] == pytest.approx(0.001)
    assert opt.name == "ftrl" or opt.name.startswith("ftrl_")  # Keras' auto_name
    opt = Ftrl(0.5, learning_rate_power=-0.25, l1_regularization_strength=0.1, beta=0.2,
               l2_shrinkage_regularization_strength=0.3, clipnorm=1.5)
    again = Ftrl.from_config(opt.get_config())
    for key, value in opt.get_config().items():
        assert again.get_config()[key] == value, key
    restored = tf.keras.optimizers.deserialize(tf.keras.optimizers.serialize(opt))
    assert isinstance(restored, Ftrl) and restored.beta == 0.2
    assert isinstance(tf.keras.optimizers.get("ftrl"), Ftrl)
    assert isinstance(tf.keras.optimizers.get("Ftrl"), Ftrl)


def test_untouched_rows_follow_the_dense_formula():
    """A zero-gradient row is recomputed from (linear, accumulator): on step one it becomes 0."""
    var = tf.Variable(np.ones((3, 2)))
    grad = tf.IndexedSlices(tf.constant([[1.0, 2.0]]), tf.constant([1]), tf.constant([3, 2]))
    Ftrl(0.1).apply_gradients([(grad, var)])
    np.testing.assert_array_equal(var.numpy()[[0, 2]], 0.0)
    assert np.all(var.numpy()[1] != 0.0)


@pytest.mark.parametrize("kwargs", [
    {},
    {"l1_regularization_strength": 0.05, "l2_regularization_strength": 0.1,
     "l2_shrinkage_regularization_strength": 0.05, "beta": 0.3, "learning_rate_power": -0.3},
])
def test_agrees_with_tensorflow(kwargs):
    ref = pytest.importorskip("tensorflow")
    ref_var = ref.Variable(W0.copy())
    ref_opt = ref.keras.optimizers.Ftrl(0.25, **kwargs)
    for g in GRADS:
        ref_opt.apply_gradients([(ref.constant(g), ref_var)])
    var, _ = run(Ftrl(0.25, **kwargs))
    np.testing.assert_allclose(var.numpy(), ref_var.numpy(), rtol=1e-6, atol=1e-7)
