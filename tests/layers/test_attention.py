"""MultiHeadAttention, Attention and AdditiveAttention: shapes, weight layout, mask semantics,
dropout, configs, errors, and float64 finite-difference gradients (inputs and weights)."""
import numpy as np
import pytest

import minitf as tf
from minitf import layers
from minitf.gradient_checker import assert_gradients_close
from minitf.layers import multi_head_attention as mha_module
from minitf.layers.attention import as_bool_mask


def f64(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape)


def _mha(**kwargs):
    kwargs.setdefault("num_heads", 2)
    kwargs.setdefault("key_dim", 3)
    return layers.MultiHeadAttention(dtype="float64", **kwargs)


# -- MultiHeadAttention: layout -----------------------------------------------------------------

def test_mha_weights_have_keras_shapes_paths_and_order():
    mha = layers.MultiHeadAttention(num_heads=4, key_dim=5, value_dim=6, name="mha")
    q, v = np.zeros((2, 7, 8), "float32"), np.zeros((2, 9, 10), "float32")
    y = mha(q, v)
    assert y.shape == (2, 7, 8)
    assert [(w.path, tuple(w.shape)) for w in mha.weights] == [
        ("mha/query/kernel", (8, 4, 5)), ("mha/query/bias", (4, 5)),
        ("mha/key/kernel", (10, 4, 5)), ("mha/key/bias", (4, 5)),
        ("mha/value/kernel", (10, 4, 6)), ("mha/value/bias", (4, 6)),
        ("mha/attention_output/kernel", (4, 6, 8)), ("mha/attention_output/bias", (8,))]
    assert mha.query_dense.equation == "abc,cde->abde"
    assert mha.output_dense.equation == "abcd,cde->abe"
    assert mha._query_dense is mha.query_dense  # Keras' private spelling


def test_mha_output_shape_no_bias_gate_and_scores_shape():
    mha = layers.MultiHeadAttention(2, 3, output_shape=(4, 5), use_bias=False, use_gate=True)
    q = tf.random.normal((3, 6, 7))
    y, scores = mha(q, q, return_attention_scores=True)
    assert y.shape == (3, 6, 4, 5) and scores.shape == (3, 2, 6, 6)
    assert [w.path.split("/", 1)[1] for w in mha.weights] == [
        "query/kernel", "key/kernel", "gate/kernel", "value/kernel", "attention_output/kernel"]
    np.testing.assert_allclose(tf.reduce_sum(scores, -1).numpy(), 1.0, rtol=1e-5)
    assert mha.compute_output_shape((None, 6, 7), (None, 6, 7)) == tf.TensorShape([None, 6, 4, 5])


def test_mha_scores_over_two_attention_axes():
    mha = layers.MultiHeadAttention(2, 3, attention_axes=(1, 2))
    x = tf.random.normal((2, 3, 4, 5))
    y, scores = mha(x, x, return_attention_scores=True)
    assert y.shape == (2, 3, 4, 5) and scores.shape == (2, 2, 3, 4, 3, 4)
    np.testing.assert_allclose(tf.reduce_sum(scores, [-2, -1]).numpy(), 1.0, rtol=1e-5)
    assert mha.get_config()["attention_axes"] == (1, 2)


def test_mha_matches_a_numpy_reference():
    mha = _mha(num_heads=2, key_dim=3, value_dim=2)
    q, v, k = f64(2, 4, 5), f64(2, 6, 3, seed=1), f64(2, 6, 4, seed=2)
    y = mha(q, v, k).numpy()
    wq, bq, wk, bk, wv, bv, wo, bo = mha.get_weights()
    qp = np.einsum("btd,dnh->btnh", q, wq) + bq
    kp = np.einsum("bsd,dnh->bsnh", k, wk) + bk
    vp = np.einsum("bsd,dnh->bsnh", v, wv) + bv
    logits = np.einsum("btnh,bsnh->bnts", qp / np.sqrt(3), kp)
    p = np.exp(logits - logits.max(-1, keepdims=True))
    p /= p.sum(-1, keepdims=True)
    expected = np.einsum("btnv,nvd->btd", np.einsum("bnts,bsnv->btnv", p, vp), wo) + bo
    np.testing.assert_allclose(y, expected, rtol=1e-10, atol=1e-12)


# -- MultiHeadAttention: masks ------------------------------------------------------------------

