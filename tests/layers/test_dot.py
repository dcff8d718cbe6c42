"""The Dot merge layer and `keras.layers.dot`."""
import numpy as np
import pytest

import minitf as tf

layers = tf.keras.layers


def test_dot_of_sequences_along_chosen_axes():
    x = np.arange(10, dtype=np.float32).reshape(1, 5, 2)
    y = np.arange(10, 20, dtype=np.float32).reshape(1, 2, 5)
    out = layers.Dot(axes=(1, 2))([x, y]).numpy()
    np.testing.assert_array_equal(out, np.einsum("bij,bki->bjk", x, y))
    np.testing.assert_array_equal(out, [[[260.0, 360.0], [320.0, 445.0]]])


def test_dot_of_vectors_keeps_a_trailing_axis_and_normalize_gives_cosines():
    a = np.array([[1.0, 0.0], [3.0, 4.0]], np.float32)
    b = np.array([[1.0, 1.0], [3.0, 4.0]], np.float32)
    np.testing.assert_allclose(layers.dot([a, b], axes=1).numpy(), [[1.0], [25.0]])
    np.testing.assert_allclose(layers.Dot(axes=-1, normalize=True)([a, b]).numpy(),
                               [[1 / np.sqrt(2)], [1.0]], rtol=1e-6)


def test_dot_gradient_matches_finite_differences():
    from minitf.gradient_checker import assert_gradients_close
    rng = np.random.default_rng(0)
    x = tf.constant(rng.standard_normal((2, 3, 4)))
    y = tf.constant(rng.standard_normal((2, 4, 5)))
    assert_gradients_close(lambda a, b: layers.Dot(axes=(2, 1), dtype="float64")([a, b]), [x, y])
    assert_gradients_close(lambda a, b: layers.Dot(axes=(2, 1), normalize=True, dtype="float64")([a, b]), [x, y])


def test_dot_errors():
    with pytest.raises(TypeError, match="axes"):
        layers.Dot(axes="1")
    with pytest.raises(ValueError, match="two elements"):
        layers.Dot(axes=(1, 2, 3))
    with pytest.raises(ValueError, match="Incompatible input shapes"):
        layers.Dot(axes=1)([np.ones((2, 3), np.float32), np.ones((2, 4), np.float32)])
    with pytest.raises(ValueError, match="list of 2 inputs"):
        layers.Dot(axes=1)([np.ones((2, 3), np.float32)] * 3)
    with pytest.raises(ValueError, match="axis 0"):
        layers.Dot(axes=0)([np.ones((2, 3), np.float32)] * 2)


def test_dot_in_a_functional_model_drops_masks_and_round_trips(tmp_path):
    a, b = tf.keras.Input((3, 4)), tf.keras.Input((5, 4))
    out = layers.Dot(axes=2, name="d")([layers.Masking()(a), b])
    assert out.shape == (None, 3, 5)
    assert getattr(out, "_keras_mask", None) is None
    model = tf.keras.Model([a, b], out)
    xa = np.random.default_rng(1).standard_normal((2, 3, 4)).astype(np.float32)
    xb = np.random.default_rng(2).standard_normal((2, 5, 4)).astype(np.float32)
    expected = model([xa, xb]).numpy()
    model.save(tmp_path / "m.keras")
    loaded = tf.keras.models.load_model(tmp_path / "m.keras")
    assert loaded.get_layer("d").get_config()["axes"] == 2
    np.testing.assert_allclose(loaded([xa, xb]).numpy(), expected, rtol=1e-6)


def test_compute_output_shape_and_lazy_build():
    layer = layers.Dot(axes=(1, 2))
    assert not layer.built
    assert layer.compute_output_shape([(None, 3, 5), (None, 10, 3)]).as_list() == [None, 5, 10]
    assert layers.Dot(axes=1).compute_output_shape([(None, 3), (None, 3)]).as_list() == [None, 1]
