"""VGG19: architecture, parameter counts, legacy h5 weight loading, preprocessing."""
import numpy as np
import pytest

import minitf as tf
from minitf.applications.imagenet_utils import imagenet_utils
from minitf.applications.vgg19 import vgg19

NOTOP_PARAMS = 20_024_384   # Keras' published total for VGG19(include_top=False)
TOP_PARAMS = 143_667_240    # ... and for VGG19() at 224x224


@pytest.fixture(scope="module")
def small():
    return tf.keras.applications.VGG19(include_top=False, weights=None, input_shape=(32, 32, 3))


def _dense_params(n_in, n_out):
    return n_in * n_out + n_out


def test_notop_structure_and_params(small):
    assert small.name == "vgg19"
    assert small.count_params() == NOTOP_PARAMS
    names = [layer.name for layer in small.layers]
    assert names[1:4] == ["block1_conv1", "block1_conv2", "block1_pool"]
    assert names[-1] == "block5_pool" and "block3_conv4" in names
    assert small.output.shape.as_list() == [None, 1, 1, 512]
    assert small.get_layer("block4_conv4").output.shape.as_list() == [None, 4, 4, 512]


def test_top_param_count_matches_keras_total():
    # A 32x32 input flattens 512 features; at 224x224 it is 7*7*512: the rest is identical.
    model = vgg19.VGG19(include_top=True, weights=None, input_shape=(32, 32, 3), classes=10)
    head = _dense_params(512, 4096) + _dense_params(4096, 4096) + _dense_params(4096, 10)
    assert model.count_params() == NOTOP_PARAMS + head
    assert [layer.name for layer in model.layers[-4:]] == ["flatten", "fc1", "fc2", "predictions"]
    full_head = _dense_params(7 * 7 * 512, 4096) + _dense_params(4096, 4096) + \
        _dense_params(4096, 1000)
    assert NOTOP_PARAMS + full_head == TOP_PARAMS
    out = model(np.random.RandomState(0).rand(2, 32, 32, 3).astype("float32"))
    np.testing.assert_allclose(out.numpy().sum(axis=1), 1.0, rtol=1e-5)


def test_pooling_and_input_tensor():
    inp = tf.keras.Input(shape=(32, 32, 3))
    model = vgg19.VGG19(include_top=False, weights=None, input_tensor=inp, pooling="max")
    assert model.input is inp
    assert model.output.shape.as_list() == [None, 512]
    x = np.random.RandomState(0).rand(1, 32, 32, 3).astype("float32")
    full = model.get_layer("block5_pool").output
    pooled = tf.keras.Model(inp, full)(x).numpy()
    np.testing.assert_allclose(model(x).numpy(), pooled.max(axis=(1, 2)), rtol=1e-6)


def test_unknown_size_without_top():
    assert imagenet_utils.obtain_input_shape(None, 224, 32, require_flatten=False) == \
        (None, None, 3)
    assert imagenet_utils.obtain_input_shape(None, 224, 32, require_flatten=True) == (224, 224, 3)


def test_input_shape_and_weights_errors():
    with pytest.raises(ValueError, match="at least 32x32"):
        vgg19.VGG19(include_top=False, weights=None, input_shape=(16, 16, 3))
    with pytest.raises(ValueError, match="static"):
        vgg19.VGG19(include_top=True, weights=None, input_shape=(None, None, 3))
    with pytest.raises(ValueError, match="classes"):
        vgg19.VGG19(include_top=True, weights="imagenet", classes=10)
    with pytest.raises(ValueError, match="weights"):
        vgg19.VGG19(weights="/no/such/file.h5")
    with pytest.raises(ValueError, match=r"\(224, 224, 3\)"):
        vgg19.VGG19(include_top=True, weights="imagenet", input_shape=(64, 64, 3))


def _randomize(model, seed):
    rng = np.random.RandomState(seed)
    model.set_weights([rng.standard_normal(w.shape).astype("float32") * 0.1
                       for w in model.get_weights()])


