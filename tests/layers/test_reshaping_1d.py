"""Cropping1D, UpSampling1D, ZeroPadding1D."""
import numpy as np
import pytest

import minitf as tf

layers = tf.keras.layers
X = np.arange(2 * 5 * 3, dtype=np.float32).reshape(2, 5, 3)


def test_cropping1d_drops_steps_at_both_ends():
    np.testing.assert_array_equal(layers.Cropping1D((1, 2))(X).numpy(), X[:, 1:3])
    np.testing.assert_array_equal(layers.Cropping1D((2, 0))(X).numpy(), X[:, 2:])
    np.testing.assert_array_equal(layers.Cropping1D()(X).numpy(), X[:, 1:4])
    assert layers.Cropping1D(1).compute_output_shape((None, 5, 3)) == (None, 3, 3)
    assert layers.Cropping1D(1).compute_output_shape((None, None, 3)).as_list() == [None, None, 3]


def test_cropping1d_errors():
    with pytest.raises(ValueError, match="smaller than the input length"):
        layers.Cropping1D((3, 2))(X)
    with pytest.raises(ValueError, match="cropping"):
        layers.Cropping1D(-1)
    with pytest.raises(ValueError, match="ndim=3"):
        layers.Cropping1D(1)(np.ones((2, 5), np.float32))


def test_upsampling1d_repeats_steps():
    y = layers.UpSampling1D(3)(X).numpy()
    np.testing.assert_array_equal(y, np.repeat(X, 3, axis=1))
    assert layers.UpSampling1D().compute_output_shape((2, 5, 3)) == (2, 10, 3)
    with pytest.raises(TypeError, match="integer"):
        layers.UpSampling1D(2.0)
    with pytest.raises(ValueError, match="positive"):
        layers.UpSampling1D(0)


def test_zeropadding1d_both_formats():
    y = layers.ZeroPadding1D((1, 2))(X).numpy()
    np.testing.assert_array_equal(y, np.pad(X, ((0, 0), (1, 2), (0, 0))))
    y = layers.ZeroPadding1D(1, data_format="channels_first")(X).numpy()
    np.testing.assert_array_equal(y, np.pad(X, ((0, 0), (0, 0), (1, 1))))
    assert layers.ZeroPadding1D(2).compute_output_shape((None, 5, 3)) == (None, 9, 3)
    with pytest.raises(ValueError, match="padding"):
        layers.ZeroPadding1D((1, -1))


def test_gradients_flow_back_to_the_kept_steps():
    x = tf.constant(X.astype(np.float64))
    for layer in (layers.Cropping1D((1, 1)), layers.UpSampling1D(2), layers.ZeroPadding1D(2)):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.reduce_sum(layer(x) * 2.0)
        g = tape.gradient(y, x).numpy()
        if isinstance(layer, layers.Cropping1D):
            assert (g[:, 1:4] == 2).all() and (g[:, [0, 4]] == 0).all()
        elif isinstance(layer, layers.UpSampling1D):
            assert (g == 4).all()
        else:
            assert (g == 2).all()


@pytest.mark.parametrize("layer", [layers.Cropping1D((0, 1)), layers.UpSampling1D(3),
                                   layers.ZeroPadding1D((2, 1), data_format="channels_first")])
def test_configs_and_keras_files_round_trip(layer, tmp_path):
    config = layer.get_config()
    assert type(layer).from_config(config).get_config() == config
    model = tf.keras.Sequential([tf.keras.Input((5, 3)), layer])
    expected = model(X).numpy()
    model.save(tmp_path / "m.keras")
    loaded = tf.keras.models.load_model(tmp_path / "m.keras")
    np.testing.assert_array_equal(loaded(X).numpy(), expected)


def test_lazy_building_as_keras():
    assert not layers.Cropping1D().built and not layers.UpSampling1D().built
    assert not layers.ZeroPadding1D().built
