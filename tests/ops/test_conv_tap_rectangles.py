"""The tap-rectangle path of stride-1 convolutions against the im2col path it replaces."""
import numpy as np
import pytest

import minitf as tf
from minitf.gradient_checker import assert_gradients_close
from minitf.ops import conv

GEOMETRIES = [  # input shape, filter shape, padding, dilations
    ((2, 7, 7, 3), (5, 5, 3, 4), "SAME", 1),
    ((1, 4, 6, 2), (3, 5, 2, 3), "SAME", 1),
    ((3, 5, 5, 2), (4, 4, 2, 2), "SAME", 1),            # even filter: asymmetric padding
    ((2, 6, 5, 2), (3, 3, 2, 3), "SAME", 2),            # dilated
    ((2, 5, 6, 1), (3, 2, 1, 2), [[0, 0], [2, 0], [1, 3], [0, 0]], 1),
    ((1, 3, 3, 2), (5, 5, 2, 2), [[0, 0], [4, 4], [4, 4], [0, 0]], 1),  # filter larger than the image
]


def _force(monkeypatch, on):
    monkeypatch.setattr(conv, "_TAP_RECTANGLE_MAX_VALID", 1.01 if on else 0.0)


def _values(x_shape, w_shape, seed=0):
    rng = np.random.default_rng(seed)
    x = tf.constant(rng.standard_normal(x_shape))
    w = tf.constant(rng.standard_normal(w_shape))
    return x, w


@pytest.mark.parametrize("x_shape, w_shape, padding, dilations", GEOMETRIES)
def test_rectangles_match_im2col_forward_and_gradients(monkeypatch, x_shape, w_shape, padding, dilations):
    x, w = _values(x_shape, w_shape)
    results = []
    for on in (False, True):
        _force(monkeypatch, on)
        geo = conv._conv_geometry(x.shape, w.shape, 1, padding, "NHWC", dilations, "Conv2D")
        assert geo.use_tap_rectangles == on
        with tf.GradientTape() as tape:
            tape.watch([x, w])
            y = tf.nn.conv2d(x, w, 1, padding, dilations=dilations)
            loss = tf.reduce_sum(y * tf.sin(y))
        results.append([y.numpy()] + [g.numpy() for g in tape.gradient(loss, [x, w])])
    for im2col, rect in zip(*results):
        np.testing.assert_allclose(rect, im2col, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("x_shape, w_shape, padding, dilations", GEOMETRIES[:4])
def test_rectangle_path_gradients_match_finite_differences(monkeypatch, x_shape, w_shape, padding, dilations):
    _force(monkeypatch, True)
    x, w = _values(x_shape, w_shape, seed=1)
    assert_gradients_close(lambda a, b: tf.nn.conv2d(a, b, 1, padding, dilations=dilations), [x, w], order=2)


def test_transposed_convolution_uses_rectangles_and_matches(monkeypatch):
    rng = np.random.default_rng(2)
    g = tf.constant(rng.standard_normal((2, 7, 7, 6)))
    w = tf.constant(rng.standard_normal((5, 5, 4, 6)))
    outs = []
    for on in (False, True):
        _force(monkeypatch, on)
        with tf.GradientTape() as tape:
            tape.watch([g, w])
            y = tf.nn.conv2d_transpose(g, w, [2, 7, 7, 4], 1, "SAME")
            loss = tf.reduce_sum(y ** 2)
        outs.append([y.numpy()] + [d.numpy() for d in tape.gradient(loss, [g, w])])
    for im2col, rect in zip(*outs):
        np.testing.assert_allclose(rect, im2col, rtol=1e-12, atol=1e-11)


def test_choice_follows_the_share_of_padding_read():
    def wanted(x_shape, w_shape, padding, strides=1):
        return conv._conv_geometry(x_shape, w_shape, strides, padding, "NHWC", 1, "Conv2D").use_tap_rectangles
    assert wanted((64, 7, 7, 256), (5, 5, 256, 128), "SAME")        # 64% of reads are real inputs
    assert not wanted((64, 26, 26, 32), (3, 3, 32, 64), "VALID")    # no padding at all
    assert not wanted((1, 128, 128, 3), (3, 3, 3, 32), "SAME")      # a thin border of padding
    assert not wanted((64, 14, 14, 64), (5, 5, 64, 128), "SAME", strides=2)  # strided: im2col
