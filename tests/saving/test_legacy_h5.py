"""Keras' legacy whole-model H5 format (`model.save("x.h5")`): round trips of Sequential,
functional and registered subclassed models with compile config and optimizer state, the
file's layout, Keras' errors, hostile files refused, and interrupted saves."""
import json
import os

import h5py
import numpy as np
import pytest

import minitf as tf
from minitf.errors import errors
from minitf.object_registration import get_custom_objects
from minitf.saving import legacy_h5

L = tf.keras.layers


def _data(seed=0):
    rng = np.random.default_rng(seed)
    return rng.normal(size=(16, 4)).astype("float32"), rng.normal(size=(16, 2)).astype("float32")


def _functional():
    inputs = tf.keras.Input((4,), name="x")
    hidden = L.Dense(3, activation="relu")(inputs)
    outputs = L.Dense(2)(L.BatchNormalization()(hidden))
    return tf.keras.Model(inputs, outputs)


def _sequential():
    return tf.keras.Sequential([tf.keras.Input((4,)), L.Dense(5, activation="tanh"), L.BatchNormalization(),
                                L.Dense(2)])


def _save(model, path):
    with pytest.warns(UserWarning, match="This file format is considered legacy"):
        model.save(path)


@pytest.mark.parametrize("make", [_functional, _sequential])
def test_round_trip_keeps_outputs_compile_config_and_optimizer_state(tmp_path, make):
    x, y = _data()
    model = make()
    model.compile(optimizer=tf.keras.optimizers.Adam(0.01), loss=tf.keras.losses.MeanSquaredError(),
                  metrics=[tf.keras.metrics.MeanAbsoluteError()])
    model.fit(x, y, epochs=2, batch_size=8, verbose=0)
    _save(model, tmp_path / "m.h5")
    again = tf.keras.models.load_model(tmp_path / "m.h5")
    assert type(again) is type(model)
    np.testing.assert_array_equal(again.predict(x, verbose=0), model.predict(x, verbose=0))
    assert isinstance(again.optimizer, tf.keras.optimizers.Adam)
    assert again.optimizer.learning_rate.numpy() == pytest.approx(0.01)
    assert len(again.optimizer.variables) == len(model.optimizer.variables) > 2
    for saved, loaded in zip(model.optimizer.variables, again.optimizer.variables):
        np.testing.assert_array_equal(saved.numpy(), loaded.numpy())
    model.fit(x, y, epochs=1, batch_size=16, verbose=0, shuffle=False)
    again.fit(x, y, epochs=1, batch_size=16, verbose=0, shuffle=False)
    for a, b in zip(model.weights, again.weights):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-6, atol=1e-7)
    # without the optimizer, or without compiling: the weights alone
    with pytest.warns(UserWarning, match="considered legacy"):
        tf.keras.saving.save_model(model, tmp_path / "plain.hdf5", include_optimizer=False)
    with h5py.File(tmp_path / "plain.hdf5", "r") as f:
        assert "training_config" not in f.attrs and "optimizer_weights" not in f
    with pytest.warns(UserWarning, match="No training configuration found"):
        plain = tf.keras.models.load_model(tmp_path / "plain.hdf5")
    np.testing.assert_array_equal(plain.predict(x, verbose=0), model.predict(x, verbose=0))
    uncompiled = tf.keras.models.load_model(tmp_path / "m.h5", compile=False)
    assert not getattr(uncompiled, "_is_compiled", False)


