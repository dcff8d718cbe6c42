"""tf.io: files as string tensors, the image codecs (with Pillow) and tf.io.gfile."""
import os

import numpy as np
import pytest

import minitf as tf
from minitf.errors import errors

pytest.importorskip("PIL", reason="the image codecs use Pillow (the `examples` extra)")


def test_read_and_write_files(tmp_path):
    path = str(tmp_path / "x.bin")
    tf.io.write_file(path, b"hello\x00world")
    data = tf.io.read_file(path)
    assert data.dtype == tf.string and data.shape == () and data.numpy() == b"hello\x00world"
    tf.io.write_file(tf.constant(path), tf.constant(b"again"))
    assert tf.io.read_file(tf.constant(path)).numpy() == b"again"
    with pytest.raises(errors.NotFoundError, match="No such file"):
        tf.io.read_file(str(tmp_path / "missing"))


def test_png_round_trip_and_channels():
    img = np.arange(2 * 3 * 3, dtype=np.uint8).reshape(2, 3, 3)
    png = tf.io.encode_png(img)
    assert png.dtype == tf.string and png.numpy().startswith(b"\x89PNG")
    np.testing.assert_array_equal(tf.io.decode_png(png).numpy(), img)
    np.testing.assert_array_equal(tf.io.decode_image(png).numpy(), img)
    assert tf.io.decode_png(png, channels=4).shape == (2, 3, 4)
    grey = tf.io.decode_png(png, channels=1).numpy()[..., 0]
    np.testing.assert_array_equal(grey, [[0, 3, 6], [9, 12, 15]])  # TF 2.21's values for this image
    as_float = tf.io.decode_image(png, dtype=tf.float32)
    assert as_float.dtype == tf.float32
    np.testing.assert_allclose(as_float.numpy(), img / 255.0, rtol=1e-6)


def test_jpeg_and_errors():
    img = np.full((8, 8, 3), 120, np.uint8)
    jpeg = tf.io.encode_jpeg(img, quality=90)
    assert bool(tf.io.is_jpeg(jpeg)) and not bool(tf.io.is_jpeg(tf.io.encode_png(img)))
    decoded = tf.io.decode_jpeg(jpeg).numpy()
    assert decoded.shape == (8, 8, 3) and np.abs(decoded.astype(int) - 120).max() <= 2
    with pytest.raises(errors.InvalidArgumentError, match="Unknown image file format"):
        tf.io.decode_image(b"garbage")
    with pytest.raises(errors.InvalidArgumentError, match="uint8"):
        tf.io.encode_png(np.zeros((2, 2, 3), np.float32))
    with pytest.raises(errors.InvalidArgumentError, match="3-D"):
        tf.io.encode_png(np.zeros((2, 2), np.uint8))


def test_gfile(tmp_path):
    tf.io.gfile.makedirs(str(tmp_path / "a" / "b"))
    tf.io.gfile.makedirs(str(tmp_path / "a" / "b"))  # already there: fine
    (tmp_path / "a" / "f1.txt").write_text("1")
    (tmp_path / "a" / "f2.txt").write_text("2")
    assert tf.io.gfile.exists(str(tmp_path / "a" / "b")) and tf.io.gfile.isdir(str(tmp_path / "a"))
    assert tf.io.gfile.glob(str(tmp_path / "a" / "f*.txt")) == [str(tmp_path / "a" / "f1.txt"),
                                                                   str(tmp_path / "a" / "f2.txt")]
    with pytest.raises(FileExistsError):
        tf.io.gfile.rename(str(tmp_path / "a" / "f1.txt"), str(tmp_path / "a" / "f2.txt"))
    tf.io.gfile.rename(str(tmp_path / "a" / "f1.txt"), str(tmp_path / "a" / "f2.txt"), overwrite=True)
    with tf.io.gfile.GFile(str(tmp_path / "a" / "f2.txt")) as f:
        assert f.read() == "1"
    assert sorted(os.listdir(tmp_path / "a")) == ["b", "f2.txt"]


def test_files_move_between_tf_and_minitf(tmp_path):
    tf_ = pytest.importorskip("tensorflow")
    img = np.random.default_rng(0).integers(0, 256, (5, 4, 3), dtype=np.uint8)
    np.testing.assert_array_equal(tf.io.decode_png(tf_.io.encode_png(img).numpy()).numpy(), img)
    np.testing.assert_array_equal(tf_.io.decode_png(tf.io.encode_png(img).numpy()).numpy(), img)
    tf_.io.write_file(str(tmp_path / "t.bin"), b"from tf")
    assert tf.io.read_file(str(tmp_path / "t.bin")).numpy() == b"from tf"


def test_an_image_whose_header_claims_a_gigantic_size_is_refused_cleanly(monkeypatch):
    from PIL import Image
    import io as _io
    buffer = _io.BytesIO()
    Image.new("L", (64, 64)).save(buffer, "PNG")
    monkeypatch.setattr(Image, "MAX_IMAGE_PIXELS", 100)  # 64*64 is then a "decompression bomb"
    with pytest.raises(tf.errors.InvalidArgumentError, match="refusing to decode the PNG"):
        tf.io.decode_png(buffer.getvalue())
