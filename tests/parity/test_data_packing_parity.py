"""What fit/evaluate/predict and the single-batch calls hand `train_step`/`test_step`/
`predict_step`, against Keras 3 (TF 2.21): arrays (with and without y, dicts, lists), datasets,
generators and PyDatasets (keras.utils.PyDataset / Sequence), described structurally."""
import numpy as np
import pytest

import minitf

tf_ref = pytest.importorskip("tensorflow")


def describe(d):
    if isinstance(d, (tuple, list)):
        return type(d).__name__ + "(" + ",".join(describe(v) for v in d) + ")"
    if isinstance(d, dict):
        return "dict(" + ",".join(f"{k}:{describe(v)}" for k, v in sorted(d.items())) + ")"
    return "None" if d is None else "T" + str(tuple(d.shape))


def _trace(lib):
    keras = lib.keras
    seen = []

    class Recorder(keras.Model):
        def __init__(self):
            super().__init__()
            self.d = keras.layers.Dense(1)

        def call(self, x):
            x = x["a"] if isinstance(x, dict) else x
            return self.d(x[0] if isinstance(x, (list, tuple)) else x)

        def train_step(self, data):
            seen.append("train " + describe(data))
            return {"n": 0.0}

        def test_step(self, data):
            seen.append("test " + describe(data))
            return {"n": 0.0}

        def predict_step(self, data):
            seen.append("predict " + describe(data))
            return self(data[0] if isinstance(data, tuple) else data)

    class Batches(keras.utils.PyDataset):
        def __init__(self, item, **kwargs):
            super().__init__(**kwargs)
            self.item = item

        def __len__(self):
            return 2

        def __getitem__(self, index):
            return self.item

    x = np.ones((4, 3), "float32")
    y = np.ones((4, 1), "float32")
    w = np.ones((4,), "float32")
    model = Recorder()
    model.compile(optimizer="sgd", loss="mse", run_eagerly=True)
    fits = [dict(x=x), dict(x=x, y=y), dict(x=x, y=y, sample_weight=w), dict(x={"a": x}),
            dict(x=[x, x]), dict(x=(x, x)), dict(x=[x, x], y=y)]
    data = lib.data.Dataset
    fits += [dict(x=data.from_tensor_slices(e).batch(4)) for e in (x, (x,), (x, y), {"a": x}, ((x, x),))]

    def gen(item):
        while True:
            yield item
    fits += [dict(x=gen(e), steps_per_epoch=1) for e in (x, (x,), [x, y], (x, y), {"a": x})]
    fits += [dict(x=Batches(e)) for e in (x, (x,), (x, y), [x, y])]
    fits += [dict(x=Batches((x, y), workers=2))]
    for kwargs in fits:
        arrays = not isinstance(kwargs["x"], Batches) and "steps_per_epoch" not in kwargs \
            and not isinstance(kwargs["x"], data)
        try:
            model.fit(epochs=1, verbose=0, shuffle=False, **({"batch_size": 4} if arrays else {}), **kwargs)
        except ValueError as e:
            seen.append("ValueError " + str(e).split(".")[0])
    model.evaluate(x, batch_size=4, verbose=0)
    model.evaluate(data.from_tensor_slices(x).batch(4), verbose=0)
    model.predict(x, batch_size=4, verbose=0)
    model.predict(data.from_tensor_slices((x, y)).batch(4), verbose=0)
    model.predict({"a": x}, batch_size=4, verbose=0)
    model.train_on_batch(x)
    model.train_on_batch(x, y)
    model.test_on_batch(x)
    model.predict_on_batch(x)
    return seen


def test_steps_receive_what_keras_hands_them():
    assert _trace(minitf) == _trace(tf_ref)


def test_a_lone_x_custom_train_step_trains_as_in_keras():
    """keras-io's VAE/GAN `train_step(self, data)` uses `data` as the images: fit(x) and a
    dataset of single tensors give the same weights as in Keras."""
    rs = np.random.RandomState(0)
    x = rs.normal(size=(16, 5)).astype("float32")

    def train(lib):
        keras = lib.keras

        class AutoEncoder(keras.Model):
            def __init__(self):
                super().__init__()
                self.enc = keras.layers.Dense(2, activation="tanh")
                self.dec = keras.layers.Dense(5)
                self.tracker = keras.metrics.Mean(name="loss")

            def call(self, inputs):
                return self.dec(self.enc(inputs))

            def train_step(self, data):
                with lib.GradientTape() as tape:
                    loss = lib.reduce_mean(lib.square(data - self(data, training=True)))
                grads = tape.gradient(loss, self.trainable_weights)
                self.optimizer.apply_gradients(zip(grads, self.trainable_weights))
                self.tracker.update_state(loss)
                return {"loss": self.tracker.result()}

            @property
            def metrics(self):
                return [self.tracker]
        model = AutoEncoder()
        model(x)
        model.set_weights([np.linspace(-0.5, 0.5, v.size).reshape(v.shape).astype("float32")
                           for v in model.get_weights()])
        model.compile(optimizer=keras.optimizers.SGD(0.1))
        first = model.fit(x, batch_size=4, epochs=2, verbose=0, shuffle=False).history["loss"]
        second = model.fit(lib.data.Dataset.from_tensor_slices(x).batch(4), epochs=2, verbose=0).history["loss"]
        return model.get_weights(), first + second
    (w_ref, loss_ref), (w, loss) = train(tf_ref), train(minitf)
    np.testing.assert_allclose(loss, loss_ref, rtol=1e-5)
    for a, b in zip(w, w_ref):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
