"""image_dataset_from_directory and text_dataset_from_directory: files, order, labels, splits,
messages, and what happens with hostile folders (junk files, links out, bad class names)."""
import os

import numpy as np
import pytest

import minitf as tf
from minitf.utils import image_dataset

Image = pytest.importorskip("PIL.Image")


def _png(path, value, size=(6, 8), channels=3):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    shape = size if channels == 1 else size + (channels,)
    Image.fromarray(np.full(shape, value, np.uint8)).save(path)


@pytest.fixture
def folder(tmp_path):
    """Two classes of flat-colour images; each pixel value says which file it came from."""
    values = {}
    for cls, names in {"dogs": ["b.png", "a.jpg", "c.PNG"], "cats": ["z.png", "y.bmp"]}.items():
        for i, name in enumerate(names):
            value = 10 * (len(values) + 1)
            path = str(tmp_path / cls / name)
            if name.endswith(".jpg"):
                os.makedirs(os.path.dirname(path), exist_ok=True)
                Image.fromarray(np.full((6, 8, 3), value, np.uint8)).save(path, quality=100)
            else:
                _png(path, value)
            values[path] = value
    (tmp_path / "dogs" / "notes.txt").write_text("not an image")
    (tmp_path / "cats" / "archive.tar").write_bytes(b"\0" * 10)
    _png(str(tmp_path / ".cache" / "hidden.png"), 99)
    _png(str(tmp_path / "loose.png"), 98)
    return tmp_path, values


def _unbatch(ds):
    images, labels = [], []
    for x, y in ds:
        images.extend(np.asarray(x))
        labels.extend(np.asarray(y))
    return images, labels


def test_sorted_classes_and_files_with_keras_message(folder, capsys):
    root, values = folder
    ds = tf.keras.utils.image_dataset_from_directory(str(root), shuffle=False, image_size=(3, 4), batch_size=2)
    assert capsys.readouterr().out == "Found 5 files belonging to 2 classes.\n"
    assert ds.class_names == ["cats", "dogs"]
    expected = [os.path.join(str(root), p) for p in ["cats/y.bmp", "cats/z.png", "dogs/a.jpg", "dogs/b.png",
                                                      "dogs/c.PNG"]]
    assert ds.file_paths == expected
    images, labels = _unbatch(ds)
    assert labels == [0, 0, 1, 1, 1]
    for image, path in zip(images, expected):
        assert image.shape == (3, 4, 3) and image.dtype == np.float32
        np.testing.assert_allclose(image, values[path], atol=2)  # the JPEG within a level or two


def test_shuffle_is_numpy_permutation_of_the_sorted_list(folder):
    root, _ = folder
    plain = tf.keras.utils.image_dataset_from_directory(str(root), shuffle=False, verbose=False)
    shuffled = tf.keras.utils.image_dataset_from_directory(str(root), seed=11, verbose=False)
    order = list(plain.file_paths)
    np.random.RandomState(11).shuffle(order)
    assert shuffled.file_paths == order


def test_validation_split_takes_the_tail(folder, capsys):
    root, _ = folder
    train, val = tf.keras.utils.image_dataset_from_directory(str(root), validation_split=0.4, subset="both",
                                                             seed=3, image_size=(2, 2))
    out = capsys.readouterr().out
    assert out == ("Found 5 files belonging to 2 classes.\nUsing 3 files for training.\n"
                   "Using 2 files for validation.\n")
    everything = tf.keras.utils.image_dataset_from_directory(str(root), seed=3, verbose=False).file_paths
    assert train.file_paths == everything[:3] and val.file_paths == everything[3:]
    assert len(_unbatch(train)[1]) == 3 and len(_unbatch(val)[1]) == 2


