"""tf.image: resize against per-pixel references and Pillow, gradients, crops, flips, dtypes."""
import numpy as np
import pytest

import minitf as tf
from minitf.errors import errors
from minitf.gradient_checker import assert_gradients_close
from minitf.ops import image_resize as image_ops

RNG = np.random.default_rng(0)


def rand(*shape, dtype=np.float64):
    return RNG.random(shape).astype(dtype)


# -- resize ------------------------------------------------------------------------------------

def ref_bilinear(img, oh, ow):
    """Per-pixel TF2 bilinear: half-pixel centres, sample positions clamped at the borders."""
    h, w, c = img.shape
    out = np.zeros((oh, ow, c))
    for i in range(oh):
        y = max((i + 0.5) * h / oh - 0.5, 0.0)
        y0 = int(np.floor(y))
        y1, fy = min(y0 + 1, h - 1), y - y0
        for j in range(ow):
            x = max((j + 0.5) * w / ow - 0.5, 0.0)
            x0 = int(np.floor(x))
            x1, fx = min(x0 + 1, w - 1), x - x0
            top = img[y0, x0] * (1 - fx) + img[y0, x1] * fx
            bottom = img[y1, x0] * (1 - fx) + img[y1, x1] * fx
            out[i, j] = top * (1 - fy) + bottom * fy
    return out


def ref_nearest(img, oh, ow):
    h, w, _ = img.shape
    rows = [min(int(np.floor((i + 0.5) * h / oh)), h - 1) for i in range(oh)]
    cols = [min(int(np.floor((j + 0.5) * w / ow)), w - 1) for j in range(ow)]
    return img[rows][:, cols]


@pytest.mark.parametrize("size", [(3, 4), (11, 9), (6, 6), (1, 1), (5, 13)])
def test_bilinear_and_nearest_match_per_pixel_reference(size):
    img = rand(6, 7, 2, dtype=np.float32)
    got = tf.image.resize(img, size)
    assert got.dtype == tf.float32 and got.shape == size + (2,)
    np.testing.assert_allclose(got.numpy(), ref_bilinear(img.astype(np.float64), *size), atol=1e-5)
    near = tf.image.resize(img, size, method=tf.image.ResizeMethod.NEAREST_NEIGHBOR)
    np.testing.assert_array_equal(near.numpy(), ref_nearest(img, *size))


def test_resize_batched_dtypes_and_identity():
    batch = (rand(3, 5, 4, 3) * 255).astype(np.uint8)
    y = tf.image.resize(batch, [5, 4])
    assert y.dtype == tf.float32
    np.testing.assert_allclose(y.numpy(), batch.astype(np.float32))   # same size: exact copy
    near = tf.image.resize(batch, [10, 8], method="nearest")
    assert near.dtype == tf.uint8
    np.testing.assert_array_equal(near.numpy(), batch.repeat(2, axis=1).repeat(2, axis=2))
    assert tf.image.resize(batch.astype(np.float64), [2, 2]).dtype == tf.float32


def test_area_downscale_is_block_mean_and_bicubic_keeps_constants():
    img = rand(6, 9, 2, dtype=np.float32)
    area = tf.image.resize(img, [3, 3], method="area").numpy()
    np.testing.assert_allclose(area, img.reshape(3, 2, 3, 3, 2).mean(axis=(1, 3)), atol=1e-6)
    const = np.full((5, 6, 1), 0.7, np.float32)
    for method in ("bicubic", "lanczos3", "area", "mitchellcubic"):
        np.testing.assert_allclose(tf.image.resize(const, [9, 4], method=method).numpy(), 0.7, atol=1e-5)


@pytest.mark.parametrize("method,pil_name", [("bilinear", "BILINEAR"), ("bicubic", "BICUBIC")])
@pytest.mark.parametrize("size", [(4, 5), (20, 17)])
def test_antialias_matches_pillow(method, pil_name, size):
    pil = pytest.importorskip("PIL.Image")
    img = rand(9, 13, dtype=np.float32)
    expected = np.asarray(pil.fromarray(img, mode="F").resize((size[1], size[0]), getattr(pil, pil_name)))
    got = tf.image.resize(img[:, :, None], size, method=method, antialias=True).numpy()[:, :, 0]
    np.testing.assert_allclose(got, expected, atol=1e-5)


