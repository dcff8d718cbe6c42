"""ThresholdedReLU (TF 2.21's legacy class)."""
import numpy as np
import pytest

import minitf as tf

layers = tf.keras.layers


def test_keeps_values_strictly_above_theta():
    x = np.array([-1.0, 0.0, 0.5, 1.0, 1.5], np.float32)
    np.testing.assert_array_equal(layers.ThresholdedReLU()(x).numpy(), [0, 0, 0, 0, 1.5])
    np.testing.assert_array_equal(layers.ThresholdedReLU(0.5)(x).numpy(), [0, 0, 0, 1.0, 1.5])
    assert layers.ThresholdedReLU(0.0)(np.array([0.0, 2.0], np.float32)).numpy().tolist() == [0, 2]


def test_bad_theta_and_config():
    with pytest.raises(ValueError, match="cannot be None"):
        layers.ThresholdedReLU(None)
    with pytest.raises(ValueError, match=">=0"):
        layers.ThresholdedReLU(-0.5)
    layer = layers.ThresholdedReLU(2)
    assert layer.get_config()["theta"] == 2.0 and isinstance(layer.get_config()["theta"], float)
    assert layers.serialize(layer)["module"] == "keras._legacy.layers"
    assert not layer.built  # the legacy class is not built at construction


def test_gradient_passes_above_theta_only_and_round_trip(tmp_path):
    x = tf.constant([0.5, 1.5, 3.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(layers.ThresholdedReLU(1.0)(x))
    np.testing.assert_array_equal(tape.gradient(y, x).numpy(), [0, 1, 1])
    model = tf.keras.Sequential([tf.keras.Input((3,)), layers.ThresholdedReLU(1.0)])
    model.save(tmp_path / "m.keras")
    loaded = tf.keras.models.load_model(tmp_path / "m.keras")
    assert type(loaded.layers[0]) is layers.ThresholdedReLU
    assert loaded.layers[0].get_config()["theta"] == 1.0
