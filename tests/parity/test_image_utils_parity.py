"""tf.keras.utils image helpers against Keras 3: the same arrays from the same images and files."""
import numpy as np
import pytest

import minitf

tf_ref = pytest.importorskip("tensorflow")
pytest.importorskip("PIL.Image")


@pytest.mark.parametrize("shape", [(5, 7, 1), (5, 7, 3), (5, 7, 4)])
@pytest.mark.parametrize("scale", [True, False])
def test_array_to_img_and_back_match_keras(shape, scale):
    x = np.random.default_rng(1).normal(50, 80, size=shape)
    ours = minitf.keras.utils.img_to_array(minitf.keras.utils.array_to_img(x, scale=scale))
    theirs = tf_ref.keras.utils.img_to_array(tf_ref.keras.utils.array_to_img(x, scale=scale))
    np.testing.assert_array_equal(ours, theirs)


@pytest.mark.parametrize("options", [dict(), dict(color_mode="grayscale"), dict(color_mode="rgba"),
                                     dict(target_size=(4, 9), interpolation="bilinear"),
                                     dict(target_size=(5, 5), keep_aspect_ratio=True, interpolation="bicubic")])
def test_load_img_matches_keras(tmp_path, options):
    x = np.random.default_rng(2).integers(0, 256, size=(11, 13, 3)).astype("float32")
    path = str(tmp_path / "a.png")
    tf_ref.keras.utils.save_img(path, x, scale=False)
    ours = minitf.keras.utils.img_to_array(minitf.keras.utils.load_img(path, **options))
    theirs = tf_ref.keras.utils.img_to_array(tf_ref.keras.utils.load_img(path, **options))
    np.testing.assert_array_equal(ours, theirs)