def test_preserve_aspect_ratio():
    img = rand(10, 20, 1, dtype=np.float32)
    assert tf.image.resize(img, [8, 8], preserve_aspect_ratio=True).shape == (4, 8, 1)
    assert tf.image.resize(img, [30, 100], preserve_aspect_ratio=True).shape == (30, 60, 1)


@pytest.mark.parametrize("method", ["bilinear", "nearest", "area", "bicubic"])
@pytest.mark.parametrize("shape,size", [((1, 4, 5, 2), (3, 7)), ((2, 3, 3, 1), (5, 2))])
def test_resample_gradients_float64(method, shape, size):
    _, h, w, _ = shape
    wy = image_ops.weights(method, h, size[0], False)
    wx = image_ops.weights(method, w, size[1], False)
    op = image_ops.RESIZE_BILINEAR  # any op with an adjoint: the rule under test is resample's
    assert_gradients_close(lambda x: image_ops.resample(x, wy, wx, op) ** 2, [rand(*shape)], order=2)


def test_public_resize_gradient_float32():
    img = rand(2, 4, 5, 2, dtype=np.float32)
    assert_gradients_close(lambda x: tf.image.resize(x, [7, 3]), [img], rtol=1e-3, atol=1e-3, delta=1e-2)


def test_resize_errors():
    with pytest.raises(ValueError, match="3 or 4 dimensions"):
        tf.image.resize(np.ones((4, 4), np.float32), [2, 2])
    with pytest.raises(errors.InvalidArgumentError, match="positive.*ResizeBilinear"):
        tf.image.resize(np.ones((4, 4, 1), np.float32), [0, 2])
    with pytest.raises(ValueError, match="2 elements"):
        tf.image.resize(np.ones((4, 4, 1), np.float32), [2])


# -- total variation ----------------------------------------------------------------------------

def test_total_variation_values_and_gradients():
    img = rand(5, 4, 3)
    expected = np.abs(np.diff(img, axis=0)).sum() + np.abs(np.diff(img, axis=1)).sum()
    np.testing.assert_allclose(tf.image.total_variation(tf.constant(img)).numpy(), expected)
    batch = rand(2, 3, 4, 2)
    tv = tf.image.total_variation(tf.constant(batch))
    assert tv.shape == (2,)
    np.testing.assert_allclose(tv.numpy()[1], np.abs(np.diff(batch[1], axis=0)).sum()
                               + np.abs(np.diff(batch[1], axis=1)).sum())
    assert_gradients_close(tf.image.total_variation, [img])
    assert_gradients_close(tf.image.total_variation, [batch])
    with pytest.raises(ValueError):
        tf.image.total_variation(tf.ones((3, 3)))
    # as TF, which reads images.get_shape() first: a list or numpy array is an AttributeError
    with pytest.raises(AttributeError, match="get_shape"):
        tf.image.total_variation(img)
    with pytest.raises(tf.errors.InvalidArgumentError, match="uint8"):  # TF's Abs has no uint8 kernel
        tf.image.total_variation(tf.ones((3, 3, 1), tf.uint8))


# -- dtype conversion --------------------------------------------------------------------------

def test_convert_image_dtype_scaling_rules():
    u8 = np.array([0, 1, 128, 255], np.uint8)
    f = tf.image.convert_image_dtype(u8, tf.float32)
    np.testing.assert_allclose(f.numpy(), u8 / 255.0, rtol=1e-6)
    back = tf.image.convert_image_dtype(np.array([0.0, 0.5, 1.0, 1.5, -0.2], np.float32), tf.uint8,
                                        saturate=True)
    np.testing.assert_array_equal(back.numpy(), [0, 127, 255, 255, 0])
    np.testing.assert_array_equal(tf.image.convert_image_dtype(u8, tf.int16).numpy(), u8.astype(np.int16) * 128)
    np.testing.assert_array_equal(
        tf.image.convert_image_dtype(np.array([0, 30000, 32767], np.int16), tf.uint8).numpy(), [0, 234, 255])
    assert tf.image.convert_image_dtype(f, tf.float64).dtype == tf.float64
    x = rand(3, 2)
    assert_gradients_close(lambda t: tf.image.convert_image_dtype(t, tf.float32) * 1.0, [x],
                           rtol=1e-3, atol=1e-3, delta=1e-3)


