"""MobileNet (v1): Keras 3's architecture (names, parameter counts, shapes) for several alpha /
depth_multiplier / include_top / pooling settings, Keras' argument errors, weight files by path
and from the download cache, preprocessing. The figures are Keras 3's (TF 2.21) own."""
import numpy as np
import pytest

import minitf as tf
from minitf.applications.imagenet_utils import imagenet_utils
from minitf.applications.mobilenet import mobilenet

# (arguments, Keras' model name, count_params(), len(layers), output shape)
KERAS_FIGURES = [
    ({}, "mobilenet_1.00_224", 4_253_864, 91, [None, 1000]),
    ({"alpha": 0.5, "input_shape": (128, 128, 3)}, "mobilenet_0.50_128", 1_342_536, 91,
     [None, 1000]),
    ({"alpha": 0.25, "depth_multiplier": 2, "input_shape": (96, 96, 3)}, "mobilenet_0.25_96",
     687_888, 91, [None, 1000]),
    ({"alpha": 0.6, "depth_multiplier": 2, "input_shape": (96, 96, 3)}, "mobilenet_0.60_96",
     2_963_365, 91, [None, 1000]),
    ({"alpha": 1.3, "classes": 10, "input_shape": (64, 64, 3)}, "mobilenet_1.30_64", 5_427_902,
     91, [None, 10]),
    ({"include_top": False}, "mobilenet_1.00_None", 3_228_864, 86, [None, None, None, 1024]),
    ({"include_top": False, "pooling": "avg", "alpha": 0.75, "input_shape": (64, 80, 3)},
     "mobilenet_0.75_64", 1_832_976, 87, [None, 768]),
    ({"include_top": False, "pooling": "max", "depth_multiplier": 3, "input_shape": (32, 32, 3)},
     "mobilenet_1.00_32", 9_636_992, 87, [None, 1024]),
]


@pytest.fixture(scope="module")
def model():
    tf.keras.backend.clear_session()  # auto names (input_layer, ...) start afresh, as in Keras
    return tf.keras.applications.MobileNet(weights=None, input_shape=(96, 96, 3))


@pytest.mark.parametrize("kwargs,name,params,n_layers,out_shape", KERAS_FIGURES,
                         ids=[f[1] + str(i) for i, f in enumerate(KERAS_FIGURES)])
def test_keras_figures(kwargs, name, params, n_layers, out_shape):
    m = mobilenet.MobileNet(weights=None, **kwargs)
    assert m.name == name
    assert m.count_params() == params
    assert len(m.layers) == n_layers
    assert m.output.shape.as_list() == out_shape


def test_structure(model):
    assert model.name == "mobilenet_1.00_96"
    names = [layer.name for layer in model.layers]
    assert names[:8] == ["input_layer", "conv1", "conv1_bn", "conv1_relu", "conv_dw_1",
                         "conv_dw_1_bn", "conv_dw_1_relu", "conv_pw_1"]
    assert names[-6:] == ["conv_pw_13_relu", "global_average_pooling2d", "dropout", "conv_preds",
                          "reshape_2", "predictions"]
    pads = [n for n in names if n.startswith("conv_pad_")]
    assert pads == ["conv_pad_2", "conv_pad_4", "conv_pad_6", "conv_pad_12"]
    assert model.get_layer("conv_pad_2").padding == ((0, 1), (0, 1))
    assert model.get_layer("conv_dw_2").padding == "valid"
    assert model.get_layer("conv_dw_3").padding == "same"
    bn = model.get_layer("conv_pw_5_bn")
    assert bn.epsilon == 1e-3 and bn.momentum == 0.99
    relu = model.get_layer("conv_dw_7_relu")
    assert isinstance(relu, tf.keras.layers.ReLU) and relu.max_value == 6.0
    assert model.get_layer("dropout").rate == 1e-3
    assert model.get_layer("global_average_pooling2d").keepdims is True
    preds = model.get_layer("conv_preds")
    assert [tuple(w.shape) for w in preds.weights] == [(1, 1, 1024, 1000), (1000,)]
    depthwise = model.get_layer("conv_dw_13")
    assert [tuple(w.shape) for w in depthwise.weights] == [(3, 3, 1024, 1)]
    assert model.get_layer("conv_pw_13_relu").output.shape.as_list() == [None, 3, 3, 1024]


