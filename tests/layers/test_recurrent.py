"""Recurrent layers: gradients through time against finite differences (float64), the cells'
formulas, go_backwards, stateful layers, dropout, Bidirectional merge modes, TimeDistributed,
configs and errors."""
import numpy as np
import pytest

import minitf as tf
from minitf.gradient_checker import compute_gradient

L = tf.keras.layers
RNG = np.random.default_rng(0)


def _seq(batch=2, steps=4, features=3, dtype="float64"):
    return tf.constant(RNG.standard_normal((batch, steps, features)).astype(dtype))


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


@pytest.mark.parametrize("make", [
    lambda: L.SimpleRNN(3, dtype="float64", return_sequences=True),
    lambda: L.LSTM(3, dtype="float64", return_sequences=True),
    lambda: L.GRU(3, dtype="float64", return_sequences=True),
    lambda: L.GRU(3, dtype="float64", reset_after=False),
    lambda: L.LSTM(2, dtype="float64", go_backwards=True),
    lambda: L.RNN(L.StackedRNNCells([L.LSTMCell(2, dtype="float64"), L.GRUCell(2, dtype="float64")],
                                    dtype="float64"), dtype="float64"),
], ids=["simple_rnn", "lstm", "gru", "gru_reset_before", "lstm_backwards", "stacked"])
def test_gradients_through_time_match_finite_differences(make, weight_grads_close):
    layer = make()
    x = _seq()
    weight_grads_close(layer, x)
    theoretical, numerical = compute_gradient(lambda t: layer(t), [x])
    np.testing.assert_allclose(theoretical[0], numerical[0], rtol=1e-5, atol=1e-6)


def test_masked_gradients_match_finite_differences(weight_grads_close):
    layer = L.GRU(2, dtype="float64", return_sequences=True)
    x = _seq()
    mask = tf.constant([[True, False, True, True], [True, True, False, False]])
    weight_grads_close(layer, x, mask=mask)
    theoretical, numerical = compute_gradient(lambda t: layer(t, mask=mask), [x])
    np.testing.assert_allclose(theoretical[0], numerical[0], rtol=1e-5, atol=1e-6)


def test_lstm_cell_follows_keras_formula():
    cell = L.LSTMCell(2, dtype="float64")
    x = RNG.standard_normal((3, 4))
    h, c = RNG.standard_normal((3, 2)), RNG.standard_normal((3, 2))
    out, (h2, c2) = cell(tf.constant(x), [tf.constant(h), tf.constant(c)])
    k, rk, b = (w.numpy() for w in cell.weights)
    assert [w.name for w in cell.weights] == ["kernel", "recurrent_kernel", "bias"]
    assert k.shape == (4, 8) and rk.shape == (2, 8)
    np.testing.assert_array_equal(b, [0, 0, 1, 1, 0, 0, 0, 0])  # unit_forget_bias
    z = x @ k + h @ rk + b
    i, f, g, o = np.split(z, 4, axis=1)
    c_ref = _sigmoid(f) * c + _sigmoid(i) * np.tanh(g)
    h_ref = _sigmoid(o) * np.tanh(c_ref)
    np.testing.assert_allclose(c2.numpy(), c_ref, rtol=1e-12)
    np.testing.assert_allclose(out.numpy(), h_ref, rtol=1e-12)
    np.testing.assert_allclose(h2.numpy(), h_ref, rtol=1e-12)


@pytest.mark.parametrize("reset_after", [True, False])
def test_gru_cell_follows_keras_formula(reset_after):
    cell = L.GRUCell(2, dtype="float64", reset_after=reset_after, bias_initializer="random_normal")
    x, h = RNG.standard_normal((3, 4)), RNG.standard_normal((3, 2))
    out, new = cell(tf.constant(x), tf.constant(h))
    k, rk, b = (w.numpy() for w in cell.weights)
    assert b.shape == ((2, 6) if reset_after else (6,))
    xb = x @ k + (b[0] if reset_after else b)
    xz, xr, xh = np.split(xb, 3, axis=1)
    if reset_after:
        rz, rr, rh = np.split(h @ rk + b[1], 3, axis=1)
        z, r = _sigmoid(xz + rz), _sigmoid(xr + rr)
        hh = np.tanh(xh + r * rh)
    else:
        rz, rr = np.split(h @ rk[:, :4], 2, axis=1)
        z, r = _sigmoid(xz + rz), _sigmoid(xr + rr)
        hh = np.tanh(xh + (r * h) @ rk[:, 4:])
    np.testing.assert_allclose(out.numpy(), z * h + (1 - z) * hh, rtol=1e-12)
    np.testing.assert_allclose(new.numpy(), out.numpy())


