"""What fit/evaluate/predict hand the steps, as Keras 3 packs it (no TensorFlow needed);
PyDataset (keras.utils.Sequence); make_*_function; compile's run_eagerly and jit_compile.

tests/parity/test_data_packing_parity.py compares the same cases with Keras 3.
"""
import random
import threading
import time
import warnings

import numpy as np
import pytest

import minitf as tf
from minitf.engine.data_adapter import pack_x_y_sample_weight

L = tf.keras.layers
X = np.random.RandomState(0).normal(size=(8, 3)).astype("float32")
Y = np.random.RandomState(1).normal(size=(8, 1)).astype("float32")


def describe(d):
    """A short structural description of a batch: T(shape) for tensors."""
    if isinstance(d, (tuple, list)):
        return type(d).__name__ + "(" + ",".join(describe(v) for v in d) + ")"
    if isinstance(d, dict):
        return "dict(" + ",".join(f"{k}:{describe(v)}" for k, v in sorted(d.items())) + ")"
    return "None" if d is None else "T" + str(tuple(d.shape))


class Recorder(tf.keras.Model):
    """Records what each step receives."""

    def __init__(self):
        super().__init__()
        self.dense = L.Dense(1)
        self.seen = []

    def call(self, x):
        if isinstance(x, dict):
            x = x["a"]
        if isinstance(x, (list, tuple)):
            x = x[0]
        return self.dense(x)

    def train_step(self, data):
        self.seen.append(("train", describe(data)))
        return {"n": 0.0}

    def test_step(self, data):
        self.seen.append(("test", describe(data)))
        return {"n": 0.0}

    def predict_step(self, data):
        self.seen.append(("predict", describe(data)))
        return self(data[0] if isinstance(data, tuple) else data)


def _recorder():
    model = Recorder()
    # the steps record Python side effects: run them eagerly, so every call records (a traced
    # step records only while it is traced; test_traced_steps_see_the_same_structures checks it)
    model.compile("sgd", "mse", run_eagerly=True)
    return model


def test_traced_steps_see_the_same_structures():
    model = Recorder()
    model.compile("sgd", "mse")
    model.fit(x={"a": X}, y=Y, batch_size=8, epochs=2, verbose=0, shuffle=False)
    model.predict(X, batch_size=8, verbose=0)
    # traced once each; predict builds the layer, and a trace that makes variables runs twice (TF)
    assert [what for what, _ in model.seen] == ["train", "predict", "predict"]
    assert model.seen[0][1] == "tuple(dict(a:T(8, 3)),T(8, 1))" and model.seen[1][1] == "T(8, 3)"


@pytest.mark.parametrize("kwargs, expected", [
    (dict(x=X), "T(8, 3)"),
    (dict(x=X, y=Y), "tuple(T(8, 3),T(8, 1))"),
    (dict(x=X, y=Y, sample_weight=np.ones(8, "float32")), "tuple(T(8, 3),T(8, 1),T(8,))"),
    (dict(x={"a": X}), "dict(a:T(8, 3))"),
    (dict(x=[X, X]), "tuple(tuple(T(8, 3),T(8, 3)))"),
    (dict(x=[X, X], y=Y), "tuple(tuple(T(8, 3),T(8, 3)),T(8, 1))"),
])
def test_array_batches(kwargs, expected):
    model = _recorder()
    model.fit(batch_size=8, epochs=1, verbose=0, shuffle=False, **kwargs)
    assert model.seen == [("train", expected)]


@pytest.mark.parametrize("element, expected", [
    (X, "T(4, 3)"), ((X,), "tuple(T(4, 3))"), ((X, Y), "tuple(T(4, 3),T(4, 1))"),
    ({"a": X}, "dict(a:T(4, 3))"),
])
def test_dataset_elements_are_handed_over_as_they_are(element, expected):
    model = _recorder()
    ds = tf.data.Dataset.from_tensor_slices(element).batch(4)
    model.fit(ds, epochs=1, verbose=0)
    model.evaluate(ds, verbose=0)
    model.predict(ds, verbose=0)
    assert model.seen == [(step, expected) for step in ("train", "train", "test", "test", "predict", "predict")]


