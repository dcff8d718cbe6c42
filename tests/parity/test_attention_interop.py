"""Attention layers against real Keras 3: the same weights give the same outputs and gradients
(inputs and weights), '.weights.h5' and '.keras' files move both ways, and configs match Keras'
keys, for MultiHeadAttention (plain, gated, output_shape, attention_axes, masks), Attention,
AdditiveAttention, GroupNormalization and EinsumDense."""
import numpy as np
import pytest

import minitf

tf_ref = pytest.importorskip("tensorflow")

KINDS = ["mha", "mha_masked", "mha_cross_gated", "mha_axes", "attention", "additive", "groupnorm", "einsum"]


def _make(tf, kind):
    """The same functional model in TF (`tf` = tensorflow) or minitf: (model, inputs)."""
    keras = tf.keras
    L = keras.layers
    rng = np.random.RandomState(0)
    if kind == "mha":
        inp = keras.Input((5, 8))
        y = L.MultiHeadAttention(2, 3, value_dim=4, dropout=0.1)(inp, inp, use_causal_mask=True)
        y = L.LayerNormalization()(L.Add()([y, inp]))
        return keras.Model(inp, y), [rng.normal(size=(2, 5, 8)).astype("float32")]
    if kind == "mha_masked":  # padding masks from Embedding(mask_zero=True) reach the attention
        inp = keras.Input((6,), dtype="int32")
        x = L.Embedding(7, 8, mask_zero=True)(inp)
        y = L.MultiHeadAttention(2, 4)(x, x)
        y = L.Attention()([y, x])
        ids = np.array([[1, 2, 3, 0, 0, 0], [4, 5, 6, 1, 2, 0]], "int32")
        return keras.Model(inp, y), [ids]
    if kind == "mha_cross_gated":
        q, v = keras.Input((4, 6)), keras.Input((7, 5))
        mha = L.MultiHeadAttention(3, 2, output_shape=(2, 3), use_gate=True, sliding_window=3)
        y, s = mha(q, v, return_attention_scores=True)
        return keras.Model([q, v], [y, s]), [rng.normal(size=(2, 4, 6)).astype("float32"),
                                              rng.normal(size=(2, 7, 5)).astype("float32")]
    if kind == "mha_axes":
        inp = keras.Input((3, 4, 6))
        y = L.MultiHeadAttention(2, 2, attention_axes=(2,), use_bias=False)(inp, inp)
        return keras.Model(inp, y), [rng.normal(size=(2, 3, 4, 6)).astype("float32")]
    if kind in ("attention", "additive"):
        q, v = keras.Input((4, 6)), keras.Input((5, 6))
        layer = (L.Attention(use_scale=True, score_mode="concat") if kind == "attention"
                 else L.AdditiveAttention())
        y = layer([q, v], use_causal_mask=True)
        return keras.Model([q, v], y), [rng.normal(size=(2, 4, 6)).astype("float32"),
                                        rng.normal(size=(2, 5, 6)).astype("float32")]
    if kind == "groupnorm":
        inp = keras.Input((4, 4, 6))
        y = L.GroupNormalization(groups=3)(inp)
        y = L.GroupNormalization(groups=-1, axis=1, center=False)(y)
        return keras.Model(inp, y), [rng.normal(size=(2, 4, 4, 6)).astype("float32")]
    inp = keras.Input((3, 5))
    y = L.EinsumDense("abc,cd->abd", output_shape=(3, 4), bias_axes="d", activation="tanh")(inp)
    y = L.EinsumDense("...b,bc->...c", output_shape=2, bias_axes="c")(y)
    y = L.EinsumDense("ab...,bc->ac...", output_shape=6)(y)
    return keras.Model(inp, y), [rng.normal(size=(2, 3, 5)).astype("float32")]


def _pattern_weights(model):
    return [np.cos(np.arange(w.size) * 0.37 + i).reshape(w.shape).astype("float32") * 0.4
            for i, w in enumerate(model.get_weights())]


def _outputs(model, xs):
    out = model(xs if len(xs) > 1 else xs[0])
    return [np.asarray(o) for o in (out if isinstance(out, (list, tuple)) else [out])]


def _pair(kind):
    ref, xs = _make(tf_ref, kind)
    mine, _ = _make(minitf, kind)
    weights = _pattern_weights(ref)
    assert [w.shape for w in ref.get_weights()] == [w.shape for w in mine.get_weights()]
    ref.set_weights(weights)
    mine.set_weights(weights)
    return ref, mine, xs


