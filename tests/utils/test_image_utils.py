"""tf.keras.utils image helpers: array <-> PIL image conversions, files, sizes and errors."""
import io

import numpy as np
import pytest

import minitf as tf

Image = pytest.importorskip("PIL.Image")
utils = tf.keras.utils


def test_img_to_array_gives_float32_hwc_and_a_channel_axis_for_grey():
    rgb = Image.fromarray(np.arange(2 * 3 * 3, dtype=np.uint8).reshape(2, 3, 3), "RGB")
    x = utils.img_to_array(rgb)
    assert x.dtype == np.float32 and x.shape == (2, 3, 3)
    np.testing.assert_array_equal(x, np.arange(18).reshape(2, 3, 3))
    assert utils.img_to_array(rgb, data_format="channels_first").shape == (3, 2, 3)
    grey = Image.fromarray(np.zeros((4, 5), np.uint8), "L")
    assert utils.img_to_array(grey).shape == (4, 5, 1)
    assert utils.img_to_array(grey, data_format="channels_first", dtype="uint8").shape == (1, 4, 5)
    with pytest.raises(ValueError, match="unsupported image shape"):
        utils.img_to_array(np.zeros((2, 2, 2, 2)))
    with pytest.raises(ValueError, match="data_format"):
        utils.img_to_array(grey, data_format="nhwc")


def test_array_to_img_scales_to_the_full_byte_range_unless_told_not_to():
    x = np.array([[[-1.0], [0.0]], [[1.0], [3.0]]])
    img = utils.array_to_img(x)
    assert img.mode == "L" and img.size == (2, 2)
    np.testing.assert_array_equal(np.asarray(img), [[0, 63], [127, 255]])
    np.testing.assert_array_equal(np.asarray(utils.array_to_img(x + 1, scale=False)), [[0, 1], [2, 4]])
    assert utils.array_to_img(np.zeros((2, 2, 3))).mode == "RGB"
    assert utils.array_to_img(np.zeros((2, 2, 4))).mode == "RGBA"
    assert utils.array_to_img(np.full((2, 2, 1), 300.0), scale=False).mode == "I"
    assert utils.array_to_img(np.zeros((3, 2, 2)), data_format="channels_first").size == (2, 2)
    with pytest.raises(ValueError, match="number of channels 2"):
        utils.array_to_img(np.zeros((2, 2, 2)))
    with pytest.raises(ValueError, match="rank 3"):
        utils.array_to_img(np.zeros((1, 2, 2, 3)))


def test_save_then_load_round_trips_png_and_resizes(tmp_path):
    rng = np.random.default_rng(0)
    x = rng.integers(0, 256, size=(6, 8, 3)).astype("float32")
    path = tmp_path / "a.png"
    utils.save_img(path, x, scale=False)
    img = utils.load_img(path)
    assert img.mode == "RGB" and img.size == (8, 6)
    np.testing.assert_array_equal(utils.img_to_array(img), x)
    assert utils.load_img(str(path), color_mode="grayscale").mode == "L"
    assert utils.load_img(path, color_mode="rgba").mode == "RGBA"
    small = utils.load_img(path, target_size=(3, 4), interpolation="bilinear")
    assert small.size == (4, 3)
    square = utils.load_img(path, target_size=(4, 4), keep_aspect_ratio=True)
    assert square.size == (4, 4)
    # keep_aspect_ratio crops the centre 6x6 first: the left and right column pairs are dropped
    np.testing.assert_array_equal(utils.img_to_array(utils.load_img(path, target_size=(6, 6),
                                                                    keep_aspect_ratio=True)), x[:, 1:7])
    buffer = io.BytesIO(path.read_bytes())
    assert utils.load_img(buffer).size == (8, 6)


def test_load_img_rejects_bad_arguments(tmp_path):
    path = tmp_path / "a.png"
    utils.save_img(path, np.zeros((2, 2, 3)))
    with pytest.raises(ValueError, match="color_mode"):
        utils.load_img(path, color_mode="cmyk")
    with pytest.raises(ValueError, match="interpolation 'cubic'"):
        utils.load_img(path, target_size=(1, 1), interpolation="cubic")
    with pytest.raises(TypeError, match="path-like or io.BytesIO"):
        utils.load_img(3)


def test_save_img_as_jpeg_drops_alpha_with_a_warning(tmp_path):
    with pytest.warns(UserWarning, match="no alpha channel"):
        utils.save_img(tmp_path / "a.jpg", np.ones((4, 4, 4)))
    assert utils.load_img(tmp_path / "a.jpg").size == (4, 4)


def test_the_helpers_are_also_under_preprocessing_image():
    from minitf.keras.preprocessing.image import load_img
    assert load_img is utils.load_img
    assert tf.keras.preprocessing.image.img_to_array is utils.img_to_array
