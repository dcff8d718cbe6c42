"""GaussianDropout, AlphaDropout (TF 2.21's legacy class) and SpatialDropout3D."""
import math

import numpy as np
import pytest

import minitf as tf

layers = tf.keras.layers
X = np.linspace(-2, 2, 2 * 50 * 40, dtype=np.float32).reshape(2, 50, 40)


def test_gaussian_dropout_is_identity_in_inference_and_noisy_in_training():
    layer = layers.GaussianDropout(0.3, seed=1)
    np.testing.assert_array_equal(layer(X).numpy(), X)
    np.testing.assert_array_equal(layer(X, training=False).numpy(), X)
    ones = np.ones((200, 100), np.float32)
    noise = layer(ones, training=True).numpy()
    assert abs(noise.mean() - 1.0) < 0.02
    assert abs(noise.std() - math.sqrt(0.3 / 0.7)) < 0.02


def test_gaussian_dropout_seeded_layers_repeat_and_advance():
    a, b = layers.GaussianDropout(0.5, seed=7), layers.GaussianDropout(0.5, seed=7)
    first = a(X, training=True).numpy()
    np.testing.assert_array_equal(first, b(X, training=True).numpy())
    assert not np.array_equal(first, a(X, training=True).numpy())


def test_gaussian_dropout_rate_checked_and_zero_rate_passes_through():
    with pytest.raises(ValueError, match="rate"):
        layers.GaussianDropout(1.5)
    layer = layers.GaussianDropout(0.0)
    assert not hasattr(layer, "seed_generator")
    np.testing.assert_array_equal(layer(X, training=True).numpy(), X)


def test_alpha_dropout_keeps_mean_and_variance_of_standard_normal_inputs():
    x = np.random.default_rng(0).standard_normal((400, 500)).astype(np.float32)
    y = layers.AlphaDropout(0.2, seed=3)(x, training=True).numpy()
    assert abs(y.mean()) < 0.02 and abs(y.std() - 1.0) < 0.02
    # dropped units all take one value: a * alpha' + b
    alpha_p = -1.6732632423543772 * 1.0507009873554805
    a = ((1 - 0.2) * (1 + 0.2 * alpha_p ** 2)) ** -0.5
    dropped = a * alpha_p + (-a * alpha_p * 0.2)
    assert np.isclose(y, dropped, atol=1e-6).mean() == pytest.approx(0.2, abs=0.01)


def test_alpha_dropout_legacy_config_and_noise_shape():
    layer = layers.AlphaDropout(0.5, noise_shape=(2, 1, 40), seed=2)
    assert layer.get_config()["rate"] == 0.5 and "noise_shape" not in layer.get_config()
    y = layer(X, training=True).numpy()
    alpha_p = -1.6732632423543772 * 1.0507009873554805
    a = ((1 - 0.5) * (1 + 0.5 * alpha_p ** 2)) ** -0.5
    dropped = np.isclose(y, a * alpha_p - a * alpha_p * 0.5, atol=1e-6)
    assert (dropped == dropped[:, :1, :]).all()  # one decision per (example, feature)
    np.testing.assert_array_equal(layer(X).numpy(), X)


def test_spatial_dropout3d_drops_whole_feature_maps_in_both_formats():
    x = np.ones((3, 2, 3, 2, 8), np.float32)
    y = layers.SpatialDropout3D(0.5, seed=1)(x, training=True).numpy()
    assert set(np.unique(y)) <= {0.0, 2.0}
    assert (y == y[:, :1, :1, :1, :]).all()
    y = layers.SpatialDropout3D(0.5, data_format="channels_first", seed=1)(x, training=True).numpy()
    assert (y == y[:, :, :1, :1, :1]).all()
    with pytest.raises(ValueError, match="ndim=5"):
        layers.SpatialDropout3D(0.5)(np.ones((2, 3, 4, 5), np.float32))
    assert layers.SpatialDropout3D(0.5, seed=4, name="s").get_config() == {
        "rate": 0.5, "seed": 4, "name": "s", "dtype": "float32", "data_format": "channels_last"}


@pytest.mark.parametrize("make", [lambda: layers.GaussianDropout(0.2, seed=5),
                                  lambda: layers.AlphaDropout(0.2, seed=5),
                                  lambda: layers.SpatialDropout3D(0.2, seed=5)])
def test_configs_and_keras_files_round_trip(make, tmp_path):
    layer = make()
    again = type(layer).from_config(layer.get_config())
    assert again.get_config() == layer.get_config()
    shape = (2, 2, 2, 3) if isinstance(layer, layers.SpatialDropout3D) else (4,)
    model = tf.keras.Sequential([tf.keras.Input(shape), layer])
    model.save(tmp_path / "m.keras")
    loaded = tf.keras.models.load_model(tmp_path / "m.keras")
    assert type(loaded.layers[0]) is type(layer)
    assert loaded.layers[0].get_config()["rate"] == 0.2


def test_alpha_dropout_files_name_the_legacy_module():
    assert layers.serialize(layers.AlphaDropout(0.1))["module"] == "keras._legacy.layers"
    assert layers.serialize(layers.GaussianDropout(0.1))["module"] == "keras.layers"


def test_masks_pass_through():
    x = np.array([[[1.0], [0.0], [2.0]]], np.float32)
    masked = layers.Masking()(x)
    for layer in (layers.GaussianDropout(0.2), layers.AlphaDropout(0.2)):
        out = layer(masked, training=True)
        np.testing.assert_array_equal(out._keras_mask.numpy(), [[True, False, True]])


def test_spatial_dropout2d_channels_first_drops_whole_maps():
    x = np.ones((3, 8, 3, 2), np.float32)
    y = layers.SpatialDropout2D(0.5, data_format="channels_first", seed=1)(x, training=True).numpy()
    assert (y == y[:, :, :1, :1]).all() and set(np.unique(y)) <= {0.0, 2.0}
