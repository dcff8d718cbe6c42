"""fit/evaluate/predict on objects that know their length: PyDatasets (keras.utils.Sequence) and
objects that only read like one (`len`, `[i]`, `on_epoch_end`, as `ImageDataGenerator.flow`'s
iterators): len(x) steps per epoch, batch i = x[i], on_epoch_end() after every epoch, for training
and validation data alike. tests/parity/test_sequence_fit_parity.py compares with Keras 3."""
import numpy as np
import pytest

import minitf as tf
from minitf.engine.data_adapter import is_py_dataset

X = np.random.default_rng(0).random((10, 4, 4, 1)).astype("float32")
Y = np.arange(10, dtype="float32")


class Lengthy:
    """Not a PyDataset, but reads like one; records what fit does with it."""

    def __init__(self, n, batch_size, log, tag):
        self.x = np.arange(n * 3, dtype="float32").reshape(n, 3) / 10
        self.y = np.arange(n, dtype="float32")[:, None]
        self.batch_size, self.log, self.tag = batch_size, log, tag

    def __len__(self):
        return -(-len(self.x) // self.batch_size)

    def __getitem__(self, i):
        self.log.append((self.tag, i))
        part = slice(i * self.batch_size, (i + 1) * self.batch_size)
        return self.x[part], self.y[part]

    def on_epoch_end(self):
        self.log.append((self.tag, "end"))


class Subclassed(tf.keras.utils.Sequence):
    """The same as a keras.utils.Sequence subclass."""

    def __init__(self, *args):
        super().__init__()
        self.inner = Lengthy(*args)

    def __len__(self):
        return len(self.inner)

    def __getitem__(self, i):
        return self.inner[i]

    def on_epoch_end(self):
        self.inner.on_epoch_end()


class Counter(tf.keras.callbacks.Callback):
    def __init__(self):
        super().__init__()
        self.events = []

    def on_train_batch_end(self, batch, logs=None):
        self.events.append(("train", batch))

    def on_test_batch_end(self, batch, logs=None):
        self.events.append(("test", batch))

    def on_epoch_end(self, epoch, logs=None):
        self.events.append(("epoch", epoch))


def _dense_model(shape):
    model = tf.keras.Sequential([tf.keras.Input(shape), tf.keras.layers.Flatten(),
                                 tf.keras.layers.Dense(1)])
    model.compile(optimizer="sgd", loss="mse")
    return model


def test_what_reads_like_a_py_dataset():
    assert is_py_dataset(Lengthy(3, 2, [], "a")) and is_py_dataset(Subclassed(3, 2, [], "a"))
    assert is_py_dataset(tf.keras.preprocessing.image.ImageDataGenerator().flow(X, Y))
    assert not is_py_dataset(X) and not is_py_dataset([X, Y]) and not is_py_dataset(tf.constant(X))
    assert not is_py_dataset(tf.data.Dataset.from_tensor_slices(X))
    assert not is_py_dataset(iter([(X, Y)]))


@pytest.mark.parametrize("kind", [Lengthy, Subclassed])
def test_fit_takes_len_steps_per_epoch_and_calls_on_epoch_end(kind):
    log, counter = [], Counter()
    model = _dense_model((3,))
    history = model.fit(kind(10, 4, log, "train"), validation_data=kind(5, 2, log, "val"), epochs=2,
                        verbose=0, shuffle=False, callbacks=[counter])
    epoch = [("train", 0), ("train", 1), ("train", 2), ("train", "end"),
             ("val", 0), ("val", 1), ("val", 2), ("val", "end")]
    assert log == epoch * 2
    assert counter.events == ([("train", i) for i in range(3)] + [("test", i) for i in range(3)]
                              + [("epoch", 0)] + [("train", i) for i in range(3)]
                              + [("test", i) for i in range(3)] + [("epoch", 1)])
    assert sorted(history.history) == ["loss", "val_loss"]


@pytest.mark.parametrize("kind", [Lengthy, Subclassed])
def test_fit_shuffles_the_batch_order_but_sees_every_batch_once(kind):
    log = []
    _dense_model((3,)).fit(kind(40, 4, log, "t"), epochs=1, verbose=0)  # shuffle=True: the default
    assert sorted(i for _, i in log if i != "end") == list(range(10)) and log[-1] == ("t", "end")


@pytest.mark.parametrize("kind", [Lengthy, Subclassed])
def test_evaluate_and_predict_read_each_batch_once(kind):
    log = []
    model = _dense_model((3,))
    result = model.evaluate(kind(7, 3, log, "ev"), verbose=0, return_dict=True)
    assert log == [("ev", 0), ("ev", 1), ("ev", 2), ("ev", "end")] and set(result) == {"loss"}
    log.clear()
    assert model.predict(kind(7, 3, log, "pr"), verbose=0).shape == (7, 1)
    assert log == [("pr", 0), ("pr", 1), ("pr", 2), ("pr", "end")]


def test_steps_per_epoch_still_wins_and_reads_on_across_epochs():
    log, counter = [], Counter()
    _dense_model((3,)).fit(Lengthy(40, 4, log, "t"), epochs=2, steps_per_epoch=3, verbose=0,
                           shuffle=False, callbacks=[counter])
    assert [e for e in counter.events if e[0] == "train"] == [("train", i) for i in range(3)] * 2
    assert [i for _, i in log] == [0, 1, 2, "end", 3, 4, 5, "end"]  # as Keras 3 reads on


def test_fit_on_an_image_data_generator_flow_ends_its_epochs():
    gen = tf.keras.preprocessing.image.ImageDataGenerator()
    flow = gen.flow(X, Y, batch_size=4, shuffle=False)
    ends = []
    original = flow.on_epoch_end
    flow.on_epoch_end = lambda: (ends.append(1), original())[1]
    counter = Counter()
    model = _dense_model((4, 4, 1))
    history = model.fit(flow, epochs=3, verbose=0, validation_data=gen.flow(X, Y, batch_size=3),
                        callbacks=[counter])
    assert len(history.history["loss"]) == 3 and len(history.history["val_loss"]) == 3
    assert counter.events.count(("train", 2)) == 3 and ("train", 3) not in counter.events
    assert counter.events.count(("test", 3)) == 3 and ("test", 4) not in counter.events
    assert len(ends) == 3
    assert len(model.evaluate(gen.flow(X, Y, batch_size=3), verbose=0, return_dict=True)) == 1
    predicted = model.predict(gen.flow(X, batch_size=3, shuffle=False), verbose=0)
    np.testing.assert_allclose(predicted, model.predict(X, verbose=0), rtol=1e-5, atol=1e-6)


def test_class_weight_reaches_a_lengthy_object():
    log = []
    model = _dense_model((3,))
    plain = Lengthy(8, 4, log, "t")
    model.fit(plain, epochs=1, verbose=0, shuffle=False, class_weight={0: 2.0})
    assert [i for _, i in log] == [0, 1, "end"]
