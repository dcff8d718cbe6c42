"""Tests for the Keras training API (minitf/engine/training.py): compile, fit, evaluate, predict."""
import numpy as np
import pytest

import minitf as tf
from minitf.engine.training import unpack_x_y_sample_weight


Dense, Model, Sequential, Input = (tf.keras.layers.Dense, tf.keras.Model, tf.keras.Sequential,
                                  tf.keras.Input)


def _classification_data(n=192, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, 4)).astype("float32")
    y = (x[:, 0] - x[:, 1] > 0).astype("int64")
    return x, y


def _classifier(lr=0.02, metrics=("accuracy",)):
    tf.random.set_seed(1)
    model = Sequential([Dense(8, activation="relu"), Dense(2)])
    model.compile(optimizer=tf.optimizers.Adam(lr),
                  loss=tf.losses.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=list(metrics))
    return model


def _regressor(lr=0.05):
    tf.random.set_seed(2)
    model = Sequential([Dense(1)])
    model.compile(optimizer=tf.optimizers.SGD(lr), loss="mse")
    return model


# -- fit ----------------------------------------------------------------------------------------

def test_fit_reduces_loss_and_history_has_keys_per_epoch():
    x, y = _classification_data()
    model = _classifier()
    history = model.fit(x, y, epochs=6, batch_size=32, verbose=0)
    assert set(history.history) == {"loss", "accuracy"}
    assert all(len(v) == 6 for v in history.history.values())
    assert history.epoch == list(range(6))
    assert history.history["loss"][-1] < 0.7 * history.history["loss"][0]
    assert history.history["accuracy"][-1] > 0.8
    assert model.history is history
    # Keras 3: the compiled metrics sit in one container metric
    assert model.metrics_names == ["loss", "compile_metrics"]
    assert [m.name for m in model.metrics[1].metrics] == ["accuracy"]


def test_reported_epoch_loss_is_the_sample_weighted_running_mean_of_batches():
    x, y = _classification_data(n=40)
    model = _classifier(lr=0.0)  # no learning: every batch loss is the same function of x
    batch_losses = []
    model.fit(x, y, epochs=1, batch_size=16, shuffle=False, verbose=0)
    logits = model.predict(x, verbose=0)
    per_sample = tf.losses.sparse_categorical_crossentropy(y, logits, from_logits=True).numpy()
    for start in range(0, 40, 16):
        batch_losses.append(per_sample[start:start + 16].mean())
    expected = np.average(batch_losses, weights=[16, 16, 8])
    assert model.history.history["loss"][0] == pytest.approx(expected, rel=1e-5)


def test_validation_split_and_validation_data_give_val_keys():
    x, y = _classification_data()
    model = _classifier()
    history = model.fit(x, y, epochs=2, validation_split=0.25, verbose=0)
    assert set(history.history) == {"loss", "accuracy", "val_loss", "val_accuracy"}
    # validation_split holds out the last 25%: those samples give the same val_loss.
    assert history.history["val_loss"][-1] == pytest.approx(
        model.evaluate(x[144:], y[144:], verbose=0)[0], rel=1e-5)
    history = model.fit(x, y, epochs=4, validation_data=(x[:50], y[:50]), validation_freq=2,
                        verbose=0)
    assert len(history.history["loss"]) == 4 and len(history.history["val_loss"]) == 2


def test_validation_split_rejects_datasets():
    x, y = _classification_data(n=20)
    model = _classifier()
    ds = tf.data.Dataset.from_tensor_slices((x, y)).batch(5)
    with pytest.raises(ValueError, match="validation_split"):
        model.fit(ds, validation_split=0.2, verbose=0)


def test_training_before_compile_raises_value_error_but_predict_works():
    model = Sequential([Dense(1)])
    x, y = np.zeros((4, 2)), np.zeros((4, 1))
    for run in (lambda: model.fit(x, y, verbose=0), lambda: model.evaluate(x, y, verbose=0),
                lambda: model.train_on_batch(x, y), lambda: model.test_on_batch(x, y)):
        with pytest.raises(ValueError, match=r"You must call `compile\(\)` before using the model"):
            run()
    assert model.predict(x, verbose=0).shape == (4, 1)
    assert model.predict_on_batch(x).shape == (4, 1)


