"""TF comparisons for behaviour found by running keras-io layer examples under minitf."""
import numpy as np
import pytest

import minitf

tf = pytest.importorskip("tensorflow")


@pytest.mark.parametrize("labels", [np.array([1, 0, 2], np.uint8), np.array([[2], [0]], np.int32),
                                    [0, 4, 1]])
def test_to_categorical_matches_keras(labels):
    ours = minitf.keras.utils.to_categorical(labels, 5)
    theirs = tf.keras.utils.to_categorical(labels, 5)
    assert ours.dtype == theirs.dtype and ours.shape == theirs.shape
    np.testing.assert_array_equal(ours, theirs)


def test_lstm_seq2seq_train_step_matches_keras_with_partial_last_batch():
    # keras-io addition_rnn shape: LSTM -> RepeatVector -> LSTM(return_sequences) -> Dense softmax,
    # fit over 10 samples in batches of 4 (the last batch has 2) from the same weights.
    def build(k):
        m = k.Sequential([k.Input((5, 6)), k.layers.LSTM(8), k.layers.RepeatVector(3),
                          k.layers.LSTM(8, return_sequences=True), k.layers.Dense(6, activation="softmax")])
        m.compile(loss="categorical_crossentropy", optimizer=k.optimizers.Adam(0.01))
        return m
    ours, theirs = build(minitf.keras), build(tf.keras)
    rng = np.random.default_rng(1)
    ws = [(rng.standard_normal(w.shape) * 0.3).astype(np.float32) for w in theirs.get_weights()]
    ours.set_weights(ws)
    theirs.set_weights(ws)
    x = (rng.random((10, 5, 6)) > 0.5).astype(np.float32)
    y = np.eye(6, dtype=np.float32)[rng.integers(0, 6, (10, 3))]
    h1 = ours.fit(x, y, batch_size=4, epochs=2, shuffle=False, verbose=0).history["loss"]
    h2 = theirs.fit(x, y, batch_size=4, epochs=2, shuffle=False, verbose=0).history["loss"]
    np.testing.assert_allclose(h1, h2, rtol=1e-5)
    for a, b in zip(ours.get_weights(), theirs.get_weights()):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)


def test_vit_style_block_fit_matches_keras():
    # keras-io ViT: patches via ops.shape/extract_patches/reshape, LayerNorm, MHA, Add, Flatten,
    # Dense; fit over a partial last batch (batch None retrace), same weights, AdamW.
    def build(k):
        class Patches(k.layers.Layer):
            def call(self, images):
                b, h, w, c = k.ops.shape(images)
                p = k.ops.image.extract_patches(images, size=4)
                return k.ops.reshape(p, (b, (h // 4) * (w // 4), 16 * c))
        inp = k.Input((8, 8, 3))
        x = k.layers.Dense(8)(Patches()(inp))
        x1 = k.layers.LayerNormalization(epsilon=1e-6)(x)
        x = k.layers.Add()([k.layers.MultiHeadAttention(num_heads=2, key_dim=4)(x1, x1), x])
        out = k.layers.Dense(5)(k.layers.Flatten()(x))
        m = k.Model(inp, out)
        m.compile(optimizer=k.optimizers.AdamW(1e-2, weight_decay=1e-4),
                  loss=k.losses.SparseCategoricalCrossentropy(from_logits=True))
        return m
    ours, theirs = build(minitf.keras), build(tf.keras)
    rng = np.random.default_rng(2)
    ws = [(rng.standard_normal(w.shape) * 0.2).astype(np.float32) for w in theirs.get_weights()]
    ours.set_weights(ws)
    theirs.set_weights(ws)
    x = rng.standard_normal((10, 8, 8, 3)).astype(np.float32)
    y = rng.integers(0, 5, (10, 1))
    h1 = ours.fit(x, y, batch_size=4, epochs=2, shuffle=False, verbose=0).history["loss"]
    h2 = theirs.fit(x, y, batch_size=4, epochs=2, shuffle=False, verbose=0).history["loss"]
    np.testing.assert_allclose(h1, h2, rtol=1e-4)
    np.testing.assert_allclose(ours.predict(x, verbose=0), theirs.predict(x, verbose=0), rtol=1e-4, atol=1e-5)