def _grads(lib, model, xs):
    """Gradients of a weighted sum of the outputs w.r.t. the inputs and every weight."""
    inputs = [lib.constant(x) for x in xs]
    with lib.GradientTape() as tape:
        tape.watch(inputs)
        outs = model(inputs if len(inputs) > 1 else inputs[0], training=False)
        outs = outs if isinstance(outs, (list, tuple)) else [outs]
        loss = sum(lib.reduce_sum(o * np.cos(np.arange(int(np.prod(o.shape))).reshape(o.shape)).astype("float32"))
                   for o in outs)
    grads = tape.gradient(loss, inputs + list(model.trainable_weights))
    return [None if g is None else np.asarray(lib.convert_to_tensor(g)) for g in grads]


@pytest.mark.parametrize("kind", KINDS)
def test_same_weights_same_outputs_and_gradients(kind):
    ref, mine, xs = _pair(kind)
    for a, b in zip(_outputs(ref, xs), _outputs(mine, xs)):
        np.testing.assert_allclose(b, a, rtol=2e-5, atol=2e-5)
    for a, b in zip(_grads(tf_ref, ref, xs), _grads(minitf, mine, xs)):
        assert (a is None) == (b is None)
        if a is not None:
            np.testing.assert_allclose(b, a, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("writer", ["keras", "minitf"])
def test_weights_files_move_both_ways(kind, writer, tmp_path):
    ref, mine, xs = _pair(kind)
    source, target = (ref, mine) if writer == "keras" else (mine, ref)
    for w in target.weights:
        w.assign(np.zeros(w.shape, "float32"))
    source.save_weights(tmp_path / "m.weights.h5")
    target.load_weights(tmp_path / "m.weights.h5")
    for a, b in zip(_outputs(source, xs), _outputs(target, xs)):
        np.testing.assert_allclose(b, a, rtol=2e-5, atol=2e-5)


FILE_CASES = [(k, w) for k in KINDS for w in ("keras", "minitf")]


@pytest.mark.parametrize("kind,writer", FILE_CASES)
def test_keras_files_move_both_ways(kind, writer, tmp_path):
    ref, mine, xs = _pair(kind)
    source, reader = (ref, minitf) if writer == "keras" else (mine, tf_ref)
    source.save(tmp_path / "m.keras")
    loaded = reader.keras.models.load_model(tmp_path / "m.keras")
    for a, b in zip(_outputs(source, xs), _outputs(loaded, xs)):
        np.testing.assert_allclose(b, a, rtol=2e-5, atol=2e-5)
    assert sorted(type(layer).__name__ for layer in source.layers) == \
        sorted(type(layer).__name__ for layer in loaded.layers)
    assert [tuple(w.shape) for w in source.weights] == [tuple(w.shape) for w in loaded.weights]


def _config_keys(lib, make):
    layer = make(lib.keras.layers)
    return sorted(layer.get_config())


@pytest.mark.parametrize("make", [
    lambda L: L.MultiHeadAttention(2, 4),
    lambda L: L.Attention(),
    lambda L: L.AdditiveAttention(),
    lambda L: L.GroupNormalization(2),
    lambda L: L.EinsumDense("ab,bc->ac", 3, bias_axes="c"),
], ids=["mha", "attention", "additive", "groupnorm", "einsum"])
def test_config_keys_match_keras(make):
    assert _config_keys(minitf, make) == _config_keys(tf_ref, make)


def test_keras_layer_config_builds_the_same_minitf_layer():
    ref = tf_ref.keras.layers.MultiHeadAttention(3, 4, value_dim=2, output_shape=5, attention_axes=1, dropout=0.2)
    mine = minitf.keras.layers.deserialize(tf_ref.keras.layers.serialize(ref))
    assert isinstance(mine, minitf.keras.layers.MultiHeadAttention)
    for key in ("num_heads", "key_dim", "value_dim", "dropout", "output_shape", "attention_axes"):
        assert mine.get_config()[key] == ref.get_config()[key], key
    x = np.ones((2, 3, 4), "float32")
    ref(x, x)
    mine(x, x)
    assert [tuple(w.shape) for w in mine.weights] == [tuple(w.shape) for w in ref.weights]
    assert [w.path for w in mine.weights] == [w.path for w in ref.weights]