def test_label_modes_and_explicit_labels(folder):
    root, _ = folder
    kwargs = dict(shuffle=False, verbose=False, image_size=(2, 2))
    _, onehot = _unbatch(tf.keras.utils.image_dataset_from_directory(str(root), label_mode="categorical", **kwargs))
    np.testing.assert_array_equal(onehot, np.eye(2, dtype="float32")[[0, 0, 1, 1, 1]])
    _, binary = _unbatch(tf.keras.utils.image_dataset_from_directory(str(root), label_mode="binary", **kwargs))
    np.testing.assert_array_equal(binary, [[0.0], [0.0], [1.0], [1.0], [1.0]])
    # explicit labels cover every image below the root in os.walk order (roots sorted, the root's own
    # files first, hidden folders included); class_names are their strings
    labels = [4, 2, 2, 4, 7, 4, 2]
    ds = tf.keras.utils.image_dataset_from_directory(str(root), labels=labels, **kwargs)
    assert ds.class_names == ["2", "4", "7"]
    assert [os.path.relpath(p, root) for p in ds.file_paths] == [
        "loose.png", ".cache/hidden.png", "cats/y.bmp", "cats/z.png", "dogs/a.jpg", "dogs/b.png", "dogs/c.PNG"]
    assert _unbatch(ds)[1] == labels
    assert labels == [4, 2, 2, 4, 7, 4, 2]  # the caller's list is not shuffled in place
    images_only = tf.keras.utils.image_dataset_from_directory(str(root), labels=None, batch_size=None, **kwargs)
    assert images_only.class_names is None
    assert [np.asarray(x).shape for x in images_only] == [(2, 2, 3)] * 7


def test_class_names_pick_and_order_classes(folder):
    root, _ = folder
    ds = tf.keras.utils.image_dataset_from_directory(str(root), class_names=["dogs", "cats"], shuffle=False,
                                                     verbose=False, image_size=(2, 2))
    assert ds.class_names == ["dogs", "cats"]
    assert _unbatch(ds)[1] == [0, 0, 0, 1, 1]


def test_color_modes_resize_options_and_layout(folder):
    root, values = folder
    common = dict(shuffle=False, verbose=False, image_size=(4, 4), batch_size=None, class_names=["cats"])
    grey = next(iter(tf.keras.utils.image_dataset_from_directory(str(root), color_mode="grayscale", **common)))[0]
    assert grey.shape == (4, 4, 1)
    rgba = next(iter(tf.keras.utils.image_dataset_from_directory(str(root), color_mode="rgba", **common)))[0]
    np.testing.assert_array_equal(np.asarray(rgba)[..., 3], 255)
    first = next(iter(tf.keras.utils.image_dataset_from_directory(str(root), data_format="channels_first",
                                                                  **common)))[0]
    assert first.shape == (3, 4, 4)
    nearest = next(iter(tf.keras.utils.image_dataset_from_directory(str(root), interpolation="nearest",
                                                                    **common)))[0]
    assert nearest.dtype == tf.uint8  # tf.image.resize keeps the dtype for nearest, as in Keras
    padded = next(iter(tf.keras.utils.image_dataset_from_directory(str(root), pad_to_aspect_ratio=True,
                                                                   **common)))[0]
    # a 6x8 image fitted into 4x4 is 3 rows high: tf.image.resize_with_pad puts the spare row below
    np.testing.assert_array_equal(np.asarray(padded)[3], 0)
    assert np.asarray(padded)[:3].min() > 0
    cropped = next(iter(tf.keras.utils.image_dataset_from_directory(str(root), crop_to_aspect_ratio=True,
                                                                    **common)))[0]
    np.testing.assert_allclose(cropped, values[os.path.join(str(root), "cats", "y.bmp")])


def test_center_crop_box_is_keras_smart_resize():
    assert image_dataset._center_crop_box(6, 8, 4, 4) == (0, 1, 6, 6)
    assert image_dataset._center_crop_box(10, 3, 2, 5) == (4, 0, 1, 3)
    assert image_dataset._center_crop_box(5, 5, 5, 5) == (0, 0, 5, 5)


@pytest.mark.parametrize("kwargs, message", [
    (dict(validation_split=0.2, subset="training"), "must provide a `seed`"),
    (dict(validation_split=0.2), "`validation_split` must be set, and inversely"),
    (dict(subset="training"), "`validation_split` must be set"),
    (dict(validation_split=0.2, subset="test", seed=1), "`subset` must be either"),
    (dict(validation_split=2.0, subset="training", seed=1), "between 0 and 1"),
    (dict(class_names=["cats", "../.."]), "did not match the names of the subdirectories"),
    (dict(label_mode="binary", class_names=["cats"]), "exactly 2"),
    (dict(color_mode="cmyk"), "color_mode"),
    (dict(interpolation="sinc"), "interpolation"),
    (dict(labels=[1, 2]), "lengths of `labels`"),
    (dict(labels=None, class_names=["cats"]), "cannot be specified"),
    (dict(format="grain"), "grain"),
    (dict(crop_to_aspect_ratio=True, pad_to_aspect_ratio=True), "Only one of"),
])
def test_bad_arguments_raise_value_error(folder, kwargs, message):
    root, _ = folder
    with pytest.raises(ValueError, match=message):
        tf.keras.utils.image_dataset_from_directory(str(root), verbose=False, **kwargs)