def test_causal_mask_hides_the_future():
    mha = _mha()
    x = f64(2, 5, 4)
    y = mha(x, x, use_causal_mask=True).numpy()
    x2 = x.copy()
    x2[:, 3:] += 10.0  # change positions 3, 4 only
    y2 = mha(x2, x2, use_causal_mask=True).numpy()
    np.testing.assert_allclose(y[:, :3], y2[:, :3], rtol=1e-12)
    assert not np.allclose(y[:, 3:], y2[:, 3:])
    _, scores = mha(x, x, use_causal_mask=True, return_attention_scores=True)
    assert np.all(np.triu(np.ones((5, 5)), 1)[None, None] * scores.numpy() == 0)


def test_value_padding_mask_makes_padded_values_irrelevant():
    mha = _mha()
    q, v = f64(2, 3, 4), f64(2, 5, 4, seed=1)
    value_mask = np.array([[1, 1, 1, 0, 0], [1, 1, 1, 1, 1]], bool)
    y = mha(q, v, value_mask=value_mask).numpy()
    v2 = v.copy()
    v2[0, 3:] = 100.0
    np.testing.assert_allclose(mha(q, v2, value_mask=value_mask).numpy(), y, rtol=1e-12)
    # the same as an explicit [B, T, S] attention mask, and as a [B, 1, S] one broadcast over T
    full = np.broadcast_to(value_mask[:, None, :], (2, 3, 5))
    np.testing.assert_allclose(mha(q, v, attention_mask=full).numpy(), y, rtol=1e-12)
    np.testing.assert_allclose(mha(q, v, attention_mask=value_mask[:, None, :]).numpy(), y, rtol=1e-12)


def test_attention_mask_broadcasts_and_combines_with_causal():
    mha = _mha()
    x = f64(2, 4, 4)
    tri = np.tril(np.ones((4, 4), bool))
    y_causal = mha(x, x, use_causal_mask=True).numpy()
    np.testing.assert_allclose(mha(x, x, attention_mask=tri).numpy(), y_causal, rtol=1e-12)  # [T, S]
    no_first = np.ones((2, 4, 4), bool)
    no_first[:, 1:, 0] = False  # rows 1..3 may not look at position 0
    _, s = mha(x, x, attention_mask=no_first, use_causal_mask=True, return_attention_scores=True)
    s = s.numpy()
    assert np.all(s[:, :, 1:, 0] == 0) and np.all(s * ~tri == 0)
    np.testing.assert_allclose(s[:, :, 0, 0], 1.0)
    np.testing.assert_allclose(s[:, :, 1, 1], 1.0)  # row 1: causal leaves 0 and 1, the mask drops 0


def test_fully_masked_rows_are_uniform_without_scores_and_zero_with_them():
    """Keras' fused path (no scores, no dropout) and its softmax path differ there; both kept."""
    mha = _mha()
    x = f64(1, 3, 4)
    mask = np.ones((1, 3, 3), bool)
    mask[0, 1] = False
    y, s = mha(x, x, attention_mask=mask, return_attention_scores=True)
    assert np.all(s.numpy()[0, :, 1] == 0)
    y_fused = mha(x, x, attention_mask=mask).numpy()
    np.testing.assert_allclose(y_fused[0, [0, 2]], y.numpy()[0, [0, 2]], rtol=1e-12)
    # the fused path's masked row averages the values uniformly
    v = mha.value_dense(tf.constant(x)).numpy().mean(1)  # [B, N, H] mean over positions
    expected = np.einsum("bnv,nvd->bd", v, mha.output_dense.kernel.numpy()) + mha.output_dense.bias.numpy()
    np.testing.assert_allclose(y_fused[0, 1], expected[0], rtol=1e-10)


def test_query_mask_masks_whole_rows_and_is_attached_to_the_output():
    mha = _mha()
    x = f64(2, 3, 4)
    qmask = np.array([[True, True, False], [True, True, True]])
    y, s = mha(x, x, query_mask=qmask, return_attention_scores=True)
    assert np.all(s.numpy()[0, :, 2] == 0) and np.allclose(s.numpy()[1].sum(-1), 1.0)


