"""Identity and ActivityRegularization."""
import numpy as np
import pytest

import minitf as tf

layers = tf.keras.layers


def test_identity_returns_any_structure_unchanged():
    x = tf.constant([[1.0, -2.0]])
    assert layers.Identity()(x) is x or np.array_equal(layers.Identity()(x).numpy(), x.numpy())
    pair = layers.Identity()([x, 2 * x])
    np.testing.assert_array_equal(pair[1].numpy(), [[2.0, -4.0]])
    assert layers.Identity().compute_output_shape((None, 3)) == (None, 3)


def test_identity_in_a_model_passes_masks_and_round_trips(tmp_path):
    inputs = tf.keras.Input((3, 1))
    out = layers.Identity(name="same")(layers.Masking()(inputs))
    assert out._keras_mask is not None
    model = tf.keras.Model(inputs, out)
    model.save(tmp_path / "m.keras")
    loaded = tf.keras.models.load_model(tmp_path / "m.keras")
    assert type(loaded.get_layer("same")) is layers.Identity
    x = np.array([[[1.0], [0.0], [3.0]]], np.float32)
    np.testing.assert_array_equal(loaded(x).numpy(), x)


def test_activity_regularization_adds_the_penalty_over_the_batch():
    layer = layers.ActivityRegularization(l1=0.1, l2=0.5)
    x = np.array([[1.0, -2.0], [3.0, 0.0]], np.float32)
    np.testing.assert_array_equal(layer(x).numpy(), x)
    assert len(layer.losses) == 1
    expected = (0.1 * 6.0 + 0.5 * 14.0) / 2
    assert layer.losses[0].numpy() == pytest.approx(expected)


def test_activity_regularization_on_a_scalar_is_not_divided():
    layer = layers.ActivityRegularization(l2=2.0)
    layer(tf.constant(3.0))
    assert layer.losses[0].numpy() == pytest.approx(18.0)


def test_activity_regularization_gradient_reaches_the_inputs():
    x = tf.constant([[1.0, -2.0]])
    layer = layers.ActivityRegularization(l1=0.5, l2=0.25)
    with tf.GradientTape() as tape:
        tape.watch(x)
        layer(x)
        loss = tf.add_n(layer.losses)
    np.testing.assert_allclose(tape.gradient(loss, x).numpy(), [[0.5 + 0.5, -0.5 - 1.0]])


def test_activity_regularization_config_round_trip_and_fit(tmp_path):
    layer = layers.ActivityRegularization(l1=0.01, l2=0.02)
    config = layer.get_config()
    assert config["l1"] == 0.01 and config["l2"] == 0.02 and "activity_regularizer" not in config
    assert layers.ActivityRegularization.from_config(config).get_config() == config
    model = tf.keras.Sequential([tf.keras.Input((2,)), layers.Dense(1), layer])
    model.compile("sgd", "mse")
    model.fit(np.ones((4, 2), np.float32), np.ones((4, 1), np.float32), verbose=0)
    model.save(tmp_path / "m.keras")
    again = tf.keras.models.load_model(tmp_path / "m.keras")
    assert again.layers[-1].get_config()["l2"] == 0.02


def test_built_at_construction():
    assert layers.Identity().built and layers.ActivityRegularization().built