# -- flips, rotations, crops -------------------------------------------------------------------

def test_flips_and_rot90_match_numpy():
    img = rand(3, 4, 2)
    batch = rand(2, 3, 4, 2)
    np.testing.assert_array_equal(tf.image.flip_left_right(img).numpy(), img[:, ::-1])
    np.testing.assert_array_equal(tf.image.flip_up_down(img).numpy(), img[::-1])
    np.testing.assert_array_equal(tf.image.flip_left_right(batch).numpy(), batch[:, :, ::-1])
    for k in range(-1, 5):
        np.testing.assert_array_equal(tf.image.rot90(img, k).numpy(), np.rot90(img, k, axes=(0, 1)))
        np.testing.assert_array_equal(tf.image.rot90(batch, k).numpy(), np.rot90(batch, k, axes=(1, 2)))
    assert_gradients_close(lambda t: tf.image.rot90(tf.image.flip_up_down(t), 1) ** 2, [img], order=2)
    with pytest.raises(ValueError, match="three-dimensional"):
        tf.image.flip_left_right(np.ones(4))


def test_random_flips_give_original_or_mirror():
    batch = rand(40, 2, 3, 1)
    out = tf.image.random_flip_left_right(batch, seed=3).numpy()
    same = [np.array_equal(o, b) for o, b in zip(out, batch)]
    mirrored = [np.array_equal(o, b[:, ::-1]) for o, b in zip(out, batch)]
    assert all(s or m for s, m in zip(same, mirrored))
    assert 0 < sum(mirrored) < 40
    single = rand(2, 3, 1)
    results = {tf.image.random_flip_up_down(single).numpy().tobytes() for _ in range(30)}
    assert results == {single.tobytes(), single[::-1].tobytes()}


def test_random_crop_is_a_window_of_the_input():
    value = np.arange(6 * 7 * 3, dtype=np.float64).reshape(6, 7, 3)
    seen = set()
    for _ in range(20):
        crop = tf.image.random_crop(value, [3, 4, 3]).numpy()
        r, c = np.argwhere(value[:, :, 0] == crop[0, 0, 0])[0]
        np.testing.assert_array_equal(crop, value[r:r + 3, c:c + 4])
        seen.add((r, c))
    assert len(seen) > 1
    with pytest.raises(errors.InvalidArgumentError, match="value.shape >= size"):
        tf.image.random_crop(value, [7, 4, 3])


def test_central_crop_and_crop_or_pad():
    img = np.arange(49, dtype=np.float32).reshape(7, 7, 1)
    np.testing.assert_array_equal(tf.image.central_crop(img, 0.5).numpy(), img[1:6, 1:6])
    assert tf.image.central_crop(img, 1.0).shape == (7, 7, 1)
    with pytest.raises(ValueError, match=r"\(0, 1\]"):
        tf.image.central_crop(img, 0.0)
    small = np.arange(16, dtype=np.float32).reshape(4, 4, 1)
    out = tf.image.resize_with_crop_or_pad(small, 3, 6).numpy()[:, :, 0]
    expected = np.zeros((3, 6), np.float32)
    expected[:, 1:5] = small[:3, :, 0]
    np.testing.assert_array_equal(out, expected)
    batch = rand(2, 5, 3, 1)
    assert_gradients_close(lambda t: tf.image.resize_with_crop_or_pad(t, 3, 5), [batch], order=2)


# -- photometric -------------------------------------------------------------------------------

