"""The logs fit/evaluate hand to callbacks and return, against Keras 3 (TF 2.21): key order (sorted,
a nested dict's entries in its key's place), value types, History's keys, evaluate's dict and
list, train_on_batch / test_on_batch, for compiled metrics and for a custom train_step."""
import numpy as np
import pytest

import minitf

tf_ref = pytest.importorskip("tensorflow")


def _recorder(keras, seen):
    class Recorder(keras.callbacks.Callback):
        def on_train_begin(self, logs=None):
            seen.append(("train_begin", logs))

        def on_train_batch_end(self, batch, logs=None):
            seen.append(("train_batch", list(logs), sorted({type(v).__name__ for v in logs.values()})))

        def on_test_batch_end(self, batch, logs=None):
            seen.append(("test_batch", list(logs)))

        def on_epoch_end(self, epoch, logs=None):
            seen.append(("epoch", list(logs), sorted({type(v).__name__ for v in logs.values()})))

        def on_test_end(self, logs=None):
            seen.append(("test_end", list(logs)))

        def on_train_end(self, logs=None):
            seen.append(("train_end", list(logs)))
    return Recorder()


def _compiled_metrics(lib):
    keras = lib.keras
    x = np.random.default_rng(0).normal(size=(32, 4)).astype("float32")
    y = (x[:, :1] > 0).astype("float32")
    model = keras.Sequential([keras.layers.Dense(1, activation="sigmoid")])
    model.compile("adam", "binary_crossentropy",
                  metrics=[keras.metrics.BinaryAccuracy(), "mae", keras.metrics.AUC(name="auc")])
    seen = []
    history = model.fit(x, y, validation_data=(x, y), epochs=2, batch_size=16, verbose=0,
                        callbacks=[_recorder(keras, seen)])
    evaluated = model.evaluate(x, y, verbose=0, return_dict=True)
    return [seen, list(history.history), list(evaluated), len(model.evaluate(x, y, verbose=0)),
            list(model.train_on_batch(x, y, return_dict=True)), list(model.test_on_batch(x, y, return_dict=True))]


def _custom_steps(lib):
    keras = lib.keras

    class Custom(keras.Model):
        def __init__(self):
            super().__init__()
            self.dense = keras.layers.Dense(1)

        def call(self, x):
            return self.dense(x)

        def train_step(self, data):
            return {"zeta": lib.constant(1.0), "alpha": lib.constant(2.0), "nested": {"b": 3.0, "a": 4.0}}

        def test_step(self, data):
            return {"zeta": lib.constant(1.0), "alpha": lib.constant(2.0)}

    x = np.ones((8, 2), "float32")
    model = Custom()
    model.compile("sgd")
    seen = []
    history = model.fit(x, x[:, :1], validation_data=(x, x[:, :1]), epochs=1, batch_size=4, verbose=0,
                        callbacks=[_recorder(keras, seen)])
    return [seen, list(history.history), model.evaluate(x, x[:, :1], verbose=0),
            model.evaluate(x, x[:, :1], verbose=0, return_dict=True),
            model.train_on_batch(x, x[:, :1], return_dict=True)]


@pytest.mark.parametrize("program", [_compiled_metrics, _custom_steps])
def test_logs_match_keras(program):
    assert program(minitf) == program(tf_ref)
