"""tf.keras.applications.MobileNet against Keras 3 for settings the shared interop test
(tests/parity/test_applications_interop.py, default MobileNet) does not build: several alpha /
depth_multiplier / include_top / pooling / classes choices give the same model name, layers
(names, types, order, weight names and shapes), parameter count and output shape; Keras'
weights of a slim model with a depth multiplier load by path and give Keras' logits;
preprocess_input and the bad-argument ValueErrors are Keras'."""
import numpy as np
import pytest

import minitf

tf_ref = pytest.importorskip("tensorflow")

SETTINGS = [
    {"alpha": 0.5, "input_shape": (128, 128, 3)},
    {"alpha": 0.25, "depth_multiplier": 2, "input_shape": (96, 96, 3)},
    {"alpha": 0.6, "depth_multiplier": 3, "input_shape": (64, 64, 3), "classes": 7},
    {"alpha": 1.3, "input_shape": (72, 40, 3), "dropout": 0.2},
    {"include_top": False},
    {"include_top": False, "alpha": 0.75, "pooling": "avg", "input_shape": (64, 80, 3)},
    {"include_top": False, "depth_multiplier": 2, "pooling": "max", "input_shape": (32, 32, 3)},
]


def _layout(model):
    return [(layer.name, type(layer).__name__,
             [(w.name.split("/")[-1].split(":")[0], tuple(w.shape)) for w in layer.weights])
            for layer in model.layers]


@pytest.mark.parametrize("kwargs", SETTINGS, ids=[str(i) for i in range(len(SETTINGS))])
def test_same_architecture(kwargs):
    tf_ref.keras.backend.clear_session()
    ref = tf_ref.keras.applications.MobileNet(weights=None, **kwargs)
    minitf.keras.backend.clear_session()
    mine = minitf.keras.applications.mobilenet.MobileNet(weights=None, **kwargs)
    assert mine.name == ref.name
    assert mine.count_params() == ref.count_params()
    assert _layout(mine) == _layout(ref)
    assert mine.output.shape.as_list() == list(ref.output.shape)
    if "dropout" in kwargs:
        assert mine.get_layer("dropout").rate == ref.get_layer("dropout").rate


def test_slim_model_keras_weights_give_keras_logits(tmp_path):
    kwargs = {"alpha": 0.25, "depth_multiplier": 2, "input_shape": (64, 64, 3), "classes": 10,
              "classifier_activation": None}
    tf_ref.keras.backend.clear_session()
    tf_ref.keras.utils.set_random_seed(0)
    ref = tf_ref.keras.applications.MobileNet(weights=None, **kwargs)
    rng = np.random.RandomState(0)
    values = []
    for v in ref.weights:  # BN statistics random too, so that they are tested
        name, value = v.path.split("/")[-1], np.asarray(v)
        if name in ("gamma", "moving_variance"):
            value = rng.uniform(0.5, 1.5, value.shape).astype("float32")
        elif name in ("beta", "moving_mean", "bias"):
            value = (rng.standard_normal(value.shape) * 0.01).astype("float32")
        values.append(value)
    ref.set_weights(values)
    path = str(tmp_path / "slim.weights.h5")
    ref.save_weights(path)
    mine = minitf.keras.applications.MobileNet(weights=path, **kwargs)
    x = np.random.RandomState(1).uniform(0, 255, (2, 64, 64, 3)).astype("float32")
    x = tf_ref.keras.applications.mobilenet.preprocess_input(x)
    probes = ["conv1_relu", "conv_pw_13_relu", "predictions"]
    want = [np.asarray(o) for o in tf_ref.keras.Model(
        ref.input, [ref.get_layer(n).output for n in probes])(x)]
    got = [np.asarray(o) for o in minitf.keras.Model(
        mine.input, [mine.get_layer(n).output for n in probes])(x)]
    assert np.abs(want[0][0] - want[0][1]).max() > 0.05 * np.abs(want[0]).max() > 0
    for g, w in zip(got, want, strict=True):
        np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-4 * float(np.abs(w).max()))


def test_preprocess_input_matches_keras():
    x = np.random.RandomState(2).uniform(0, 255, (2, 5, 5, 3)).astype("float32")
    x[0, 0, 0] = [0.0, 127.5, 255.0]
    want = tf_ref.keras.applications.mobilenet.preprocess_input(x.copy())
    got = minitf.keras.applications.mobilenet.preprocess_input(x.copy())
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)
    got_t = minitf.keras.applications.mobilenet.preprocess_input(minitf.constant(x))
    want_t = tf_ref.keras.applications.mobilenet.preprocess_input(tf_ref.constant(x))
    np.testing.assert_allclose(got_t.numpy(), want_t.numpy(), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("kwargs", [
    {"weights": "/no/such/weights.h5"},
    {"weights": "imagenet", "classes": 10},
    {"weights": "imagenet", "alpha": 0.6},
    {"weights": "imagenet", "alpha": 0.5, "depth_multiplier": 2},
    {"weights": None, "include_top": False, "input_shape": (16, 40, 3)},
    {"weights": None, "input_shape": (None, None, 3)},
], ids=["weights", "classes", "alpha", "depth_multiplier", "min_size", "static_shape"])
def test_argument_errors_as_keras(kwargs):
    with pytest.raises(ValueError) as ref_info:
        tf_ref.keras.applications.MobileNet(**kwargs)
    with pytest.raises(ValueError) as info:
        minitf.keras.applications.MobileNet(**kwargs)
    assert str(info.value) == str(ref_info.value)