def test_input_keras_masks_are_used_and_the_query_mask_travels_on():
    """Padding masks carried on the inputs (`_keras_mask`) act as value/query masks."""
    mha = _mha()
    q, v = tf.constant(f64(2, 3, 4)), tf.constant(f64(2, 5, 4, seed=1))
    value_mask = tf.constant([[True, True, False, False, False], [True] * 5])
    query_mask = tf.constant([[True, True, False], [True] * 3])
    expected = mha(q, v, value_mask=value_mask, query_mask=query_mask).numpy()
    v._keras_mask = value_mask
    q._keras_mask = query_mask
    y = mha(q, v)
    np.testing.assert_allclose(y.numpy(), expected, rtol=1e-12)
    np.testing.assert_array_equal(y._keras_mask.numpy(), query_mask.numpy())
    assert not np.allclose(mha(q, v, value_mask=tf.ones((2, 5), tf.bool)).numpy(), expected)


def test_embedding_masks_reach_attention_in_a_functional_model():
    ids = np.array([[3, 4, 5, 0, 0], [1, 2, 3, 4, 5]], "int32")
    inp = tf.keras.Input((5,), dtype="int32")
    emb = layers.Embedding(8, 6, mask_zero=True)
    mha = layers.MultiHeadAttention(2, 3)
    x = emb(inp)
    model = tf.keras.Model(inp, mha(x, x))
    y = model(ids).numpy()
    e = emb(ids)
    keep = ids != 0
    np.testing.assert_allclose(y, mha(e, e, query_mask=keep, value_mask=keep).numpy(), rtol=1e-6)
    short = emb(ids[:1, :3])  # the first sequence without its padding
    np.testing.assert_allclose(mha(short, short).numpy()[0], y[0, :3], rtol=1e-5, atol=1e-7)
    assert e._keras_mask is None  # MultiHeadAttention consumes its inputs' masks, as Keras does
    e = emb(ids)
    att = layers.Attention()
    out = att([e, e])
    np.testing.assert_allclose(out.numpy(), att([e, e], mask=[keep, keep]).numpy(), rtol=1e-6)
    assert np.all(out.numpy()[0, 3:] == 0)


def test_mask_helpers():
    np.testing.assert_array_equal(as_bool_mask(tf.constant([0, 2, 1])).numpy(), [False, True, True])
    assert as_bool_mask(None) is None


def test_sliding_window_limits_the_band():
    mha = _mha(sliding_window=2)
    x = f64(1, 5, 4)
    _, s = mha(x, x, return_attention_scores=True)
    far = np.abs(np.arange(5)[:, None] - np.arange(5)[None, :]) >= 2
    assert np.all(s.numpy()[0][:, far] == 0)


def test_bad_attention_mask_shape_is_a_value_error():
    mha = _mha()
    x = f64(2, 3, 4)
    with pytest.raises(ValueError, match="does not broadcast"):
        mha(x, x, attention_mask=np.ones((2, 3, 5), bool))


# -- MultiHeadAttention: dropout, configs, errors ------------------------------------------------

def test_dropout_applies_in_training_only_and_scores_are_before_dropout():
    mha = layers.MultiHeadAttention(2, 4, dropout=0.5, seed=1)
    x = tf.random.normal((2, 6, 8), seed=3)
    y0, s0 = mha(x, x, return_attention_scores=True)
    y1, s1 = mha(x, x, return_attention_scores=True, training=False)
    np.testing.assert_allclose(y0.numpy(), y1.numpy())
    y2, s2 = mha(x, x, return_attention_scores=True, training=True)
    assert not np.allclose(y2.numpy(), y1.numpy())
    np.testing.assert_allclose(s2.numpy(), s1.numpy(), rtol=1e-6)


def test_mha_config_round_trip():
    mha = layers.MultiHeadAttention(3, 4, value_dim=5, dropout=0.25, use_bias=False, output_shape=6,
                                    attention_axes=-2, kernel_initializer="he_normal",
                                    kernel_regularizer="l2", seed=7, name="att")
    config = mha.get_config()
    assert config["output_shape"] == (6,) and config["attention_axes"] == (-2,)
    clone = layers.MultiHeadAttention.from_config(config)
    assert clone.get_config() == config
    x = np.ones((2, 3, 4), "float32")
    mha(x, x)
    assert mha.get_config()["attention_axes"] == (1,)  # resolved at build, as Keras
    assert len(mha.losses) == 4  # the kernel regularizer on every projection


def test_einsum_projection_equations():
    assert mha_module.projection_equation(2, 1, 2) == ("abc,cde->abde", "de", 4)
    assert mha_module.projection_equation(2, 2, 1) == ("abcd,cde->abe", "e", 3)


