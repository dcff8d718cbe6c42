"""fit/evaluate/predict on objects that know their length, against Keras 3 (TF 2.21): a
keras.utils.Sequence (PyDataset) and `ImageDataGenerator().flow(...)` iterators give the same
steps per epoch, the same batches to the callbacks, the same batches read and the same history
keys. minitf also takes an object that only reads like a Sequence (Keras 3 needs the subclass).
(Keras' TF backend reads batches 0 and 1 once more, and calls on_epoch_end once more, while it
works out the output signature: only which batches are read is compared, not how often.)"""
import numpy as np
import pytest

import minitf

tf_ref = pytest.importorskip("tensorflow")


def _run(lib, duck=False, steps_per_epoch=None):
    keras = lib.keras
    fetched, events = [], []
    base = object if duck else keras.utils.PyDataset

    class Seq(base):
        def __init__(self, n, batch_size, tag):
            if base is not object:
                super().__init__()
            self.x = np.arange(n * 3, dtype="float32").reshape(n, 3) / 10
            self.y = np.arange(n, dtype="float32")[:, None]
            self.batch_size, self.tag = batch_size, tag

        def __len__(self):
            return -(-len(self.x) // self.batch_size)

        def __getitem__(self, i):
            fetched.append((self.tag, int(i)))
            part = slice(i * self.batch_size, (i + 1) * self.batch_size)
            return self.x[part], self.y[part]

        def on_epoch_end(self):
            fetched.append((self.tag, "end"))

    class Events(keras.callbacks.Callback):
        def on_train_batch_end(self, batch, logs=None):
            events.append(("train", batch))

        def on_test_batch_end(self, batch, logs=None):
            events.append(("test", batch))

        def on_epoch_end(self, epoch, logs=None):
            events.append(("epoch", epoch))

    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1)])
    model.compile(optimizer="sgd", loss="mse")
    history = model.fit(Seq(10, 4, "train"), validation_data=Seq(5, 2, "val"), epochs=2, verbose=0,
                        shuffle=False, callbacks=[Events()], steps_per_epoch=steps_per_epoch)
    out = {"events": list(events), "history": sorted(history.history),
           "read": sorted({f for f in fetched if f[1] != "end"}),
           "epoch ends seen": {tag for tag, what in fetched if what == "end"}}
    fetched.clear()
    out["evaluate"] = model.evaluate(Seq(7, 3, "ev"), verbose=0, return_dict=True).keys()
    out["predict"] = model.predict(Seq(7, 3, "pr"), verbose=0).shape
    out["read by evaluate/predict"] = sorted({f for f in fetched if f[1] != "end"})
    return out


@pytest.mark.parametrize("duck", [False, True])
def test_sequences_as_keras_reads_them(duck):
    assert _run(minitf, duck=duck) == _run(tf_ref)


def test_steps_per_epoch_over_a_sequence_as_keras():
    mine, ref = _run(minitf, steps_per_epoch=2), _run(tf_ref, steps_per_epoch=2)
    assert mine["events"] == ref["events"]
    assert mine["history"] == ref["history"]


def _image_flow_run(lib):
    keras = lib.keras
    image = lib.keras.preprocessing.image
    x = np.random.default_rng(0).random((10, 4, 4, 1)).astype("float32")
    y = np.arange(10, dtype="float32")
    events = []

    class Events(keras.callbacks.Callback):
        def on_train_batch_end(self, batch, logs=None):
            events.append(("train", batch, tuple(logs)))

        def on_test_batch_end(self, batch, logs=None):
            events.append(("test", batch, tuple(logs)))

    model = keras.Sequential([keras.Input((4, 4, 1)), keras.layers.Flatten(), keras.layers.Dense(1)])
    model.compile(optimizer="sgd", loss="mse")
    gen = image.ImageDataGenerator(horizontal_flip=True)
    history = model.fit(gen.flow(x, y, batch_size=4, seed=1), epochs=3, verbose=0,
                        validation_data=gen.flow(x, y, batch_size=3, seed=2), callbacks=[Events()])
    return {"events": events, "history": {k: len(v) for k, v in history.history.items()},
            "evaluate": sorted(model.evaluate(gen.flow(x, y, batch_size=3), verbose=0,
                                              return_dict=True)),
            "predict": model.predict(gen.flow(x, batch_size=3, shuffle=False), verbose=0).shape}


def test_image_data_generator_flow_as_keras_reads_it():
    assert _image_flow_run(minitf) == _image_flow_run(tf_ref)
