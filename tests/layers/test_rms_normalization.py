"""RMSNormalization."""
import numpy as np
import pytest

import minitf as tf

layers = tf.keras.layers


def test_divides_by_the_root_mean_square_and_scales():
    x = np.array([[3.0, 4.0], [1.0, -1.0]], np.float32)
    layer = layers.RMSNormalization(epsilon=0.0)
    y = layer(x).numpy()
    np.testing.assert_allclose(y, x / np.sqrt((x ** 2).mean(-1, keepdims=True)), rtol=1e-6)
    assert [w.name for w in layer.weights] == ["scale"] and layer.scale.shape == (2,)
    layer.scale.assign([2.0, 0.5])
    np.testing.assert_allclose(layer(x).numpy(), y * [2.0, 0.5], rtol=1e-6)


def test_several_axes_sorted_at_build_and_config():
    layer = layers.RMSNormalization(axis=(2, 1))
    assert layer.get_config()["axis"] == (2, 1) and not layer.built
    x = np.random.default_rng(0).standard_normal((2, 3, 4)).astype(np.float32)
    y = layer(x).numpy()
    assert layer.axis == [1, 2] and layer.scale.shape == (3, 4)
    np.testing.assert_allclose(y, x / np.sqrt((x ** 2).mean((1, 2), keepdims=True) + 1e-6), rtol=1e-5)
    assert layers.RMSNormalization.from_config(layer.get_config()).get_config()["axis"] == [1, 2]


def test_gradient_matches_finite_differences():
    from minitf.gradient_checker import assert_gradients_close
    x = tf.constant(np.random.default_rng(1).standard_normal((2, 5)))
    layer = layers.RMSNormalization(dtype="float64")
    layer.build((2, 5))
    layer.scale.assign(np.linspace(0.5, 1.5, 5))
    assert_gradients_close(lambda t: layer(t), [x])


def test_axis_out_of_range_and_file_round_trip(tmp_path):
    with pytest.raises(ValueError, match="out of bounds"):
        layers.RMSNormalization(axis=3).compute_output_shape((2, 3))
    model = tf.keras.Sequential([tf.keras.Input((3, 4)), layers.RMSNormalization()])
    model.layers[0].scale.assign(np.arange(1, 5, dtype=np.float32))
    x = np.random.default_rng(2).standard_normal((2, 3, 4)).astype(np.float32)
    model.save(tmp_path / "m.keras")
    loaded = tf.keras.models.load_model(tmp_path / "m.keras")
    np.testing.assert_allclose(loaded(x).numpy(), model(x).numpy(), rtol=1e-6)
