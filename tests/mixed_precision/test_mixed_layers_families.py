"""Layer families under mixed_float16: recurrent layers start from states in the compute dtype and
MultiHeadAttention builds its projections under the same policy, so both compute in float16 and
keep float32 weights (as Keras 3)."""
import numpy as np
import pytest

import minitf as tf


@pytest.fixture
def mixed():
    tf.keras.mixed_precision.set_global_policy("mixed_float16")
    yield
    tf.keras.mixed_precision.set_global_policy("float32")


@pytest.mark.parametrize("make", [lambda: tf.keras.layers.LSTM(4, return_sequences=True),
                                  lambda: tf.keras.layers.GRU(3), lambda: tf.keras.layers.SimpleRNN(3),
                                  lambda: tf.keras.layers.MultiHeadAttention(2, 4)])
def test_family_computes_in_float16_with_float32_weights(mixed, make):
    layer = make()
    x = np.random.default_rng(0).random((2, 5, 8)).astype("float32")
    y = layer(x, x) if isinstance(layer, tf.keras.layers.MultiHeadAttention) else layer(x)
    assert y.dtype == tf.float16
    assert all(w.dtype == tf.float32 for w in layer.weights)
