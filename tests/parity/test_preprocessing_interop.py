"""Preprocessing layers in '.keras' files, both ways with real Keras 3: configs (and the
Normalization statistics in the weights) come back equal, and the loaded models compute the same
inference outputs. Vocabularies move through the config, where Keras writes the vocabulary a layer
was given; minitf also writes an adapted vocabulary there (Keras keeps it in an assets/ file)."""
import numpy as np
import pytest

import minitf

tf_ref = pytest.importorskip("tensorflow")
LIBS = {"keras": tf_ref, "minitf": minitf}
_IGNORED = {"name", "dtype", "trainable"}


def _image_model(lib):
    L = lib.keras.layers
    return lib.keras.Sequential([
        lib.keras.Input((6, 8, 3)),
        L.Rescaling(1 / 255.0, offset=0.1),
        L.Resizing(5, 7, interpolation="bicubic", crop_to_aspect_ratio=True),
        L.RandomFlip("horizontal", seed=3),
        L.RandomRotation((-0.2, 0.1), fill_mode="constant", fill_value=0.5, seed=4),
        L.RandomZoom(0.2, 0.3, interpolation="nearest", seed=5),
        L.RandomTranslation(0.1, (-0.2, 0.2), fill_mode="wrap", seed=6),
        L.RandomContrast(0.3, value_range=(0, 1), seed=7),
        L.RandomBrightness(0.2, value_range=(0, 1), seed=8),
        L.CenterCrop(4, 4),
        L.Normalization(axis=-1, name="norm"),
    ])


def _adapted_image_model(lib):
    model = _image_model(lib)
    data = np.random.RandomState(0).rand(10, 4, 4, 3).astype("float32")
    model.get_layer("norm").adapt(data)
    return model


def _configs(model):
    return [{k: v for k, v in layer.get_config().items() if k not in _IGNORED} for layer in model.layers]


def _same_configs(a, b):
    for u, v in zip(_configs(a), _configs(b)):
        assert set(u) == set(v), (u, v)
        for key in u:
            x, y = u[key], v[key]
            if isinstance(x, (tuple, list)) and isinstance(y, (tuple, list)):
                x, y = list(x), list(y)
            assert x == y, (key, u[key], v[key])


@pytest.mark.parametrize("writer", ["keras", "minitf"])
def test_image_preprocessing_model_moves_both_ways(writer, tmp_path):
    reader = "minitf" if writer == "keras" else "keras"
    saved = _adapted_image_model(LIBS[writer])
    saved.save(tmp_path / "images.keras")
    loaded = LIBS[reader].keras.models.load_model(tmp_path / "images.keras")
    assert [type(layer).__name__ for layer in loaded.layers] == [type(layer).__name__ for layer in saved.layers]
    _same_configs(saved, loaded)
    norm_saved, norm_loaded = saved.get_layer("norm"), loaded.get_layer("norm")
    assert [w.name.split("/")[-1].split(":")[0] for w in norm_loaded.weights] == ["mean", "variance", "count"]
    for u, v in zip(norm_saved.get_weights(), norm_loaded.get_weights()):
        np.testing.assert_allclose(u, v, rtol=1e-6)
    x = (np.random.RandomState(1).rand(2, 6, 8, 3) * 255).astype("float32")
    np.testing.assert_allclose(np.asarray(saved.predict(x, verbose=0)), np.asarray(loaded.predict(x, verbose=0)),
                               rtol=1e-4, atol=1e-4)


def _lookup_layers(lib, adapted):
    L = lib.keras.layers
    if adapted:
        strings = L.StringLookup(num_oov_indices=2, mask_token="", output_mode="int")
        strings.adapt(["b", "a", "b", "c", "c", "c"])
        ints = L.IntegerLookup(output_mode="count")
        ints.adapt(np.array([5, 5, 9, 2]))
        text = L.TextVectorization(max_tokens=8, output_sequence_length=4, ngrams=2)
        text.adapt(["the cat sat", "The dog sat."])
    else:
        strings = L.StringLookup(vocabulary=["a", "b", "c"], num_oov_indices=2, mask_token="")
        ints = L.IntegerLookup(vocabulary=[5, 9, 2], output_mode="count")
        text = L.TextVectorization(vocabulary=["the", "cat", "sat"], output_sequence_length=4, ngrams=2)
    return {"strings": strings, "ints": ints, "text": text}


