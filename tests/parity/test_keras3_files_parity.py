"""'.keras' files written by Keras 3 itself (in the test) load in minitf and predict the same: a
functional CNN with BatchNormalization (Keras 3 records `mask: null` among the node's call
arguments), a recurrent model with masking (node kwargs hold masks and `training: false`), and
a model built from custom layers. The loaded models also train as Keras' do: the training value
of fit replaces the `training: false` the file recorded for Dropout and the recurrent layers."""
import json
import zipfile

import numpy as np
import pytest

import minitf

tf_ref = pytest.importorskip("tensorflow")


def _cnn(keras, dropout):
    L = keras.layers
    inp = keras.Input((8, 8, 3))
    h = L.Conv2D(4, 3, padding="same")(inp)
    h = L.BatchNormalization()(h)
    h = L.Activation("relu")(h)
    h = L.MaxPooling2D()(h)
    h = L.Conv2D(6, 3)(h)
    h = L.BatchNormalization(momentum=0.9)(h)
    if dropout:
        h = L.Dropout(0.5)(h)
    h = L.GlobalAveragePooling2D()(h)
    return keras.Model(inp, L.Dense(3)(h))


def _rnn(keras):
    L = keras.layers
    inp = keras.Input((6, 3))
    h = L.Masking()(inp)
    h = L.BatchNormalization()(h)
    h = L.LSTM(4, return_sequences=True)(h)
    h = L.Dropout(0.3)(h)
    h = L.GRU(3)(h)
    return keras.Model(inp, L.Dense(2)(h))


def _custom_classes(lib):
    """The same custom layers in Keras (TF) or minitf, registered under one package name."""
    keras = lib.keras
    L = keras.layers

    @keras.utils.register_keras_serializable(package="calls")
    class Block(L.Layer):
        def __init__(self, units, rate=0.25, **kwargs):
            super().__init__(**kwargs)
            self.units, self.rate = units, rate
            self.dense = L.Dense(units, activation="relu")
            self.bn = L.BatchNormalization()
            self.drop = L.Dropout(rate)

        def call(self, x):
            return self.drop(self.bn(self.dense(x)))

        def get_config(self):
            return {**super().get_config(), "units": self.units, "rate": self.rate}

    @keras.utils.register_keras_serializable(package="calls")
    class MaskedMean(L.Layer):
        def call(self, x, mask=None):
            self.masks_seen = getattr(self, "masks_seen", 0) + (mask is not None)
            if mask is None:
                return lib.reduce_mean(x, axis=1)
            weights = lib.expand_dims(lib.cast(mask, x.dtype), -1)
            return lib.reduce_sum(x * weights, axis=1) / lib.maximum(lib.reduce_sum(weights, axis=1), 1.0)
    return Block, MaskedMean


def _custom(lib):
    Block, MaskedMean = _custom_classes(lib)
    keras = lib.keras
    L = keras.layers
    inp = keras.Input((5,), dtype="int32")
    h = L.Embedding(10, 4, mask_zero=True)(inp)
    h = MaskedMean()(h)
    h = Block(6)(h)
    return keras.Model(inp, L.Dense(2)(h))


def _data(kind):
    rs = np.random.RandomState(0)
    if kind == "rnn":
        x = rs.normal(size=(4, 6, 3)).astype("float32")
        x[0, 4:] = 0
        x[2, 2:] = 0
        return x
    if kind == "custom":
        ids = rs.randint(1, 10, size=(4, 5))
        ids[1, 3:] = 0
        return ids.astype("int32")
    return rs.normal(size=(4, 8, 8, 3)).astype("float32")


def _write(kind, path):
    keras = tf_ref.keras
    model = {"cnn": lambda: _cnn(keras, False), "cnn_dropout": lambda: _cnn(keras, True),
             "rnn": lambda: _rnn(keras), "custom": lambda: _custom(tf_ref)}[kind]()
    x = _data(kind)
    y = np.random.RandomState(1).normal(size=(len(x),) + tuple(model.output_shape[1:])).astype("float32")
    model.compile(optimizer=keras.optimizers.SGD(0.05), loss="mse")
    model.fit(x, y, batch_size=2, epochs=2, verbose=0, shuffle=False)  # moving statistics move
    model.save(path)
    return model, x, y


@pytest.mark.parametrize("kind", ["cnn", "cnn_dropout", "rnn", "custom"])
def test_keras3_files_load_with_equal_predictions(kind, tmp_path):
    if kind == "custom":
        _custom_classes(minitf)   # the same classes, registered in minitf
    ref, x, _ = _write(kind, tmp_path / "m.keras")
    nodes = json.loads(zipfile.ZipFile(tmp_path / "m.keras").read("config.json"))["config"]["layers"]
    kwargs = [n["kwargs"] for e in nodes for n in e["inbound_nodes"]]
    if kind.startswith("cnn"):
        assert {"mask": None} in kwargs      # what used to break BatchNormalization
    mine = minitf.keras.models.load_model(tmp_path / "m.keras")
    np.testing.assert_allclose(mine.predict(x, verbose=0), ref.predict(x, verbose=0), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(mine(x).numpy(), np.asarray(ref(x)), rtol=1e-4, atol=1e-5)
    if kind == "custom":   # the Embedding's mask reached the custom layer's `mask` argument
        assert next(layer for layer in mine.layers if type(layer).__name__ == "MaskedMean").masks_seen > 0


def test_a_loaded_cnn_trains_as_keras_trains_it(tmp_path):
    ref, x, y = _write("cnn", tmp_path / "m.keras")
    mine = minitf.keras.models.load_model(tmp_path / "m.keras")
    # batch statistics in training mode (BatchNormalization nodes recorded `mask: null`)
    np.testing.assert_allclose(mine(x, training=True).numpy(), np.asarray(ref(x, training=True)),
                               rtol=1e-4, atol=1e-5)
    ref.fit(x, y, batch_size=2, epochs=1, verbose=0, shuffle=False)
    mine.fit(x, y, batch_size=2, epochs=1, verbose=0, shuffle=False)
    for a, b in zip(mine.get_weights(), ref.get_weights()):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=2e-5)


@pytest.mark.parametrize("kind", ["cnn_dropout", "rnn"])
def test_loaded_dropout_is_active_in_training(kind, tmp_path):
    """The file records `training: false` for Dropout (and the recurrent layers); a model called
    with training=True overrides it, in Keras 3 and in minitf."""
    ref, x, _ = _write(kind, tmp_path / "m.keras")
    mine = minitf.keras.models.load_model(tmp_path / "m.keras")
    nodes = json.loads(zipfile.ZipFile(tmp_path / "m.keras").read("config.json"))["config"]["layers"]
    dropout = next(e for e in nodes if e["class_name"] == "Dropout")
    assert dropout["inbound_nodes"][0]["kwargs"].get("training") is False
    drop_layer = next(layer for layer in mine.layers if type(layer).__name__ == "Dropout")
    seen = []
    real = drop_layer.call
    drop_layer.call = lambda inputs, training=None: seen.append(training) or real(inputs, training)
    mine(x, training=True)
    mine(x)
    mine.predict(x, verbose=0)
    assert seen == [True, False, False]
