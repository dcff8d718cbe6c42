"""tf.keras.utils dataset helpers against Keras 3 on the same generated folders: the same files,
order, labels, class names, splits and messages, pixels within the resize/codec tolerance,
pad_sequences and timeseries windows equal, and set_random_seed seeding the same streams."""
import os
import random

import numpy as np
import pytest

import minitf

tf_ref = pytest.importorskip("tensorflow")
Image = pytest.importorskip("PIL.Image")
keras = pytest.importorskip("keras")

ATOL = 1e-3  # lossless images resized by the same formula: float32 rounding only


def _save(path, array, mode=None):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    Image.fromarray(array, mode).save(path) if mode else Image.fromarray(array).save(path)


@pytest.fixture(scope="module")
def image_dir(tmp_path_factory):
    """Three classes of small images of mixed sizes, modes and formats, plus files Keras skips."""
    root = tmp_path_factory.mktemp("images")
    rng = np.random.default_rng(7)
    layout = {"cat": 6, "dog": 5, "ant": 4}
    for cls, n in layout.items():
        for i in range(n):
            h, w = (int(v) for v in rng.integers(6, 25, 2))
            kind = i % 5
            base = str(root / cls / f"img_{i:02d}")
            if kind == 0:
                _save(base + ".png", rng.integers(0, 256, (h, w, 3), dtype=np.uint8))
            elif kind == 1:
                _save(base + ".PNG", rng.integers(0, 256, (h, w, 4), dtype=np.uint8))  # upper case, RGBA
            elif kind == 2:
                _save(base + ".png", rng.integers(0, 256, (h, w), dtype=np.uint8))  # grey
            elif kind == 3:
                _save(base + ".bmp", rng.integers(0, 256, (h, w, 3), dtype=np.uint8))
            else:
                _save(base + ".gif", rng.integers(0, 256, (h, w, 3), dtype=np.uint8))
    _save(str(root / "cat" / "nested" / "deep.png"), rng.integers(0, 256, (9, 7, 3), dtype=np.uint8))
    _save(str(root / ".hidden" / "x.png"), rng.integers(0, 256, (5, 5, 3), dtype=np.uint8))
    _save(str(root / "top_level.png"), rng.integers(0, 256, (5, 6, 3), dtype=np.uint8))
    (root / "dog" / "readme.txt").write_text("not an image")
    (root / "dog" / "data.npy").write_bytes(b"\x93NUMPY")
    return str(root)


def _elements(ds, batched=True):
    """All elements, unbatched, as tuples of numpy arrays (one per component)."""
    out = []
    for element in ds:
        parts = element if isinstance(element, tuple) else (element,)
        arrays = [np.asarray(p.numpy() if hasattr(p, "numpy") else p) for p in parts]
        if all(a.ndim for a in arrays) and batched:
            out.extend(tuple(np.asarray(x) for x in row) for row in zip(*arrays))
        else:
            out.append(tuple(arrays))
    return out


def _assert_same_in_order(ours, theirs, atol=ATOL):
    assert len(ours) == len(theirs)
    for a, b in zip(ours, theirs):
        assert len(a) == len(b)
        for x, y in zip(a, b):
            assert x.dtype == y.dtype and x.shape == y.shape
            if x.dtype.kind in "SOU":
                assert x.tolist() == y.tolist()
            else:
                np.testing.assert_allclose(x, y, atol=atol)


def _assert_same_elements(ours, theirs, atol=ATOL):
    """The same elements in any order (minitf's buffer shuffle draws its own order)."""
    assert len(ours) == len(theirs)
    unused = list(range(len(theirs)))
    for a in ours:
        match = next((j for j in unused if all(x.shape == y.shape and np.allclose(x, y, atol=atol)
                                               for x, y in zip(a, theirs[j]))), None)
        assert match is not None, "an element of minitf's dataset has no counterpart in Keras'"
        unused.remove(match)