def test_legacy_h5_round_trip(small, tmp_path):
    import h5py
    _randomize(small, 1)
    path = str(tmp_path / "vgg19_notop.h5")
    imagenet_utils.save_legacy_h5_weights(small, path)
    with h5py.File(path, "r") as f:  # the Keras 2 layout
        assert b"block1_conv1" in list(f.attrs["layer_names"])
        assert list(f["block1_conv1"].attrs["weight_names"]) == [b"block1_conv1/kernel:0",
                                                                 b"block1_conv1/bias:0"]
        assert f["block1_conv1"]["block1_conv1"]["kernel:0"].shape == (3, 3, 3, 64)
    fresh = vgg19.VGG19(include_top=False, weights=path, input_shape=(32, 32, 3))
    for a, b in zip(small.get_weights(), fresh.get_weights()):
        np.testing.assert_array_equal(a, b)
    x = np.random.RandomState(2).rand(1, 32, 32, 3).astype("float32")
    np.testing.assert_allclose(fresh(x).numpy(), small(x).numpy(), rtol=1e-5)


def test_legacy_h5_errors_name_the_layer(small, tmp_path):
    import h5py
    path = str(tmp_path / "bad.h5")
    imagenet_utils.save_legacy_h5_weights(small, path)
    with h5py.File(path, "r+") as f:
        del f["block2_conv1"]["block2_conv1"]["kernel:0"]
        f["block2_conv1"].create_dataset("block2_conv1/kernel:0", data=np.zeros((3, 3, 64, 7)))
    with pytest.raises(ValueError, match=r"block2_conv1.*\(3, 3, 64, 128\).*\(3, 3, 64, 7\)"):
        imagenet_utils.load_legacy_h5_weights(small, path)
    with h5py.File(path, "r+") as f:
        f.attrs["layer_names"] = [n for n in f.attrs["layer_names"] if n != b"block5_conv4"]
    with pytest.raises(ValueError, match="block5_conv4"):
        imagenet_utils.load_legacy_h5_weights(small, path)


def test_imagenet_offline_raises_get_file_error(monkeypatch, tmp_path):
    from minitf.utils import data_utils
    monkeypatch.setenv("MINITF_HOME", str(tmp_path))

    def offline(*args, **kwargs):
        raise data_utils.DownloadError("no network")
    monkeypatch.setattr(data_utils, "_download", offline)
    with pytest.raises(data_utils.DownloadError, match="vgg19_weights_tf_dim_ordering"):
        vgg19.VGG19(include_top=False, weights="imagenet", input_shape=(32, 32, 3))


def test_preprocess_input_caffe():
    rgb = np.random.RandomState(0).randint(0, 256, (2, 4, 4, 3)).astype("uint8")
    out = vgg19.preprocess_input(rgb)
    assert out.dtype == np.float32
    np.testing.assert_allclose(out[..., 0], rgb[..., 2] - 103.939, atol=1e-4)
    np.testing.assert_allclose(out[..., 2], rgb[..., 0] - 123.68, atol=1e-4)
    tensor_out = vgg19.preprocess_input(tf.constant(rgb.astype("float32")))
    np.testing.assert_allclose(tensor_out.numpy(), out, atol=1e-4)
    first = vgg19.preprocess_input(np.transpose(rgb, (0, 3, 1, 2)), data_format="channels_first")
    np.testing.assert_allclose(np.transpose(first, (0, 2, 3, 1)), out, atol=1e-4)


def test_decode_predictions_checks_shape():
    with pytest.raises(ValueError, match=r"\(samples, 1000\)"):
        vgg19.decode_predictions(np.zeros((2, 10)))


def test_matches_tensorflow(small):
    tf_ref = pytest.importorskip("tensorflow")
    ref = tf_ref.keras.applications.VGG19(include_top=False, weights=None,
                                          input_shape=(32, 32, 3))
    _randomize(small, 3)
    for layer in ref.layers:
        if layer.weights:
            layer.set_weights(small.get_layer(layer.name).get_weights())
    x = np.random.RandomState(4).rand(2, 32, 32, 3).astype("float32") * 255
    got = small(vgg19.preprocess_input(x)).numpy()
    want = ref(tf_ref.keras.applications.vgg19.preprocess_input(x)).numpy()
    # 16 unnormalized float32 layers reach ~1e9: summation order (oneDNN vs BLAS) moves small
    # entries by more than rtol, so the absolute tolerance follows the output's scale
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5 * float(np.abs(want).max()))