@pytest.mark.parametrize("kwargs,match", [
    ({"num_heads": 0, "key_dim": 2}, "num_heads"), ({"num_heads": 2, "key_dim": 2.5}, "key_dim"),
    ({"num_heads": 2, "key_dim": 2, "value_dim": -1}, "value_dim"),
    ({"num_heads": 2, "key_dim": 2, "attention_axes": "x"}, "attention_axes"),
    ({"num_heads": 2, "key_dim": 2, "sliding_window": 0}, "sliding_window"),
])
def test_mha_bad_arguments(kwargs, match):
    with pytest.raises(ValueError, match=match):
        layers.MultiHeadAttention(**kwargs)


def test_mha_call_and_build_errors():
    mha = layers.MultiHeadAttention(2, 2)
    with pytest.raises(TypeError, match="value"):
        mha(np.ones((1, 2, 3), "float32"))
    with pytest.raises(ValueError, match="except the last one"):
        mha(np.ones((1, 2, 3), "float32"), np.ones((1, 4, 3), "float32"), np.ones((1, 5, 3), "float32"))
    with pytest.raises(NotImplementedError, match="flash"):
        layers.MultiHeadAttention(2, 2, flash_attention=True)


def test_mha_in_a_functional_model():
    inp = tf.keras.Input((5, 8))
    mha = layers.MultiHeadAttention(2, 4)
    model = tf.keras.Model(inp, mha(inp, inp, use_causal_mask=True))
    x = np.random.default_rng(0).standard_normal((3, 5, 8)).astype("float32")
    np.testing.assert_allclose(model(x).numpy(), mha(x, x, use_causal_mask=True).numpy(), rtol=1e-6)
    assert model.output_shape == (None, 5, 8)


# -- MultiHeadAttention: gradients --------------------------------------------------------------

@pytest.mark.parametrize("kwargs,call", [
    ({}, {}),
    ({"value_dim": 2, "output_shape": 3, "use_gate": True}, {"use_causal_mask": True}),
    ({"attention_axes": (1, 2)}, {}),
])
def test_mha_input_gradients(kwargs, call):
    mha = _mha(**kwargs)
    rank4 = "attention_axes" in kwargs
    q = f64(2, 2, 3, 4) if rank4 else f64(2, 3, 4)
    v = f64(2, 2, 3, 4, seed=1) if rank4 else f64(2, 4, 4, seed=1)
    mha(q, v)
    assert_gradients_close(lambda a, b: mha(a, b, **call), [q, v])


def test_mha_gradients_with_key_masks_and_scores():
    mha = _mha()
    q, v, k = f64(2, 3, 4), f64(2, 4, 4, seed=1), f64(2, 4, 5, seed=2)
    mask = np.random.default_rng(3).random((2, 3, 4)) > 0.3
    mask[:, :, 0] = True
    mha(q, v, k)

    def f(a, b, c):
        out, scores = mha(a, b, c, attention_mask=mask, return_attention_scores=True)
        return tf.concat([tf.reshape(out, [-1]), tf.reshape(scores, [-1])], 0)
    assert_gradients_close(f, [q, v, k])


def test_mha_weight_gradients(weight_grads_close):
    mha = _mha(use_gate=True)
    q, v = f64(2, 3, 4), f64(2, 4, 4, seed=1)
    weight_grads_close(mha, tf.constant(q), value=tf.constant(v), use_causal_mask=True)


# -- Attention and AdditiveAttention ------------------------------------------------------------

def _softmax(x):
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def test_attention_dot_matches_reference_and_masks():
    att = layers.Attention(dtype="float64")
    q, v = f64(2, 3, 4), f64(2, 5, 4, seed=1)
    out, w = att([q, v], return_attention_scores=True)
    ref_w = _softmax(q @ v.transpose(0, 2, 1))
    np.testing.assert_allclose(w.numpy(), ref_w, rtol=1e-12)
    np.testing.assert_allclose(out.numpy(), ref_w @ v, rtol=1e-12)
    qm = np.array([[True, False, True], [True, True, True]])
    vm = np.array([[True, True, False, True, False], [True] * 5])
    out, w = att([q, v], mask=[qm, vm], return_attention_scores=True)
    assert np.all(w.numpy()[0][:, [2, 4]] < 1e-12) and np.all(out.numpy()[0, 1] == 0)
    out, w = att([q, v], use_causal_mask=True, return_attention_scores=True)
    assert np.all(w.numpy()[:, 0, 1:] < 1e-12) and np.allclose(w.numpy().sum(-1), 1.0)