def _both(function, capsys, *args, **kwargs):
    """(minitf's result, Keras' result), checking both print the same messages."""
    ours = getattr(minitf.keras.utils, function)(*args, **kwargs)
    our_out = capsys.readouterr().out
    theirs = getattr(keras.utils, function)(*args, **kwargs)
    their_out = capsys.readouterr().out
    assert our_out == their_out
    return ours, theirs


@pytest.mark.parametrize("options", [
    dict(),
    dict(label_mode="categorical"),
    dict(interpolation="nearest", batch_size=None),
    dict(interpolation="bicubic", crop_to_aspect_ratio=True, image_size=(10, 16)),
    dict(interpolation="area", pad_to_aspect_ratio=True, image_size=(16, 10)),
    dict(data_format="channels_first", image_size=5),
    dict(labels=None),
    dict(class_names=["dog", "cat"], label_mode="binary"),
])
def test_image_dataset_unshuffled_matches_keras(image_dir, capsys, options):
    kwargs = dict(image_size=(12, 14), batch_size=4, shuffle=False)
    kwargs.update(options)
    ours, theirs = _both("image_dataset_from_directory", capsys, image_dir, **kwargs)
    assert ours.class_names == theirs.class_names
    assert ours.file_paths == theirs.file_paths
    assert ours.element_spec == theirs.element_spec or str(ours.element_spec) == str(theirs.element_spec)
    batched = kwargs["batch_size"] is not None
    _assert_same_in_order(_elements(ours, batched), _elements(theirs, batched))


@pytest.mark.parametrize("color_mode", ["grayscale", "rgba"])
def test_image_dataset_color_modes_match_keras(tmp_path, capsys, color_mode):
    # TF decodes BMP to 3 or 4 channels only, GIF to 3 and JPEG to 1 or 3: PNG and JPEG here
    rng = np.random.default_rng(11)
    jpg = "jpg" if color_mode == "grayscale" else "png"
    for i, (cls, ext, c) in enumerate([("a", "png", 3), ("a", jpg, 3), ("b", "png", 4), ("b", "png", 1)]):
        shape = (7 + i, 9) if c == 1 else (7 + i, 9, c)
        _save(str(tmp_path / cls / f"{i}.{ext}"), rng.integers(0, 256, shape, dtype=np.uint8))
    ours, theirs = _both("image_dataset_from_directory", capsys, str(tmp_path), color_mode=color_mode,
                         shuffle=False, image_size=(5, 6), label_mode="categorical")
    # a colour PNG read as grey may differ by one level (libpng's fixed-point weights), a JPEG by
    # a few (the decoders' inverse DCTs differ)
    _assert_same_in_order(_elements(ours), _elements(theirs), atol=4.0)


def test_image_dataset_explicit_labels_match_keras(image_dir, capsys):
    count = len(keras.utils.image_dataset_from_directory(image_dir, labels=None, shuffle=False, verbose=False,
                                                         batch_size=None).file_paths)
    labels = [i % 3 for i in range(count)]
    ours, theirs = _both("image_dataset_from_directory", capsys, image_dir, labels=labels, shuffle=False,
                         image_size=(8, 8), label_mode="categorical")
    assert ours.class_names == theirs.class_names == ["0", "1", "2"]
    assert ours.file_paths == theirs.file_paths
    _assert_same_in_order(_elements(ours), _elements(theirs))


@pytest.mark.parametrize("subset", ["training", "validation", "both"])
def test_image_dataset_split_matches_keras(image_dir, capsys, subset):
    ours, theirs = _both("image_dataset_from_directory", capsys, image_dir, image_size=(9, 11), batch_size=3,
                         seed=1337, validation_split=0.3, subset=subset)
    ours = ours if isinstance(ours, list) else [ours]
    theirs = theirs if isinstance(theirs, list) else [theirs]
    assert len(ours) == len(theirs)
    for name, a, b in zip(["training", "validation"] if subset == "both" else [subset], ours, theirs):
        assert a.file_paths == b.file_paths and a.class_names == b.class_names
        if subset == "both" and name == "validation":  # not buffer-shuffled: the same order
            _assert_same_in_order(_elements(a), _elements(b))
        else:
            _assert_same_elements(_elements(a), _elements(b))


