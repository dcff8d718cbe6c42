"""ConvLSTM1D/2D/3D: one step against a numpy LSTM reference, shapes, masks, states, dropout,
configs, float64 gradients w.r.t. inputs and weights, and training."""
import json

import numpy as np
import pytest

import minitf as tf
from minitf import layers
from minitf.layers.rnn_conv_lstm import ConvLSTMCell


def _sigmoid(v):
    return 1 / (1 + np.exp(-v))


def _conv_same_1d(x, k):
    """'same' stride-1 1-D convolution of (batch, width, in) with (k, in, out)."""
    width, size = x.shape[1], k.shape[0]
    before = (size - 1) // 2
    xp = np.pad(x, [(0, 0), (before, size - 1 - before), (0, 0)])
    return sum(xp[:, a:a + width] @ k[a] for a in range(size))


def _reference_conv_lstm1d(x, kernel, recurrent, bias):
    """Keras' ConvLSTM1D (padding='same', return_sequences=True) in numpy."""
    f = recurrent.shape[1]
    h = np.zeros(x.shape[:1] + (x.shape[2], f))
    c = np.zeros_like(h)
    outs = []
    for t in range(x.shape[1]):
        z = _conv_same_1d(x[:, t], kernel) + bias + _conv_same_1d(h, recurrent)
        i, fg, cc, o = np.split(z, 4, axis=-1)
        c = _sigmoid(fg) * c + _sigmoid(i) * np.tanh(cc)
        h = _sigmoid(o) * np.tanh(c)
        outs.append(h)
    return np.stack(outs, axis=1)


def _weights(layer, seed=0):
    rng = np.random.default_rng(seed)
    layer.set_weights([rng.standard_normal(w.shape) * 0.5 for w in layer.get_weights()])


def test_conv_lstm1d_matches_numpy_reference():
    x = np.random.default_rng(1).standard_normal((2, 4, 6, 3))
    layer = layers.ConvLSTM1D(2, 3, padding="same", return_sequences=True, dtype="float64")
    layer(x)
    _weights(layer)
    np.testing.assert_allclose(layer(x).numpy(), _reference_conv_lstm1d(x, *layer.get_weights()), rtol=1e-10)


def test_weights_follow_keras():
    layer = layers.ConvLSTM2D(4, (3, 2))
    layer(np.zeros((1, 2, 5, 5, 3), "float32"))
    assert [(w.name, tuple(w.shape)) for w in layer.weights] == [
        ("kernel", (3, 2, 3, 16)), ("recurrent_kernel", (3, 2, 4, 16)), ("bias", (16,))]
    np.testing.assert_array_equal(layer.cell.bias.numpy(), [0] * 4 + [1] * 4 + [0] * 8)  # unit_forget_bias
    assert layer.cell.name == "conv_lstm_cell"


@pytest.mark.parametrize("make,in_shape,out_shapes", [
    (lambda: layers.ConvLSTM2D(3, 3), (2, 4, 6, 7, 2), [(2, 4, 5, 3)]),
    (lambda: layers.ConvLSTM2D(3, 3, padding="same", strides=2, return_sequences=True), (2, 4, 6, 7, 2),
     [(2, 4, 3, 4, 3)]),
    (lambda: layers.ConvLSTM2D(3, 2, data_format="channels_first", return_state=True), (2, 4, 2, 6, 7),
     [(2, 3, 5, 6)] * 3),
    (lambda: layers.ConvLSTM1D(2, 3, dilation_rate=2, return_sequences=True), (1, 3, 9, 2), [(1, 3, 5, 2)]),
    (lambda: layers.ConvLSTM3D(2, 2, return_sequences=True, return_state=True), (1, 2, 3, 4, 5, 1),
     [(1, 2, 2, 3, 4, 2), (1, 2, 3, 4, 2), (1, 2, 3, 4, 2)]),
])
def test_shapes_match_compute_output_shape(make, in_shape, out_shapes):
    layer = make()
    out = layer(np.random.default_rng(0).standard_normal(in_shape).astype("float32"))
    out = list(out) if isinstance(out, (list, tuple)) else [out]
    assert [tuple(o.shape) for o in out] == out_shapes
    expect = layer.compute_output_shape(in_shape)
    expect = [tuple(expect)] if not isinstance(expect[0], tuple) else [tuple(e) for e in expect]
    assert expect == out_shapes


