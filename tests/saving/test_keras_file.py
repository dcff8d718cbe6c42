"""Whole-model `.keras` files: round trips of every model kind with compile and optimizer state,
custom objects, the folder form, the errors Keras raises, and hostile or damaged archives."""
import json
import os
import zipfile

import numpy as np
import pytest

import minitf as tf
from minitf.errors import errors
from minitf.object_registration import get_custom_objects

L = tf.keras.layers


def _data(seed=0):
    rng = np.random.default_rng(seed)
    return rng.normal(size=(16, 4)).astype("float32"), rng.normal(size=(16, 2)).astype("float32")


def _functional():
    inputs = tf.keras.Input((4,), name="x")
    hidden = L.Dense(3, activation="relu")(inputs)
    outputs = L.Dense(2)(L.Dropout(0.1)(L.BatchNormalization()(hidden)))
    return tf.keras.Model(inputs, outputs)


def _sequential():
    return tf.keras.Sequential([tf.keras.Input((4,)), L.Dense(5, activation="tanh"), L.Dense(2)])


@pytest.mark.parametrize("make", [_functional, _sequential])
def test_round_trip_keeps_outputs_compile_config_and_optimizer_state(tmp_path, make):
    x, y = _data()
    model = make()
    model.compile(optimizer=tf.keras.optimizers.Adam(0.01), loss="mse", metrics=["mae"])
    model.fit(x, y, epochs=2, batch_size=8, verbose=0)
    model.save(tmp_path / "m.keras")
    again = tf.keras.models.load_model(tmp_path / "m.keras")
    assert type(again) is type(model)
    np.testing.assert_array_equal(again.predict(x, verbose=0), model.predict(x, verbose=0))
    assert isinstance(again.optimizer, tf.keras.optimizers.Adam)
    assert again.optimizer.learning_rate.numpy() == pytest.approx(0.01)
    for saved, loaded in zip(model.optimizer.variables, again.optimizer.variables):
        np.testing.assert_array_equal(saved.numpy(), loaded.numpy())
    # training goes on exactly as it would have without the save, for a model that draws no
    # random numbers (a Dropout's SeedGenerator is not in the file, as in Keras 3: a loaded one
    # draws other masks, as TF's does)
    if not any(isinstance(layer, L.Dropout) for layer in model.layers):
        model.fit(x, y, epochs=1, batch_size=8, verbose=0, shuffle=False)
        again.fit(x, y, epochs=1, batch_size=8, verbose=0, shuffle=False)
        for a, b in zip(model.weights, again.weights):
            np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-6, atol=1e-7)


def test_the_file_is_keras_3s_zip_layout(tmp_path):
    model = _sequential()
    model.compile(optimizer="sgd", loss="mse")
    model.save(tmp_path / "m.keras")
    with zipfile.ZipFile(tmp_path / "m.keras") as zf:
        assert sorted(zf.namelist()) == ["config.json", "metadata.json", "model.weights.h5"]
        config = json.loads(zf.read("config.json"))
        metadata = json.loads(zf.read("metadata.json"))
    assert config["class_name"] == "Sequential" and config["module"] == "keras"
    assert config["compile_config"]["loss"] == "mse"
    assert config["compile_config"]["optimizer"]["class_name"] == "SGD"
    assert metadata["keras_version"].startswith("3.") and "date_saved" in metadata


def test_load_without_compile_and_save_without_optimizer(tmp_path):
    x, y = _data()
    model = _functional()
    model.compile(optimizer="adam", loss="mse")
    model.fit(x, y, verbose=0)
    model.save(tmp_path / "m.keras")
    bare = tf.keras.models.load_model(tmp_path / "m.keras", compile=False)
    assert getattr(bare, "optimizer", None) is None
    np.testing.assert_array_equal(bare.predict(x, verbose=0), model.predict(x, verbose=0))
    model.save(tmp_path / "n.keras", include_optimizer=False)
    with zipfile.ZipFile(tmp_path / "n.keras") as zf:
        assert "compile_config" not in json.loads(zf.read("config.json"))
    assert getattr(tf.keras.models.load_model(tmp_path / "n.keras"), "optimizer", None) is None


