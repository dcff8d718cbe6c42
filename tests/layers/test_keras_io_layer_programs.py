"""Behaviour found by running keras-io layer examples under minitf (our own small programs)."""
import numpy as np

import minitf as tf


def test_to_categorical_of_uint8_labels_is_float64_numpy():
    # A convnet tutorial one-hot encodes uint8 MNIST labels; Keras 3 hands back float64.
    labels = np.array([3, 0, 9, 3], dtype=np.uint8)
    onehot = tf.keras.utils.to_categorical(labels, 10)
    assert isinstance(onehot, np.ndarray)
    assert onehot.dtype == np.float64 and onehot.shape == (4, 10)
    np.testing.assert_array_equal(onehot.argmax(-1), labels)
    assert onehot.sum() == 4.0


def test_lstm_stack_traced_with_unknown_batch():
    # The addition-RNN tutorial's last fit batch is smaller; fit retraces with batch None and the
    # LSTM's zero initial state must take the runtime batch size.
    model = tf.keras.Sequential([tf.keras.layers.LSTM(6, input_shape=(5, 4)), tf.keras.layers.RepeatVector(3),
                                 tf.keras.layers.LSTM(6, return_sequences=True)])

    @tf.function(input_signature=[tf.TensorSpec([None, 5, 4], tf.float32)])
    def run(x):
        return model(x, training=True)

    x = np.random.default_rng(0).standard_normal((7, 5, 4)).astype(np.float32)
    out = run(x)
    assert out.shape == (7, 3, 6)
    np.testing.assert_allclose(out.numpy(), model(x).numpy(), rtol=1e-5, atol=1e-6)
    assert run(x[:2]).shape == (2, 3, 6)


def test_fit_verbose_2_single_epoch_prints_no_epoch_header(capsys):
    model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(2)])
    model.compile(loss="mse", optimizer="sgd")
    x = np.ones((8, 3), np.float32)
    model.fit(x, np.zeros((8, 2), np.float32), batch_size=4, epochs=1, verbose=2)
    out = capsys.readouterr().out
    assert "Epoch" not in out and "2/2" in out and "loss: " in out
    model.fit(x, np.zeros((8, 2), np.float32), batch_size=4, epochs=2, verbose=2)
    out = capsys.readouterr().out
    assert "Epoch 1/2" in out and "Epoch 2/2" in out


def test_keras_ops_shape_gives_runtime_size_for_unknown_batch():
    # The ViT tutorial's Patches layer reshapes with ops.shape(images)[0] inside fit's trace.
    seen = []

    @tf.function(input_signature=[tf.TensorSpec([None, 4, 3], tf.float32)])
    def flatten(x):
        dims = tf.keras.ops.shape(x)
        seen.append(dims)
        return tf.keras.ops.reshape(x, (dims[0], dims[1] * dims[2]))

    out = flatten(tf.ones((5, 4, 3)))
    assert out.shape == (5, 12)
    assert isinstance(seen[0][1], int) and seen[0][1:] == (4, 3) and not isinstance(seen[0][0], int)
    assert tf.keras.ops.shape(tf.ones((2, 3))) == (2, 3)


def test_multi_head_attention_traced_with_unknown_batch():
    mha = tf.keras.layers.MultiHeadAttention(num_heads=2, key_dim=4)
    x = np.random.default_rng(0).standard_normal((3, 6, 8)).astype(np.float32)
    mask = np.tril(np.ones((3, 6, 6), bool))

    @tf.function(input_signature=[tf.TensorSpec([None, 6, 8], tf.float32), tf.TensorSpec([None, 6, 6], tf.bool)])
    def attend(q, m):
        return mha(q, q, attention_mask=m)

    np.testing.assert_allclose(attend(x, mask).numpy(), mha(x, x, attention_mask=mask).numpy(), rtol=1e-5, atol=1e-6)
    assert attend(x[:1], mask[:1]).shape == (1, 6, 8)
