"""Keras masks: how they are made (Embedding(mask_zero=True), Masking), travel between layers
(eager calls, functional and Sequential models), and what the recurrent layers do with them;
plus a small masked sequence model trained with fit."""
import gc

import numpy as np
import pytest

import minitf as tf
from minitf.layers import mask_propagation

L = tf.keras.layers
IDS = np.array([[3, 1, 4, 0, 0], [2, 7, 1, 8, 2], [5, 0, 0, 0, 0]], dtype="int32")


def test_embedding_mask_reaches_the_lstm_and_padding_changes_nothing():
    emb = L.Embedding(10, 4, mask_zero=True)
    lstm = L.LSTM(3)
    h = emb(tf.constant(IDS))
    np.testing.assert_array_equal(h._keras_mask.numpy(), IDS != 0)
    out = lstm(h).numpy()
    assert lstm(h)._keras_mask is None  # the last output carries no mask
    for row, length in enumerate([3, 5, 1]):
        alone = lstm(emb(tf.constant(IDS[row:row + 1, :length]))).numpy()
        np.testing.assert_allclose(out[row], alone[0], rtol=1e-5, atol=1e-6)


def test_masked_steps_repeat_the_previous_output_or_give_zeros():
    x = tf.constant(np.random.default_rng(0).standard_normal((2, 4, 3)).astype("float32"))
    mask = tf.constant([[False, True, False, True], [True, True, False, False]])
    layer = L.SimpleRNN(2, return_sequences=True, return_state=True)
    seq, state = layer(x, mask=mask)
    seq = seq.numpy()
    np.testing.assert_array_equal(seq[0, 0], [0, 0])       # nothing before: zeros
    np.testing.assert_array_equal(seq[0, 2], seq[0, 1])     # repeats the last kept output
    np.testing.assert_array_equal(seq[1, 3], seq[1, 1])
    np.testing.assert_array_equal(state.numpy()[1], seq[1, 1])  # the state froze too
    np.testing.assert_array_equal(seq != 0, np.ones_like(seq, bool) & ~np.array([[1, 0, 0, 0], [0, 0, 0, 0]],
                                                                                 bool)[:, :, None])
    zeros = L.SimpleRNN(2, return_sequences=True, zero_output_for_mask=True)
    zeros(x)
    zeros.set_weights(layer.get_weights())
    out = zeros(x, mask=mask).numpy()
    np.testing.assert_array_equal(out[~mask.numpy()], 0)
    np.testing.assert_array_equal(out[mask.numpy()], seq[mask.numpy()])


def test_masking_layer_zeroes_and_masks_padded_steps():
    x = np.ones((2, 3, 2), "float32")
    x[0, 1] = 0.0
    x[1, 2] = [0.0, 5.0]  # not every feature is the padding value: kept
    layer = L.Masking(mask_value=0.0)
    y = layer(tf.constant(x))
    np.testing.assert_array_equal(y._keras_mask.numpy(), [[True, False, True], [True, True, True]])
    np.testing.assert_array_equal(y.numpy(), x)
    y2 = L.Masking(mask_value=1.0)(tf.constant(x))
    np.testing.assert_array_equal(y2._keras_mask.numpy(), [[False, True, False], [False, False, True]])
    np.testing.assert_array_equal(y2.numpy()[0, 0], [0, 0])
    assert L.Masking(mask_value=0.5).get_config()["mask_value"] == 0.5


def test_masks_pass_through_supporting_layers_and_stop_at_others():
    h = L.Embedding(10, 4, mask_zero=True)(tf.constant(IDS))
    assert L.Dense(3).supports_masking and L.Embedding(3, 2).supports_masking
    np.testing.assert_array_equal(L.Dense(3)(h)._keras_mask.numpy(), IDS != 0)
    np.testing.assert_array_equal(L.Dropout(0.5)(h)._keras_mask.numpy(), IDS != 0)
    assert not L.Flatten().supports_masking
    assert L.Flatten()(h)._keras_mask is None
    seq = L.GRU(2, return_sequences=True)(h)
    np.testing.assert_array_equal(seq._keras_mask.numpy(), IDS != 0)
    explicit = tf.constant(np.ones(IDS.shape, bool))
    np.testing.assert_array_equal(L.GRU(2, return_sequences=True)(h, mask=explicit)._keras_mask.numpy(),
                                  explicit.numpy())


def test_layers_of_ones_own_receive_and_make_masks():
    seen = []

    class Reads(L.Layer):
        def call(self, inputs, mask=None):
            seen.append(mask)
            return inputs

    class Makes(L.Layer):
        def compute_mask(self, inputs, mask=None):
            return tf.reduce_any(inputs > 0, axis=-1)

    x = tf.constant([[[1.0], [-1.0]]])
    assert Makes().supports_masking and not Reads().supports_masking
    y = Makes()(x)
    np.testing.assert_array_equal(y._keras_mask.numpy(), [[True, False]])
    Reads()(y)
    np.testing.assert_array_equal(seen[-1].numpy(), [[True, False]])
    r = Reads()
    r.supports_masking = True
    np.testing.assert_array_equal(r(y)._keras_mask.numpy(), [[True, False]])