def test_width_depth_and_dropout_arguments():
    m = mobilenet.MobileNet(weights=None, alpha=0.6, depth_multiplier=2, dropout=0.3,
                            input_shape=(96, 96, 3), classifier_activation=None)
    assert m.get_layer("conv1").filters == 19  # int(32 * 0.6)
    assert [tuple(w.shape) for w in m.get_layer("conv_dw_1").weights] == [(3, 3, 19, 2)]
    assert m.get_layer("conv_pw_1").filters == 38 and m.get_layer("conv_pw_13").filters == 614
    assert m.get_layer("dropout").rate == 0.3
    assert m.get_layer("predictions").activation is tf.keras.activations.linear
    named = mobilenet.MobileNet(weights=None, include_top=False, name="backbone")
    assert named.name == "backbone" and named.input.shape.as_list() == [None, None, None, 3]


def test_pooling_outputs():
    notop = mobilenet.MobileNet(weights=None, include_top=False, alpha=0.25,
                                input_shape=(64, 64, 3))
    x = np.random.RandomState(0).uniform(-1, 1, (2, 64, 64, 3)).astype("float32")
    features = notop(x).numpy()
    assert features.shape == (2, 2, 2, 256)
    for pooling, fn in (("avg", np.mean), ("max", np.max)):
        pooled = mobilenet.MobileNet(weights=None, include_top=False, alpha=0.25,
                                     pooling=pooling, input_shape=(64, 64, 3))
        pooled.set_weights(notop.get_weights())
        np.testing.assert_allclose(pooled(x).numpy(), fn(features, axis=(1, 2)),
                                   rtol=1e-5, atol=1e-6)


def test_input_tensor():
    inp = tf.keras.Input((64, 64, 3))
    scaled = tf.keras.layers.Rescaling(1 / 127.5, offset=-1)(inp)
    m = mobilenet.MobileNet(weights=None, include_top=False, alpha=0.25, input_tensor=scaled,
                            pooling="avg")
    assert m.input is inp and m.output.shape.as_list() == [None, 256]


@pytest.mark.parametrize("kwargs,message", [
    ({"weights": "/no/such/file.h5"},
     "The `weights` argument should be either `None` (random initialization), 'imagenet' "
     "(pre-training on ImageNet), or the path to the weights file to be loaded. Received "
     "weights=/no/such/file.h5"),
    ({"weights": "imagenet", "classes": 10},
     "If using `weights='imagenet'` with `include_top=True`, `classes` should be 1000.  "
     "Received classes=10"),
    ({"weights": "imagenet", "alpha": 0.6},
     "If imagenet weights are being loaded, alpha can be one of`0.25`, `0.50`, `0.75` or "
     "`1.0` only.  Received alpha=0.6"),
    ({"weights": "imagenet", "depth_multiplier": 2},
     "If imagenet weights are being loaded, depth multiplier must be 1.  Received "
     "depth_multiplier=2"),
    ({"weights": None, "include_top": False, "input_shape": (16, 16, 3)},
     "Input size must be at least 32x32; Received: input_shape=(16, 16, 3)"),
    ({"weights": None, "input_shape": (None, None, 3)},
     "If `include_top` is True, you should specify a static `input_shape`. Received: "
     "input_shape=(None, None, 3)"),
    ({"weights": "imagenet", "classifier_activation": "relu"},
     "Only `None` and `softmax` activations are allowed for the `classifier_activation` "
     "argument when using pretrained weights, with `include_top=True`; Received: "
     "classifier_activation=<function relu"),
])
def test_argument_errors(kwargs, message):
    with pytest.raises(ValueError) as info:
        mobilenet.MobileNet(**kwargs)
    assert str(info.value).startswith(message)