def test_image_dataset_shuffled_has_keras_files_and_elements(image_dir, capsys):
    ours, theirs = _both("image_dataset_from_directory", capsys, image_dir, image_size=(7, 7), seed=42,
                         batch_size=2)
    assert ours.file_paths == theirs.file_paths
    _assert_same_elements(_elements(ours), _elements(theirs))


@pytest.mark.parametrize("kwargs", [
    dict(validation_split=1.5, subset="training", seed=1),
    dict(validation_split=0.2),
    dict(subset="both"),
    dict(validation_split=0.2, subset="training"),
    dict(validation_split=0.2, subset="testing", seed=1),
    dict(class_names=["cat", "zebra"]),
    dict(label_mode="binary"),
    dict(label_mode="sparse"),
    dict(color_mode="cmyk"),
    dict(interpolation="cubic"),
    dict(image_size=(3, 4, 5)),
    dict(labels="folders"),
    dict(labels=[0, 1]),
    dict(crop_to_aspect_ratio=True, pad_to_aspect_ratio=True),
])
def test_image_dataset_refuses_what_keras_refuses(image_dir, kwargs):
    with pytest.raises(ValueError):
        keras.utils.image_dataset_from_directory(image_dir, verbose=False, **kwargs)
    with pytest.raises(ValueError):
        minitf.keras.utils.image_dataset_from_directory(image_dir, verbose=False, **kwargs)


def test_image_dataset_corrupt_image_raises_like_keras(tmp_path):
    _save(str(tmp_path / "a" / "good.png"), np.zeros((4, 4, 3), np.uint8))
    (tmp_path / "a" / "bad.png").write_bytes(b"this is not a png")
    their_ds = keras.utils.image_dataset_from_directory(str(tmp_path), shuffle=False, verbose=False)
    with pytest.raises(tf_ref.errors.InvalidArgumentError):
        list(their_ds)
    our_ds = minitf.keras.utils.image_dataset_from_directory(str(tmp_path), shuffle=False, verbose=False)
    with pytest.raises(minitf.errors.InvalidArgumentError, match="bad.png"):
        list(our_ds)


@pytest.fixture(scope="module")
def text_dir(tmp_path_factory):
    root = tmp_path_factory.mktemp("texts")
    rng = np.random.default_rng(3)
    words = ["alpha", "beta", "gamma", "delta", "é", "zeta"]
    for cls, n in {"pos": 7, "neg": 6}.items():
        os.makedirs(root / cls)
        for i in range(n):
            text = " ".join(rng.choice(words, size=int(rng.integers(1, 12))))
            (root / cls / f"t{i}.txt").write_text(text, encoding="utf-8")
        (root / cls / "skip.md").write_text("ignored")
    (root / "neg" / "UPPER.TXT").write_text("upper-case extension")
    return str(root)


@pytest.mark.parametrize("options", [dict(), dict(max_length=5, label_mode="binary"),
                                     dict(label_mode="categorical", batch_size=None), dict(labels=None)])
def test_text_dataset_unshuffled_matches_keras(text_dir, capsys, options):
    kwargs = dict(shuffle=False, batch_size=4)
    kwargs.update(options)
    ours, theirs = _both("text_dataset_from_directory", capsys, text_dir, **kwargs)
    assert ours.class_names == theirs.class_names
    batched = kwargs["batch_size"] is not None
    _assert_same_in_order(_elements(ours, batched), _elements(theirs, batched))


@pytest.mark.parametrize("subset", ["training", "validation", "both"])
def test_text_dataset_split_matches_keras(text_dir, capsys, subset):
    ours, theirs = _both("text_dataset_from_directory", capsys, text_dir, seed=5, validation_split=0.25,
                         subset=subset, batch_size=2)
    ours = ours if isinstance(ours, list) else [ours]
    theirs = theirs if isinstance(theirs, list) else [theirs]
    for name, a, b in zip(["training", "validation"] if subset == "both" else [subset], ours, theirs):
        if subset == "both" and name == "validation":
            _assert_same_in_order(_elements(a), _elements(b))
        else:
            _assert_same_elements_text(_elements(a), _elements(b))