def test_missing_or_empty_directory(tmp_path):
    with pytest.raises(FileNotFoundError, match="does not exist"):
        tf.keras.utils.image_dataset_from_directory(str(tmp_path / "nope"))
    (tmp_path / "empty_class").mkdir()
    with pytest.raises(ValueError, match="No images found"):
        tf.keras.utils.image_dataset_from_directory(str(tmp_path), verbose=False)


def test_corrupt_image_raises_naming_the_file(tmp_path):
    _png(str(tmp_path / "a" / "ok.png"), 5)
    (tmp_path / "a" / "broken.png").write_bytes(b"\x89PNG\r\n\x1a\n but then garbage")
    ds = tf.keras.utils.image_dataset_from_directory(str(tmp_path), shuffle=False, verbose=False)
    with pytest.raises(tf.errors.InvalidArgumentError, match="broken.png"):
        list(ds)


def test_unreadable_file_raises_permission_denied(tmp_path, monkeypatch):
    _png(str(tmp_path / "a" / "secret.png"), 5)

    def refuse(path, name=None):
        raise PermissionError(13, "Permission denied")
    monkeypatch.setattr(image_dataset.io_ops, "read_file", refuse)
    ds = tf.keras.utils.image_dataset_from_directory(str(tmp_path), verbose=False)
    with pytest.raises(tf.errors.PermissionDeniedError, match="secret.png"):
        list(ds)


def test_symlinked_folders_are_walked_only_with_follow_links(tmp_path):
    outside = tmp_path / "outside"
    _png(str(outside / "far.png"), 7)
    root = tmp_path / "root"
    _png(str(root / "cls" / "near.png"), 8)
    os.symlink(outside, root / "cls" / "link")
    kwargs = dict(shuffle=False, verbose=False)
    kept = tf.keras.utils.image_dataset_from_directory(str(root), **kwargs).file_paths
    assert [os.path.relpath(p, root) for p in kept] == ["cls/near.png"]
    followed = tf.keras.utils.image_dataset_from_directory(str(root), follow_links=True, **kwargs).file_paths
    assert [os.path.relpath(p, root) for p in followed] == ["cls/near.png", "cls/link/far.png"]


def test_text_dataset(tmp_path, capsys):
    for cls, texts in {"neg": ["bad", "awful film"], "pos": ["great", "héllo wörld", "fine"]}.items():
        (tmp_path / cls).mkdir()
        for i, text in enumerate(texts):
            (tmp_path / cls / f"{i}.txt").write_text(text, encoding="utf-8")
        (tmp_path / cls / "ignored.csv").write_text("x")
    ds = tf.keras.utils.text_dataset_from_directory(str(tmp_path), shuffle=False, batch_size=2, max_length=4)
    assert capsys.readouterr().out == "Found 5 files belonging to 2 classes.\n"
    assert ds.class_names == ["neg", "pos"]
    texts, labels = [], []
    for x, y in ds:
        assert x.dtype == tf.string
        texts.extend(np.asarray(x).tolist())
        labels.extend(np.asarray(y).tolist())
    # max_length counts bytes, as tf.strings.substr does
    assert texts == [b"bad", b"awfu", b"grea", "héllo".encode()[:4], b"fine"]
    assert labels == [0, 0, 1, 1, 1]
    train, val = tf.keras.utils.text_dataset_from_directory(str(tmp_path), validation_split=0.2, subset="both",
                                                            seed=2, label_mode="categorical", verbose=False)
    assert sum(int(np.asarray(y).shape[0]) for _, y in train) == 4
    assert [np.asarray(y).shape for _, y in val] == [(1, 2)]
    with pytest.raises(ValueError, match="No text files"):
        tf.keras.utils.text_dataset_from_directory(str(tmp_path), class_names=[], verbose=False)


def test_also_exported_from_keras_preprocessing():
    assert tf.keras.preprocessing.image_dataset_from_directory is tf.keras.utils.image_dataset_from_directory
    assert tf.keras.preprocessing.text_dataset_from_directory is tf.keras.utils.text_dataset_from_directory
