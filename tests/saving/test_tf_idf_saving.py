"""Adapted 'tf_idf' lookups saved by minitf: the IDF weights go into the layer's weights group
as 'idf_weights' (Keras 3's place for them) and come back from '.keras' and '.weights.h5' files;
a hostile 'idf_weights' entry is refused before anything is assigned."""
import zipfile

import h5py
import numpy as np
import pytest

import minitf as tf
from minitf.errors import errors

L = tf.keras.layers


def _model(which="strings"):
    if which == "strings":
        layer = L.StringLookup(output_mode="tf_idf")
        layer.adapt(np.array([["b", "a", "b"], ["c", "c", "a"], ["c", "d", "d"]]))
        inputs = tf.keras.Input((3,), dtype="string")
    else:
        layer = L.TextVectorization(output_mode="tf_idf")
        layer.adapt(["the cat sat", "the dog sat", "a cat"])
        inputs = tf.keras.Input((1,), dtype="string")
    return tf.keras.Model(inputs, layer(inputs))


_X = {"strings": [["a", "q", "c"], ["b", "b", "x"]], "text": [["the cat zz"], ["a dog"]]}


@pytest.mark.parametrize("which", ["strings", "text"])
def test_keras_file_round_trip_keeps_idf_weights(which, tmp_path):
    model = _model(which)
    model.save(tmp_path / "m.keras")
    with zipfile.ZipFile(tmp_path / "m.keras") as zf:
        zf.extract("model.weights.h5", tmp_path)
    name = model.layers[-1].name
    with h5py.File(tmp_path / "model.weights.h5", "r") as f:
        stored = [n for n in ("layers/string_lookup/vars/idf_weights", "layers/text_vectorization/vars/idf_weights",
                              "layers/text_vectorization/_lookup_layer/vars/idf_weights") if n in f]
        assert stored == (["layers/string_lookup/vars/idf_weights"] if which == "strings" else
                          ["layers/text_vectorization/vars/idf_weights",
                           "layers/text_vectorization/_lookup_layer/vars/idf_weights"]), name
        lookup = getattr(model.layers[-1], "_lookup_layer", model.layers[-1])
        np.testing.assert_allclose(f[stored[0]][()], lookup.idf_weights)
    again = tf.keras.models.load_model(tmp_path / "m.keras")
    x = tf.constant(_X[which])
    np.testing.assert_allclose(again(x).numpy(), model(x).numpy())
    assert again(x).numpy().any()


def test_weights_file_round_trip_sets_idf_weights(tmp_path):
    model = _model()
    model.save_weights(tmp_path / "m.weights.h5")
    other = _model()
    lookup = other.layers[-1]
    lookup.set_vocabulary(model.layers[-1].get_vocabulary(), idf_weights=np.ones(5))
    other.load_weights(tmp_path / "m.weights.h5")
    np.testing.assert_allclose(lookup.idf_weights, model.layers[-1].idf_weights)


def test_a_hostile_idf_weights_entry_is_refused_before_anything_changes(tmp_path):
    model = _model()
    model.save_weights(tmp_path / "m.weights.h5")
    lookup = model.layers[-1]
    before = lookup.idf_weights.copy()
    with h5py.File(tmp_path / "m.weights.h5", "a") as f:
        del f["layers/string_lookup/vars/idf_weights"]
        f["layers/string_lookup/vars/idf_weights"] = np.array([b"x", b"y"])
    with pytest.raises(errors.DataLossError, match="not a numeric tensor"):
        model.load_weights(tmp_path / "m.weights.h5")
    with h5py.File(tmp_path / "m.weights.h5", "a") as f:
        del f["layers/string_lookup/vars/idf_weights"]
        f["layers/string_lookup/vars/idf_weights"] = np.ones((5, 2), "float32")
    with pytest.raises(ValueError, match="must be 1-D"):
        model.load_weights(tmp_path / "m.weights.h5")
    np.testing.assert_array_equal(lookup.idf_weights, before)


def test_named_entries_are_ignored_by_layers_that_do_not_take_them(tmp_path):
    model = tf.keras.Sequential([tf.keras.Input((3,)), L.Dense(2)])
    model.save_weights(tmp_path / "m.weights.h5")
    with h5py.File(tmp_path / "m.weights.h5", "a") as f:
        f["layers/dense/vars/idf_weights"] = np.ones(3, "float32")
    model.load_weights(tmp_path / "m.weights.h5")