def test_subclassed_models_load_through_registration_or_custom_objects(tmp_path):
    class Net(tf.keras.Model):
        def __init__(self, units=3, **kwargs):
            super().__init__(**kwargs)
            self.units = units
            self.hidden = L.Dense(units, activation="relu")
            self.out = L.Dense(1)

        def call(self, inputs):
            return self.out(self.hidden(inputs))

    x, _ = _data()
    model = Net(6)
    model.compile(optimizer="adam", loss="mse")
    model.fit(x, x[:, :1], verbose=0)
    model.save(tmp_path / "net.keras")
    with pytest.raises(TypeError, match="Could not locate class 'Net'"):
        tf.keras.models.load_model(tmp_path / "net.keras")
    again = tf.keras.models.load_model(tmp_path / "net.keras", custom_objects={"Net": Net})
    assert again.units == 6  # the captured constructor argument, not its default
    np.testing.assert_array_equal(again.predict(x, verbose=0), model.predict(x, verbose=0))
    with tf.keras.saving.custom_object_scope({"Net": Net}):
        assert tf.keras.models.load_model(tmp_path / "net.keras").units == 6

    registered = tf.keras.saving.register_keras_serializable(package="tests")(Net)
    try:
        registered(4)(x)
        model = registered(4)
        model(x)
        model.save(tmp_path / "reg.keras")
        with zipfile.ZipFile(tmp_path / "reg.keras") as zf:
            assert json.loads(zf.read("config.json"))["registered_name"] == "tests>Net"
        assert tf.keras.models.load_model(tmp_path / "reg.keras").units == 4
    finally:
        get_custom_objects().pop("tests>Net")


def test_a_custom_loss_function_is_found_again_by_name(tmp_path):
    def scaled_mse(y_true, y_pred):
        return tf.reduce_mean(tf.square(y_true - y_pred)) * 2.0

    x, y = _data()
    model = _sequential()
    model.compile(optimizer="sgd", loss=scaled_mse)
    model.fit(x, y, verbose=0)
    model.save(tmp_path / "m.keras")
    with pytest.warns(UserWarning, match="compile\\(\\) was not called"):
        uncompiled = tf.keras.models.load_model(tmp_path / "m.keras")
    assert not getattr(uncompiled, "_is_compiled", False)
    again = tf.keras.models.load_model(tmp_path / "m.keras", custom_objects={"scaled_mse": scaled_mse})
    assert again.evaluate(x, y, verbose=0) == pytest.approx(model.evaluate(x, y, verbose=0), rel=1e-6)


def test_lambda_bytecode_loads_only_outside_safe_mode(tmp_path):
    model = tf.keras.Sequential([tf.keras.Input((2,)), L.Lambda(lambda t: t * 3.0)])
    model.save(tmp_path / "m.keras")
    with pytest.raises(ValueError, match="safe_mode"):
        tf.keras.models.load_model(tmp_path / "m.keras")
    again = tf.keras.models.load_model(tmp_path / "m.keras", safe_mode=False)
    np.testing.assert_allclose(again(np.ones((1, 2), "float32")).numpy(), [[3.0, 3.0]])


def test_the_folder_form(tmp_path):
    x, y = _data()
    model = _functional()
    model.save(tmp_path / "folder", zipped=False)
    assert sorted(os.listdir(tmp_path / "folder")) == ["config.json", "metadata.json", "model.weights.h5"]
    again = tf.keras.models.load_model(tmp_path / "folder")
    np.testing.assert_array_equal(again.predict(x, verbose=0), model.predict(x, verbose=0))


def test_arguments_and_paths_keras_refuses(tmp_path):
    model = _sequential()
    with pytest.raises(ValueError, match="Invalid filepath extension.*`.keras`.*or a `.h5` extension"):
        model.save(tmp_path / "m.zip")
    with pytest.warns(UserWarning, match="considered legacy"):  # Keras' legacy H5 format (legacy_h5)
        model.save(tmp_path / "m.h5")
    with pytest.raises(ValueError, match="not supported: \\['bogus'\\]"):
        model.save(tmp_path / "m.keras", bogus=1)
    model.save(tmp_path / "m.keras")
    with pytest.raises(FileExistsError):
        model.save(tmp_path / "m.keras", overwrite=False)
    with pytest.raises(ValueError, match="File not found"):
        tf.keras.models.load_model(tmp_path / "missing.keras")
    with pytest.raises(ValueError, match="File format not supported"):
        tf.keras.models.load_model(tmp_path / "m.pb")


def test_an_interrupted_save_leaves_the_previous_file_intact(tmp_path, monkeypatch):
    from minitf.checkpoint import keras_weights
    x, _ = _data()
    model = _functional()
    model.save(tmp_path / "m.keras")
    before = (tmp_path / "m.keras").read_bytes()

    def crash(*args, **kwargs):
        raise KeyboardInterrupt
    monkeypatch.setattr(keras_weights, "write_weights", crash)
    with pytest.raises(KeyboardInterrupt):
        model.save(tmp_path / "m.keras")
    assert (tmp_path / "m.keras").read_bytes() == before
    assert os.listdir(tmp_path) == ["m.keras"]


