"""minitf.utils.image_transforms: the numpy port of scipy's affine_transform (orders 0 and 1, four
boundary modes) on cases with known answers and, when scipy is installed, bit for bit against it;
Keras' legacy transforms built on it; smart_resize."""
import numpy as np
import pytest

from minitf.utils import image_transforms as T

IMG = np.arange(20, dtype=np.float64).reshape(4, 5)


def test_identity_and_integer_shifts():
    np.testing.assert_array_equal(T.affine_transform(IMG, np.eye(2), [0, 0]), IMG)
    shifted = T.affine_transform(IMG, np.eye(2), [1, -2], mode="constant", cval=-1)
    expect = np.full_like(IMG, -1)
    expect[:3, 2:] = IMG[1:, :3]
    np.testing.assert_array_equal(shifted, expect)
    np.testing.assert_array_equal(T.affine_transform(IMG, np.eye(2), [0, 7], mode="nearest"),
                                  np.repeat(IMG[:, -1:], 5, axis=1))


def test_half_pixel_shift_interpolates_linearly_and_order_zero_rounds():
    out = T.affine_transform(IMG, np.eye(2), [0, 0.5], order=1, mode="nearest")
    np.testing.assert_allclose(out[:, :4], (IMG[:, :4] + IMG[:, 1:]) / 2)
    np.testing.assert_array_equal(out[:, 4], IMG[:, 4])
    np.testing.assert_array_equal(T.affine_transform(IMG, np.eye(2), [0, 0.4], order=0), IMG)
    np.testing.assert_array_equal(T.affine_transform(IMG, np.eye(2), [0, 0.6], order=0, mode="nearest")[:, :4],
                                  IMG[:, 1:])


def test_boundary_modes_follow_scipy_index_arithmetic():
    row = np.arange(5, dtype=np.float64)[None]
    def shifted(mode, by):
        return T.affine_transform(row, np.eye(2), [0, by], mode=mode)[0]
    np.testing.assert_array_equal(shifted("reflect", -2), [1, 0, 0, 1, 2])   # half-sample symmetric
    np.testing.assert_array_equal(shifted("reflect", 3), [3, 4, 4, 3, 2])
    np.testing.assert_array_equal(shifted("wrap", 2), [2, 3, 4, 1, 2])       # scipy's period n - 1
    np.testing.assert_array_equal(shifted("wrap", -1), [3, 0, 1, 2, 3])
    np.testing.assert_array_equal(shifted("nearest", -2), [0, 0, 0, 1, 2])
    np.testing.assert_array_equal(shifted("constant", 2), [2, 3, 4, 0, 0])


def test_integer_images_round_half_away_and_clip():
    img = np.array([[0, 255], [10, 20]], dtype=np.uint8)
    out = T.affine_transform(img, np.eye(2), [0, 0.5], mode="nearest")
    assert out.dtype == np.uint8
    np.testing.assert_array_equal(out, [[128, 255], [15, 20]])
    signed = T.affine_transform(np.array([[-3, 0]], dtype=np.int16), np.eye(2), [0, 0.5], mode="nearest")
    np.testing.assert_array_equal(signed, [[-2, 0]])  # -1.5 rounds away from zero


def test_rotation_by_90_degrees_is_rot90():
    img = np.random.default_rng(0).random((5, 5, 2))
    out = T.apply_affine_transform(img, theta=90, row_axis=0, col_axis=1, channel_axis=2)
    np.testing.assert_allclose(out, np.rot90(img, k=1, axes=(0, 1)), atol=1e-12)
    first = T.apply_affine_transform(np.transpose(img, (2, 0, 1)), theta=90)  # Keras' default axes
    np.testing.assert_allclose(first, np.transpose(out, (2, 0, 1)), atol=1e-12)


def test_flip_channel_shift_and_errors():
    img = np.arange(12.0).reshape(2, 3, 2)
    np.testing.assert_array_equal(T.flip_axis(img, 1), img[:, ::-1])
    shifted = T.apply_channel_shift(img, 5.0, channel_axis=2)
    np.testing.assert_array_equal(shifted, np.clip(img + 5, 0, 11))
    with pytest.raises(ValueError, match="distinct"):
        T.apply_affine_transform(img, theta=10, row_axis=0, col_axis=0, channel_axis=2)
    with pytest.raises(ValueError, match="multi-channel"):
        T.apply_affine_transform(img[0], theta=10)
    with pytest.raises(ValueError, match="fill_mode"):
        T.apply_affine_transform(img, theta=10, row_axis=0, col_axis=1, channel_axis=2, fill_mode="mirror")
    with pytest.raises(ValueError, match="zoom_range"):
        T.random_zoom(img, (1.0,))
    assert T.apply_affine_transform(img, row_axis=0, col_axis=1, channel_axis=2) is img  # nothing to do


def test_random_transforms_draw_from_numpy_global_state():
    img = np.random.default_rng(1).random((3, 6, 6))
    for fn, args in ((T.random_rotation, (30,)), (T.random_shift, (0.2, 0.2)), (T.random_shear, (15,)),
                     (T.random_zoom, ((0.8, 1.2),)), (T.random_channel_shift, (0.3,))):
        np.random.seed(3)
        a = fn(img, *args)
        np.random.seed(3)
        np.testing.assert_array_equal(a, fn(img, *args))
        assert a.shape == img.shape


def test_brightness_shift_keeps_range_without_scale():
    pytest.importorskip("PIL")
    img = np.linspace(-50, 300, 48).reshape(4, 4, 3)
    out = T.apply_brightness_shift(img, 1.0, scale=False)
    np.testing.assert_allclose(out, img, atol=(350 / 255) + 1e-6)  # a round trip through uint8
    assert T.random_brightness(img, (0.5, 0.5)).max() <= 255


def test_smart_resize_crops_to_aspect_ratio():
    img = np.zeros((10, 20, 1), np.float32)
    img[:, 5:15] = 1.0  # the centred 10x10 crop is all ones
    np.testing.assert_allclose(T.smart_resize(img, (4, 4)), np.ones((4, 4, 1)))
    assert T.smart_resize(np.zeros((2, 1, 10, 20), np.float32), (5, 5), data_format="channels_first").shape == \
        (2, 1, 5, 5)
    with pytest.raises(ValueError, match="rank"):
        T.smart_resize(np.zeros((4, 4)), (2, 2))
    with pytest.raises(TypeError, match="unexpected keyword"):
        T.smart_resize(img, (2, 2), method="area")


@pytest.mark.parametrize("mode", ["constant", "nearest", "reflect", "wrap"])
@pytest.mark.parametrize("order", [0, 1])
def test_bit_for_bit_against_scipy(mode, order):
    ndimage = pytest.importorskip("scipy.ndimage")
    rng = np.random.default_rng(7)
    for trial in range(60):
        h, w = rng.integers(1, 9, 2)
        dtype = ("float32", "float64", "uint8", "int16")[trial % 4]
        img = (rng.standard_normal((h, w)) * 60).astype(dtype)
        matrix = rng.standard_normal((2, 2)) * rng.choice([0.3, 1, 3])
        offset = rng.standard_normal(2) * rng.choice([0.5, 3, 20])
        cval = float(rng.choice([0.0, 1.5, -2.0]))
        np.testing.assert_array_equal(T.affine_transform(img, matrix, offset, order=order, mode=mode, cval=cval),
                                      ndimage.affine_transform(img, matrix, offset, order=order, mode=mode,
                                                               cval=cval))
