"""'.keras' files with dtype policies move between real Keras 3 and minitf both ways: the layers keep
their policies (mixed_float16 layers, a float32 softmax output) and give the same outputs."""
import numpy as np
import pytest

import minitf

tf_ref = pytest.importorskip("tensorflow")


def _make(lib):
    L = lib.keras.layers
    inputs = lib.keras.Input((6,))
    h = L.Dense(8, activation="relu", dtype="mixed_float16", name="hidden")(inputs)
    h = L.Dense(3, dtype="mixed_float16", name="logits")(h)
    out = L.Activation("softmax", dtype="float32", name="probs")(h)
    model = lib.keras.Model(inputs, out)
    rng = np.random.RandomState(0)
    model.set_weights([rng.uniform(-0.5, 0.5, w.shape).astype("float32") for w in model.get_weights()])
    return model


def _policies(model):
    return {layer.name: layer.dtype_policy.name for layer in model.layers if layer.name != model.layers[0].name}


def _check(a, b):
    assert _policies(a) == _policies(b) == {"hidden": "mixed_float16", "logits": "mixed_float16",
                                             "probs": "float32"}
    for u, v in zip(a.get_weights(), b.get_weights()):
        assert u.dtype == v.dtype == np.float32
        np.testing.assert_array_equal(u, v)
    x = np.random.RandomState(1).rand(4, 6).astype("float32")
    ya, yb = np.asarray(a(x)), np.asarray(b(x))
    assert ya.dtype == yb.dtype == np.float32
    np.testing.assert_allclose(ya, yb, rtol=2e-3, atol=2e-3)  # float16 compute on both sides


def test_keras_mixed_file_loads_in_minitf(tmp_path):
    ref = _make(tf_ref)
    ref.save(tmp_path / "m.keras")
    _check(ref, minitf.keras.models.load_model(tmp_path / "m.keras"))


def test_minitf_mixed_file_loads_in_keras(tmp_path):
    mine = _make(minitf)
    mine.save(tmp_path / "m.keras")
    _check(mine, tf_ref.keras.models.load_model(tmp_path / "m.keras"))