def test_simple_rnn_cell_follows_keras_formula():
    cell = L.SimpleRNNCell(3, dtype="float64", activation="relu")
    x, h = RNG.standard_normal((2, 4)), RNG.standard_normal((2, 3))
    out, new = cell(tf.constant(x), [tf.constant(h)])
    k, rk, b = (w.numpy() for w in cell.weights)
    np.testing.assert_allclose(out.numpy(), np.maximum(x @ k + h @ rk + b, 0), rtol=1e-12)
    assert isinstance(new, list) and len(new) == 1


def test_recurrent_kernel_is_orthogonal_by_default():
    layer = L.LSTM(4)
    layer(_seq(dtype="float32"))
    rk = layer.cell.recurrent_kernel.numpy()  # (4, 16): orthonormal rows
    np.testing.assert_allclose(rk @ rk.T, np.eye(4), atol=1e-5)


def test_return_state_and_sequences_shapes_and_last_step():
    x = _seq(dtype="float32")
    seq, h, c = L.LSTM(3, return_sequences=True, return_state=True)(x)
    assert seq.shape == (2, 4, 3) and h.shape == (2, 3) and c.shape == (2, 3)
    np.testing.assert_allclose(seq.numpy()[:, -1], h.numpy())


def test_go_backwards_is_the_reversed_sequence():
    x = _seq()
    fwd = L.GRU(2, dtype="float64", return_sequences=True)
    fwd(x)
    bwd = L.GRU(2, dtype="float64", return_sequences=True, go_backwards=True)
    bwd(x)
    bwd.set_weights(fwd.get_weights())
    # outputs come in processing order, as Keras returns them
    np.testing.assert_allclose(bwd(x).numpy(), fwd(x[:, ::-1]).numpy(), rtol=1e-12)


def test_initial_state_is_used():
    x = _seq()
    layer = L.SimpleRNN(2, dtype="float64", return_state=True)
    h0 = tf.constant(RNG.standard_normal((2, 2)))
    out, h = layer(x, initial_state=[h0])
    out_zero, _ = layer(x)
    assert not np.allclose(out.numpy(), out_zero.numpy())
    # one step at a time with the cell gives the same
    state = [h0]
    for t in range(4):
        o, state = layer.cell(x[:, t], state)
    np.testing.assert_allclose(out.numpy(), o.numpy(), rtol=1e-12)


def test_stateful_carries_states_and_reset_states_clears_them():
    x = _seq(batch=2, steps=6)
    whole = L.LSTM(3, dtype="float64")
    whole(x)
    stateful = L.LSTM(3, dtype="float64", stateful=True)
    stateful(x[:, :3])
    stateful.set_weights(whole.get_weights())
    stateful.reset_states()
    stateful(x[:, :3])
    second = stateful(x[:, 3:])
    np.testing.assert_allclose(second.numpy(), whole(x).numpy(), rtol=1e-12)
    assert len(stateful.states) == 2 and not stateful.states[0].trainable
    assert len(stateful.weights) == 3  # the state variables are not weights, as in Keras
    stateful.reset_states()
    np.testing.assert_array_equal(stateful.states[0].numpy(), np.zeros((2, 3)))
    np.testing.assert_allclose(stateful(x[:, 3:]).numpy(), whole(x[:, 3:]).numpy(), rtol=1e-12)


def test_stateful_needs_a_fixed_batch_size():
    with pytest.raises(ValueError, match="batch size must be static"):
        L.GRU(2, stateful=True)(tf.keras.Input((3, 2)))
    layer = L.GRU(2, stateful=True)
    layer(_seq(batch=2, dtype="float32"))
    with pytest.raises(ValueError, match="batch size"):
        layer(_seq(batch=3, dtype="float32"))


def test_dropout_applies_only_in_training():
    x = _seq(batch=4, steps=5, features=6, dtype="float32")
    layer = L.LSTM(4, dropout=0.5, recurrent_dropout=0.5, seed=1)
    plain = L.LSTM(4)
    plain(x)
    layer(x)
    plain.set_weights(layer.get_weights())
    np.testing.assert_allclose(layer(x).numpy(), plain(x).numpy(), rtol=1e-6)
    np.testing.assert_allclose(layer(x, training=False).numpy(), plain(x).numpy(), rtol=1e-6)
    assert not np.allclose(layer(x, training=True).numpy(), plain(x).numpy())
    assert layer.cell.implementation == 1  # recurrent dropout: one mask per gate, as Keras
    gru = L.GRU(3, dropout=0.3)
    gru(x)
    assert gru.cell.implementation == 2


@pytest.mark.parametrize("merge_mode", ["concat", "sum", "mul", "ave", None])
def test_bidirectional_merge_modes(merge_mode):
    x = _seq()
    bi = L.Bidirectional(L.SimpleRNN(2, dtype="float64", return_sequences=True), merge_mode=merge_mode,
                         dtype="float64")
    out = bi(x)
    fwd = bi.forward_layer(x).numpy()
    bwd = bi.backward_layer(x).numpy()[:, ::-1]
    expected = {"concat": np.concatenate([fwd, bwd], -1), "sum": fwd + bwd, "mul": fwd * bwd,
                "ave": (fwd + bwd) / 2}
    if merge_mode is None:
        np.testing.assert_allclose(out[0].numpy(), fwd)
        np.testing.assert_allclose(out[1].numpy(), bwd)
    else:
        np.testing.assert_allclose(out.numpy(), expected[merge_mode], rtol=1e-12)
    assert bi.forward_layer.name.startswith("forward_") and bi.backward_layer.go_backwards