def _randomized(model, seed):
    """Random weights that keep the activations varied through all 13 blocks: He-scaled
    kernels, BN scales and variances near 1, shifts and means near 0."""
    rng = np.random.RandomState(seed)
    values = []
    for layer in model.layers:
        depthwise = isinstance(layer, tf.keras.layers.DepthwiseConv2D)
        for var in layer.weights:
            kind, shape = var.name.split("/")[-1].split(":")[0], tuple(var.shape)
            if kind in ("gamma", "moving_variance"):
                values.append(rng.uniform(0.5, 1.5, shape))
            elif kind == "kernel":
                fan_in = np.prod(shape[:2]) * (1 if depthwise else shape[2])
                values.append(rng.standard_normal(shape) * np.sqrt(2.0 / fan_in))
            else:
                values.append(rng.standard_normal(shape) * 0.01)
    model.set_weights([v.astype("float32") for v in values])
    return model


def _probe(model):
    """A model giving an early feature map and the output."""
    return tf.keras.Model(model.input, [model.get_layer("conv_pw_3_relu").output, model.output])


def test_weights_by_path_both_formats(model, tmp_path):
    _randomized(model, 1)
    x = np.random.RandomState(2).uniform(-1, 1, (2, 96, 96, 3)).astype("float32")
    want = _probe(model)(x)
    for w in want:  # the two images give clearly different features and class scores
        assert np.abs(w[0] - w[1]).max() > 0.05 * np.abs(w).max() > 0
    legacy = str(tmp_path / "mn.h5")
    imagenet_utils.save_legacy_h5_weights(model, legacy)
    model.save_weights(str(tmp_path / "mn.weights.h5"))
    for path in (legacy, str(tmp_path / "mn.weights.h5")):
        fresh = mobilenet.MobileNet(weights=path, input_shape=(96, 96, 3))
        for got, ref in zip(_probe(fresh)(x), want, strict=True):
            np.testing.assert_allclose(got.numpy(), ref.numpy(), rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError, match="relu"):  # a weights file also limits the activation
        mobilenet.MobileNet(weights=legacy, input_shape=(96, 96, 3), classifier_activation="relu")


def test_imagenet_weights_from_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("MINITF_HOME", str(tmp_path))
    (tmp_path / "models").mkdir()
    notop = _randomized(mobilenet.MobileNet(weights=None, include_top=False, alpha=0.25,
                                            input_shape=(128, 128, 3)), 3)
    imagenet_utils.save_legacy_h5_weights(notop, str(tmp_path / "models" /
                                                     "mobilenet_2_5_128_tf_no_top.h5"))
    loaded = mobilenet.MobileNet(weights="imagenet", include_top=False, alpha=0.25,
                                 input_shape=(128, 128, 3))
    assert loaded.name == "mobilenet_0.25_128"
    for a, b in zip(notop.get_weights(), loaded.get_weights(), strict=True):
        np.testing.assert_array_equal(a, b)
    with pytest.warns(UserWarning, match="224"):  # non-square: the 224 file is asked for
        with pytest.raises(Exception, match="mobilenet_5_0_224_tf_no_top"):
            mobilenet.MobileNet(weights="imagenet", include_top=False, alpha=0.5,
                                input_shape=(128, 96, 3))


def test_preprocess_input_tf_mode():
    x = np.array([[0.0, 63.75, 127.5, 255.0]], "float32")
    got = tf.keras.applications.mobilenet.preprocess_input(x)
    np.testing.assert_allclose(got, [[-1.0, -0.5, 0.0, 1.0]])
    tensor = mobilenet.preprocess_input(tf.constant(np.array([[[0, 255, 51]]], "uint8")))
    assert tensor.dtype == tf.float32
    np.testing.assert_allclose(tensor.numpy(), [[[-1.0, 1.0, -0.6]]], rtol=1e-6)
    with pytest.raises(ValueError, match=r"\(samples, 1000\)"):
        tf.keras.applications.mobilenet.decode_predictions(np.zeros((2, 10)))


def test_namespaces():
    import minitf.keras.applications.mobilenet as by_path
    assert tf.keras.applications.mobilenet is by_path
    assert tf.keras.applications.MobileNet is by_path.MobileNet is mobilenet.MobileNet
    assert by_path.decode_predictions is mobilenet.decode_predictions