def test_initial_epoch_and_steps_per_epoch():
    x, y = _classification_data(n=64)
    model = _classifier()
    seen = []
    counter = tf.callbacks.LambdaCallback(on_batch_end=lambda batch, logs: seen.append(batch))
    history = model.fit(x, y, epochs=5, initial_epoch=2, batch_size=16, verbose=0,
                        callbacks=[counter])
    assert history.epoch == [2, 3, 4] and len(history.history["loss"]) == 3
    nothing = model.fit(x, y, epochs=2, initial_epoch=2, verbose=0)
    assert nothing.history == {} and model.history is nothing
    assert len(seen) == 3 * 4
    seen.clear()
    ds = tf.data.Dataset.from_tensor_slices((x, y)).batch(8).repeat()
    model.fit(ds, epochs=2, steps_per_epoch=3, verbose=0, callbacks=[counter])
    assert seen == [0, 1, 2, 0, 1, 2]


def test_fit_on_dataset_with_sample_weights_and_on_a_generator():
    x, y = _classification_data(n=64)
    model = _classifier()
    w = np.ones(64, "float32")
    ds = tf.data.Dataset.from_tensor_slices((x, y, w)).batch(16)
    history = model.fit(ds, epochs=3, verbose=0)
    assert len(history.history["loss"]) == 3
    assert history.history["loss"][-1] < history.history["loss"][0]

    def batches():
        while True:
            for start in range(0, 64, 16):
                yield x[start:start + 16], y[start:start + 16]
    history = model.fit(batches(), epochs=2, steps_per_epoch=4, verbose=0)
    assert len(history.history["loss"]) == 2


# -- evaluate / predict ---------------------------------------------------------------------

def test_evaluate_and_predict_shapes_and_return_forms():
    x, y = _classification_data(n=50)
    model = _classifier()
    model.fit(x, y, epochs=1, verbose=0)
    result = model.evaluate(x, y, batch_size=16, verbose=0)
    assert isinstance(result, list) and len(result) == 2
    as_dict = model.evaluate(x, y, batch_size=16, verbose=0, return_dict=True)
    assert set(as_dict) == {"loss", "accuracy"}
    assert as_dict["loss"] == pytest.approx(result[0], rel=1e-6)
    out = model.predict(x, batch_size=16, verbose=0)
    assert isinstance(out, np.ndarray) and out.shape == (50, 2)
    np.testing.assert_allclose(model.predict_on_batch(x[:7]), out[:7], rtol=1e-5, atol=1e-6)
    expected_acc = np.mean(np.argmax(out, -1) == y)
    assert as_dict["accuracy"] == pytest.approx(expected_acc)
    loss_only = _regressor()
    assert isinstance(loss_only.evaluate(x, y[:, None].astype("float32"), verbose=0), float)


def test_test_on_batch_and_train_on_batch():
    x, y = _classification_data(n=32)
    model = _classifier(lr=0.05)
    before = model.test_on_batch(x, y, return_dict=True)
    assert set(before) == {"loss", "accuracy"}
    first = model.train_on_batch(x, y)
    assert first[0] == pytest.approx(before["loss"], rel=1e-5)  # loss before the update
    for _ in range(20):
        model.train_on_batch(x, y)
    assert model.test_on_batch(x, y)[0] < before["loss"]


# -- sample and class weights ---------------------------------------------------------------

def test_sample_weight_weights_the_per_sample_losses_as_keras_does():
    rng = np.random.default_rng(3)
    x = rng.normal(size=(24, 3)).astype("float32")
    y = rng.normal(size=(24, 1)).astype("float32")
    w = rng.uniform(0.1, 2.0, size=24).astype("float32")
    model = _regressor()
    pred = model.predict(x, verbose=0)
    per_sample = ((pred - y) ** 2).mean(axis=-1)
    # sum over batch size: sum(w * loss) / number of samples
    expected = float((w * per_sample).sum() / 24)
    got = model.evaluate(x, y, sample_weight=w, batch_size=8, verbose=0)
    assert got == pytest.approx(expected, rel=1e-5)
    assert got != pytest.approx(float(per_sample.mean()), rel=1e-3)