# -- hostile and damaged archives ---------------------------------------------------------------
def _rewrite(src, dst, members):
    """A copy of archive `src` with `members` ({name: bytes or None to drop}) replaced or added."""
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w") as zout:
        for info in zin.infolist():
            if info.filename not in members:
                zout.writestr(info, zin.read(info))
        for name, data in members.items():
            if data is not None:
                zout.writestr(name, data)


@pytest.fixture
def saved(tmp_path):
    model = _sequential()
    model.save(tmp_path / "good.keras")
    return tmp_path / "good.keras"


def test_archives_minitf_refuses(saved, tmp_path):
    bad = tmp_path / "bad.keras"
    _rewrite(saved, bad, {"config.json": None})
    with pytest.raises(ValueError, match="config.json is missing"):
        tf.keras.models.load_model(bad)
    _rewrite(saved, bad, {"config.json": b"{not json"})
    with pytest.raises(ValueError, match="config.json is not valid JSON"):
        tf.keras.models.load_model(bad)
    _rewrite(saved, bad, {"config.json": b"[1, 2]"})
    with pytest.raises(ValueError, match="not a JSON object"):
        tf.keras.models.load_model(bad)
    with zipfile.ZipFile(saved) as zf:
        config = zf.read("config.json")
    with pytest.warns(UserWarning, match="Duplicate name"):
        _rewrite(saved, bad, {"config.json": config, "zz": None})
        with zipfile.ZipFile(bad, "a") as zf:
            zf.writestr("config.json", config)
    with pytest.raises(ValueError, match="appears twice"):
        tf.keras.models.load_model(bad)
    bad.write_bytes(saved.read_bytes()[: len(saved.read_bytes()) // 2])
    with pytest.raises(ValueError, match="damaged or truncated"):
        tf.keras.models.load_model(bad)


def test_a_decompression_bomb_stops_at_the_limit(saved, tmp_path, monkeypatch):
    bomb = tmp_path / "bomb.keras"
    with zipfile.ZipFile(saved) as zin, zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED) as zout:
        for name in ("config.json", "metadata.json"):
            zout.writestr(name, zin.read(name))
        zout.writestr("model.weights.h5", b"\0" * (8 << 20))  # 8 MiB of zeros: a few KB stored
    monkeypatch.setenv("MINITF_MAX_EXTRACT_BYTES", str(1 << 20))
    with pytest.raises(ValueError, match="over the extraction limit"):
        tf.keras.models.load_model(bomb)


def test_a_weights_member_that_is_not_hdf5_is_refused_as_data_loss(saved, tmp_path):
    bad = tmp_path / "bad.keras"
    _rewrite(saved, bad, {"model.weights.h5": b"not hdf5 at all"})
    with pytest.raises(errors.DataLossError, match="cannot be opened as HDF5"):
        tf.keras.models.load_model(bad)


def test_a_vocabulary_kept_in_assets_is_read_and_hostile_asset_names_are_refused(tmp_path):
    """Keras 3 writes an adapted lookup's vocabulary to assets/layers/<name>/vocabulary.txt (not into
    the config); minitf reads it there, and refuses asset names that climb out of the folder."""
    inputs = tf.keras.Input((1,), dtype="string")
    model = tf.keras.Model(inputs, L.StringLookup(vocabulary=["a", "b"])(inputs))
    model.save(tmp_path / "m.keras")
    with zipfile.ZipFile(tmp_path / "m.keras") as zf:
        config = json.loads(zf.read("config.json"))
    lookup = next(e for e in config["config"]["layers"] if e["class_name"] == "StringLookup")
    lookup["config"]["vocabulary"] = None  # as Keras writes an adapted layer
    keras_like = tmp_path / "keras_like.keras"
    _rewrite(tmp_path / "m.keras", keras_like, {"config.json": json.dumps(config).encode(),
                                               "assets/layers/string_lookup/vocabulary.txt": b"[UNK]\nb\na"})
    again = tf.keras.models.load_model(keras_like)
    assert again.layers[-1].get_vocabulary() == ["[UNK]", "b", "a"]
    np.testing.assert_array_equal(again(tf.constant([["a"], ["z"]])).numpy(), [[2], [0]])
    hostile = tmp_path / "hostile.keras"
    _rewrite(keras_like, hostile, {"assets/../../evil.txt": b"x"})
    with pytest.raises(ValueError, match="path minitf will not write"):
        tf.keras.models.load_model(hostile)
