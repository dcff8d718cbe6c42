"""Behaviour found by running keras-io training programs (custom train_step models, GANs,
VAEs, distillers) under minitf; each test is a small program of our own."""
import numpy as np

import minitf as tf

keras = tf.keras


class _Tracked(keras.Model):
    """A subclassed model holding loss trackers as attributes, as the VAE recipe does."""

    def __init__(self):
        super().__init__()
        self.body = keras.layers.Dense(3)
        self.head = keras.layers.Dense(1)
        self.loss_tracker = keras.metrics.Mean(name="loss")
        self.extra_tracker = keras.metrics.Mean(name="extra")

    @property
    def metrics(self):
        return [self.loss_tracker, self.extra_tracker]

    def call(self, x):
        return self.head(self.body(x))

    def train_step(self, data):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(self(data)))
        grads = tape.gradient(loss, self.trainable_weights)
        self.optimizer.apply_gradients(zip(grads, self.trainable_weights))
        self.loss_tracker.update_state(loss)
        self.extra_tracker.update_state(2.0 * loss)
        return {m.name: m.result() for m in self.metrics}


def test_metric_attributes_stay_out_of_weights_and_layers():
    model = _Tracked()
    model(np.ones((2, 4), np.float32))
    assert len(model.weights) == 4 and len(model.variables) == 4
    assert len(model.trainable_weights) == 4 and model.non_trainable_weights == []
    assert [layer.name for layer in model.layers] == [model.body.name, model.head.name]
    assert len(model.metrics_variables) == 4  # total and count of each Mean
    assert all(v.dtype == tf.float32 for v in model.metrics_variables)


def test_metric_attributes_still_update_and_reset_in_fit():
    model = _Tracked()
    model.compile(optimizer=keras.optimizers.SGD(0.01))
    data = np.random.default_rng(0).normal(size=(8, 4)).astype(np.float32)
    history = model.fit(data, batch_size=4, epochs=2, verbose=0)
    assert set(history.history) == {"loss", "extra"}
    np.testing.assert_allclose(history.history["extra"], 2 * np.array(history.history["loss"]),
                               rtol=1e-6)
    # reset at each epoch: two batches counted, not four
    assert float(model.loss_tracker.count.numpy()) == 2.0
    assert len(model.get_weights()) == 4


def test_summary_lists_a_nested_functional_model_as_functional(capsys):
    inputs = keras.Input(shape=(4,))
    inner = keras.Model(inputs, keras.layers.Dense(2)(inputs), name="inner")

    class Wrapper(keras.Model):
        def __init__(self, model):
            super().__init__()
            self.model = model

        def call(self, x):
            return self.model(x)

    wrapper = Wrapper(inner)
    wrapper(np.ones((1, 4), np.float32))
    wrapper.summary()
    text = capsys.readouterr().out
    assert "inner (Functional)" in text and "(Model)" not in text
    # a subclass keeps its own class name
    outer_in = keras.Input(shape=(4,))
    outer = keras.Model(outer_in, wrapper(outer_in))
    outer.summary()
    assert "(Wrapper)" in capsys.readouterr().out