def test_class_weight_scales_each_sample_by_its_class_weight():
    x, y = _classification_data(n=32)
    model = _classifier(lr=0.0)
    logits = model.predict(x, verbose=0)
    per_sample = tf.losses.sparse_categorical_crossentropy(y, logits, from_logits=True).numpy()
    class_weight = {0: 0.5, 1: 3.0}
    weights = np.where(y == 1, 3.0, 0.5)
    loss = model.train_on_batch(x, y, class_weight=class_weight)[0]
    assert loss == pytest.approx(float((weights * per_sample).sum() / 32), rel=1e-5)
    history = model.fit(x, y, batch_size=32, class_weight=class_weight, verbose=0)
    assert history.history["loss"][0] == pytest.approx(loss, rel=1e-5)


# -- compile details ------------------------------------------------------------------------

def test_accuracy_string_resolves_by_loss_type():
    rng = np.random.default_rng(4)
    x = rng.normal(size=(30, 3)).astype("float32")
    tf.random.set_seed(5)
    binary = Sequential([Dense(1, activation="sigmoid")])
    binary.compile("sgd", loss="binary_crossentropy", metrics=["accuracy"])
    y = (x[:, :1] > 0).astype("float32")
    acc = binary.evaluate(x, y, verbose=0, return_dict=True)["accuracy"]
    p = binary.predict(x, verbose=0)
    assert acc == pytest.approx(np.mean((p > 0.5) == (y > 0.5)))

    onehot = np.eye(3, dtype="float32")[rng.integers(0, 3, size=30)]
    cat = Sequential([Dense(3, activation="softmax")])
    cat.compile("sgd", loss="categorical_crossentropy", metrics=["acc"])
    acc = cat.evaluate(x, onehot, verbose=0, return_dict=True)["acc"]
    p = cat.predict(x, verbose=0)
    assert acc == pytest.approx(np.mean(np.argmax(p, -1) == np.argmax(onehot, -1)))


def test_regularization_losses_are_added_to_the_loss():
    rng = np.random.default_rng(6)
    x = rng.normal(size=(16, 3)).astype("float32")
    y = rng.normal(size=(16, 2)).astype("float32")
    tf.random.set_seed(7)
    model = Sequential([Dense(2, kernel_regularizer=tf.keras.regularizers.L2(0.5))])
    model.compile("sgd", loss="mse")
    pred = model.predict(x, verbose=0)
    reg = sum(float(r.numpy()) for r in model.losses)
    assert reg > 0
    assert model.evaluate(x, y, verbose=0) == pytest.approx(
        float(((pred - y) ** 2).mean()) + reg, rel=1e-5)


def test_multi_output_losses_by_name_with_loss_weights():
    rng = np.random.default_rng(8)
    x = rng.normal(size=(20, 3)).astype("float32")
    ya = rng.normal(size=(20, 1)).astype("float32")
    yb = rng.integers(0, 2, size=(20,)).astype("int64")
    tf.random.set_seed(9)
    inputs = Input(shape=(3,))
    out_a = Dense(1, name="reg")(inputs)
    out_b = Dense(2, name="cls")(inputs)
    model = Model(inputs, [out_a, out_b])
    model.compile("adam", loss={"reg": "mse",
                                "cls": tf.losses.SparseCategoricalCrossentropy(from_logits=True)},
                  loss_weights={"reg": 2.0, "cls": 0.5}, metrics={"cls": "accuracy"})
    logs = model.evaluate(x, {"reg": ya, "cls": yb}, verbose=0, return_dict=True)
    assert set(logs) == {"loss", "reg_loss", "cls_loss", "cls_accuracy"}
    pa, pb = model.predict(x, verbose=0)
    mse = float(((pa - ya) ** 2).mean())
    ce = float(tf.losses.sparse_categorical_crossentropy(yb, pb, from_logits=True).numpy().mean())
    assert logs["reg_loss"] == pytest.approx(mse, rel=1e-5)
    assert logs["cls_loss"] == pytest.approx(ce, rel=1e-5)
    assert logs["loss"] == pytest.approx(2.0 * mse + 0.5 * ce, rel=1e-5)
    history = model.fit(x, [ya, yb], epochs=2, verbose=0)
    assert len(history.history["cls_accuracy"]) == 2
    with pytest.raises(ValueError, match="output"):
        model.compile("adam", loss=["mse"])
        model.evaluate(x, [ya, yb], verbose=0)


