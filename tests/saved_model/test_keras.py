"""Keras models in SavedModels under minitf alone: tf.saved_model.save and Model.export."""
import os

import numpy as np
import pytest

import minitf as tf

L = tf.keras.layers


def _mlp():
    tf.keras.utils.set_random_seed(0)
    return tf.keras.Sequential([L.Input((4,)), L.Dense(8, activation="relu"),
                                L.Dense(3, activation="softmax")])


def _cnn():
    tf.keras.utils.set_random_seed(1)
    inp = L.Input((8, 8, 3))
    x = L.Conv2D(4, 3, activation="relu", padding="same")(inp)
    x = L.BatchNormalization()(x)
    x = L.MaxPooling2D()(x)
    x = L.AveragePooling2D(2)(x)
    x = L.DepthwiseConv2D(2, padding="same")(x)
    x = L.GlobalAveragePooling2D()(x)
    y = L.Dense(5, activation="elu")(x)
    z = L.Concatenate()([y, L.Dense(2, activation="tanh")(x)])
    z = L.Dense(3, activation="gelu")(z)
    z = L.LeakyReLU()(z)
    model = tf.keras.Model(inp, L.Softmax()(z))
    bn = next(layer for layer in model.layers if isinstance(layer, L.BatchNormalization))
    bn.moving_mean.assign(np.arange(4, dtype="float32") * 0.1)
    bn.moving_variance.assign(np.arange(1, 5, dtype="float32"))
    return model


def _images(n=3):
    return np.random.RandomState(2).rand(n, 8, 8, 3).astype("float32")


@pytest.mark.parametrize("build,data", [(_mlp, lambda: np.random.RandomState(0).randn(5, 4)
                                         .astype("float32")), (_cnn, _images)])
def test_saved_model_of_keras_model_serves_the_same_outputs(tmp_path, build, data):
    model, x = build(), data()
    expected = model(x).numpy()
    tf.saved_model.save(model, os.fspath(tmp_path))
    loaded = tf.saved_model.load(os.fspath(tmp_path))
    serve = loaded.signatures["serving_default"]
    assert list(serve.structured_outputs) == ["output_0"]
    assert list(serve.structured_input_signature[1]) == ["inputs"]
    out = serve(inputs=tf.constant(x))["output_0"].numpy()
    np.testing.assert_array_equal(out, expected)          # the same kernels: bit-equal
    other = serve(tf.constant(x[:1]))["output_0"].numpy()  # any batch size
    np.testing.assert_array_equal(other, model(x[:1]).numpy())


def test_model_export_layout_and_endpoints(tmp_path, capsys):
    model = _cnn()
    x = _images()
    model.export(os.fspath(tmp_path))
    printed = capsys.readouterr().out
    assert printed.startswith(f"Saved artifact at '{tmp_path}'. The following endpoints are "
                              f"available:\n\n* Endpoint 'serve'\n  args_0 (POSITIONAL_ONLY): "
                              f"TensorSpec(shape=(None, 8, 8, 3), dtype=tf.float32")
    assert printed.count("dtype=tf.resource") == len(model.variables)
    loaded = tf.saved_model.load(os.fspath(tmp_path))
    assert sorted(loaded.signatures) == ["serve", "serving_default"]
    np.testing.assert_array_equal(loaded.serve(x).numpy(), model(x).numpy())
    np.testing.assert_array_equal(
        loaded.signatures["serve"](tf.constant(x))["output_0"].numpy(), model(x).numpy())
    assert len(loaded.variables) == len(model.variables)
    assert len(loaded.trainable_variables) == len(model.trainable_variables)
    assert len(loaded.non_trainable_variables) == 2      # the batch norm's moving statistics


def test_export_verbose_false_and_bad_format(tmp_path, capsys):
    model = _mlp()
    model.export(os.fspath(tmp_path / "a"), verbose=False)
    assert capsys.readouterr().out == ""
    with pytest.raises(ValueError, match="Unrecognized format=keras"):
        model.export(os.fspath(tmp_path / "b"), format="keras")
    unbuilt = tf.keras.Sequential([L.Dense(2)])
    with pytest.raises(ValueError, match="no defined inputs"):
        unbuilt.export(os.fspath(tmp_path / "c"))


def test_export_with_input_signature_and_dict_outputs(tmp_path):
    inp = L.Input((4,), name="features")
    model = tf.keras.Model(inp, {"score": L.Dense(1)(inp), "prob": L.Dense(2, activation="softmax")(inp)})
    x = np.ones((2, 4), "float32")
    model.export(os.fspath(tmp_path), verbose=False,
                 input_signature=[tf.TensorSpec([None, 4], tf.float32, name="features")])
    loaded = tf.saved_model.load(os.fspath(tmp_path))
    sig = loaded.signatures["serving_default"]
    assert sorted(sig.structured_outputs) == ["prob", "score"]
    assert list(sig.structured_input_signature[1]) == ["features"]
    out = sig(features=tf.constant(x))
    expected = model(x)
    for key in ("prob", "score"):
        np.testing.assert_array_equal(out[key].numpy(), expected[key].numpy())


def test_loaded_keras_signature_under_tape(tmp_path):
    model = _mlp()
    x = tf.constant(np.random.RandomState(3).randn(2, 4).astype("float32"))
    tf.saved_model.save(model, os.fspath(tmp_path))
    serve = tf.saved_model.load(os.fspath(tmp_path)).signatures["serving_default"]
    with tf.GradientTape() as tape:
        tape.watch(x)
        loss = tf.reduce_sum(serve(inputs=x)["output_0"][:, 0])
    with tf.GradientTape() as tape2:
        tape2.watch(x)
        ref = tf.reduce_sum(model(x)[:, 0])
    np.testing.assert_allclose(tape.gradient(loss, x).numpy(), tape2.gradient(ref, x).numpy(),
                               rtol=1e-6)


def test_trained_model_saves_without_its_compiled_steps(tmp_path):
    model = _mlp()
    model.compile("adam", "mse")
    x, y = np.ones((8, 4), "float32"), np.ones((8, 3), "float32")
    model.fit(x, y, epochs=1, verbose=0)
    model.predict(x, verbose=0)
    assert model.train_function is not None
    tf.saved_model.save(model, os.fspath(tmp_path))
    loaded = tf.saved_model.load(os.fspath(tmp_path))
    assert not hasattr(loaded, "train_function")
    np.testing.assert_array_equal(
        loaded.signatures["serving_default"](tf.constant(x))["output_0"].numpy(),
        model(x).numpy())