def test_generators_must_yield_tuples():
    model = _recorder()

    def gen(item):
        while True:
            yield item
    model.fit(gen((X, Y)), steps_per_epoch=1, verbose=0)
    model.fit(gen((X,)), steps_per_epoch=1, verbose=0)
    assert model.seen == [("train", "tuple(T(8, 3),T(8, 1))"), ("train", "tuple(T(8, 3))")]
    for item in (X, [X, Y], {"a": X}):
        with pytest.raises(ValueError, match="must return a tuple"):
            model.fit(gen(item), steps_per_epoch=1, verbose=0)
    with pytest.raises(ValueError, match="at least one batch"):
        model.fit(iter([]), steps_per_epoch=1, verbose=0)


def test_evaluate_predict_and_single_batch_calls():
    model = _recorder()
    model.evaluate(X, batch_size=8, verbose=0)
    model.predict(X, batch_size=8, verbose=0)
    model.predict({"a": X}, batch_size=8, verbose=0)
    model.train_on_batch(X)
    model.train_on_batch(X, Y)
    model.test_on_batch(X)
    model.predict_on_batch(X)
    assert model.seen == [("test", "T(8, 3)"), ("predict", "T(8, 3)"), ("predict", "dict(a:T(8, 3))"),
                          ("train", "tuple(T(8, 3),None,None)"), ("train", "tuple(T(8, 3),T(8, 1),None)"),
                          ("test", "tuple(T(8, 3),None,None)"), ("predict", "tuple(T(8, 3))")]


def test_pack_x_y_sample_weight():
    assert pack_x_y_sample_weight(X) is X
    assert pack_x_y_sample_weight([X]) == ([X],)
    assert pack_x_y_sample_weight(X, 1) == (X, 1)
    assert pack_x_y_sample_weight(X, 1, 2) == (X, 1, 2)
    assert tf.keras.utils.PyDataset is tf.keras.utils.Sequence


def test_a_gan_like_train_step_gets_x_itself():
    """keras-io's GAN/VAE steps use `data` as the batch of images."""
    class AutoEncoder(tf.keras.Model):
        def __init__(self):
            super().__init__()
            self.enc = L.Dense(2)
            self.dec = L.Dense(3)
            self.tracker = tf.keras.metrics.Mean(name="loss")

        def call(self, x):
            return self.dec(self.enc(x))

        def train_step(self, data):
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(tf.square(data - self(data, training=True)))
            grads = tape.gradient(loss, self.trainable_weights)
            self.optimizer.apply_gradients(zip(grads, self.trainable_weights))
            self.tracker.update_state(loss)
            return {"loss": self.tracker.result()}
    model = AutoEncoder()
    model.compile(optimizer=tf.keras.optimizers.SGD(0.1))
    history = model.fit(X, batch_size=4, epochs=5, verbose=0)
    ds = tf.data.Dataset.from_tensor_slices(X).batch(4)
    history_ds = model.fit(ds, epochs=5, verbose=0)
    losses = history.history["loss"] + history_ds.history["loss"]
    assert losses[-1] < losses[0]


# -- PyDataset ----------------------------------------------------------------------------------

class Batches(tf.keras.utils.PyDataset):
    def __init__(self, items, delay=0.0, **kwargs):
        super().__init__(**kwargs)
        self.items = items
        self.delay = delay
        self.events = []
        self.threads = set()

    def __len__(self):
        return len(self.items)

    def __getitem__(self, index):
        self.threads.add(threading.get_ident())
        time.sleep(self.delay * (len(self.items) - index))   # later batches finish first
        return self.items[index]

    def on_epoch_begin(self):
        self.events.append("begin")

    def on_epoch_end(self):
        self.events.append("end")


def test_py_dataset_batches_epochs_and_order():
    model = _recorder()
    items = [X[i:i + 2] for i in range(0, 8, 2)]
    data = Batches(items)
    model.fit(data, epochs=2, verbose=0, shuffle=False)
    assert model.seen == [("train", "tuple(T(2, 3))")] * 8
    assert data.events == ["begin", "end"] * 2
    model.seen.clear()
    model.fit(Batches([(x, x[:, :1]) for x in items]), verbose=0)
    model.fit(Batches([[x, x[:, :1]] for x in items]), verbose=0)
    model.fit(Batches([{"a": x} for x in items]), verbose=0)
    assert [d for _, d in model.seen] == ["tuple(T(2, 3),T(2, 1))"] * 8 + ["dict(a:T(2, 3))"] * 4
    with pytest.raises(ValueError, match="must return a tuple or a dict"):
        model.fit(Batches([tf.constant(X)]), verbose=0)


