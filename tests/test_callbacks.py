"""Tests for tf.keras.callbacks (minitf/callbacks/), inside fit and hook by hook."""
import csv
import math

import numpy as np
import pytest

import minitf as tf
from minitf import callbacks
from minitf.callbacks.callback_list import pythonify_logs


Dense, Sequential = tf.keras.layers.Dense, tf.keras.Sequential


def _data(n=48, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, 3)).astype("float32")
    y = (x @ np.array([[1.0], [-1.0], [2.0]], "float32")).astype("float32")
    return x, y


def _model(lr=0.05):
    tf.random.set_seed(3)
    model = Sequential([Dense(1)])
    model.compile(optimizer=tf.optimizers.SGD(lr), loss="mse")
    return model


class _Feed(callbacks.Callback):
    """Puts a scripted value under `key` in each epoch's logs (runs before later callbacks)."""

    def __init__(self, key, values):
        super().__init__()
        self.key, self.values = key, values
        self.weights = []

    def on_epoch_end(self, epoch, logs=None):
        logs[self.key] = self.values[epoch]
        self.weights.append([w.copy() for w in self.model.get_weights()])


def _recording_hook(name):
    def hook(self, *args):
        self.calls.append(name)
    return hook


_HOOKS = [n for n in dir(callbacks.Callback) if n.startswith("on_") and "_batch_" not in n[2:5]
          and n not in ("on_batch_begin", "on_batch_end")]
_Recorder = type("_Recorder", (callbacks.Callback,),
                 {"__init__": lambda self: (callbacks.Callback.__init__(self),
                                            setattr(self, "calls", []))[0],
                  **{n: _recording_hook(n) for n in _HOOKS}})


class _StubModel:
    """Just enough model for hook-level tests: an optimizer, weights and a stop flag."""

    def __init__(self, lr=0.1):
        self.optimizer = tf.optimizers.SGD(lr)
        self.stop_training = False
        self.saved = []
        self._w = [np.zeros(2)]

    def get_weights(self):
        return [w.copy() for w in self._w]

    def set_weights(self, weights):
        self._w = [np.array(w) for w in weights]

    def save_weights(self, path, overwrite=True):
        self.saved.append(path)
        with open(path, "w") as f:
            f.write("weights")


def _drive(callback, key, values, model=None):
    model = model or _StubModel()
    callback.set_model(model)
    callback.on_train_begin()
    for epoch, value in enumerate(values):
        callback.on_epoch_begin(epoch)
        callback.on_epoch_end(epoch, {key: value})
        if model.stop_training:
            break
    callback.on_train_end()
    return model, epoch


# -- the hooks fit calls --------------------------------------------------------------------

def test_fit_calls_hooks_in_order_and_sets_params():
    x, y = _data(n=8)
    model = _model()
    rec = _Recorder()
    model.fit(x, y, batch_size=4, epochs=1, validation_data=(x, y), verbose=0, callbacks=[rec])
    assert rec.calls == [
        "on_train_begin", "on_epoch_begin",
        "on_train_batch_begin", "on_train_batch_end", "on_train_batch_begin",
        "on_train_batch_end", "on_test_begin", "on_test_batch_begin", "on_test_batch_end",
        "on_test_batch_begin", "on_test_batch_end", "on_test_end", "on_epoch_end",
        "on_train_end"]
    assert rec.params["epochs"] == 1 and rec.params["steps"] == 2
    assert rec.model is model


def test_callback_batch_hooks_default_to_keras1_aliases():
    seen = []

    class Old(callbacks.Callback):
        def on_batch_end(self, batch, logs=None):
            seen.append((batch, float(logs["loss"])))
    x, y = _data(n=12)
    _model().fit(x, y, batch_size=4, epochs=1, verbose=0, callbacks=[Old()])
    assert [b for b, _ in seen] == [0, 1, 2] and all(math.isfinite(v) for _, v in seen)


# -- EarlyStopping --------------------------------------------------------------------------

def test_early_stopping_stops_after_patience_and_restores_best_weights():
    x, y = _data()
    model = _model()
    feed = _Feed("val_score", [5.0, 3.0, 4.0, 4.0, 4.0, 1.0])
    stop = callbacks.EarlyStopping(monitor="val_score", patience=2, restore_best_weights=True)
    history = model.fit(x, y, epochs=6, verbose=0, callbacks=[feed, stop])
    assert len(history.history["loss"]) == 4 and stop.stopped_epoch == 3
    assert stop.best == 3.0 and stop.best_epoch == 1
    for got, best in zip(model.get_weights(), feed.weights[1]):
        np.testing.assert_array_equal(got, best)
    assert not np.allclose(feed.weights[3][0], feed.weights[1][0])