def test_bidirectional_with_states_and_backward_layer():
    x = _seq(dtype="float32")
    bi = L.Bidirectional(L.LSTM(3, return_state=True), backward_layer=L.LSTM(3, go_backwards=True,
                                                                             return_state=True))
    out, fh, fc, bh, bc = bi(x)
    assert out.shape == (2, 6) and fh.shape == bh.shape == (2, 3)
    np.testing.assert_allclose(out.numpy(), np.concatenate([fh.numpy(), bh.numpy()], -1))
    assert len(bi.weights) == 6
    with pytest.raises(ValueError, match="go_backwards"):
        L.Bidirectional(L.LSTM(3), backward_layer=L.LSTM(3))
    with pytest.raises(ValueError, match="Invalid merge mode"):
        L.Bidirectional(L.LSTM(3), merge_mode="max")


def test_time_distributed_applies_the_layer_to_every_step(weight_grads_close):
    x = _seq()
    dense = L.Dense(2, dtype="float64")
    td = L.TimeDistributed(dense, dtype="float64")
    out = td(x)
    np.testing.assert_allclose(out.numpy(), dense(x).numpy(), rtol=1e-12)
    assert [w.path for w in td.weights] == ["time_distributed/dense/kernel", "time_distributed/dense/bias"]
    weight_grads_close(td, x)
    conv = L.TimeDistributed(L.Conv2D(2, 3))
    assert conv(tf.zeros((2, 3, 5, 5, 1))).shape == (2, 3, 3, 3, 2)
    with pytest.raises(ValueError, match="at least 3 dimensions"):
        L.TimeDistributed(L.Dense(2))(tf.zeros((2, 3)))


def test_layer_reads_the_cell_settings_and_round_trips_its_config():
    layer = L.GRU(4, reset_after=False, dropout=0.25, return_sequences=True, name="g")
    assert layer.units == 4 and layer.reset_after is False and layer.dropout == 0.25
    config = layer.get_config()
    assert "cell" not in config and config["reset_after"] is False and config["return_sequences"]
    clone = L.GRU.from_config(config)
    assert clone.get_config() == config
    rnn = L.RNN([L.LSTMCell(2), L.SimpleRNNCell(3)], return_state=True)
    rnn(_seq(dtype="float32"))
    again = L.deserialize(L.serialize(rnn))
    assert isinstance(again.cell, L.StackedRNNCells) and len(again.cell.cells) == 2
    assert [w.shape for w in again.weights] == [w.shape for w in rnn.weights]


def test_invalid_arguments():
    with pytest.raises(ValueError, match="positive integer"):
        L.LSTM(0)
    with pytest.raises(ValueError, match="state_size"):
        L.RNN(L.Dense(2))
    with pytest.raises(ValueError, match="3D"):
        L.RNN(L.SimpleRNNCell(2))(tf.zeros((2, 3)))


@pytest.mark.parametrize("make", [lambda: L.LSTM(3, return_sequences=True, dropout=0.2, recurrent_dropout=0.2),
                                  lambda: L.GRU(3, reset_after=False), lambda: L.SimpleRNN(2),
                                  lambda: L.Bidirectional(L.GRU(2, return_sequences=True)),
                                  lambda: L.TimeDistributed(L.Dense(2))])
def test_recurrent_layers_stay_on_the_device(fake_gpu, make):
    """On a (fake) GPU the outputs, masks and gradients live on the device, and match the CPU values."""
    x_np = RNG.standard_normal((2, 4, 3)).astype("float32")
    mask = np.array([[True, True, False, True], [True, False, False, False]])
    layer = make()
    x = tf.constant(x_np)
    assert type(x._value).__name__ == "FakeDeviceArray"
    kwargs = {} if isinstance(layer, L.TimeDistributed) else {"mask": tf.constant(mask)}
    with tf.GradientTape() as tape:
        y = layer(x, training=True, **kwargs)
        loss = tf.reduce_sum(y * y)
    grads = tape.gradient(loss, layer.trainable_weights)
    assert type(y._value).__name__ == "FakeDeviceArray"
    assert all(type(g._value).__name__ == "FakeDeviceArray" for g in grads)
    with tf.device("/CPU:0"):
        expected = layer(tf.constant(x_np), **kwargs)
    np.testing.assert_allclose(layer(x, **kwargs).numpy(), expected.numpy(), rtol=1e-5, atol=1e-6)