def test_py_dataset_workers_read_ahead_and_keep_the_order():
    order = []

    class Ordered(Recorder):
        def train_step(self, data):
            order.append(int(np.asarray(data[0])[0, 0]))
            return {"n": 0.0}
    model = Ordered()
    model.compile("sgd", "mse", run_eagerly=True)  # the step reads values in Python
    items = [np.full((2, 3), i, "float32") for i in range(6)]
    data = Batches(items, delay=0.01, workers=3, max_queue_size=4)
    model.fit(data, epochs=1, verbose=0, shuffle=False)
    assert order == list(range(6)) and len(data.threads) > 1
    order.clear()
    parallel = Batches(items, workers=2, use_multiprocessing=True)   # threads stand in for processes
    model.fit(parallel, epochs=1, verbose=0, shuffle=True)
    assert sorted(order) == list(range(6))
    random.seed(3)
    order.clear()
    model.fit(Batches(items), epochs=1, verbose=0)          # fit shuffles the batch order
    assert sorted(order) == list(range(6)) and order != list(range(6))


def test_py_dataset_class_weights_and_a_missing_super_init():
    model = Recorder()
    model.compile("sgd", "mse", run_eagerly=True)  # the step reads values in Python
    seen = []
    model.train_step = lambda data: seen.append(np.asarray(data[2])) or {"n": 0.0}
    labels = np.array([[0], [1], [1], [0]], "float32")
    model.fit(Batches([(X[:4], labels)]), class_weight={0: 0.5, 1: 2.0}, verbose=0)
    np.testing.assert_array_equal(seen[0], [0.5, 2.0, 2.0, 0.5])
    with pytest.raises(ValueError, match="class_weight"):
        model.fit(Batches([(X[:4], labels, np.ones(4))]), class_weight={0: 1.0}, verbose=0)

    class NoSuper(tf.keras.utils.PyDataset):
        def __init__(self):
            pass

        def __len__(self):
            return 1

        def __getitem__(self, index):
            return (X,)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert NoSuper().workers == 1
    assert any("super().__init__" in str(w.message) for w in caught)
    assert list(Batches([(X,), (Y,)])) == [(X,), (Y,)]


def test_class_weight_with_sample_weight_is_refused_as_in_keras():
    model = _recorder()
    with pytest.raises(ValueError, match="class_weight"):
        model.fit(X, Y, sample_weight=np.ones(8), class_weight={0: 1.0}, verbose=0)
    with pytest.raises(ValueError, match="cannot be specified at the same time"):
        model.train_on_batch(X, Y, sample_weight=np.ones(8), class_weight={0: 1.0})


# -- the per-batch functions and compile's switches ------------------------------------------

def test_fit_evaluate_predict_call_the_made_functions():
    model = tf.keras.Sequential([L.Dense(1)])
    model.compile("sgd", "mse")
    counts = {"train": 0, "test": 0, "predict": 0}
    for kind in counts:
        made = getattr(model, f"make_{kind}_function")()
        assert getattr(model, f"make_{kind}_function")() is made      # kept
        assert getattr(model, f"{kind}_function") is made

        def counting(data, made=made, kind=kind):
            counts[kind] += 1
            return made(data)
        object.__setattr__(model, f"{kind}_function", counting)   # what a tf.function wrapper does
    model.fit(X, Y, batch_size=4, epochs=2, verbose=0)
    model.evaluate(X, Y, batch_size=4, verbose=0)
    model.predict(X, batch_size=2, verbose=0)
    assert counts == {"train": 4, "test": 2, "predict": 4}
    assert model.make_train_function(force=True) is not counting
    model.compile("sgd", "mse")   # compile forgets them, as Keras 3
    assert model.train_function is None and model.test_function is None


def test_compile_takes_run_eagerly_and_jit_compile_as_keras():
    model = tf.keras.Sequential([L.Dense(1)])
    assert model.run_eagerly is False
    model.compile("sgd", "mse")
    assert model.run_eagerly is False and model.jit_compile is False
    assert model._compile_config["jit_compile"] is False and model._compile_config["run_eagerly"] is False
    model.compile("sgd", "mse", run_eagerly=True)
    assert model.run_eagerly is True
    model.compile("sgd", "mse", jit_compile=True)
    assert model.jit_compile is True
    with pytest.warns(UserWarning, match="cannot also be True"):
        model.compile("sgd", "mse", run_eagerly=True, jit_compile=True)
    assert model.jit_compile is False
    model.run_eagerly = False
    assert model.run_eagerly is False