def test_the_file_has_keras_legacy_layout(tmp_path):
    model = _sequential()
    model.compile(optimizer="sgd", loss="mse")
    _save(model, tmp_path / "m.h5")
    with h5py.File(tmp_path / "m.h5", "r") as f:
        assert f.attrs["keras_version"] == "3.15.1" and f.attrs["backend"] == "tensorflow"
        config = json.loads(f.attrs["model_config"])
        assert config["class_name"] == "Sequential"
        assert [e["class_name"] for e in config["config"]["layers"]] == [
            "InputLayer", "Dense", "BatchNormalization", "Dense"]
        assert all(set(e) == {"class_name", "config"} for e in config["config"]["layers"])
        training = json.loads(f.attrs["training_config"])
        assert training["loss"] == "mse" and training["optimizer_config"]["class_name"] == "SGD"
        group = f["model_weights"]
        assert list(group.attrs["layer_names"]) == [layer.name for layer in model.layers]
        names = list(group[model.layers[1].name].attrs["weight_names"])
        assert [n.rsplit("/", 1)[1] for n in names] == ["gamma", "beta", "moving_mean", "moving_variance"]
        dense = group[model.layers[0].name]
        np.testing.assert_array_equal(dense[dense.attrs["weight_names"][0]][()], model.layers[0].kernel.numpy())
        assert len(group["top_level_model_weights"].attrs["weight_names"]) == 0
        prefix = model.optimizer.name
        assert list(f["optimizer_weights"].attrs["weight_names"])[:2] == [f"{prefix}/iteration",
                                                                          f"{prefix}/learning_rate"]


@tf.keras.utils.register_keras_serializable(package="legacy_h5_test")
class Built(tf.keras.Model):
    """A subclassed model that builds itself in __init__ (so an H5 file can refill it)."""

    def __init__(self, units=3, **kwargs):
        super().__init__(**kwargs)
        self.units = units
        self.hidden = L.Dense(units)
        self.out = L.Dense(2)
        self.build((None, 4))

    def build(self, input_shape):
        self.hidden.build(input_shape)
        self.out.build((None, self.units))
        self.built = True

    def call(self, x):
        return self.out(self.hidden(x))

    def get_config(self):
        return {**super().get_config(), "units": self.units}


def test_subclassed_models_save_and_load_by_class_name(tmp_path):
    x, _ = _data()
    model = Built(5)
    _save(model, tmp_path / "m.h5")
    with h5py.File(tmp_path / "m.h5", "r") as f:
        assert json.loads(f.attrs["model_config"])["class_name"] == "Built"
    # As in Keras, the top-level class is stored by its class name, found through custom_objects.
    with pytest.raises(ValueError, match="Unknown layer: 'Built'"):
        tf.keras.models.load_model(tmp_path / "m.h5")
    again = tf.keras.models.load_model(tmp_path / "m.h5", custom_objects={"Built": Built})
    assert isinstance(again, Built) and again.units == 5
    np.testing.assert_array_equal(again(x).numpy(), model(x).numpy())
    assert "legacy_h5_test>Built" in get_custom_objects()


def test_subclassed_models_keras_cannot_save_or_refill(tmp_path):
    class Bare(tf.keras.Model):
        def __init__(self, thing):
            super().__init__()
            self.thing = thing
            self.dense = L.Dense(2)

        def call(self, x):
            return self.dense(x)
    bare = Bare(object())
    bare(np.zeros((1, 3), "float32"))
    with pytest.raises(NotImplementedError, match="get_config"):
        with pytest.warns(UserWarning):
            bare.save(tmp_path / "bare.h5")
    assert not os.path.exists(tmp_path / "bare.h5")

    class Lazy(tf.keras.Model):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.dense = L.Dense(2)

        def call(self, x):
            return self.dense(x)
    lazy = Lazy()
    lazy(np.zeros((1, 3), "float32"))
    _save(lazy, tmp_path / "lazy.h5")
    # Its layers are built only when called, so nothing can take the saved weights (Keras' error).
    with pytest.raises(ValueError, match="Layer count mismatch .* expected 0 layers, found 1 saved"):
        tf.keras.models.load_model(tmp_path / "lazy.h5", custom_objects={"Lazy": Lazy})


