"""Resizing, CenterCrop and the random augmentation layers."""
import numpy as np
import pytest

import minitf as tf
from minitf import gradient_checker, layers
from minitf.layers.preprocessing.image import affine_transform

AUGMENTATIONS = [
    lambda seed: layers.RandomFlip(seed=seed),
    lambda seed: layers.RandomRotation(0.2, seed=seed),
    lambda seed: layers.RandomZoom(0.3, seed=seed),
    lambda seed: layers.RandomTranslation(0.2, 0.3, seed=seed),
    lambda seed: layers.RandomContrast(0.5, seed=seed),
    lambda seed: layers.RandomBrightness(0.3, seed=seed),
]


def _images(shape=(3, 6, 7, 2), seed=0):
    return (np.random.RandomState(seed).rand(*shape) * 255).astype("float32")


def test_resizing_shapes_dtypes_and_aspect_ratio():
    x = _images((2, 4, 6, 3))
    assert layers.Resizing(3, 5)(x).shape == (2, 3, 5, 3)
    assert layers.Resizing(3, 5)(x[0]).shape == (3, 5, 3)
    assert layers.Resizing(3, 5)(x.astype("uint8")).dtype == tf.uint8
    first = layers.Resizing(3, 5, data_format="channels_first")(x.transpose(0, 3, 1, 2))
    np.testing.assert_allclose(first.numpy().transpose(0, 2, 3, 1), layers.Resizing(3, 5)(x).numpy(), rtol=1e-6)
    # crop: the centred 4x4 window of a 4x6 image, resized to 2x2
    cropped = layers.Resizing(2, 2, crop_to_aspect_ratio=True)(x)
    expected = tf.image.resize(x[:, :, 1:5], [2, 2]).numpy()
    np.testing.assert_allclose(cropped.numpy(), expected, rtol=1e-6)
    # pad: a 4x6 image padded to 6x6 with the fill value, then resized
    padded = layers.Resizing(6, 6, pad_to_aspect_ratio=True, fill_value=-1.0)(x)
    np.testing.assert_allclose(padded.numpy()[:, 0], -1.0)
    np.testing.assert_allclose(padded.numpy()[:, 1:5], x)
    with pytest.raises(ValueError, match="only one of"):
        layers.Resizing(2, 2, crop_to_aspect_ratio=True, pad_to_aspect_ratio=True)
    with pytest.raises(ValueError, match="rank"):
        layers.Resizing(2, 2)(np.zeros((2, 2)))


def test_center_crop_crops_or_resizes():
    x = np.arange(5 * 6 * 1, dtype="float32").reshape(5, 6, 1)
    np.testing.assert_array_equal(layers.CenterCrop(3, 2)(x).numpy(), x[1:4, 2:4])
    assert layers.CenterCrop(3, 2)(x.astype("uint8")).dtype == tf.float32
    assert layers.CenterCrop(8, 4)(x).shape == (8, 4, 1)
    first = layers.CenterCrop(3, 2, data_format="channels_first")(x.transpose(2, 0, 1)[None])
    np.testing.assert_array_equal(first.numpy()[0, 0], x[1:4, 2:4, 0])


def test_resizing_and_center_crop_gradients():
    # tf.image.resize computes in float32 (as TF); both maps are linear, so a wide step is exact
    x = tf.constant(np.random.RandomState(0).rand(1, 3, 4, 1))
    for layer in (layers.Resizing(5, 3, dtype="float64"), layers.Resizing(2, 2, crop_to_aspect_ratio=True),
                  layers.Resizing(4, 4, pad_to_aspect_ratio=True), layers.CenterCrop(2, 2, dtype="float64"),
                  layers.CenterCrop(4, 6, dtype="float64")):
        theoretical, numerical = gradient_checker.compute_gradient(lambda t, layer=layer: layer(t), [x], delta=0.25)
        assert gradient_checker.max_error(theoretical, numerical) < 1e-5
        assert np.abs(theoretical[0]).sum() > 0


@pytest.mark.parametrize("make", AUGMENTATIONS)
def test_augmentations_are_identity_at_inference_and_seeded_in_training(make):
    x = _images()
    layer = make(3)
    for training in (False, None):
        np.testing.assert_array_equal(layer(x, training=training).numpy(), x)
    first = [layer(x).numpy() for _ in range(4)]  # training is the default, as in Keras
    again = make(3)
    second = [again(x, training=True).numpy() for _ in range(4)]
    for a, b in zip(first, second):
        np.testing.assert_array_equal(a, b)
    assert any(not np.allclose(a, x) for a in first)
    assert make(4)(x).shape == x.shape
    assert layer(x[0]).shape == x[0].shape


def test_augmentations_inside_a_model_follow_fit_and_predict():
    model = tf.keras.Sequential([tf.keras.Input((6, 7, 2)), layers.RandomRotation(0.3, seed=1)])
    x = _images()
    np.testing.assert_allclose(model.predict(x, verbose=0), x, rtol=1e-6)
    assert not np.allclose(model(x, training=True).numpy(), x)