def test_mask_table_forgets_dead_tensors():
    h = L.Embedding(10, 4, mask_zero=True)(tf.constant(IDS))
    key = id(h)
    assert mask_propagation._MASKS[key][0]() is h
    del h
    gc.collect()
    assert key not in mask_propagation._MASKS


def test_functional_and_sequential_models_propagate_masks():
    inp = tf.keras.Input((5,), dtype="int32")
    h = L.Embedding(10, 4, mask_zero=True)(inp)
    assert h._keras_mask is not None and h._keras_mask.shape.as_list() == [None, 5]
    seq = L.LSTM(3, return_sequences=True)(h)
    assert seq._keras_mask.shape.as_list() == [None, 5] and seq._keras_mask.dtype == tf.bool
    last = L.LSTM(2)(seq)
    assert last._keras_mask is None
    model = tf.keras.Model(inp, [seq, last])
    out_seq, out_last = model(tf.constant(IDS))
    np.testing.assert_array_equal(out_seq._keras_mask.numpy(), IDS != 0)
    # the model gives what the layers give when called by hand
    layers = model.layers
    by_hand = layers[3](layers[2](layers[1](tf.constant(IDS))))
    np.testing.assert_allclose(out_last.numpy(), by_hand.numpy(), rtol=1e-6)
    sequential = tf.keras.Sequential([L.Embedding(10, 4, mask_zero=True), L.GRU(2, return_sequences=True),
                                      L.Dense(1)])
    y = sequential(tf.constant(IDS))
    np.testing.assert_array_equal(y._keras_mask.numpy(), IDS != 0)


def test_wrappers_pass_masks_on():
    h = L.Embedding(10, 4, mask_zero=True)(tf.constant(IDS))
    bi = L.Bidirectional(L.LSTM(2, return_sequences=True))
    np.testing.assert_array_equal(bi(h)._keras_mask.numpy(), IDS != 0)
    assert L.Bidirectional(L.LSTM(2))(h)._keras_mask is None
    both = L.Bidirectional(L.GRU(2, return_sequences=True), merge_mode=None)(h)
    assert all(np.array_equal(o._keras_mask.numpy(), IDS != 0) for o in both)
    seen = []

    class Reads(L.Layer):
        def call(self, inputs, mask=None):
            seen.append(None if mask is None else mask.shape.as_list())
            return inputs

    y = L.TimeDistributed(Reads())(h)
    assert seen == [[3]] * 5
    np.testing.assert_array_equal(y._keras_mask.numpy(), IDS != 0)
    with pytest.raises(ValueError, match="incompatible with the input shape"):
        L.TimeDistributed(Reads())(h, mask=tf.constant(np.ones((3, 4), bool)))


def test_rnn_mask_with_states_has_one_entry_per_output():
    layer = L.LSTM(2, return_sequences=True, return_state=True)
    mask = tf.constant(IDS != 0)
    assert len(layer.compute_mask(None, mask)) == 3
    seq, h, c = layer(L.Embedding(10, 4, mask_zero=True)(tf.constant(IDS)))
    assert seq._keras_mask is not None and h._keras_mask is None and c._keras_mask is None


def test_masked_sequence_model_learns_with_fit():
    """Embedding(mask_zero) -> LSTM -> Dense learns to tell whether a padded sequence holds a 1."""
    rng = np.random.default_rng(0)
    n, steps = 256, 8
    ids = rng.integers(2, 6, size=(n, steps))
    lengths = rng.integers(2, steps + 1, size=n)
    labels = rng.integers(0, 2, size=n)
    for i in range(n):
        if labels[i]:
            ids[i, rng.integers(0, lengths[i])] = 1
        ids[i, lengths[i]:] = 0
    tf.random.set_seed(0)
    model = tf.keras.Sequential([tf.keras.Input((steps,), dtype="int32"), L.Embedding(6, 8, mask_zero=True),
                                 L.LSTM(16), L.Dense(1, activation="sigmoid")])
    model.compile(optimizer=tf.keras.optimizers.Adam(0.02), loss="binary_crossentropy")
    history = model.fit(ids.astype("int32"), labels.astype("float32"), epochs=12, batch_size=32, verbose=0)
    assert history.history["loss"][-1] < 0.1, history.history["loss"]


def test_explicit_symbolic_mask_input():
    x_in = tf.keras.Input((4, 2))
    m_in = tf.keras.Input((4,), dtype="bool")
    out = L.GRU(3, return_sequences=True)(x_in, mask=m_in)
    assert out._keras_mask is not None
    model = tf.keras.Model([x_in, m_in], out)
    x = np.random.default_rng(1).standard_normal((2, 4, 2)).astype("float32")
    mask = np.array([[True, True, False, False], [True, True, True, True]])
    y = model([x, mask])
    np.testing.assert_array_equal(y._keras_mask.numpy(), mask)
    np.testing.assert_array_equal(y.numpy()[0, 2], y.numpy()[0, 1])