def test_errors_keras_raises(tmp_path):
    model = _sequential()
    _save(model, tmp_path / "m.h5")
    with pytest.raises(FileExistsError):
        model.save(tmp_path / "m.h5", overwrite=False)
    with pytest.raises(FileNotFoundError):
        tf.keras.models.load_model(tmp_path / "missing.h5")
    tf.keras.Sequential([tf.keras.Input((4,)), L.Dense(5)]).save_weights(tmp_path / "w.weights.h5")
    with pytest.raises(ValueError, match="No model config found"):
        tf.keras.models.load_model(tmp_path / "w.weights.h5")
    # a model config that does not fit the saved weights
    with h5py.File(tmp_path / "m.h5", "a") as f:
        config = json.loads(f.attrs["model_config"])
        config["config"]["layers"][1]["config"]["units"] = 6
        f.attrs["model_config"] = json.dumps(config).encode()
    with pytest.raises(ValueError, match=r"Shape mismatch in layer #0 \(named dense"):
        tf.keras.models.load_model(tmp_path / "m.h5")
    with h5py.File(tmp_path / "m.h5", "a") as f:
        config["config"]["layers"] = config["config"]["layers"][:2]
        f.attrs["model_config"] = json.dumps(config).encode()
    with pytest.raises(ValueError, match="Layer count mismatch .* expected 1 layers, found 3 saved layers"):
        tf.keras.models.load_model(tmp_path / "m.h5")


def test_an_optimizer_state_that_does_not_fit_warns_and_starts_fresh(tmp_path):
    x, y = _data()
    model = _sequential()
    model.compile(optimizer=tf.keras.optimizers.Adam(0.01), loss="mse")
    model.fit(x, y, epochs=1, verbose=0)
    _save(model, tmp_path / "m.h5")
    with h5py.File(tmp_path / "m.h5", "a") as f:
        names = list(f["optimizer_weights"].attrs["weight_names"])
        f["optimizer_weights"].attrs["weight_names"] = [n.encode() for n in names[:-1]]
    with pytest.warns(UserWarning, match="freshly initialized optimizer"):
        again = tf.keras.models.load_model(tmp_path / "m.h5")
    assert again.optimizer.iterations.numpy() == 0
    np.testing.assert_array_equal(again.predict(x, verbose=0), model.predict(x, verbose=0))


def test_long_name_lists_are_split_into_chunks_as_keras_does(tmp_path):
    x, _ = _data()
    inputs = tf.keras.Input((4,))
    h = inputs
    for i in range(3):
        h = L.Dense(4, name="d" * 30000 + str(i))(h)
    model = tf.keras.Model(inputs, h)
    _save(model, tmp_path / "m.h5")
    with h5py.File(tmp_path / "m.h5", "r") as f:
        assert "layer_names" not in f["model_weights"].attrs and "layer_names0" in f["model_weights"].attrs
    again = tf.keras.models.load_model(tmp_path / "m.h5")
    np.testing.assert_array_equal(again(x).numpy(), model(x).numpy())


# -- hostile and damaged files ----------------------------------------------------------------
@pytest.fixture
def saved(tmp_path):
    model = _sequential()
    _save(model, tmp_path / "m.h5")
    return tmp_path / "m.h5"


def _dataset_path(path):
    with h5py.File(path, "r") as f:
        name = f["model_weights"].attrs["layer_names"][0]
        return f"model_weights/{name}/{f['model_weights'][name].attrs['weight_names'][0]}"


def test_an_external_link_is_refused(saved, tmp_path):
    target = _dataset_path(saved)
    with h5py.File(tmp_path / "other.h5", "w") as f:
        f["kernel"] = np.zeros((4, 5), "float32")
    with h5py.File(saved, "a") as f:
        del f[target]
        f[target] = h5py.ExternalLink(str(tmp_path / "other.h5"), "kernel")
    with pytest.raises(legacy_h5.LegacyH5Error, match="Not allowed.*external link") as info:
        tf.keras.models.load_model(saved)
    assert isinstance(info.value, ValueError) and isinstance(info.value, errors.DataLossError)


