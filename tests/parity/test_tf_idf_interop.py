"""Adapted 'tf_idf' lookups in '.keras' files, both ways with real Keras 3. Keras keeps the
vocabulary of an adapted layer in assets/ and its IDF weights as 'idf_weights' in the layer's
weights group (TextVectorization: in its own group and its inner lookup's); minitf writes the
vocabulary into the config and the IDF weights where Keras reads them, and reads both of Keras'."""
import numpy as np
import pytest

import minitf

tf_ref = pytest.importorskip("tensorflow")
LIBS = {"keras": tf_ref, "minitf": minitf}

_INPUTS = {"strings": ((3,), "string"), "ints": ((3,), "int64"), "padded": ((3,), "int64"), "text": ((1,), "string")}
_VALUES = {"strings": [["a", "q", "c"], ["b", "b", "x"]], "ints": [[5, 2, 7], [9, 9, 9]],
           "padded": [[5, 2, 7], [9, 9, 5]], "text": [["the cat sat down"], ["a dog the"]]}


def _adapted(lib, which):
    L = lib.keras.layers
    if which == "strings":
        layer = L.StringLookup(output_mode="tf_idf", num_oov_indices=2)
        layer.adapt(np.array([["b", "a", "b"], ["c", "c", "a"], ["c", "d", "d"]]))
    elif which == "ints":
        layer = L.IntegerLookup(output_mode="tf_idf")
        layer.adapt(np.array([[5, 5, 9], [2, 9, 7], [5, 1, 1]]))
    elif which == "padded":
        layer = L.IntegerLookup(output_mode="tf_idf", max_tokens=9, pad_to_max_tokens=True)
        layer.adapt(np.array([[5, 5, 9], [2, 9, 7]]))
    else:
        layer = L.TextVectorization(output_mode="tf_idf", ngrams=2)
        layer.adapt(["the cat sat", "The dog sat.", "a cat"])
    shape, dtype = _INPUTS[which]
    inputs = lib.keras.Input(shape=shape, dtype=dtype, name=which)
    return lib.keras.Model(inputs, layer(inputs))


def _lookup(layer):
    return getattr(layer, "_lookup_layer", layer)


@pytest.mark.parametrize("writer", ["keras", "minitf"])
@pytest.mark.parametrize("which", ["strings", "ints", "padded", "text"])
def test_adapted_tf_idf_lookups_move_both_ways(writer, which, tmp_path):
    reader = "minitf" if writer == "keras" else "keras"
    saved = _adapted(LIBS[writer], which)
    saved.save(tmp_path / "tf_idf.keras")
    loaded = LIBS[reader].keras.models.load_model(tmp_path / "tf_idf.keras")
    a, b = saved.layers[-1], loaded.layers[-1]
    assert type(a).__name__ == type(b).__name__
    assert [str(v) for v in a.get_vocabulary()] == [str(v) for v in b.get_vocabulary()]
    np.testing.assert_allclose(np.asarray(_lookup(a).idf_weights), np.asarray(_lookup(b).idf_weights), rtol=1e-6)
    _, dtype = _INPUTS[which]
    out_saved = np.asarray(saved(LIBS[writer].constant(_VALUES[which], dtype)))
    out_loaded = np.asarray(loaded(LIBS[reader].constant(_VALUES[which], dtype)))
    assert out_saved.any()
    np.testing.assert_allclose(out_saved, out_loaded, rtol=1e-6)


@pytest.mark.parametrize("writer", ["keras", "minitf"])
def test_tf_idf_weights_files_move_both_ways(writer, tmp_path):
    """`save_weights` carries the IDF weights too: a layer with the same vocabulary takes them."""
    reader = "minitf" if writer == "keras" else "keras"
    saved = _adapted(LIBS[writer], "strings")
    saved.save_weights(tmp_path / "tf_idf.weights.h5")
    target = _adapted(LIBS[reader], "strings")
    _lookup(target.layers[-1]).set_vocabulary(saved.layers[-1].get_vocabulary(), idf_weights=np.ones(6))
    target.load_weights(tmp_path / "tf_idf.weights.h5")
    np.testing.assert_allclose(np.asarray(target.layers[-1].idf_weights), np.asarray(saved.layers[-1].idf_weights),
                               rtol=1e-6)