def _assert_same_elements_text(ours, theirs):
    key = [(bytes(t), int(y)) for t, y in ours]
    assert sorted(key) == sorted((bytes(t), int(y)) for t, y in theirs)


@pytest.mark.parametrize("kwargs", [
    dict(), dict(maxlen=3), dict(padding="post", truncating="post", maxlen=4, value=-1),
    dict(dtype="float32", value=0.5), dict(maxlen=2, truncating="post"),
])
def test_pad_sequences_matches_keras(kwargs):
    sequences = [[1, 2, 3], [4], [], [5, 6, 7, 8, 9]]
    ours = minitf.keras.preprocessing.sequence.pad_sequences(sequences, **kwargs)
    theirs = keras.preprocessing.sequence.pad_sequences(sequences, **kwargs)
    assert ours.dtype == theirs.dtype
    np.testing.assert_array_equal(ours, theirs)
    np.testing.assert_array_equal(minitf.keras.utils.pad_sequences(sequences, **kwargs), theirs)


def test_pad_sequences_of_vectors_and_strings_match_keras():
    vectors = [np.ones((2, 3)), np.arange(12).reshape(4, 3)]
    np.testing.assert_array_equal(minitf.keras.utils.pad_sequences(vectors, maxlen=3, dtype="float64"),
                                  keras.utils.pad_sequences(vectors, maxlen=3, dtype="float64"))
    words = [["a", "bb"], ["ccc"]]
    assert (minitf.keras.utils.pad_sequences(words, dtype=object, value="").tolist()
            == keras.utils.pad_sequences(words, dtype=object, value="").tolist())


@pytest.mark.parametrize("kwargs", [
    dict(sequence_length=4),
    dict(sequence_length=3, sequence_stride=2, sampling_rate=2, batch_size=3),
    dict(sequence_length=5, start_index=3, end_index=30, batch_size=None),
    dict(sequence_length=2, with_targets=True, batch_size=4),
    dict(sequence_length=3, with_targets=True, start_index=2, sampling_rate=3, batch_size=5),
])
def test_timeseries_dataset_matches_keras(kwargs):
    kwargs = dict(kwargs)
    data = np.arange(40 * 2, dtype="float64").reshape(40, 2)
    targets = np.arange(100, 140) if kwargs.pop("with_targets", False) else None
    ours = minitf.keras.utils.timeseries_dataset_from_array(data, targets, **kwargs)
    theirs = keras.utils.timeseries_dataset_from_array(data, targets, **kwargs)
    _assert_same_in_order(_elements(ours), _elements(theirs), atol=0)


def test_timeseries_shuffled_has_keras_windows():
    data = list(range(30))  # a Python list: int32 windows in both
    ours = minitf.keras.utils.timeseries_dataset_from_array(data, data[2:], sequence_length=3, shuffle=True,
                                                            seed=4, batch_size=4)
    theirs = keras.utils.timeseries_dataset_from_array(data, data[2:], sequence_length=3, shuffle=True, seed=4,
                                                       batch_size=4)
    _assert_same_elements(_elements(ours), _elements(theirs), atol=0)


def test_set_random_seed_seeds_the_same_streams_as_keras():
    keras.utils.set_random_seed(1234)
    theirs = (random.random(), np.random.rand(3), tf_ref.random.uniform([4]).numpy(),
              tf_ref.random.normal([2], seed=5).numpy())
    minitf.keras.utils.set_random_seed(1234)
    ours = (random.random(), np.random.rand(3), minitf.random.uniform([4]).numpy(),
            minitf.random.normal([2], seed=5).numpy())
    assert ours[0] == theirs[0]
    np.testing.assert_array_equal(ours[1], theirs[1])
    np.testing.assert_array_equal(ours[2], theirs[2])
    np.testing.assert_array_equal(ours[3], theirs[3])