# -- customizing train_step (the Keras guide's patterns) ------------------------------------

def _guide_data():
    rng = np.random.default_rng(10)
    x = rng.normal(size=(64, 3)).astype("float32")
    y = (x @ np.array([[1.0], [-2.0], [0.5]], "float32")).astype("float32")
    return x, y


def test_guide_train_step_updating_self_metrics_keeps_compiled_metrics():
    # Keras 3 guide "Customizing what happens in fit()" (TF backend), first example
    class CustomModel(Model):
        def train_step(self, data):
            x, y = data
            with tf.GradientTape() as tape:
                y_pred = self(x, training=True)
                loss = self.compute_loss(y=y, y_pred=y_pred)
            trainable_vars = self.trainable_variables
            gradients = tape.gradient(loss, trainable_vars)
            self.optimizer.apply_gradients(zip(gradients, trainable_vars))
            for metric in self.metrics:
                if metric.name == "loss":
                    metric.update_state(loss)
                else:
                    metric.update_state(y, y_pred)
            return {m.name: m.result() for m in self.metrics}

    x, y = _guide_data()
    tf.random.set_seed(11)
    inputs = Input(shape=(3,))
    model = CustomModel(inputs, Dense(1)(inputs))
    model.compile(optimizer="adam", loss="mse", metrics=["mae", "mse"])
    assert [m.name for m in model.metrics] == ["loss", "compile_metrics"]
    history = model.fit(x, y, epochs=3, verbose=0)
    assert set(history.history) == {"loss", "mae", "mse"}
    assert [m.name for m in model.metrics] == ["loss", "compile_metrics"]
    assert history.history["loss"][-1] < history.history["loss"][0]
    np.testing.assert_allclose(history.history["loss"], history.history["mse"], rtol=1e-5)
    assert set(model.evaluate(x, y, verbose=0, return_dict=True)) == {"loss", "mae", "mse"}
    assert len(model.evaluate(x, y, verbose=0)) == 3  # [loss, mae, mse]


def test_custom_train_step_with_compute_loss_and_compute_metrics():
    class CustomModel(Model):
        def train_step(self, data):
            x, y = data
            with tf.GradientTape() as tape:
                y_pred = self(x, training=True)
                loss = self.compute_loss(y=y, y_pred=y_pred)
            gradients = tape.gradient(loss, self.trainable_variables)
            self.optimizer.apply_gradients(zip(gradients, self.trainable_variables))
            return self.compute_metrics(x, y, y_pred)  # sample_weight is optional

    x, y = _guide_data()
    inputs = Input(shape=(3,))
    model = CustomModel(inputs, Dense(1)(inputs))
    model.compile(optimizer="adam", loss="mse", metrics=["mae"])
    history = model.fit(x, y, epochs=2, verbose=0)
    assert set(history.history) == {"loss", "mae"}
    # compute_loss does not touch the 'loss' tracker: Keras 3 reports its reset value
    assert history.history["loss"] == [0.0, 0.0]


def test_deprecated_compiled_loss_and_compiled_metrics_shims_behave_as_keras3():
    class CustomModel(Model):
        def train_step(self, data):
            x, y = data
            with tf.GradientTape() as tape:
                y_pred = self(x, training=True)
                loss = self.compiled_loss(y, y_pred, regularization_losses=self.losses)
            trainable_vars = self.trainable_variables
            gradients = tape.gradient(loss, trainable_vars)
            self.optimizer.apply_gradients(zip(gradients, trainable_vars))
            self.compiled_metrics.update_state(y, y_pred)
            return {m.name: m.result() for m in self.metrics}

    x, y = _guide_data()
    inputs = Input(shape=(3,))
    model = CustomModel(inputs, Dense(1)(inputs))
    model.compile(optimizer=tf.optimizers.SGD(0.0), loss="mse", metrics=["mae"])
    with pytest.warns(UserWarning, match="deprecated"):
        history = model.fit(x, y, epochs=1, batch_size=64, verbose=0)
    assert set(history.history) == {"loss", "mae"}
    pred = model.predict(x, verbose=0)
    # Keras 3's shim feeds Mean metrics (the 'loss' tracker) the predictions, not the loss
    assert history.history["loss"][0] == pytest.approx(float(pred.mean()), rel=1e-5)
    assert history.history["mae"][0] == pytest.approx(float(np.abs(pred - y).mean()), rel=1e-5)