def test_attention_concat_and_scale_weights():
    att = layers.Attention(use_scale=True, score_mode="concat", dtype="float64")
    q, v, k = f64(2, 3, 4), f64(2, 5, 4, seed=1), f64(2, 5, 4, seed=2)
    att([q, v, k])
    assert [w.name for w in att.weights] == ["scale", "concat_score_weight"]
    att.scale.assign(0.5)
    att.concat_score_weight.assign(2.0)
    _, w = att([q, v, k], return_attention_scores=True)
    scores = 2.0 * np.tanh(0.5 * (q[:, :, None] + k[:, None])).sum(-1)
    np.testing.assert_allclose(w.numpy(), _softmax(scores), rtol=1e-12)


def test_additive_attention_reference_config_and_weight():
    att = layers.AdditiveAttention(dtype="float64")
    q, v = f64(2, 3, 4), f64(2, 5, 4, seed=1)
    out = att([q, v]).numpy()
    scale = att.scale.numpy()
    assert att.scale.shape == (4,)
    w = _softmax((scale * np.tanh(q[:, :, None] + v[:, None])).sum(-1))
    np.testing.assert_allclose(out, w @ v, rtol=1e-12)
    config = att.get_config()
    assert "score_mode" not in config and config["use_scale"] is True
    assert layers.AdditiveAttention.from_config(config).get_config() == config


@pytest.mark.parametrize("make", [
    lambda: layers.Attention(dtype="float64"),
    lambda: layers.Attention(use_scale=True, score_mode="concat", dtype="float64"),
    lambda: layers.AdditiveAttention(dtype="float64"),
])
def test_attention_gradients(make, weight_grads_close):
    att = make()
    q, v, k = f64(2, 3, 4), f64(2, 4, 4, seed=1), f64(2, 4, 4, seed=2)
    vm = np.array([[True, True, True, False], [True] * 4])
    att([q, v, k])
    assert_gradients_close(lambda a, b, c: att([a, b, c], mask=[None, vm], use_causal_mask=True), [q, v, k])
    if att.weights:
        weight_grads_close(att, [tf.constant(q), tf.constant(v)])


def test_attention_dropout_and_errors():
    att = layers.Attention(dropout=0.5, seed=2)
    q = tf.random.normal((2, 6, 4), seed=1)
    np.testing.assert_allclose(att([q, q]).numpy(), att([q, q], training=False).numpy())
    assert not np.allclose(att([q, q], training=True).numpy(), att([q, q]).numpy())
    with pytest.raises(ValueError, match="list of inputs"):
        att(q)
    with pytest.raises(ValueError, match="length 2 or 3"):
        att([q])
    with pytest.raises(ValueError, match="mask must be a list"):
        att([q, q], mask=tf.ones((2, 6), tf.bool))
    with pytest.raises(ValueError, match="score_mode"):
        layers.Attention(score_mode="add")
    assert att.compute_output_shape([(None, 3, 4), (None, 5, 7)]) == tf.TensorShape([None, 3, 7])
    config = att.get_config()
    assert {k: config[k] for k in ("use_scale", "score_mode", "dropout", "seed")} == {
        "use_scale": False, "score_mode": "dot", "dropout": 0.5, "seed": 2}


def test_causal_masks_with_an_unknown_sequence_length_in_tf_function():
    """A traced call whose sequence length is unknown builds the causal mask from the runtime
    length (as Keras does with ops.shape), giving the eager outputs for every length."""
    mha, attention = tf.keras.layers.MultiHeadAttention(2, 4), tf.keras.layers.Attention()
    x = np.random.default_rng(0).normal(size=(2, 5, 6)).astype("float32")

    @tf.function(input_signature=[tf.TensorSpec([None, None, 6])])
    def both(q):
        return mha(q, q, use_causal_mask=True), attention([q, q], use_causal_mask=True)

    for length in (5, 3):
        traced = both(x[:, :length])
        eager = (mha(x[:, :length], x[:, :length], use_causal_mask=True),
                 attention([x[:, :length], x[:, :length]], use_causal_mask=True))
        for t, e in zip(traced, eager):
            assert t.shape == (2, length, 6)
            np.testing.assert_allclose(t.numpy(), e.numpy(), rtol=1e-6, atol=1e-6)
