"""Recurrent layers move between real Keras 3 and minitf: '.weights.h5' files and whole '.keras'
files written by one side load in the other and give the same outputs, for models with LSTM,
GRU (both reset_after forms), SimpleRNN, stacked cells, Bidirectional, TimeDistributed, Masking
and Embedding(mask_zero=True) masks."""
import numpy as np
import pytest

import minitf

tf_ref = pytest.importorskip("tensorflow")

KINDS = ["stack", "masked_text", "masking", "masking_functional"]


def _make(tf, kind):
    """The same architecture in TF or minitf: (model, input batch)."""
    keras = tf.keras
    L = keras.layers
    rng = np.random.RandomState(0)
    if kind == "stack":
        model = keras.Sequential([
            keras.Input((6, 4)),
            L.LSTM(3, return_sequences=True),
            L.GRU(2, reset_after=False, return_sequences=True, go_backwards=True),
            L.Bidirectional(L.SimpleRNN(2, return_sequences=True), merge_mode="sum"),
            L.TimeDistributed(L.Dense(2)),
            L.RNN([L.LSTMCell(2), L.GRUCell(3)]),
            L.Dense(1)])
        return model, rng.normal(size=(3, 6, 4)).astype("float32")
    if kind == "masked_text":
        inp = keras.Input((7,), dtype="int32")
        h = L.Embedding(10, 4, mask_zero=True)(inp)
        seq = L.Bidirectional(L.LSTM(3, return_sequences=True))(h)
        model = keras.Model(inp, L.Dense(2)(L.GRU(2)(seq)))
        ids = rng.randint(1, 10, size=(3, 7))
        ids[0, 4:] = 0
        ids[1, 2:] = 0
        return model, ids.astype("int32")
    if kind == "masking_functional":
        inp = keras.Input((5, 3))
        h = L.Masking(mask_value=0.0)(inp)
        model = keras.Model(inp, L.LSTM(2)(L.GRU(2, return_sequences=True)(h)))
        x = rng.normal(size=(3, 5, 3)).astype("float32")
        x[1, 2:] = 0.0
        return model, x
    model = keras.Sequential([
        keras.Input((5, 3)), L.Masking(mask_value=0.0),
        L.GRU(2, return_sequences=True), L.SimpleRNN(3, go_backwards=True), L.Dense(2)])
    x = rng.normal(size=(3, 5, 3)).astype("float32")
    x[0, 3:] = 0.0
    x[2, 1] = 0.0
    return model, x


def _outputs(model, x):
    out = model(x)
    return [np.asarray(o) for o in (out if isinstance(out, (list, tuple)) else [out])]


def _randomize(model):
    rng = np.random.RandomState(1)
    model.set_weights([rng.normal(scale=0.5, size=w.shape).astype("float32") for w in model.get_weights()])


def _same(a, b, x):
    assert [w.shape for w in a.get_weights()] == [w.shape for w in b.get_weights()]
    for u, v in zip(a.get_weights(), b.get_weights()):
        np.testing.assert_array_equal(u, v)
    for u, v in zip(_outputs(a, x), _outputs(b, x)):
        np.testing.assert_allclose(u, v, rtol=2e-5, atol=2e-5)


@pytest.mark.parametrize("kind", KINDS)
def test_keras_weights_file_loads_in_minitf(kind, tmp_path):
    ref, x = _make(tf_ref, kind)
    _randomize(ref)
    ref.save_weights(str(tmp_path / "m.weights.h5"))
    mine, _ = _make(minitf, kind)
    mine.load_weights(str(tmp_path / "m.weights.h5"))
    _same(ref, mine, x)


@pytest.mark.parametrize("kind", KINDS)
def test_minitf_weights_file_loads_in_keras(kind, tmp_path):
    mine, x = _make(minitf, kind)
    _randomize(mine)
    mine.save_weights(str(tmp_path / "m.weights.h5"))
    ref, _ = _make(tf_ref, kind)
    ref.load_weights(str(tmp_path / "m.weights.h5"))
    _same(mine, ref, x)


@pytest.mark.parametrize("kind", KINDS)
def test_keras_file_loads_in_minitf(kind, tmp_path):
    ref, x = _make(tf_ref, kind)
    _randomize(ref)
    ref.save(tmp_path / "m.keras")
    mine = minitf.keras.models.load_model(tmp_path / "m.keras")
    _same(ref, mine, x)
    # Keras' mask ops (NotEqual, Any) are graph nodes but not layers in Keras; minitf rebuilds them as layers
    names = [type(layer).__name__ for layer in mine.layers if type(layer).__name__ not in ("NotEqual", "Any")]
    assert names == [type(layer).__name__ for layer in ref.layers]


@pytest.mark.parametrize("kind", KINDS)
def test_minitf_file_loads_in_keras(kind, tmp_path):
    mine, x = _make(minitf, kind)
    _randomize(mine)
    mine.save(tmp_path / "m.keras")
    ref = tf_ref.keras.models.load_model(tmp_path / "m.keras")
    _same(mine, ref, x)


def test_layer_configs_match_keras():
    """get_config has Keras 3's keys for every recurrent layer and wrapper."""
    def configs(tf):
        L = tf.keras.layers
        layers = [L.SimpleRNNCell(3), L.LSTMCell(3), L.GRUCell(3, reset_after=False), L.SimpleRNN(3), L.LSTM(3),
                  L.GRU(3), L.RNN(L.LSTMCell(3)), L.Bidirectional(L.LSTM(3)), L.TimeDistributed(L.Dense(2)),
                  L.Masking(), L.StackedRNNCells([L.LSTMCell(2), L.GRUCell(3)])]
        return [layer.get_config() for layer in layers]

    def keys(config):
        out = set()
        for k, v in config.items():
            if k == "quantization_config":
                continue  # Dense's own key (newer Keras), not the wrapper's
            out.add(k)
            if isinstance(v, dict) and isinstance(v.get("config"), dict) and k in ("cell", "layer", "backward_layer"):
                out |= {f"{k}.{kk}" for kk in keys(v["config"])}
        return out
    for mine, ref in zip(configs(minitf), configs(tf_ref)):
        assert keys(mine) == keys(ref)
        for k in ("units", "return_sequences", "go_backwards", "merge_mode", "reset_after", "unit_forget_bias",
                  "mask_value", "activation", "recurrent_activation", "zero_output_for_mask"):
            if k in ref:
                assert mine[k] == ref[k], k
