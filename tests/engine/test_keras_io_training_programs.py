"""Behaviour found by running keras-io training programs (custom train_step models, GANs,
VAEs, distillers) under minitf; each test is a small program of our own."""
import numpy as np
import pytest

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


class _Endpoint(keras.layers.Layer):
    """A loss endpoint with its own metric, called with its first argument by keyword."""

    def __init__(self):
        super().__init__()
        self.hits = keras.metrics.BinaryAccuracy(name="hits")

    def call(self, logits, targets=None):
        if targets is not None:
            self.add_loss(tf.reduce_mean(tf.square(logits - targets)))
            self.hits.update_state(targets, tf.sigmoid(logits))
        return tf.sigmoid(logits)


class _EndpointModel(keras.Model):
    def __init__(self):
        super().__init__()
        self.dense = keras.layers.Dense(1)
        self.endpoint = _Endpoint()

    def call(self, data):
        return self.endpoint(logits=self.dense(data["x"]), targets=data["y"])


def test_layer_takes_its_inputs_by_the_name_of_calls_first_parameter():
    layer = _Endpoint()
    out = layer(logits=np.zeros((2, 1), np.float32))
    np.testing.assert_allclose(out.numpy(), 0.5)
    symbolic = _Endpoint()(logits=keras.Input((3,)))
    assert tuple(symbolic.shape) == (None, 3)
    with pytest.raises(TypeError, match="missing a required argument: 'logits'"):
        layer(targets=np.zeros((2, 1), np.float32))


def test_add_metric_is_gone_as_in_keras_3():
    with pytest.raises(NotImplementedError, match="add_metric"):
        keras.layers.Layer().add_metric(1.0)


def test_metrics_of_sublayers_are_reported_by_fit():
    model = _EndpointModel()
    model.compile(keras.optimizers.Adam(1e-3))
    rng = np.random.default_rng(1)
    data = {"x": rng.normal(size=(16, 5)).astype(np.float32),
            "y": (rng.random((16, 1)) > 0.5).astype(np.float32)}
    history = model.fit(data, batch_size=8, epochs=2, verbose=0)
    assert set(history.history) == {"loss", "hits"}
    assert [m.name for m in model.metrics] == ["loss", "hits"]
    assert model.endpoint.metrics == [model.endpoint.hits]
    assert 0.0 <= history.history["hits"][-1] <= 1.0
    # reset at the epoch start: only the last epoch's 16 samples are counted
    assert float(model.endpoint.hits.count.numpy()) == 16.0


def test_linspace_of_integer_endpoints_is_float64_as_tf():
    # the conditional-GAN recipe interpolates labels with tf.linspace(0, 1, n)
    ramp = tf.linspace(0, 1, 5)
    assert ramp.dtype == tf.float64
    np.testing.assert_allclose(ramp.numpy(), [0.0, 0.25, 0.5, 0.75, 1.0])
    assert tf.linspace(tf.constant(0, tf.int16), 4, 3).dtype == tf.float32
    assert tf.linspace(tf.constant(0, tf.int64), 4, 3).dtype == tf.float64
    assert tf.linspace(0.0, 1.0, 3).dtype == tf.float32
    with pytest.raises(TypeError):
        tf.linspace(0, 1.5, 3)  # stop must convert to start's dtype (int32)