def test_external_storage_and_virtual_datasets_are_refused(saved, tmp_path):
    target = _dataset_path(saved)
    raw = tmp_path / "raw.bin"
    raw.write_bytes(np.zeros((4, 5), "float32").tobytes())
    with h5py.File(saved, "a") as f:
        del f[target]
        f.create_dataset(target, shape=(4, 5), dtype="float32", external=[(str(raw), 0, 80)])
    with pytest.raises(ValueError, match="external files"):
        tf.keras.models.load_model(saved)
    with h5py.File(tmp_path / "src.h5", "w") as f:
        f["k"] = np.zeros((4, 5), "float32")
    with h5py.File(saved, "a") as f:
        del f[target]
        layout = h5py.VirtualLayout(shape=(4, 5), dtype="float32")
        layout[:] = h5py.VirtualSource(str(tmp_path / "src.h5"), "k", shape=(4, 5))
        f.create_virtual_dataset(target, layout)
    with pytest.raises(errors.DataLossError, match="virtual dataset"):
        tf.keras.models.load_model(saved)


def test_names_of_missing_datasets_and_non_numeric_values_are_refused(saved):
    target = _dataset_path(saved)
    with h5py.File(saved, "a") as f:
        del f[target]
    with pytest.raises(KeyError, match="is missing"):
        tf.keras.models.load_model(saved)
    with h5py.File(saved, "a") as f:
        f[target] = np.array([[b"x"] * 5] * 4)
    with pytest.raises(errors.DataLossError, match="not a numeric tensor"):
        tf.keras.models.load_model(saved)


def test_damaged_configs_and_files_are_refused(saved, tmp_path):
    with h5py.File(saved, "a") as f:
        f.attrs["model_config"] = b"{not json"
    with pytest.raises(ValueError, match="not valid JSON"):
        tf.keras.models.load_model(saved)
    with h5py.File(saved, "a") as f:
        f.attrs["model_config"] = b"[" * 200000 + b"]" * 200000  # nested past Python's recursion limit
    with pytest.raises(ValueError, match="not valid JSON"):
        tf.keras.models.load_model(saved)
    with h5py.File(saved, "a") as f:
        f.attrs["model_config"] = json.dumps({"class_name": "Nope", "config": {}}).encode()
    with pytest.raises(ValueError, match="Unknown layer: 'Nope'"):
        tf.keras.models.load_model(saved)
    for damaged in ({"class_name": "Sequential", "config": 5}, {"class_name": "Sequential", "config": {"layers": 7}},
                    {"class_name": "Sequential", "config": {"name": "s", "layers": [3]}}):
        with h5py.File(saved, "a") as f:
            f.attrs["model_config"] = json.dumps(damaged).encode()
        with pytest.raises(ValueError, match="Improper config format"):
            tf.keras.models.load_model(saved)
    (tmp_path / "junk.h5").write_bytes(b"\x89HDF\r\n\x1a\n" + b"\0" * 100)
    with pytest.raises(ValueError, match="truncated or corrupt"):
        tf.keras.models.load_model(tmp_path / "junk.h5")


def test_lambda_bytecode_is_refused_in_safe_mode(tmp_path):
    model = tf.keras.Sequential([tf.keras.Input((4,)), L.Lambda(lambda t: t * 2.0)])
    _save(model, tmp_path / "m.h5")
    with pytest.raises(ValueError, match="safe_mode"):
        tf.keras.models.load_model(tmp_path / "m.h5")
    again = tf.keras.models.load_model(tmp_path / "m.h5", safe_mode=False)
    x, _ = _data()
    np.testing.assert_allclose(again(x).numpy(), 2 * x)


def test_an_interrupted_save_leaves_the_previous_file_intact(tmp_path, monkeypatch):
    model = _functional()
    _save(model, tmp_path / "m.h5")
    before = (tmp_path / "m.h5").read_bytes()

    def crash(*args, **kwargs):
        raise KeyboardInterrupt
    monkeypatch.setattr(legacy_h5, "_write_subset", crash)
    with pytest.raises(KeyboardInterrupt):
        _save(model, tmp_path / "m.h5")
    assert (tmp_path / "m.h5").read_bytes() == before
    assert os.listdir(tmp_path) == ["m.h5"]
