"""EfficientNetB0 (and the B1-B7 parameters): Keras' architecture (names, parameter counts,
in-model rescaling and normalisation, stochastic depth), pooling variants, weight files by path
and from the download cache."""
import hashlib
import math

import numpy as np
import pytest

import minitf as tf
from minitf.applications.efficientnet import efficientnet
from minitf.applications.imagenet_utils import imagenet_utils

TOP_PARAMS = 5_330_571     # Keras' EfficientNetB0() total
NOTOP_PARAMS = 4_049_571   # ... and EfficientNetB0(include_top=False)


@pytest.fixture(scope="module")
def model():
    tf.keras.backend.clear_session()  # auto names (input_layer, ...) start afresh, as in Keras
    return tf.keras.applications.EfficientNetB0(weights=None, input_shape=(64, 64, 3))


def test_structure_and_params(model):
    assert model.name == "efficientnetb0"
    assert model.count_params() == TOP_PARAMS
    assert len(model.layers) == 240
    names = [layer.name for layer in model.layers]
    assert names[:6] == ["input_layer", "rescaling", "normalization", "stem_conv_pad",
                         "stem_conv", "stem_bn"]
    assert names[-6:] == ["top_conv", "top_bn", "top_activation", "avg_pool", "top_dropout",
                          "predictions"]
    assert "block1a_se_excite" in names and "block7a_project_bn" in names
    assert "block6d_drop" in names and "block2a_drop" not in names  # only identity skips
    norm = model.get_layer("normalization")
    assert [w.name.split(":")[0].split("/")[-1] for w in norm.weights] == ["mean", "variance",
                                                                            "count"]
    # stochastic depth rises linearly over the 16 blocks: block b drops 0.2 * b / 16
    assert model.get_layer("block2b_drop").rate == pytest.approx(0.2 * 2 / 16)
    assert model.get_layer("block6d_drop").noise_shape == (None, 1, 1, 1)
    assert model.get_layer("block1a_activation").activation.__name__ in ("swish", "silu")
    assert model.get_layer("stem_conv_pad").padding == ((0, 1), (0, 1))
    assert model.get_layer("block1a_se_reduce").filters == 8


def test_notop_and_pooling(model):
    notop = efficientnet.EfficientNetB0(weights=None, include_top=False,
                                        input_shape=(64, 64, 3))
    assert notop.count_params() == NOTOP_PARAMS
    assert notop.output.shape.as_list() == [None, 2, 2, 1280]
    x = np.random.RandomState(0).uniform(0, 255, (1, 64, 64, 3)).astype("float32")
    features = notop(x).numpy()
    for pooling, name, fn in (("avg", "avg_pool", np.mean), ("max", "max_pool", np.max)):
        pooled = efficientnet.EfficientNetB0(weights=None, include_top=False, pooling=pooling,
                                             input_shape=(64, 64, 3))
        pooled.set_weights(notop.get_weights())
        assert pooled.layers[-1].name == name
        np.testing.assert_allclose(pooled(x).numpy(), fn(features, axis=(1, 2)),
                                   rtol=1e-5, atol=1e-6)


def test_variants_are_parameters():
    assert efficientnet.EfficientNetB3.__name__ == "EfficientNetB3"
    assert efficientnet.VARIANTS["b7"] == (2.0, 3.1, 600, 0.5)
    b1 = tf.keras.applications.EfficientNetB1(weights=None, include_top=False,
                                              input_shape=(32, 32, 3))
    assert b1.name == "efficientnetb1"
    assert b1.count_params() == 6_575_239  # Keras' EfficientNetB1(include_top=False)
    with pytest.raises(ValueError, match="classes"):
        efficientnet.EfficientNetB0(weights="imagenet", classes=10)


def _randomize(model, seed):
    rng = np.random.RandomState(seed)
    values = []
    for w in model.weights:
        shape = tuple(w.shape)
        if w.dtype == "int64" or "count" in w.name:
            values.append(np.asarray(7, "int64"))
        elif len(shape) == 1:
            values.append(rng.uniform(0.5, 1.5, shape).astype("float32"))
        else:
            values.append(rng.standard_normal(shape).astype("float32") * 0.1)
    model.set_weights(values)


def test_weights_by_path_and_from_cache(tmp_path, monkeypatch):
    notop = efficientnet.EfficientNetB0(weights=None, include_top=False, input_shape=(64, 64, 3))
    _randomize(notop, 1)
    norm = notop.layers[2]  # auto-named per session, as in Keras: 'normalization', '..._1', ...
    assert isinstance(norm, tf.keras.layers.Normalization)
    norm.set_weights([np.array([0.485, 0.456, 0.406], "float32"),
                      np.array([0.229, 0.224, 0.225], "float32") ** 2, np.asarray(0, "int64")])
    x = np.random.RandomState(2).uniform(0, 255, (1, 64, 64, 3)).astype("float32")
    want = notop(x).numpy()
    legacy = str(tmp_path / "b0.h5")
    imagenet_utils.save_legacy_h5_weights(notop, legacy)
    notop.save_weights(str(tmp_path / "b0.weights.h5"))
    for path in (legacy, str(tmp_path / "b0.weights.h5")):
        fresh = efficientnet.EfficientNetB0(weights=path, include_top=False,
                                            input_shape=(64, 64, 3))
        np.testing.assert_allclose(fresh(x).numpy(), want, rtol=1e-4, atol=1e-5)
    # 'imagenet' adds Keras' extra Rescaling by 1/sqrt(ImageNet stddev) after Normalization
    monkeypatch.setenv("MINITF_HOME", str(tmp_path))
    (tmp_path / "models").mkdir()
    cached = tmp_path / "models" / "efficientnetb0_notop.h5"
    cached.write_bytes(open(legacy, "rb").read())
    monkeypatch.setitem(efficientnet.WEIGHTS_HASHES, "b0",
                        ("0" * 32, hashlib.md5(cached.read_bytes()).hexdigest()))
    imagenet = efficientnet.EfficientNetB0(weights="imagenet", include_top=False,
                                           input_shape=(64, 64, 3))
    extra = imagenet.layers[3]
    assert isinstance(extra, tf.keras.layers.Rescaling) and isinstance(
        imagenet.layers[2], tf.keras.layers.Normalization)
    np.testing.assert_allclose(np.ravel(extra.scale), [1 / math.sqrt(s) for s in
                                                       (0.229, 0.224, 0.225)], rtol=1e-6)
    for a, b in zip(notop.get_weights(), imagenet.get_weights()):
        np.testing.assert_array_equal(a, b)


def test_preprocess_input_is_identity():
    x = np.arange(6.0).reshape(1, 2, 3)
    assert tf.keras.applications.efficientnet.preprocess_input(x) is x
    with pytest.raises(ValueError, match=r"\(samples, 1000\)"):
        efficientnet.decode_predictions(np.zeros((2, 10)))


def test_dotted_import_paths():
    import importlib
    for name, example in (("mobilenet_v2", "MobileNetV2"), ("resnet", "ResNet101"),
                          ("resnet50", "ResNet50"), ("efficientnet", "EfficientNetB7")):
        module = importlib.import_module(f"minitf.keras.applications.{name}")
        assert getattr(tf.keras.applications, name) is module
        source = importlib.import_module(f"minitf.applications.{name}")
        assert getattr(module, example) is getattr(source, example)
        assert getattr(module, example) is getattr(tf.keras.applications, example)
        assert module.preprocess_input is source.preprocess_input
