"""Flatten, Reshape, Permute, RepeatVector, UpSampling2D, ZeroPadding2D, Cropping2D."""
import numpy as np
import pytest

from minitf import layers


def arange(*shape):
    return np.arange(np.prod(shape), dtype="float32").reshape(shape)


def test_values_match_numpy():
    x = arange(2, 3, 4)
    np.testing.assert_array_equal(layers.Flatten()(x).numpy(), x.reshape(2, 12))
    np.testing.assert_array_equal(layers.Reshape((4, -1))(x).numpy(), x.reshape(2, 4, 3))
    np.testing.assert_array_equal(layers.Permute((2, 1))(x).numpy(), x.transpose(0, 2, 1))
    v = arange(2, 3)
    np.testing.assert_array_equal(layers.RepeatVector(4)(v).numpy(),
                                  np.repeat(v[:, None, :], 4, axis=1))
    img = arange(1, 2, 3, 2)
    up = layers.UpSampling2D((2, 3))(img).numpy()
    np.testing.assert_array_equal(up, img.repeat(2, axis=1).repeat(3, axis=2))
    pad = layers.ZeroPadding2D(((1, 0), (2, 1)))(img).numpy()
    np.testing.assert_array_equal(pad, np.pad(img, [(0, 0), (1, 0), (2, 1), (0, 0)]))
    crop = layers.Cropping2D(((0, 1), (1, 1)))(arange(1, 4, 5, 2)).numpy()
    np.testing.assert_array_equal(crop, arange(1, 4, 5, 2)[:, 0:3, 1:4, :])


@pytest.mark.parametrize("layer,in_shape,out_shape", [
    (lambda: layers.Flatten(), (2, 3, 4, 5), (2, 60)),
    (lambda: layers.Reshape((5, 4, 3)), (2, 3, 4, 5), (2, 5, 4, 3)),
    (lambda: layers.Permute((3, 1, 2)), (2, 3, 4, 5), (2, 5, 3, 4)),
    (lambda: layers.UpSampling2D(), (1, 3, 4, 2), (1, 6, 8, 2)),
    (lambda: layers.ZeroPadding2D(2), (1, 3, 4, 2), (1, 7, 8, 2)),
    (lambda: layers.Cropping2D(1), (1, 3, 4, 2), (1, 1, 2, 2)),
])
def test_shapes_and_compute_output_shape(layer, in_shape, out_shape):
    lay = layer()
    assert tuple(lay(np.ones(in_shape, "float32")).shape.as_list()) == out_shape
    assert lay.compute_output_shape((None,) + in_shape[1:]).as_list() == [None, *out_shape[1:]]


def test_gradients(input_grads_close):
    x = np.random.default_rng(0).standard_normal((1, 2, 2, 2))
    for make in (layers.Flatten, lambda **k: layers.UpSampling2D(**k),
                 lambda **k: layers.ZeroPadding2D(1, **k), lambda **k: layers.Permute((2, 3, 1), **k)):
        input_grads_close(make(dtype="float64"), x)


def test_reshape_size_mismatch():
    with pytest.raises(ValueError, match="total size"):
        layers.Reshape((7,))(np.ones((2, 3, 4), "float32"))


def test_constructor_validation_as_in_keras3():
    with pytest.raises(ValueError, match="at most one unknown"):
        layers.Reshape((-1, -1))
    with pytest.raises(ValueError, match="non-negative"):
        layers.Reshape((-2, 4))
    with pytest.raises(ValueError, match="positive integer"):
        layers.RepeatVector(0)
    with pytest.raises(TypeError, match="integer"):
        layers.RepeatVector(2.0)
    assert layers.RepeatVector(2)(np.ones((1, 3), "float32")).shape == (1, 2, 3)


# -- data formats and UpSampling2D interpolation ---------------------------------------------
def _tf_bilinear_reference(img, out_h, out_w):
    """TF's ResizeBilinear with half_pixel_centers=True, pixel by pixel, for NHWC numpy."""
    n, h, w, c = img.shape

    def taps(o, n_in, n_out):
        src = (o + 0.5) * (n_in / n_out) - 0.5
        low = int(np.floor(src))
        return max(low, 0), min(int(np.ceil(src)), n_in - 1), src - low
    out = np.zeros((n, out_h, out_w, c))
    for i in range(out_h):
        top, bottom, fy = taps(i, h, out_h)
        for j in range(out_w):
            left, right, fx = taps(j, w, out_w)
            upper = img[:, top, left] + (img[:, top, right] - img[:, top, left]) * fx
            lower = img[:, bottom, left] + (img[:, bottom, right] - img[:, bottom, left]) * fx
            out[:, i, j] = upper + (lower - upper) * fy
    return out


