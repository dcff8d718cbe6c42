"""The CPU convolution kernels split a large patch matrix over the batch: same results as one
matrix, and value and gradients of Conv2D through the chunked path agree with finite differences."""
import numpy as np
import pytest

import minitf as tf
from minitf.gradient_checker import assert_gradients_close
from minitf.kernels import numpy as numpy_kernels
from minitf.ops import conv


def _geometry(x, w, strides=1, padding="VALID"):
    return conv._conv_geometry(x.shape, w.shape, strides, padding, "NHWC", None, "Conv2D")


@pytest.mark.parametrize("padding,strides", [("VALID", 1), ("SAME", 2)])
def test_chunked_patches_match_one_patch_matrix(monkeypatch, padding, strides):
    rng = np.random.default_rng(0)
    x = rng.normal(size=(7, 9, 8, 3))
    w = rng.normal(size=(3, 3, 3, 4))
    g = rng.normal(size=(7,) + (_geometry(x, w, strides, padding).oh, _geometry(x, w, strides, padding).ow, 4))
    geo = _geometry(x, w, strides, padding)
    whole_cols = []
    y_whole = numpy_kernels.conv2d_im2col(x, w, geo, whole_cols)
    dw_whole = numpy_kernels.conv2d_backprop_filter_im2col(x, g, geo, whole_cols[0])
    per_image = geo.oh * geo.ow * 27 * x.itemsize
    monkeypatch.setattr(numpy_kernels, "_PATCH_CHUNK_BYTES", 2 * per_image)  # chunks of 2 images
    monkeypatch.setattr(numpy_kernels, "use_tap_rectangles", lambda *a, **k: False)
    assert len(numpy_kernels._patch_chunks(x, w.shape[:3], geo)) == 4
    kept = []
    y = numpy_kernels.conv2d(x, w, geo, kept)
    np.testing.assert_allclose(y, y_whole, rtol=1e-12)
    assert isinstance(kept[0], numpy_kernels._ChunkedPatches) and len(kept[0]) == 4
    np.testing.assert_allclose(numpy_kernels.conv2d_backprop_filter(x, g, geo, kept[0]), dw_whole, rtol=1e-12)
    np.testing.assert_allclose(numpy_kernels.conv2d_backprop_filter(x, g, geo), dw_whole, rtol=1e-12)


def test_conv2d_gradients_through_chunked_patches(monkeypatch):
    monkeypatch.setattr(numpy_kernels, "_PATCH_CHUNK_BYTES", 1)  # one image per chunk
    monkeypatch.setattr(numpy_kernels, "use_tap_rectangles", lambda *a, **k: False)
    rng = np.random.default_rng(1)
    x, w = rng.normal(size=(3, 5, 4, 2)), rng.normal(size=(2, 2, 2, 3))
    assert_gradients_close(lambda a, b: tf.nn.conv2d(a, b, 1, "SAME"), [x, w], order=2)