def test_early_stopping_mode_min_delta_baseline_and_start_epoch():
    _, last = _drive(callbacks.EarlyStopping(monitor="acc", patience=1), "acc",
                     [0.5, 0.6, 0.55, 0.7])
    assert last == 2  # 'auto' means max for accuracy: 0.55 is no improvement
    _, last = _drive(callbacks.EarlyStopping(monitor="val_loss", patience=1, min_delta=0.5),
                     "val_loss", [3.0, 2.8, 2.0])
    assert last == 1  # 2.8 is better by less than min_delta
    _, last = _drive(callbacks.EarlyStopping(monitor="val_loss", patience=2, baseline=1.0),
                     "val_loss", [3.0, 2.0, 2.5, 2.5])
    assert last == 2  # improvements above the baseline do not reset the patience count
    _, last = _drive(callbacks.EarlyStopping(monitor="val_loss", patience=2),
                     "val_loss", [3.0, 2.0, 2.5, 2.5])
    assert last == 3
    _, last = _drive(callbacks.EarlyStopping(monitor="val_loss", patience=1,
                                             start_from_epoch=3),
                     "val_loss", [1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
    assert last == 4


# -- ModelCheckpoint ------------------------------------------------------------------------

def test_model_checkpoint_formats_file_names_from_epoch_and_logs(tmp_path):
    x, y = _data()
    model = _model()
    written = []
    model.save_weights = lambda path, overwrite=True, **kw: (written.append(path),
                                                              open(path, "w").close())
    pattern = str(tmp_path / "sub" / "w-{epoch:02d}-{val_loss:.2f}.weights.h5")
    ckpt = callbacks.ModelCheckpoint(pattern, save_weights_only=True)
    history = model.fit(x, y, epochs=2, validation_data=(x, y), verbose=0, callbacks=[ckpt])
    expected = [str(tmp_path / "sub" / f"w-{e + 1:02d}-{v:.2f}.weights.h5")
                for e, v in enumerate(history.history["val_loss"])]
    assert written == expected
    assert all((tmp_path / "sub" / p.split("/")[-1]).exists() for p in expected)


def test_model_checkpoint_save_best_only_respects_mode(tmp_path):
    path = str(tmp_path / "m-{epoch}.weights.h5")
    best_max = callbacks.ModelCheckpoint(path, monitor="score", save_best_only=True,
                                         save_weights_only=True, mode="max")
    model, _ = _drive(best_max, "score", [1.0, 3.0, 2.0, 5.0])
    assert [p.split("/")[-1] for p in model.saved] == ["m-1.weights.h5", "m-2.weights.h5", "m-4.weights.h5"]
    best_min = callbacks.ModelCheckpoint(path, monitor="score", save_best_only=True,
                                         save_weights_only=True, mode="min")
    model, _ = _drive(best_min, "score", [1.0, 3.0, 2.0, 5.0])
    assert [p.split("/")[-1] for p in model.saved] == ["m-1.weights.h5"]
    with pytest.warns(UserWarning, match="only with"):
        model, _ = _drive(callbacks.ModelCheckpoint(path, monitor="missing", save_weights_only=True,
                                                    save_best_only=True), "score", [1.0])
    assert model.saved == []


def test_model_checkpoint_save_freq_in_batches(tmp_path):
    x, y = _data(n=40)
    model = _model()
    written = []
    model.save_weights = lambda path, overwrite=True, **kw: written.append(path)
    ckpt = callbacks.ModelCheckpoint(str(tmp_path / "b-{epoch}-{batch}.weights.h5"),
                                     save_weights_only=True, save_freq=3)
    model.fit(x, y, batch_size=8, epochs=2, verbose=0, callbacks=[ckpt])  # 5 batches/epoch
    assert [p.split("/")[-1] for p in written] == ["b-1-3.weights.h5", "b-2-1.weights.h5", "b-2-4.weights.h5"]


def test_model_checkpoint_writes_real_weights_when_h5_support_exists(tmp_path):
    x, y = _data()
    model = _model()
    ckpt = callbacks.ModelCheckpoint(str(tmp_path / "e{epoch}.weights.h5"),
                                     save_weights_only=True, monitor="loss")
    model.fit(x, y, epochs=2, verbose=0, callbacks=[ckpt])
    assert (tmp_path / "e1.weights.h5").exists() and (tmp_path / "e2.weights.h5").exists()


def test_model_checkpoint_to_a_keras_path_writes_a_whole_model_that_loads(tmp_path):
    x, y = _data()
    model = _model()
    model.fit(x, y, epochs=2, verbose=0, callbacks=[callbacks.ModelCheckpoint(str(tmp_path / "m{epoch}.keras"),
                                                                              monitor="loss")])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m1.keras", "m2.keras"]
    again = tf.keras.models.load_model(tmp_path / "m2.keras")
    np.testing.assert_array_equal(again.predict(x, verbose=0), model.predict(x, verbose=0))
    assert int(again.optimizer.iterations) == int(model.optimizer.iterations)


def test_model_checkpoint_file_endings_are_checked_as_in_keras(tmp_path):
    with pytest.raises(ValueError, match="must end in `.weights.h5`"):
        callbacks.ModelCheckpoint(str(tmp_path / "w.h5"), save_weights_only=True)
    with pytest.raises(ValueError, match="must end in `.keras`"):
        callbacks.ModelCheckpoint(str(tmp_path / "ckpt"))


# -- learning-rate callbacks ----------------------------------------------------------------

def test_reduce_lr_on_plateau_changes_the_learning_rate():
    reduce = callbacks.ReduceLROnPlateau(monitor="val_loss", factor=0.5, patience=2,
                                         min_lr=0.02)
    model, _ = _drive(reduce, "val_loss", [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0])
    # reductions after epochs 2 and 4 (0.1 -> 0.05 -> 0.025), then clipped to min_lr at 6
    assert float(model.optimizer.learning_rate.numpy()) == pytest.approx(0.02)
    reduce = callbacks.ReduceLROnPlateau(monitor="val_loss", factor=0.5, patience=1,
                                         cooldown=2)
    model, _ = _drive(reduce, "val_loss", [1.0, 1.0, 1.0, 1.0, 1.0])
    assert float(model.optimizer.learning_rate.numpy()) == pytest.approx(0.025)
    with pytest.raises(ValueError, match="factor"):
        callbacks.ReduceLROnPlateau(factor=1.5)


def test_reduce_lr_on_plateau_inside_fit_logs_learning_rate():
    x, y = _data()
    model = _model()
    feed = _Feed("val_loss", [1.0] * 4)
    reduce = callbacks.ReduceLROnPlateau(factor=0.1, patience=1)
    history = model.fit(x, y, epochs=4, verbose=0, callbacks=[feed, reduce])
    np.testing.assert_allclose(history.history["learning_rate"], [0.05, 0.05, 0.005, 0.0005],
                               rtol=1e-5)
    # logs carry the rate the epoch ran with; the last reduction happens after it
    assert float(model.optimizer.learning_rate.numpy()) == pytest.approx(0.00005, rel=1e-5)


def test_learning_rate_scheduler_sets_the_rate_each_epoch():
    x, y = _data()
    model = _model()
    seen = []
    probe = callbacks.LambdaCallback(
        on_epoch_begin=lambda epoch, logs: seen.append(
            float(model.optimizer.learning_rate.numpy())))
    sched = callbacks.LearningRateScheduler(lambda epoch, lr: 0.1 / (epoch + 1))
    history = model.fit(x, y, epochs=3, verbose=0, callbacks=[sched, probe])
    np.testing.assert_allclose(seen, [0.1, 0.05, 0.1 / 3], rtol=1e-6)
    assert "lr" not in history.history  # Keras 3 logs the rate as "learning_rate"
    np.testing.assert_allclose(history.history["learning_rate"], seen, rtol=1e-6)
    one_arg = callbacks.LearningRateScheduler(lambda epoch: 0.5 ** epoch)
    model.fit(x, y, epochs=2, verbose=0, callbacks=[one_arg])
    assert float(model.optimizer.learning_rate.numpy()) == pytest.approx(0.5)


# -- CSVLogger, TerminateOnNaN, LambdaCallback --------------------------------------------

def test_csv_logger_writes_header_and_rows_and_appends(tmp_path):
    x, y = _data()
    model = _model()
    path = tmp_path / "log.csv"
    history = model.fit(x, y, epochs=3, validation_data=(x, y), verbose=0,
                        callbacks=[callbacks.CSVLogger(str(path))])
    rows = list(csv.reader(open(path)))
    assert rows[0] == ["epoch", "loss", "val_loss"]
    assert [r[0] for r in rows[1:]] == ["0", "1", "2"]
    np.testing.assert_allclose([float(r[1]) for r in rows[1:]], history.history["loss"],
                               rtol=1e-6)
    model.fit(x, y, epochs=1, validation_data=(x, y), verbose=0,
              callbacks=[callbacks.CSVLogger(str(path), separator=",", append=True)])
    rows = list(csv.reader(open(path)))
    assert len(rows) == 5 and rows[4][0] == "0"
    semi = tmp_path / "semi.csv"
    model.fit(x, y, epochs=1, verbose=0, callbacks=[callbacks.CSVLogger(str(semi), ";")])
    # without validation in the first epoch Keras still reserves val_ columns, filled with NA
    semi_rows = list(csv.reader(open(semi), delimiter=";"))
    assert semi_rows == [["epoch", "loss", "val_loss"], ["0", semi_rows[1][1], "NA"]]


def test_csv_logger_columns_with_a_learning_rate_scheduler(tmp_path):
    x, y = _data()
    model = _model()
    path = tmp_path / "log.csv"
    model.fit(x, y, epochs=2, verbose=0,
              callbacks=[callbacks.LearningRateScheduler(lambda epoch, lr: lr * 0.5),
                         callbacks.CSVLogger(str(path))])
    rows = list(csv.reader(open(path)))
    assert rows[0] == ["epoch", "learning_rate", "loss", "val_learning_rate", "val_loss"]
    assert [r[3:] for r in rows[1:]] == [["NA", "NA"], ["NA", "NA"]]
    np.testing.assert_allclose([float(r[1]) for r in rows[1:]], [0.025, 0.0125], rtol=1e-6)


def test_terminate_on_nan_stops_training():
    x, y = _data(n=32)
    x[5, 0] = np.nan
    model = _model()
    batches = []
    counter = callbacks.LambdaCallback(on_batch_end=lambda b, logs: batches.append(b))
    history = model.fit(x, y, batch_size=8, epochs=3, shuffle=False, verbose=0,
                        callbacks=[counter, callbacks.TerminateOnNaN()])
    assert batches == [0] and len(history.history["loss"]) == 1
    assert math.isnan(history.history["loss"][0])


def test_lambda_callback_rejects_unknown_hooks():
    with pytest.raises(TypeError, match="on_nothing"):
        callbacks.LambdaCallback(on_nothing=lambda: None)
    ends = []
    cb = callbacks.LambdaCallback(on_train_end=lambda logs: ends.append(logs))
    x, y = _data(n=8)
    _model().fit(x, y, epochs=2, verbose=0, callbacks=[cb])
    assert len(ends) == 1 and "loss" in ends[0]


# -- plot_history ---------------------------------------------------------------------------

def test_plot_history_writes_a_png_with_the_curves(tmp_path):
    image_module = pytest.importorskip("PIL.Image")
    x, y = _data()
    model = _model()
    history = model.fit(x, y, epochs=4, validation_split=0.25, verbose=0)
    path = tmp_path / "loss.png"
    callbacks.plot_history(history, str(path))
    assert open(path, "rb").read(8) == b"\x89PNG\r\n\x1a\n"
    image = image_module.open(path).convert("RGB")
    assert image.size == (640, 400)
    pixels = np.asarray(image)
    blue = np.all(pixels == [31, 119, 180], axis=-1).sum()
    orange = np.all(pixels == [255, 127, 14], axis=-1).sum()
    assert blue > 50 and orange > 50  # 'loss' and 'val_loss' curves
    with pytest.raises(ValueError, match="no data"):
        callbacks.plot_history({"loss": []}, str(tmp_path / "empty.png"))


def test_logs_reach_callbacks_sorted_with_nested_entries_in_place():
    """Keras 3's log form: sorted keys, a nested dict's (sorted) entries where its key sorts,
    tensors as Python floats, arrays of outputs left alone."""
    outputs = np.zeros((1, 1))
    logs = pythonify_logs({"zeta": tf.constant(1.0), "alpha": np.float32(2), "nested": {"b": 3, "a": 4.5},
                           "val_loss": 0.5, "outputs": outputs})
    assert list(logs) == ["alpha", "a", "b", "outputs", "val_loss", "zeta"]
    assert logs["zeta"] == 1.0 and type(logs["zeta"]) is float and type(logs["b"]) is float
    assert logs["outputs"] is outputs
    assert pythonify_logs(None) == {}


def test_fit_takes_one_callback_or_nested_lists():
    """Keras 3 flattens `callbacks`: a bare callback (the simple-audio tutorial passes one
    EarlyStopping) or nested lists work like a flat list."""
    stop, history = tf.keras.callbacks.EarlyStopping(), tf.keras.callbacks.History()
    assert tf.keras.callbacks.CallbackList(stop).callbacks == [stop]
    assert tf.keras.callbacks.CallbackList([[stop], history]).callbacks == [stop, history]
    model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
    model.compile("sgd", "mse")
    seen = []
    single = tf.keras.callbacks.LambdaCallback(on_epoch_end=lambda epoch, logs: seen.append(epoch))
    model.fit(np.ones((8, 2), "float32"), np.ones((8, 1), "float32"), epochs=2, verbose=0, callbacks=single)
    assert seen == [0, 1]
