"""A small model trained under mixed_float16 learns as well as under float32 (on the CPU)."""
import numpy as np

import minitf as tf

mp = tf.keras.mixed_precision
L = tf.keras.layers


def _data():
    rng = np.random.RandomState(1)
    x = rng.randn(600, 8).astype("float32")
    w = rng.randn(8, 3).astype("float32")
    y = np.argmax(x @ w + 0.1 * rng.randn(600, 3), axis=1)
    return x, y


def _train(policy):
    mp.set_global_policy(policy)
    tf.random.set_seed(3)
    model = tf.keras.Sequential([tf.keras.Input((8,)), L.Dense(32, activation="relu"), L.Dense(3),
                                 L.Activation("softmax", dtype="float32")])
    model.compile(optimizer=tf.keras.optimizers.Adam(0.01), loss="sparse_categorical_crossentropy",
                  metrics=["accuracy"])
    x, y = _data()
    model.fit(x[:500], y[:500], batch_size=50, epochs=15, verbose=0)
    out = model(x[500:])
    acc = float(np.mean(np.argmax(out.numpy(), axis=1) == y[500:]))
    return model, out, acc


def test_mixed_float16_matches_float32_accuracy():
    _, out32, acc32 = _train("float32")
    model16, out16, acc16 = _train("mixed_float16")
    assert out16.dtype == tf.float32 and model16.layers[0].compute_dtype == "float16"
    assert model16.layers[0].kernel.dtype == tf.float32
    assert isinstance(model16.optimizer, mp.LossScaleOptimizer)
    assert acc32 > 0.85
    assert abs(acc16 - acc32) <= 0.04, (acc32, acc16)