def test_augmentations_in_dataset_map():
    flip = layers.RandomFlip("horizontal", seed=7)
    x = _images((8, 4, 5, 1))
    ds = tf.data.Dataset.from_tensor_slices(x).map(lambda img: flip(img, training=True))
    out = np.stack([e.numpy() for e in ds])
    flipped = [np.array_equal(o, img[:, ::-1]) for o, img in zip(out, x)]
    kept = [np.array_equal(o, img) for o, img in zip(out, x)]
    assert all(f or k for f, k in zip(flipped, kept)) and any(flipped) and any(kept)


def test_random_flip_modes():
    x = _images((16, 3, 4, 1))
    horizontal = layers.RandomFlip("horizontal", seed=1)(x).numpy()
    assert all(np.array_equal(h, img) or np.array_equal(h, img[:, ::-1]) for h, img in zip(horizontal, x))
    vertical = layers.RandomFlip("vertical", seed=1)(x).numpy()
    assert all(np.array_equal(v, img) or np.array_equal(v, img[::-1]) for v, img in zip(vertical, x))
    with pytest.raises(ValueError, match="mode"):
        layers.RandomFlip("diagonal")


def test_random_crop_training_and_inference():
    x = _images((2, 6, 7, 3))
    layer = layers.RandomCrop(3, 4, seed=5)
    y = layer(x)
    assert y.shape == (2, 3, 4, 3) and y.dtype == tf.float32
    windows = [x[:, i:i + 3, j:j + 4] for i in range(4) for j in range(4)]
    assert any(np.array_equal(y.numpy(), w) for w in windows)
    assert layer(x.astype("uint8"), training=False).dtype == tf.uint8
    np.testing.assert_array_equal(layer(x, training=False).numpy(), x)
    assert layers.RandomCrop(8, 4)(x).shape == (2, 8, 4, 3)
    assert isinstance(layers.RandomCrop(2, 2).get_config()["seed"], int)


def test_contrast_and_brightness_ranges():
    x = _images((4, 5, 5, 3))
    y = layers.RandomContrast(0.5, seed=2)(x).numpy()
    assert y.min() >= 0 and y.max() <= 255
    np.testing.assert_allclose(y.mean(axis=(1, 2)), x.mean(axis=(1, 2)), rtol=0.2)
    with pytest.raises(tf.errors.InvalidArgumentError):
        layers.RandomContrast(0.5)(x.astype("uint8"), training=True)
    b = layers.RandomBrightness((0.2, 0.2), value_range=(0, 255))(x).numpy()
    np.testing.assert_allclose(b, np.clip(x + 0.2 * 255, 0, 255), rtol=1e-6)
    assert layers.RandomBrightness(0.1)(x.astype("uint8")).dtype == tf.uint8
    with pytest.raises(ValueError, match="factor"):
        layers.RandomBrightness(1.5)


def test_factor_and_mode_validation():
    with pytest.raises(ValueError, match="height_factor"):
        layers.RandomZoom(1.5)
    with pytest.raises(NotImplementedError, match="fill_mode"):
        layers.RandomRotation(0.1, fill_mode="mirror")
    assert layers.RandomRotation(0.1).get_config()["factor"] == (-0.1, 0.1)
    assert layers.RandomContrast(0.2).get_config()["factor"] == (0, 0.2)


def test_affine_transform_identity_and_shift():
    x = _images((1, 3, 4, 1))
    identity = np.array([[1, 0, 0, 0, 1, 0, 0, 0]], "float32")
    np.testing.assert_array_equal(affine_transform(x, identity, "bilinear", "constant", 0.0), x)
    shift = np.array([[1, 0, 1, 0, 1, 0, 0, 0]], "float32")  # output x reads input x + 1
    out = affine_transform(x, shift, "nearest", "constant", -1.0)
    np.testing.assert_array_equal(out[0, :, :3], x[0, :, 1:])
    np.testing.assert_array_equal(out[0, :, 3], -1.0)
    wrapped = affine_transform(x, shift, "nearest", "wrap", 0.0)
    np.testing.assert_array_equal(wrapped[0, :, 3], x[0, :, 0])


def test_channels_first_augmentation_moves_the_right_axes():
    x = _images((6, 2, 3, 4))  # [b, c, h, w]
    out = layers.RandomFlip("horizontal", seed=2, data_format="channels_first")(x).numpy()
    assert all(np.array_equal(o, img) or np.array_equal(o, img[:, :, ::-1]) for o, img in zip(out, x))
    assert any(np.array_equal(o, img[:, :, ::-1]) and not np.array_equal(o, img) for o, img in zip(out, x))
    crop = layers.RandomCrop(2, 3, seed=1, data_format="channels_first")(x)
    assert crop.shape == (6, 2, 2, 3)


def test_seedless_layers_follow_set_random_seed():
    """As Keras 3's: an unseeded layer takes its seed from Python's `random` when built, which
    keras.utils.set_random_seed seeds."""
    x = _images()
    tf.keras.utils.set_random_seed(11)
    first = layers.RandomZoom(0.4)(x).numpy()
    tf.keras.utils.set_random_seed(11)
    second = layers.RandomZoom(0.4)(x).numpy()
    np.testing.assert_array_equal(first, second)
    a, b = layers.RandomCrop(3, 3, seed=9), layers.RandomCrop(3, 3, seed=9)
    np.testing.assert_array_equal(a(x).numpy(), b(x).numpy())