def test_brightness_contrast_grayscale_standardization():
    img = rand(4, 5, 3, dtype=np.float32)
    np.testing.assert_allclose(tf.image.adjust_brightness(img, 0.1).numpy(), img + 0.1, rtol=1e-6)
    u8 = np.array([[[10], [250]]], np.uint8)
    np.testing.assert_array_equal(tf.image.adjust_brightness(u8, 0.1).numpy(), [[[35], [255]]])
    mean = img.mean(axis=(0, 1), keepdims=True)
    np.testing.assert_allclose(tf.image.adjust_contrast(img, 2.0).numpy(), (img - mean) * 2 + mean, atol=1e-6)
    gray = tf.image.rgb_to_grayscale(img)
    np.testing.assert_allclose(gray.numpy()[..., 0], img @ np.array([0.2989, 0.5870, 0.1140]), atol=1e-6)
    assert tf.image.grayscale_to_rgb(gray).shape == (4, 5, 3)
    std = tf.image.per_image_standardization(rand(2, 4, 5, 3)).numpy()
    np.testing.assert_allclose(std.mean(axis=(1, 2, 3)), 0, atol=1e-6)
    np.testing.assert_allclose(std.std(axis=(1, 2, 3)), 1, atol=1e-5)
    const = tf.image.per_image_standardization(np.full((2, 2, 1), 7, np.uint8))
    assert const.dtype == tf.float32
    np.testing.assert_array_equal(const.numpy(), 0)


def _standardization_grad(x, w):
    """d sum(w * per_image_standardization(x)) / dx from the tape."""
    x = tf.constant(x)
    with tf.GradientTape() as tape:
        tape.watch(x)
        loss = tf.reduce_sum(tf.image.per_image_standardization(x) * w)
    return tape.gradient(loss, x)


def test_per_image_standardization_is_float32_as_tf():
    for dtype in (np.float16, np.float64, np.int32):
        assert tf.image.per_image_standardization(np.ones((2, 2, 1), dtype)).dtype == tf.float32
    assert tf.image.per_image_standardization(tf.ones((1, 2, 2, 2, 1))).shape == (1, 2, 2, 2, 1)  # >4-D ok
    with pytest.raises(ValueError, match="inner 3 dims"):
        tf.image.per_image_standardization(tf.ones((0, 3, 1)))


def test_per_image_standardization_gradient():
    # std well above the floor 1/sqrt(12) = 0.29, where the formula below holds (a uniform
    # [0, 1) image of 12 pixels falls under it about 63% of the time)
    x = np.random.default_rng(5).random((3, 2, 2)) * 4
    w = np.cos(np.arange(12)).reshape(3, 2, 2)
    g = _standardization_grad(x, w)
    assert g.dtype == tf.float64  # the float32 computation's gradient is cast back
    c, s = x - x.mean(), x.std()
    expected = (w - w.mean()) / s - c * (w * c).mean() / s ** 3
    np.testing.assert_allclose(g.numpy(), expected, rtol=1e-4, atol=1e-5)
    # a constant image divides by the floor 1/sqrt(N): finite gradients, as TF (sqrt'(0) is not used)
    g = _standardization_grad(np.full((3, 2, 2), 0.25, np.float32), w.astype(np.float32)).numpy()
    np.testing.assert_allclose(g, (w - w.mean()) * np.sqrt(12), rtol=1e-5)


# -- behaviour pinned against TF 2.21 -------------------------------------------------------

def test_resize_checks_as_tf():
    x = tf.ones((4, 4, 1))
    for dtype in (tf.bool, tf.uint32, tf.uint64, tf.complex64, tf.string):
        img = tf.constant([[[True]]]) if dtype == tf.bool else tf.constant([[["a"]]]) if dtype == tf.string \
            else tf.zeros((2, 2, 1), dtype)
        for method in ("bilinear", "nearest", "area", "lanczos3"):
            with pytest.raises(tf.errors.InvalidArgumentError, match="not in the list of allowed values"):
                tf.image.resize(img, [3, 3], method=method)
    with pytest.raises(ValueError, match="1-D int32 Tensor"):
        tf.image.resize(x, [2.0, 3.0])
    with pytest.raises(ValueError, match="1-D int32 Tensor"):
        tf.image.resize(x, tf.constant([2, 3], tf.int64))
    with pytest.raises(ValueError, match="2 elements"):
        tf.image.resize(x, tf.constant(2))
    assert tf.image.resize(x, np.array([2, 3])).shape == (2, 3, 1)
    for shape in ((0, 4, 1), (4, 0, 1), (4, 4, 0)):
        with pytest.raises(tf.errors.InvalidArgumentError):
            tf.image.resize(tf.ones(shape), [2, 3], method="nearest")
    assert tf.image.resize(tf.ones((0, 4, 4, 1)), [2, 3]).shape == (0, 2, 3, 1)


