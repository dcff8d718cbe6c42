"""InceptionV3: architecture, parameter counts, legacy h5 loading by name and by order."""
import numpy as np
import pytest

import minitf as tf
from minitf.applications.imagenet_utils import imagenet_utils
from minitf.applications.inception_v3 import inception_v3

NOTOP_PARAMS = 21_802_784   # Keras' total for InceptionV3(include_top=False)
TOP_PARAMS = 23_851_784     # ... and for InceptionV3()


@pytest.fixture(scope="module")
def small():
    return inception_v3.InceptionV3(include_top=False, weights=None, input_shape=(75, 75, 3))


def test_notop_structure_and_params(small):
    assert small.name == "inception_v3"
    assert small.count_params() == NOTOP_PARAMS
    assert len(small.layers) == 311
    assert small.output.shape.as_list() == [None, 1, 1, 2048]
    for i, channels in [(0, 256), (2, 288), (3, 768), (7, 768), (8, 1280), (10, 2048)]:
        assert small.get_layer(f"mixed{i}").output.shape[-1] == channels
    bns = [layer for layer in small.layers if isinstance(layer, tf.keras.layers.BatchNormalization)]
    assert len(bns) == 94 and all(not bn.scale for bn in bns)
    assert all(len(bn.weights) == 3 for bn in bns)


def test_top_params():
    model = inception_v3.InceptionV3(include_top=True, weights=None, input_shape=(75, 75, 3))
    assert model.count_params() == TOP_PARAMS
    assert [layer.name for layer in model.layers[-2:]] == ["avg_pool", "predictions"]


def test_errors():
    with pytest.raises(ValueError, match="at least 75x75"):
        inception_v3.InceptionV3(include_top=False, weights=None, input_shape=(64, 64, 3))
    with pytest.raises(ValueError, match="classifier_activation"):
        inception_v3.InceptionV3(weights="imagenet", classifier_activation="relu")


def test_forward_pooling_avg():
    model = inception_v3.InceptionV3(include_top=False, weights=None, pooling="avg",
                                     input_shape=(75, 75, 3))
    out = model(np.random.RandomState(0).rand(1, 75, 75, 3).astype("float32"))
    assert out.shape == (1, 2048)
    assert np.all(np.isfinite(out.numpy())) and np.all(out.numpy() >= 0)


def test_legacy_h5_by_name_and_by_order(small, tmp_path):
    import h5py
    rng = np.random.RandomState(0)
    small.set_weights([rng.rand(*w.shape).astype("float32") + 0.5 for w in small.get_weights()])
    path = str(tmp_path / "inception.h5")
    imagenet_utils.save_legacy_h5_weights(small, path)
    expected = small.get_weights()
    small.set_weights([np.zeros_like(w) for w in expected])
    imagenet_utils.load_legacy_h5_weights(small, path)
    for a, b in zip(expected, small.get_weights()):
        np.testing.assert_array_equal(a, b)
    # The published file names layers conv2d_1, batch_normalization_1, ...: rename them all
    # so only the order can match them, as Keras' load_weights(by_name=False) does.
    renamed = str(tmp_path / "renamed.h5")
    with h5py.File(path, "r") as src, h5py.File(renamed, "w") as dst:
        names = [n.decode() for n in src.attrs["layer_names"]]
        dst.attrs["layer_names"] = np.array([f"file_{i}".encode() for i in range(len(names))],
                                            dtype="S")
        for i, name in enumerate(names):
            g = dst.create_group(f"file_{i}")
            weight_names = [w.decode() for w in src[name].attrs["weight_names"]]
            for w in weight_names:
                g.create_dataset(w, data=np.asarray(src[name][w]))
            g.attrs["weight_names"] = np.array([w.encode() for w in weight_names], dtype="S")
    small.set_weights([np.zeros_like(w) for w in expected])
    imagenet_utils.load_legacy_h5_weights(small, renamed)
    for a, b in zip(expected, small.get_weights()):
        np.testing.assert_array_equal(a, b)


def test_preprocess_input_tf_mode():
    x = np.array([[0.0, 127.5, 255.0]], "float32")
    np.testing.assert_allclose(inception_v3.preprocess_input(x), [[-1.0, 0.0, 1.0]])
    np.testing.assert_allclose(inception_v3.preprocess_input(tf.constant(x)).numpy(),
                               [[-1.0, 0.0, 1.0]])
