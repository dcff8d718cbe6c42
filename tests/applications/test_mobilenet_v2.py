"""MobileNetV2: Keras' architecture (names, parameter counts, shapes), pooling variants, weight
files by path and from the download cache, preprocessing."""
import numpy as np
import pytest

import minitf as tf
from minitf.applications.imagenet_utils import imagenet_utils
from minitf.applications.mobilenet_v2 import mobilenet_v2

TOP_PARAMS = 3_538_984     # Keras' MobileNetV2() total
NOTOP_PARAMS = 2_257_984   # ... and MobileNetV2(include_top=False)


@pytest.fixture(scope="module")
def model():
    tf.keras.backend.clear_session()  # auto names (input_layer, ...) start afresh, as in Keras
    return tf.keras.applications.MobileNetV2(weights=None, input_shape=(96, 96, 3))


def test_structure_and_params(model):
    assert model.name == "mobilenetv2_1.00_96"
    assert model.count_params() == TOP_PARAMS
    assert len(model.layers) == 156
    names = [layer.name for layer in model.layers]
    assert names[:4] == ["input_layer", "Conv1", "bn_Conv1", "Conv1_relu"]
    assert names[4:7] == ["expanded_conv_depthwise", "expanded_conv_depthwise_BN",
                          "expanded_conv_depthwise_relu"]
    assert names[-5:] == ["Conv_1", "Conv_1_bn", "out_relu", "global_average_pooling2d",
                          "predictions"]
    assert "block_1_pad" in names and "block_2_add" in names and "block_16_project_BN" in names
    assert "block_1_add" not in names  # a stride-2 block has no residual
    relu = model.get_layer("block_5_expand_relu")
    assert isinstance(relu, tf.keras.layers.ReLU) and relu.max_value == 6.0
    bn = model.get_layer("block_3_project_BN")
    assert bn.epsilon == 1e-3 and bn.momentum == 0.999
    assert model.get_layer("block_1_pad").padding == ((0, 1), (0, 1))
    depthwise = model.get_layer("block_1_depthwise")
    assert [w.name.split("/")[-1].split(":")[0] for w in depthwise.weights] == ["kernel"]
    assert model.get_layer("out_relu").output.shape.as_list() == [None, 3, 3, 1280]
    assert model.output.shape.as_list() == [None, 1000]


def test_notop_pooling_and_alpha():
    notop = mobilenet_v2.MobileNetV2(weights=None, include_top=False, input_shape=(64, 64, 3))
    assert notop.count_params() == NOTOP_PARAMS
    assert notop.name == "mobilenetv2_1.00_64"
    assert notop.output.shape.as_list() == [None, 2, 2, 1280]
    for pooling, fn in (("avg", np.mean), ("max", np.max)):
        pooled = mobilenet_v2.MobileNetV2(weights=None, include_top=False, pooling=pooling,
                                          input_shape=(64, 64, 3))
        pooled.set_weights(notop.get_weights())
        x = np.random.RandomState(0).uniform(-1, 1, (2, 64, 64, 3)).astype("float32")
        assert pooled.output.shape.as_list() == [None, 1280]
        np.testing.assert_allclose(pooled(x).numpy(), fn(notop(x).numpy(), axis=(1, 2)),
                                   rtol=1e-5, atol=1e-6)
    slim = mobilenet_v2.MobileNetV2(weights=None, alpha=0.35, input_shape=(96, 96, 3),
                                    classes=10, classifier_activation=None)
    assert slim.name == "mobilenetv2_0.35_96"
    assert slim.get_layer("Conv1").filters == 16 and slim.get_layer("Conv_1").filters == 1280
    assert slim.output.shape.as_list() == [None, 10]


def test_argument_errors():
    with pytest.raises(ValueError, match="alpha must be one of"):
        mobilenet_v2.MobileNetV2(weights="imagenet", alpha=0.6)
    with pytest.raises(ValueError, match="at least 32x32"):
        mobilenet_v2.MobileNetV2(weights=None, include_top=False, input_shape=(16, 16, 3))
    with pytest.raises(ValueError, match="classes"):
        mobilenet_v2.MobileNetV2(weights="imagenet", classes=10)
    with pytest.raises(ValueError, match="weights"):
        mobilenet_v2.MobileNetV2(weights="/no/such/file.h5")


def _randomized(model, seed):
    rng = np.random.RandomState(seed)
    model.set_weights([rng.uniform(0.5, 1.5, w.shape).astype("float32") if w.ndim == 1
                       else rng.standard_normal(w.shape).astype("float32") * 0.1
                       for w in model.get_weights()])
    return model


def test_weights_by_path_both_formats(model, tmp_path):
    _randomized(model, 1)
    x = np.random.RandomState(2).uniform(-1, 1, (2, 96, 96, 3)).astype("float32")
    want = model(x).numpy()
    legacy = str(tmp_path / "mnv2.h5")
    imagenet_utils.save_legacy_h5_weights(model, legacy)
    model.save_weights(str(tmp_path / "mnv2.weights.h5"))
    for path in (legacy, str(tmp_path / "mnv2.weights.h5")):
        fresh = mobilenet_v2.MobileNetV2(weights=path, input_shape=(96, 96, 3))
        np.testing.assert_allclose(fresh(x).numpy(), want, rtol=1e-5, atol=1e-7)


def test_imagenet_weights_from_cache(model, tmp_path, monkeypatch):
    monkeypatch.setenv("MINITF_HOME", str(tmp_path))
    (tmp_path / "models").mkdir()
    notop = _randomized(mobilenet_v2.MobileNetV2(weights=None, include_top=False,
                                                 input_shape=(96, 96, 3)), 3)
    name = "mobilenet_v2_weights_tf_dim_ordering_tf_kernels_1.0_96_no_top.h5"
    imagenet_utils.save_legacy_h5_weights(notop, str(tmp_path / "models" / name))
    loaded = mobilenet_v2.MobileNetV2(weights="imagenet", include_top=False,
                                      input_shape=(96, 96, 3))
    for a, b in zip(notop.get_weights(), loaded.get_weights()):
        np.testing.assert_array_equal(a, b)
    with pytest.warns(UserWarning, match="224"):  # non-square: the 224 file is asked for
        with pytest.raises(Exception, match="1.0_224_no_top"):
            mobilenet_v2.MobileNetV2(weights="imagenet", include_top=False,
                                     input_shape=(96, 128, 3))


def test_preprocess_input_tf_mode():
    x = np.array([[0.0, 127.5, 255.0]], "float32")
    np.testing.assert_allclose(tf.keras.applications.mobilenet_v2.preprocess_input(x),
                               [[-1.0, 0.0, 1.0]])
    with pytest.raises(ValueError, match=r"\(samples, 1000\)"):
        mobilenet_v2.decode_predictions(np.zeros((2, 10)))