def _dot_summary(dot):
    """Node labels and attributes (with their cluster), edges by layer name, graph attributes."""
    import re
    names = {}

    def nodes(graph, cluster):
        found = []
        for node in graph.get_nodes():
            if node.get_name() in ("node", "edge", "graph"):
                continue  # pydot lists default-attribute statements as nodes
            names[node.get_name()] = re.search(r"<b>([^<]*)</b>", node.get("label")).group(1)
            found.append(str((cluster, sorted(node.get_attributes().items()))))
        for sub in graph.get_subgraphs():
            found += nodes(sub, sub.get_name())
        return found

    def edges(graph):
        found = [(names[e.get_source()], names[e.get_destination()], str(e.get_attributes()))
                 for e in graph.get_edges()]
        for sub in graph.get_subgraphs():
            found += edges(sub)
        return found

    listed = sorted(nodes(dot, None))
    return listed, sorted(edges(dot)), dot.get_attributes()


def _two_input_model(k):
    a = k.Input((3,), name="a")
    b = k.Input((4,), name="b")
    x = k.layers.Dense(5, activation="relu", name="d1")(a)
    y = k.layers.Concatenate(name="cat")([x, b])
    inner = k.Sequential([k.Input((9,)), k.layers.Dense(2, name="i1"), k.layers.Dense(1, name="i2")], name="inner")
    return k.Model([a, b], [inner(y), y], name="outer")


@pytest.mark.parametrize("options", [
    dict(), dict(show_shapes=True, show_dtype=True, show_layer_activations=True, show_trainable=True),
    dict(expand_nested=True, show_shapes=True), dict(show_layer_names=False, rankdir="LR", dpi=96),
])
def test_model_to_dot_matches_keras(options):
    pytest.importorskip("pydot")
    ours = minitf.keras.utils.model_to_dot(_two_input_model(minitf.keras), **options)
    theirs = keras.utils.model_to_dot(_two_input_model(keras), **options)
    assert _dot_summary(ours) == _dot_summary(theirs)


def test_model_to_dot_of_sequential_matches_keras():
    pytest.importorskip("pydot")

    def build(k):
        return k.Sequential([k.Input((4,)), k.layers.Dense(3, name="s1"), k.layers.Dropout(0.1, name="s2"),
                             k.layers.Dense(1, activation="sigmoid", name="s3")], name="seq")
    for options in (dict(show_shapes=True), dict(show_trainable=True, show_layer_activations=True)):
        assert (_dot_summary(minitf.keras.utils.model_to_dot(build(minitf.keras), **options))
                == _dot_summary(keras.utils.model_to_dot(build(keras), **options)))


@pytest.mark.parametrize("kwargs", [dict(left_size=0.7), dict(right_size=3, shuffle=True, seed=9),
                                    dict(left_size=4, right_size=0.5, shuffle=True, seed=2)])
def test_split_dataset_matches_keras(kwargs):
    features = np.arange(20, dtype="float32").reshape(10, 2)
    labels = np.arange(10)
    ours = minitf.keras.utils.split_dataset((features, labels), **kwargs)
    theirs = keras.utils.split_dataset((features, labels), **kwargs)
    for a, b in zip(ours, theirs):
        _assert_same_in_order(_elements(a, batched=False), _elements(b, batched=False), atol=0)
    batched_ours = minitf.keras.utils.split_dataset(minitf.data.Dataset.from_tensor_slices(
        {"x": features}).batch(3), left_size=0.6)
    batched_theirs = keras.utils.split_dataset(tf_ref.data.Dataset.from_tensor_slices({"x": features}).batch(3),
                                               left_size=0.6)
    for a, b in zip(batched_ours, batched_theirs):
        assert [e["x"].tolist() for e in a.as_numpy_iterator()] == [e["x"].tolist() for e in b.as_numpy_iterator()]
