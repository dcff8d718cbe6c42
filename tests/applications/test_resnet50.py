"""ResNet50 (and the 101/152 depths): Keras' architecture (names, parameter counts, shapes),
pooling variants, weight files by path and from the download cache, preprocessing."""
import hashlib

import numpy as np
import pytest

import minitf as tf
from minitf.applications.imagenet_utils import imagenet_utils
from minitf.applications.resnet import resnet

TOP_PARAMS = 25_636_712    # Keras' ResNet50() total
NOTOP_PARAMS = 23_587_712  # ... and ResNet50(include_top=False)


@pytest.fixture(scope="module")
def model():
    return tf.keras.applications.ResNet50(weights=None, include_top=False,
                                          input_shape=(64, 64, 3))


def test_structure_and_params(model):
    assert model.name == "resnet50"
    assert model.count_params() == NOTOP_PARAMS
    assert len(model.layers) == 175
    names = {layer.name for layer in model.layers}
    for name in ("conv1_pad", "conv1_conv", "conv1_bn", "pool1_pad", "pool1_pool",
                 "conv2_block1_0_conv", "conv2_block3_out", "conv3_block4_add",
                 "conv4_block6_3_bn", "conv5_block3_out"):
        assert name in names
    assert "conv2_block2_0_conv" not in names and "conv4_block7_out" not in names
    assert model.get_layer("conv3_block1_1_conv").strides == (2, 2)
    assert model.get_layer("conv2_block1_1_conv").strides == (1, 1)
    assert model.get_layer("conv1_bn").epsilon == 1.001e-5
    assert model.output.shape.as_list() == [None, 2, 2, 2048]
    # Keras 3 lists layers deepest first: a block's first convs come before its shortcut's
    order = [layer.name for layer in model.layers][7:15]
    assert order == ["conv2_block1_1_conv", "conv2_block1_1_bn", "conv2_block1_1_relu",
                     "conv2_block1_2_conv", "conv2_block1_2_bn", "conv2_block1_2_relu",
                     "conv2_block1_0_conv", "conv2_block1_3_conv"]


def test_top_and_pooling(model):
    top = resnet.ResNet50(weights=None, input_shape=(64, 64, 3))
    assert top.count_params() == TOP_PARAMS
    assert [layer.name for layer in top.layers[-2:]] == ["avg_pool", "predictions"]
    x = np.random.RandomState(0).uniform(-1, 1, (1, 64, 64, 3)).astype("float32")
    features = model(x).numpy()
    for pooling, layer_name, fn in (("avg", "avg_pool", np.mean), ("max", "max_pool", np.max)):
        pooled = tf.keras.applications.resnet50.ResNet50(
            weights=None, include_top=False, pooling=pooling, input_shape=(64, 64, 3))
        pooled.set_weights(model.get_weights())
        assert pooled.layers[-1].name == layer_name
        np.testing.assert_allclose(pooled(x).numpy(), fn(features, axis=(1, 2)),
                                   rtol=1e-5, atol=1e-6)


def test_deeper_variants_are_just_depths():
    # an identity bottleneck block of width f on 4f channels: three convs and three BNs
    def identity_block(f):
        return (4 * f * f + f) + (9 * f * f + f) + (4 * f * f + 4 * f) + 4 * (f + f + 4 * f)
    assert resnet.DEPTHS["resnet101"] == (3, 4, 23, 3)
    assert resnet.DEPTHS["resnet152"] == (3, 8, 36, 3)
    assert NOTOP_PARAMS + 17 * identity_block(256) == 42_658_176      # Keras' ResNet101 no top
    assert NOTOP_PARAMS + 4 * identity_block(128) + 30 * identity_block(256) == 58_370_944
    with pytest.raises(ValueError, match="classes"):
        resnet.ResNet101(weights="imagenet", classes=10)
    with pytest.raises(ValueError, match="at least 32x32"):
        resnet.ResNet152(weights=None, include_top=False, input_shape=(16, 16, 3))


def _randomize(model, seed):
    rng = np.random.RandomState(seed)
    model.set_weights([rng.uniform(0.5, 1.5, w.shape).astype("float32") if w.ndim == 1
                       else rng.standard_normal(w.shape).astype("float32") * 0.05
                       for w in model.get_weights()])


def test_weights_by_path_and_from_cache(model, tmp_path, monkeypatch):
    _randomize(model, 1)
    x = np.random.RandomState(2).uniform(-1, 1, (1, 64, 64, 3)).astype("float32")
    want = model(x).numpy()
    legacy = str(tmp_path / "r50.h5")
    imagenet_utils.save_legacy_h5_weights(model, legacy)
    model.save_weights(str(tmp_path / "r50.weights.h5"))
    for path in (legacy, str(tmp_path / "r50.weights.h5")):
        fresh = resnet.ResNet50(weights=path, include_top=False, input_shape=(64, 64, 3))
        np.testing.assert_allclose(fresh(x).numpy(), want, rtol=1e-5, atol=1e-6)
    # 'imagenet' reads the cached file once its md5 is the published one
    monkeypatch.setenv("MINITF_HOME", str(tmp_path))
    (tmp_path / "models").mkdir()
    cached = tmp_path / "models" / "resnet50_weights_tf_dim_ordering_tf_kernels_notop.h5"
    cached.write_bytes(open(legacy, "rb").read())
    md5 = hashlib.md5(cached.read_bytes()).hexdigest()
    monkeypatch.setitem(resnet.WEIGHTS_HASHES, "resnet50", ("0" * 32, md5))
    fresh = resnet.ResNet50(weights="imagenet", include_top=False, input_shape=(64, 64, 3))
    np.testing.assert_allclose(fresh(x).numpy(), want, rtol=1e-5, atol=1e-6)


def test_preprocess_input_caffe():
    rgb = np.random.RandomState(0).randint(0, 256, (1, 2, 2, 3)).astype("float32")
    out = tf.keras.applications.resnet50.preprocess_input(rgb)
    np.testing.assert_allclose(out[..., 0], rgb[..., 2] - 103.939, atol=1e-4)
    np.testing.assert_allclose(resnet.preprocess_input(tf.constant(rgb)).numpy(), out, atol=1e-4)