def _to_first(x):
    return np.ascontiguousarray(x.transpose(0, 3, 1, 2))


@pytest.mark.parametrize("in_hw,size", [((1, 1), (2, 2)), ((2, 3), (2, 2)), ((3, 2), (3, 1)),
                                        ((4, 5), (2, 3))])
@pytest.mark.parametrize("data_format", ["channels_last", "channels_first"])
def test_upsampling_bilinear_matches_tf_half_pixel_reference(in_hw, size, data_format):
    img = np.random.default_rng(3).standard_normal((2, *in_hw, 3)).astype("float32")
    want = _tf_bilinear_reference(img.astype("float64"), in_hw[0] * size[0], in_hw[1] * size[1])
    layer = layers.UpSampling2D(size, data_format=data_format, interpolation="bilinear")
    if data_format == "channels_first":
        img, want = _to_first(img), _to_first(want)
    got = layer(img)
    assert got.dtype.name == "float32"
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-5, atol=1e-6)
    assert layer.compute_output_shape((None,) + img.shape[1:]).as_list() == [None, *want.shape[1:]]


@pytest.mark.parametrize("data_format", ["channels_last", "channels_first"])
def test_upsampling_nearest_repeats_rows_and_columns(data_format):
    img = arange(2, 3, 2, 4)
    want = img.repeat(3, axis=1).repeat(2, axis=2)
    if data_format == "channels_first":
        img, want = _to_first(img), _to_first(want)
    got = layers.UpSampling2D((3, 2), data_format=data_format)(img).numpy()
    np.testing.assert_array_equal(got, want)


def test_upsampling_bilinear_keeps_float64():
    img = np.random.default_rng(0).standard_normal((1, 2, 3, 1))
    out = layers.UpSampling2D(interpolation="bilinear", dtype="float64")(img)
    assert out.dtype.name == "float64"
    np.testing.assert_allclose(out.numpy(), _tf_bilinear_reference(img, 4, 6), rtol=1e-12)


@pytest.mark.parametrize("data_format", ["channels_last", "channels_first"])
@pytest.mark.parametrize("interpolation", ["nearest", "bilinear"])
def test_upsampling_gradients(input_grads_close, data_format, interpolation):
    for shape, size in (((1, 2, 3, 2), (2, 2)), ((2, 3, 2, 1), (3, 2))):
        x = np.random.default_rng(1).standard_normal(shape)
        layer = layers.UpSampling2D(size, data_format=data_format, interpolation=interpolation,
                                    dtype="float64")
        input_grads_close(layer, x)


@pytest.mark.parametrize("data_format", ["channels_last", "channels_first"])
def test_padding_cropping_flatten_channels_first(data_format):
    img = arange(2, 4, 5, 3)
    pad_want = np.pad(img, [(0, 0), (1, 2), (0, 1), (0, 0)])
    crop_want = img[:, 1:3, 1:4, :]
    x = img
    if data_format == "channels_first":
        x, pad_want, crop_want = _to_first(img), _to_first(pad_want), _to_first(crop_want)
    pad = layers.ZeroPadding2D(((1, 2), (0, 1)), data_format=data_format)
    np.testing.assert_array_equal(pad(x).numpy(), pad_want)
    assert pad.compute_output_shape(x.shape).as_list() == list(pad_want.shape)
    crop = layers.Cropping2D(((1, 1), (1, 1)), data_format=data_format)
    np.testing.assert_array_equal(crop(x).numpy(), crop_want)
    assert crop.compute_output_shape(x.shape).as_list() == list(crop_want.shape)
    # Flatten always emits channels-last order.
    np.testing.assert_array_equal(layers.Flatten(data_format=data_format)(x).numpy(),
                                  img.reshape(2, -1))


def test_padding_and_cropping_gradients_channels_first(input_grads_close):
    x = np.random.default_rng(2).standard_normal((1, 2, 3, 4))
    input_grads_close(layers.ZeroPadding2D(((1, 0), (0, 2)), data_format="channels_first",
                                           dtype="float64"), x)
    input_grads_close(layers.Cropping2D(((1, 0), (1, 1)), data_format="channels_first",
                                        dtype="float64"), x)


def test_bad_data_format_and_interpolation():
    with pytest.raises(ValueError, match="data_format.*channels_middle"):
        layers.UpSampling2D(data_format="channels_middle")
    with pytest.raises(ValueError, match="interpolation.*cubic"):
        layers.UpSampling2D(interpolation="cubic")
    with pytest.raises(ValueError, match="cropping.*too large"):
        layers.Cropping2D(2)(np.ones((1, 3, 3, 1), "float32"))