def test_resize_area_has_no_gradient():
    x = tf.constant(rand(4, 5, 3, dtype=np.float32))
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.image.resize(x, [2, 3], method="area")
    with pytest.raises(LookupError, match="no entry for: ResizeArea"):
        tape.gradient(y, x)
    assert y.shape == (2, 3, 3)


def test_adjust_contrast_kernel_rules():
    img = tf.constant(rand(4, 4, 3, dtype=np.float32))
    with pytest.raises(tf.errors.NotFoundError, match="DT_HALF"):
        tf.image.adjust_contrast(tf.ones((2, 2, 1), tf.float16), 2.0)
    with pytest.raises(tf.errors.InvalidArgumentError, match="at least 3-D"):
        tf.image.adjust_contrast(tf.ones((4, 3)), 2.0)
    with pytest.raises(tf.errors.InvalidArgumentError, match="scalar"):
        tf.image.adjust_contrast(img, [2.0, 1.0])
    with pytest.raises(tf.errors.InvalidArgumentError, match="cannot compute AdjustContrastv2"):
        tf.image.adjust_contrast(img, tf.constant(2.0, tf.float64))
    out = tf.image.adjust_contrast(tf.constant(rand(4, 4, 3)), tf.constant(2.0))
    assert out.dtype == tf.float64  # computed in float32, converted back
    u8 = tf.image.adjust_contrast(tf.constant([[[200, 10, 3]], [[0, 0, 0]]], tf.uint8), 3.0)
    assert u8.dtype == tf.uint8 and u8.numpy()[:, 0, 0].tolist() == [255, 0]


def test_adjust_contrast_has_no_gradient():
    img = tf.constant(rand(4, 4, 3, dtype=np.float32))
    with tf.GradientTape() as tape:
        tape.watch(img)
        y = tf.reduce_sum(tf.image.adjust_contrast(img, 2.0))
    with pytest.raises(LookupError, match="no entry for: AdjustContrastv2"):
        tape.gradient(y, img)


def test_central_crop_window_as_tf():
    # start = int((size - size * fraction) / 2) on each side
    assert tf.image.central_crop(tf.ones((4, 4, 3)), 0.1).shape == (2, 2, 3)
    assert tf.image.central_crop(tf.ones((5, 7, 1)), 0.9).shape == (5, 7, 1)
    assert tf.image.central_crop(tf.ones((2, 8, 6, 1)), 0.5).shape == (2, 4, 4, 1)
    with pytest.raises(ValueError, match=r"\(0, 1\]"):
        tf.image.central_crop(tf.ones((4, 3)), 1.5)  # the fraction is checked before the rank


def test_small_image_op_errors_as_tf():
    x = tf.ones((4, 4, 3))
    with pytest.raises(TypeError, match="Cannot convert 1.0"):
        tf.image.rot90(x, 1.0)
    with pytest.raises(ValueError, match="int32"):
        tf.image.rot90(x, tf.constant(1, tf.int64))
    with pytest.raises(tf.errors.UnimplementedError, match="uint16"):
        tf.image.grayscale_to_rgb(tf.ones((2, 2, 1), tf.uint16))
    assert tf.image.grayscale_to_rgb(tf.ones((2, 2, 1), tf.uint32)).shape == (2, 2, 3)
    with pytest.raises(tf.errors.InvalidArgumentError, match="Incompatible shapes"):
        tf.image.random_crop(x, [2, 2])
    with pytest.raises(tf.errors.InvalidArgumentError):  # TF: a MatMul size error
        tf.image.rgb_to_grayscale(tf.ones((4, 4, 2)))


def _resize_grad(x, method, antialias=False):
    x = tf.constant(x)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.image.resize(x, [2, 3], method=method, antialias=antialias)
    return tape.gradient(y, x)


def test_resize_gradient_dtype_rules_as_tf():
    img = rand(4, 5, 1)
    # ScaleAndTranslate's gradient kernel takes float32 originals only
    for dtype in (np.float64, np.float16):
        for method, aa in (("lanczos3", False), ("gaussian", False), ("bilinear", True)):
            with pytest.raises(tf.errors.InvalidArgumentError, match="ScaleAndTranslateGrad"):
                _resize_grad(img.astype(dtype), method, aa)
    assert _resize_grad(img.astype(np.float32), "lanczos3").dtype == tf.float32
    # bicubic has no gradient for float16 images, and one for float64
    assert _resize_grad(img.astype(np.float16), "bicubic") is None
    assert _resize_grad(img, "bicubic").dtype == tf.float64
    assert _resize_grad(img.astype(np.float16), "bilinear").dtype == tf.float16


