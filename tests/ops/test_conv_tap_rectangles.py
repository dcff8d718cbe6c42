"""The tap-rectangle path of stride-1 convolutions against the im2col path it replaces."""
import numpy as np
import pytest

import minitf as tf
from minitf.gradient_checker import assert_gradients_close
from minitf.kernels import numpy as numpy_kernels
from minitf.ops import conv

GEOMETRIES = [  # input shape, filter shape, padding, dilations, strides
    ((2, 7, 7, 3), (5, 5, 3, 4), "SAME", 1),
    ((1, 4, 6, 2), (3, 5, 2, 3), "SAME", 1),
    ((3, 5, 5, 2), (4, 4, 2, 2), "SAME", 1),            # even filter: asymmetric padding
    ((2, 6, 5, 2), (3, 3, 2, 3), "SAME", 2),            # dilated
    ((2, 5, 6, 1), (3, 2, 1, 2), [[0, 0], [2, 0], [1, 3], [0, 0]], 1),
    ((1, 3, 3, 2), (5, 5, 2, 2), [[0, 0], [4, 4], [4, 4], [0, 0]], 1),  # filter larger than the image
    ((2, 8, 8, 2), (5, 5, 2, 3), "SAME", 1, 2),         # strided: phase sub-grids
    ((2, 7, 9, 2), (3, 4, 2, 2), "SAME", 1, (3, 2)),    # odd sizes, unequal strides
    ((1, 9, 8, 2), (3, 3, 2, 2), [[0, 0], [1, 2], [3, 0], [0, 0]], 2, (2, 3)),  # dilated and strided
]


def _force(monkeypatch, on):
    for limit in ("_TAP_RECTANGLE_MAX_SHARE", "_TAP_RECTANGLE_MAX_SHARE_STRIDED_INPUT_GRAD"):
        monkeypatch.setattr(numpy_kernels, limit, 1.01 if on else 0.0)
    monkeypatch.setattr(numpy_kernels, "_TAP_RECTANGLE_MIN_CHANNELS", 1)


def _values(x_shape, w_shape, seed=0):
    rng = np.random.default_rng(seed)
    x = tf.constant(rng.standard_normal(x_shape))
    w = tf.constant(rng.standard_normal(w_shape))
    return x, w


def _case(geometry):
    x_shape, w_shape, padding, dilations, strides = (geometry + (1,))[:5]
    return x_shape, w_shape, padding, dilations, strides


@pytest.mark.parametrize("geometry", GEOMETRIES)
def test_rectangles_match_im2col_forward_and_gradients(monkeypatch, geometry):
    x_shape, w_shape, padding, dilations, strides = _case(geometry)
    x, w = _values(x_shape, w_shape)
    results = []
    for on in (False, True):
        _force(monkeypatch, on)
        geo = conv._conv_geometry(x.shape, w.shape, strides, padding, "NHWC", dilations, "Conv2D")
        assert numpy_kernels.use_tap_rectangles(geo, w.shape[2], w.shape[3]) == on
        with tf.GradientTape() as tape:
            tape.watch([x, w])
            y = tf.nn.conv2d(x, w, strides, padding, dilations=dilations)
            loss = tf.reduce_sum(y * tf.sin(y))
        results.append([y.numpy()] + [g.numpy() for g in tape.gradient(loss, [x, w])])
    for im2col, rect in zip(*results):
        np.testing.assert_allclose(rect, im2col, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("geometry", GEOMETRIES[:4] + GEOMETRIES[-2:])
def test_rectangle_path_gradients_match_finite_differences(monkeypatch, geometry):
    _force(monkeypatch, True)
    x_shape, w_shape, padding, dilations, strides = _case(geometry)
    x, w = _values(x_shape, w_shape, seed=1)
    assert_gradients_close(lambda a, b: tf.nn.conv2d(a, b, strides, padding, dilations=dilations), [x, w],
                           order=2)


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
    def wanted(x_shape, w_shape, padding, strides=1, input_gradient=False):
        geo = conv._conv_geometry(x_shape, w_shape, strides, padding, "NHWC", 1, "Conv2D")
        return numpy_kernels.use_tap_rectangles(geo, w_shape[2], w_shape[3], input_gradient)
    assert wanted((64, 7, 7, 256), (5, 5, 256, 128), "SAME")        # 64% of reads are real inputs
    assert not wanted((64, 26, 26, 32), (3, 3, 32, 64), "VALID")    # no padding at all
    assert not wanted((1, 128, 128, 32), (3, 3, 32, 32), "SAME")    # a thin border of padding
    assert not wanted((64, 7, 7, 1), (5, 5, 1, 64), "SAME")         # one channel: GEMMs too thin
    # strided 5x5 'same' at 14x14 reads 84% real inputs: only its input gradient switches
    assert not wanted((64, 14, 14, 64), (5, 5, 64, 128), "SAME", strides=2)
    assert wanted((64, 14, 14, 64), (5, 5, 64, 128), "SAME", strides=2, input_gradient=True)


def test_tap_layout_is_worked_out_once_per_geometry():
    geo = conv._conv_geometry((1, 9, 9, 48), (5, 5, 48, 64), 1, "SAME", "NHWC", 1, "Conv2D")
    again = conv._conv_geometry((1, 9, 9, 48), (5, 5, 48, 64), 1, "SAME", "NHWC", 1, "Conv2D")
    rects = numpy_kernels.tap_rectangles(geo)
    assert numpy_kernels.tap_rectangles(again) is rects  # the cached tuple, not a fresh walk
    assert len(rects) == 25
    # every output row and column a tap reads inside the 9x9 image: 7, 8, 9, 8, 7 per axis
    per_axis = [7, 8, 9, 8, 7]
    assert numpy_kernels._real_read_share(geo) == pytest.approx(sum(per_axis) ** 2 / (25 * 81))
    bigger = conv._conv_geometry((1, 11, 11, 48), (5, 5, 48, 64), 1, "SAME", "NHWC", 1, "Conv2D")
    assert numpy_kernels._real_read_share(bigger) == pytest.approx(sum([9, 10, 11, 10, 9]) ** 2 / (25 * 121))
