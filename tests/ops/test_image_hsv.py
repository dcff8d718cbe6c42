"""tf.image's HSV conversions, hue/saturation adjustment, Sobel edges and resize_with_pad:
values against numpy references, finite-difference gradients, TF's errors."""
import colorsys

import numpy as np
import pytest

import minitf as tf
from minitf.errors import errors
from minitf.gradient_checker import assert_gradients_close

RNG = np.random.default_rng(3)


def _image(*shape):
    return RNG.random(shape)


def test_rgb_to_hsv_matches_colorsys_and_round_trips():
    x = _image(4, 5, 3)
    hsv = tf.image.rgb_to_hsv(x).numpy()
    expected = np.array([colorsys.rgb_to_hsv(*p) for p in x.reshape(-1, 3)]).reshape(x.shape)
    np.testing.assert_allclose(hsv, expected, atol=1e-12)
    np.testing.assert_allclose(tf.image.hsv_to_rgb(hsv).numpy(), x, atol=1e-12)
    grey = np.full((1, 1, 3), 0.5)
    np.testing.assert_array_equal(tf.image.rgb_to_hsv(grey).numpy(), [[[0.0, 0.0, 0.5]]])
    np.testing.assert_array_equal(tf.image.rgb_to_hsv(np.zeros((1, 1, 3))).numpy(), np.zeros((1, 1, 3)))


def test_hsv_gradients():
    x = _image(2, 3, 3) * 0.8 + 0.1  # distinct channels away from ties
    assert_gradients_close(tf.image.rgb_to_hsv, [x], order=1)
    hsv = tf.constant(_image(2, 3, 3))
    with tf.GradientTape() as tape:
        tape.watch(hsv)
        y = tf.reduce_sum(tf.image.hsv_to_rgb(hsv))
    assert tape.gradient(y, hsv) is None  # TF's HSVToRGB is not differentiable


def test_rgb_to_hsv_gradient_breaks_ties_red_green_blue_as_tf():
    x = tf.constant([[[0.5, 0.5, 0.2]], [[0.3, 0.3, 0.3]], [[0.0, 0.4, 0.4]]])
    with tf.GradientTape() as tape:
        tape.watch(x)
        v = tf.reduce_sum(tf.image.rgb_to_hsv(x)[..., 2])
    # the value's gradient goes to one channel per pixel: red before green before blue
    np.testing.assert_array_equal(tape.gradient(v, x).numpy(), [[[1, 0, 0]], [[1, 0, 0]], [[0, 1, 0]]])


def test_adjust_hue_and_saturation():
    x = _image(3, 4, 3).astype(np.float32)
    hsv = np.array([colorsys.rgb_to_hsv(*p) for p in x.reshape(-1, 3).astype(np.float64)])
    shifted = np.array([colorsys.hsv_to_rgb((h + 0.25) % 1.0, s, v) for h, s, v in hsv]).reshape(x.shape)
    np.testing.assert_allclose(tf.image.adjust_hue(x, 0.25).numpy(), shifted, atol=1e-5)
    saturated = np.array([colorsys.hsv_to_rgb(h, min(s * 1.7, 1.0), v) for h, s, v in hsv]).reshape(x.shape)
    np.testing.assert_allclose(tf.image.adjust_saturation(x, 1.7).numpy(), saturated, atol=1e-5)
    u8 = np.array([[[10, 200, 30]]], np.uint8)  # values from TF 2.21
    np.testing.assert_array_equal(tf.image.adjust_hue(u8, 0.3).numpy(), [[[10, 28, 200]]])
    np.testing.assert_array_equal(tf.image.adjust_saturation(u8, 0.3).numpy(), [[[143, 200, 149]]])
    assert tf.image.adjust_hue(u8, 0.3).dtype == tf.uint8


def test_adjust_errors_and_no_gradient():
    with pytest.raises(ValueError, match=r"delta must be in the interval \[-1, 1\]"):
        tf.image.adjust_hue(np.ones((2, 2, 3), np.float32), 1.5)
    with pytest.raises(errors.InvalidArgumentError, match="3 channels"):
        tf.image.adjust_saturation(np.ones((2, 2, 2), np.float32), 2.0)
    x = tf.constant(_image(2, 2, 3).astype(np.float32))
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(tf.image.adjust_saturation(x, 2.0))
    with pytest.raises(LookupError, match="AdjustSaturation"):
        tape.gradient(y, x)


def _sobel_reference(x):
    pad = np.pad(x, [(0, 0), (1, 1), (1, 1), (0, 0)], mode="reflect")
    ky = np.array([[-1, -2, -1], [0, 0, 0], [1, 2, 1]])
    out = np.zeros(x.shape + (2,))
    for k, kernel in enumerate((ky, ky.T)):
        for a in range(3):
            for b in range(3):
                out[..., k] += kernel[a, b] * pad[:, a:a + x.shape[1], b:b + x.shape[2]]
    return out


def test_sobel_edges_values_and_gradient():
    x = _image(2, 4, 5, 3)
    np.testing.assert_allclose(tf.image.sobel_edges(x).numpy(), _sobel_reference(x), atol=1e-12)
    assert_gradients_close(lambda t: tf.image.sobel_edges(t) ** 2, [_image(1, 3, 4, 2)], order=2)
    with pytest.raises(ValueError, match="4-D"):
        tf.image.sobel_edges(_image(4, 5, 3))


def test_resize_with_pad_keeps_the_aspect_ratio():
    x = _image(1, 4, 8, 2).astype(np.float32)
    y = tf.image.resize_with_pad(x, 8, 8).numpy()
    assert y.shape == (1, 8, 8, 2)
    np.testing.assert_array_equal(y[:, :2], 0)  # 4x8 -> 4x8 content centred in 8 rows: 2 above
    np.testing.assert_array_equal(y[:, 6:], 0)
    np.testing.assert_allclose(y[:, 2:6], x, rtol=1e-6)
    assert tf.image.resize_with_pad(x[0], 3, 5).shape == (3, 5, 2)
    assert_gradients_close(lambda t: tf.image.resize_with_pad(t, 6, 5), [_image(1, 4, 3, 1).astype(np.float32)],
                           rtol=1e-2, atol=1e-3, delta=1e-2)
    with pytest.raises(ValueError, match="target_width must be > 0"):
        tf.image.resize_with_pad(x, 4, 0)