_INPUTS = {"strings": ((3,), "string"), "ints": ((4,), "int64"), "text": ((1,), "string")}
_VALUES = {"strings": [["a", "q", "c"], ["", "b", "x"]], "ints": [[5, 2, 7, 5], [9, 9, 9, 0]],
           "text": [["the cat sat down"], ["a dog"]]}


def _lookup_model(lib, adapted, which):
    """One single-input model per layer (minitf cannot yet save the build_config of a multi-input
    functional model)."""
    layer = _lookup_layers(lib, adapted)[which]
    shape, dtype = _INPUTS[which]
    inputs = lib.keras.Input(shape=shape, dtype=dtype, name=which)
    return lib.keras.Model(inputs, layer(inputs))


@pytest.mark.parametrize("writer", ["keras", "minitf"])
@pytest.mark.parametrize("adapted", [False, True], ids=["given", "adapted"])
@pytest.mark.parametrize("which", ["strings", "ints", "text"])
def test_lookup_and_text_layers_move_both_ways(writer, adapted, which, tmp_path):
    reader = "minitf" if writer == "keras" else "keras"
    saved = _lookup_model(LIBS[writer], adapted, which)
    saved.save(tmp_path / "lookup.keras")
    loaded = LIBS[reader].keras.models.load_model(tmp_path / "lookup.keras")
    a, b = saved.layers[-1], loaded.layers[-1]
    assert type(a).__name__ == type(b).__name__
    assert [str(v) for v in a.get_vocabulary()] == [str(v) for v in b.get_vocabulary()]
    _, dtype = _INPUTS[which]
    out_saved = saved(LIBS[writer].constant(_VALUES[which], dtype))
    out_loaded = loaded(LIBS[reader].constant(_VALUES[which], dtype))
    np.testing.assert_array_equal(np.asarray(out_saved), np.asarray(out_loaded))


@pytest.mark.parametrize("writer", ["keras", "minitf"])
def test_tf_idf_lookup_config_moves_both_ways(writer):
    """The IDF weights of a vocabulary given to the layer travel in its config; the layer itself is
    rebuilt by the other library from `keras.layers.serialize`. (In files they also travel as the
    weights entry 'idf_weights': see test_tf_idf_interop.py.)"""
    reader = "minitf" if writer == "keras" else "keras"
    layer = LIBS[writer].keras.layers.StringLookup(vocabulary=["y", "z", "x"], idf_weights=[0.5, 0.7, 0.9],
                                                   output_mode="tf_idf")
    config = LIBS[writer].keras.layers.serialize(layer)
    clone = LIBS[reader].keras.layers.deserialize(config)
    x = [["x", "q", "x"], ["y", "z", "z"]]
    np.testing.assert_allclose(np.asarray(layer(LIBS[writer].constant(x))),
                               np.asarray(clone(LIBS[reader].constant(x))), rtol=1e-6)


@pytest.mark.parametrize("writer", ["keras", "minitf"])
@pytest.mark.parametrize("which", ["floats", "ids"])
def test_numeric_layer_configs_move_both_ways(writer, which, tmp_path):
    reader = "minitf" if writer == "keras" else "keras"
    lib = LIBS[writer]
    L = lib.keras.layers
    if which == "floats":
        inputs = lib.keras.Input(shape=(3,), name="x")
        outputs = [L.Normalization(mean=[1.0, 2.0, 3.0], variance=[1.0, 4.0, 9.0], invert=True)(inputs),
                   L.Discretization(bin_boundaries=[0.0, 1.5], output_mode="one_hot")(inputs)]
        data = np.array([[0.0, 2.0, -1.0]], "float32")
    else:
        inputs = lib.keras.Input(shape=(2,), dtype="int32", name="ids")
        outputs = [L.CategoryEncoding(num_tokens=5, output_mode="count")(inputs),
                   L.Hashing(num_bins=4, output_mode="multi_hot")(inputs)]
        data = np.array([[1, 4]], "int32")
    model = lib.keras.Model(inputs, outputs)
    model.save(tmp_path / "numeric.keras")
    loaded = LIBS[reader].keras.models.load_model(tmp_path / "numeric.keras")
    _same_configs(model, loaded)
    for u, v in zip(model(data), loaded(data)):
        np.testing.assert_allclose(np.asarray(u), np.asarray(v), rtol=1e-6)