def test_compute_loss_without_any_loss_raises():
    model = Sequential([Dense(1)])
    model.compile("sgd")
    assert [m.name for m in model.metrics] == ["loss"]
    with pytest.raises(ValueError, match=r"No loss to compute\. Provide a `loss` argument"):
        model.fit(np.zeros((4, 2)), np.zeros((4, 1)), verbose=0)
    fresh = Sequential([Dense(1)])
    fresh.compile("sgd", "mse", metrics=["mae"])
    with pytest.raises(ValueError, match="not yet been built"):
        fresh.metrics[1].result()


def test_custom_train_step_with_own_trackers_and_no_compiled_loss():
    class TrackerModel(Model):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.dense = Dense(1)
            self.loss_tracker = tf.keras.metrics.Mean(name="loss")

        def call(self, x, training=None):
            return self.dense(x)

        def train_step(self, data):
            x, y = data
            with tf.GradientTape() as tape:
                y_pred = self(x, training=True)
                loss = tf.reduce_mean(tf.square(y_pred - y))
            grads = tape.gradient(loss, self.trainable_variables)
            self.optimizer.apply_gradients(zip(grads, self.trainable_variables))
            self.loss_tracker.update_state(loss)
            return {"loss": self.loss_tracker.result()}

        @property
        def metrics(self):
            return [self.loss_tracker]

    rng = np.random.default_rng(12)
    x = rng.normal(size=(64, 2)).astype("float32")
    y = x[:, :1] * 3.0
    model = TrackerModel()
    model.compile(optimizer=tf.optimizers.SGD(0.1))
    history = model.fit(x, y, epochs=3, batch_size=16, verbose=0)
    loss = history.history["loss"]
    assert len(loss) == 3 and loss[-1] < 0.5 * loss[0]


def test_stop_training_flag_stops_after_the_current_batch():
    x, y = _classification_data(n=64)
    model = _classifier()
    seen = []

    def stop(batch, logs):
        seen.append(batch)
        if batch == 1:
            model.stop_training = True
    history = model.fit(x, y, epochs=3, batch_size=16, verbose=0,
                        callbacks=[tf.callbacks.LambdaCallback(on_batch_end=stop)])
    assert seen == [0, 1] and len(history.history["loss"]) == 1


def test_unpack_x_y_sample_weight():
    assert unpack_x_y_sample_weight((1, 2)) == (1, 2, None)
    assert unpack_x_y_sample_weight((1,)) == (1, None, None)
    assert unpack_x_y_sample_weight(5) == (5, None, None)
    with pytest.raises(ValueError, match="length 4"):
        unpack_x_y_sample_weight((1, 2, 3, 4))


# -- progress output ----------------------------------------------------------------------

def test_verbose_modes_print_a_bar_a_line_or_nothing(capfd):
    x, y = _classification_data(n=32)
    model = _classifier()
    model.fit(x, y, epochs=2, batch_size=8, verbose=1)
    err = capfd.readouterr().err
    assert "Epoch 1/2" in err and "Epoch 2/2" in err and "4/4" in err and "loss=" in err
    model.fit(x, y, epochs=1, batch_size=8, verbose=2)
    out = capfd.readouterr().out
    # Keras 3 prints no "Epoch 1/1" header when fit runs a single epoch
    assert "Epoch 1/1" not in out and "4/4" in out and "loss: " in out and "accuracy: " in out
    model.fit(x, y, epochs=1, batch_size=8, verbose=0)
    model.evaluate(x, y, verbose=0)
    captured = capfd.readouterr()
    assert captured.out == "" and captured.err == ""