def test_window_ops_static_and_tensor_checks_as_tf():
    x = tf.ones((3, 4, 1))
    # Python arguments are checked statically (ValueError), tensor ones at run time (InvalidArgumentError)
    with pytest.raises(ValueError, match="height must be >= target \\+ offset"):
        tf.image.crop_to_bounding_box(x, 3, 1, 1, 1)
    with pytest.raises(tf.errors.InvalidArgumentError, match="height must be >= target \\+ offset"):
        tf.image.crop_to_bounding_box(x, tf.constant(3), 1, 1, 1)
    with pytest.raises(ValueError, match="height must be <= target - offset"):
        tf.image.pad_to_bounding_box(x, 4, 1, 5, 6)
    with pytest.raises(tf.errors.InvalidArgumentError, match="height must be <= target - offset"):
        tf.image.pad_to_bounding_box(x, tf.constant(4), 1, 5, 6)
    with pytest.raises(ValueError, match="target_height must be > 0"):
        tf.image.resize_with_crop_or_pad(x, 0, 2)
    with pytest.raises(tf.errors.InvalidArgumentError, match="target_height must be > 0"):
        tf.image.resize_with_crop_or_pad(x, tf.constant(0), 2)
    assert tf.image.crop_to_bounding_box(x, tf.constant(1), 1, 2, 2).shape == (2, 2, 1)
    assert tf.image.resize_with_crop_or_pad(x, tf.constant(5), 2).shape == (5, 2, 1)
    # float arguments: kernel attr errors, except a float crop size (TypeError converting to int32)
    with pytest.raises(tf.errors.InvalidArgumentError, match="Index"):
        tf.image.crop_to_bounding_box(x, 1.0, 1, 1, 1)
    with pytest.raises(TypeError, match="Cannot convert 1.0"):
        tf.image.crop_to_bounding_box(x, 1, 1, 1.0, 1)
    with pytest.raises(tf.errors.InvalidArgumentError, match="Tpaddings"):
        tf.image.pad_to_bounding_box(x, 1.0, 1, 5, 6)
    with pytest.raises(tf.errors.InvalidArgumentError, match="Tpaddings"):
        tf.image.resize_with_crop_or_pad(x, 5.0, 2)
    with pytest.raises(ValueError, match="inner 3 dims"):
        tf.image.crop_to_bounding_box(tf.ones((3, 0, 1)), 0, 0, 1, 1)
    with pytest.raises(ValueError, match="3 or 4 dimensions"):
        tf.image.resize_with_crop_or_pad(tf.ones((3, 4)), 2, 2)


def test_random_crop_size_rules_as_tf():
    x = tf.ones((4, 4, 3))
    with pytest.raises(TypeError, match="Cannot convert"):
        tf.image.random_crop(x, [2.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="int32"):
        tf.image.random_crop(x, tf.constant([2, 2, 3], tf.int64))
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.image.random_crop(x, 2)  # a scalar size broadcasts in the check, then fails in Slice
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.image.random_crop(x, [-2, 2, 3])
    assert tf.image.random_crop(x, tf.constant([2, 2, 3])).shape == (2, 2, 3)
    assert tf.image.random_crop(tf.constant(1.0), []).shape == ()


def test_misc_image_argument_rules_as_tf():
    with pytest.raises(AttributeError, match="get_shape"):
        tf.image.grayscale_to_rgb([[0.1]])
    assert tf.image.grayscale_to_rgb(tf.Variable(np.ones((2, 2, 1)))).shape == (2, 2, 3)
    with pytest.raises(ValueError, match="not implemented: BILINEAR"):
        tf.image.resize(tf.ones((2, 2, 1)), [3, 3], method="BILINEAR")
    assert tf.image.resize(tf.ones((2, 2, 1)), [3, 3], method=tf.image.ResizeMethod.BICUBIC).shape == (3, 3, 1)