def test_mask_freezes_states_and_repeats_outputs():
    rng = np.random.default_rng(2)
    x = rng.standard_normal((2, 5, 4, 4, 2)).astype("float32")
    mask = np.array([[1, 1, 1, 0, 0], [1, 1, 0, 0, 0]], bool)
    layer = layers.ConvLSTM2D(2, 3, padding="same", return_sequences=True, return_state=True)
    seq, h, c = layer(x, mask=mask)
    for b, steps in ((0, 3), (1, 2)):
        prefix, h_ref, c_ref = layer(x[b:b + 1, :steps])
        np.testing.assert_allclose(seq.numpy()[b, :steps], prefix.numpy()[0], rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(seq.numpy()[b, steps:], np.repeat(prefix.numpy()[:, -1], 5 - steps, 0),
                                   rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(h.numpy()[b], h_ref.numpy()[0], rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(c.numpy()[b], c_ref.numpy()[0], rtol=1e-5, atol=1e-6)
    zero = layers.ConvLSTM2D(2, 3, padding="same", return_sequences=True, zero_output_for_mask=True)
    zero(x)
    zero.set_weights(layer.get_weights())
    assert np.all(zero(x, mask=mask).numpy()[0, 3:] == 0)


def test_masks_from_a_masking_layer_in_a_model():
    inp = tf.keras.Input((3, 4, 4, 1))
    masked = layers.Masking(0.0)(inp)
    out = layers.ConvLSTM2D(2, 3, padding="same", return_sequences=True)(masked)
    model = tf.keras.Model(inp, out)
    x = np.random.default_rng(3).standard_normal((2, 3, 4, 4, 1)).astype("float32")
    x[1, 2] = 0.0
    y = model(x).numpy()
    np.testing.assert_array_equal(y[1, 2], y[1, 1])


def test_initial_state_and_stateful_carry_over():
    rng = np.random.default_rng(4)
    x = rng.standard_normal((2, 4, 5, 2)).astype("float32")
    full = layers.ConvLSTM1D(3, 3, padding="same", return_state=True)
    out, h, c = full(x)
    first = layers.ConvLSTM1D(3, 3, padding="same", return_state=True)
    first(x)
    first.set_weights(full.get_weights())
    _, h1, c1 = first(x[:, :2])
    out2, _, _ = first(x[:, 2:], initial_state=[h1, c1])
    np.testing.assert_allclose(out2.numpy(), out.numpy(), rtol=1e-5, atol=1e-6)
    stateful = layers.ConvLSTM1D(3, 3, padding="same", stateful=True)
    stateful(x[:, :2])
    stateful.set_weights(full.get_weights())
    stateful.reset_states()
    stateful(x[:, :2])
    np.testing.assert_allclose(stateful(x[:, 2:]).numpy(), out.numpy(), rtol=1e-5, atol=1e-6)
    assert [tuple(s.shape) for s in stateful.states] == [(2, 5, 3), (2, 5, 3)]
    stateful.reset_states()
    stateful(x[:, :2], mask=np.ones((2, 2), bool))
    np.testing.assert_allclose(stateful(x[:, 2:], mask=np.ones((2, 2), bool)).numpy(), out.numpy(),
                               rtol=1e-5, atol=1e-6)


def test_dropout_only_in_training_and_one_mask_per_sequence():
    x = np.ones((2, 3, 4, 4, 2), "float32")
    layer = layers.ConvLSTM2D(2, 1, dropout=0.5, recurrent_dropout=0.5, seed=1, return_sequences=True)
    inference = layer(x).numpy()
    np.testing.assert_array_equal(layer(x, training=False).numpy(), inference)
    trained = layer(x, training=True).numpy()
    assert not np.allclose(trained, inference)
    assert np.all(np.isfinite(trained))


def test_cell_runs_one_step_on_its_own():
    cell = ConvLSTMCell(rank=2, filters=2, kernel_size=3, padding="same")
    x = np.random.default_rng(5).standard_normal((2, 4, 4, 3)).astype("float32")
    states = cell.get_initial_state(2) if cell.built else None
    cell.build((2, 4, 4, 3))
    states = cell.get_initial_state(batch_size=2)
    h, (h2, c2) = cell(x, states)
    assert h.shape == (2, 4, 4, 2) and c2.shape == (2, 4, 4, 2)
    layer = layers.ConvLSTM2D(2, 3, padding="same")
    layer(x[:, None])
    layer.set_weights(cell.get_weights())
    np.testing.assert_allclose(layer(x[:, None]).numpy(), h.numpy(), rtol=1e-6)


@pytest.mark.parametrize("make,shape", [
    (lambda: layers.ConvLSTM1D(2, 2, padding="same", return_sequences=True, dtype="float64"), (1, 3, 3, 2)),
    (lambda: layers.ConvLSTM2D(1, 2, strides=(1, 2), data_format="channels_first", dtype="float64"),
     (1, 2, 1, 3, 4)),
    (lambda: layers.ConvLSTM3D(1, 2, go_backwards=True, dtype="float64"), (1, 2, 2, 2, 3, 1)),
])
def test_weight_and_input_gradients(make, shape, weight_grads_close, input_grads_close):
    x = np.random.default_rng(6).standard_normal(shape)
    layer = make()
    layer(x)
    _weights(layer, 7)
    weight_grads_close(layer, x)
    input_grads_close(layer, x)


def test_masked_gradients(weight_grads_close):
    x = np.random.default_rng(8).standard_normal((2, 3, 3, 1))
    layer = layers.ConvLSTM1D(1, 2, padding="same", dtype="float64")
    layer(x)
    _weights(layer, 9)
    weight_grads_close(layer, x, mask=np.array([[1, 1, 0], [1, 0, 0]], bool))


def test_config_round_trip_and_errors():
    layer = layers.ConvLSTM2D(3, (3, 1), strides=(2, 1), padding="same", data_format="channels_first",
                              recurrent_activation="hard_sigmoid", dropout=0.1, seed=4,
                              return_sequences=True, go_backwards=True, kernel_regularizer="l2")
    config = json.loads(json.dumps(layer.get_config()))
    assert "cell" not in config and config["filters"] == 3 and config["kernel_size"] == [3, 1]
    again = layers.ConvLSTM2D.from_config(config)
    assert again.get_config() == json.loads(json.dumps(layer.get_config())) | {"name": again.name} or \
        again.get_config()["strides"] == (2, 1)
    assert again.filters == 3 and again.padding == "same" and again.go_backwards
    assert isinstance(tf.keras.layers.deserialize(tf.keras.layers.serialize(layer)), layers.ConvLSTM2D)
    with pytest.raises(ValueError, match="strides > 1"):
        layers.ConvLSTM2D(2, 3, strides=2, dilation_rate=2)
    with pytest.raises(ValueError, match="ndim=5"):
        layers.ConvLSTM2D(2, 3)(np.zeros((1, 2, 4, 4), "float32"))
    with pytest.raises(ValueError, match="zero or negative"):
        layers.ConvLSTM2D(2, 3)(np.zeros((1, 2, 2, 4, 1), "float32"))


def test_a_small_video_model_trains():
    tf.keras.utils.set_random_seed(0)
    rng = np.random.default_rng(10)
    x = rng.standard_normal((16, 3, 5, 5, 1)).astype("float32")
    y = (x[:, -1].mean(axis=(1, 2, 3)) > 0).astype("float32")[:, None]
    model = tf.keras.Sequential([tf.keras.Input((3, 5, 5, 1)),
                                 layers.ConvLSTM2D(4, 3, padding="same"),
                                 layers.GlobalAveragePooling2D(), layers.Dense(1, activation="sigmoid")])
    model.compile(optimizer=tf.keras.optimizers.Adam(0.02), loss="binary_crossentropy")
    history = model.fit(x, y, epochs=20, batch_size=8, verbose=0)
    assert history.history["loss"][-1] < 0.7 * history.history["loss"][0]
