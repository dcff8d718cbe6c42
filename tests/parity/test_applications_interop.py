"""tf.keras.applications interop with real Keras 3: MobileNet, MobileNetV2, ResNet50 and
EfficientNetB0 built by both sides have the same layers (names, types, weight shapes) and
parameter counts; Keras' weights written in the legacy h5 layout of the published ImageNet
files, or as a Keras 3 '.weights.h5' file, load into minitf through `weights=path` and give
Keras' outputs on the same input, and the files minitf writes load back into Keras."""
import h5py
import numpy as np
import pytest

import minitf
from minitf.applications.imagenet_utils import imagenet_utils

tf_ref = pytest.importorskip("tensorflow")

# name: (input shape, input maker: rng -> batch before preprocessing)
CASES = {
    "MobileNetV2": ((96, 96, 3), lambda rng: rng.uniform(-1, 1, (2, 96, 96, 3))),
    "MobileNet": ((96, 96, 3), lambda rng: rng.uniform(-1, 1, (2, 96, 96, 3))),
    "ResNet50": ((64, 64, 3), lambda rng: rng.uniform(0, 255, (2, 64, 64, 3))),
    "EfficientNetB0": ((64, 64, 3), lambda rng: rng.uniform(0, 255, (2, 64, 64, 3))),
}
# inner layers compared as well: with random weights the deep layers of these nets vary little
# between images (EfficientNet's least), the first probe a lot
PROBES = {
    "MobileNetV2": ["Conv1_relu", "block_3_project_BN", "block_9_add", "out_relu"],
    "MobileNet": ["conv1_relu", "conv_pw_3_bn", "conv_dw_9_relu", "conv_pw_13_relu"],
    "ResNet50": ["conv1_relu", "conv2_block1_out", "conv4_block1_out", "conv5_block3_out"],
    "EfficientNetB0": ["stem_activation", "block3a_project_bn", "block6b_add", "top_activation"],
}


def _statistics(variable, value, rng):
    """A random value for the variables Keras initialises to constants (BatchNormalization's
    gamma and moving statistics, Normalization's mean and variance), so they are tested too."""
    name = variable.path.split("/")[-1]
    if name in ("gamma", "moving_variance", "variance"):
        return rng.uniform(0.5, 1.5, value.shape).astype(value.dtype)
    if name in ("beta", "moving_mean", "mean"):
        return (rng.standard_normal(value.shape) * 0.01).astype(value.dtype)
    return value


@pytest.fixture(scope="module", params=sorted(CASES))
def case(request, tmp_path_factory):
    """(name, Keras model, input batch, Keras legacy h5 path, Keras .weights.h5 path, the
    minitf model built with `weights=` the legacy file)."""
    name = request.param
    shape, make_input = CASES[name]
    keras = tf_ref.keras
    keras.backend.clear_session()
    keras.utils.set_random_seed(0)
    ref = getattr(keras.applications, name)(weights=None, input_shape=shape,
                                            classifier_activation=None)
    rng = np.random.RandomState(0)
    ref.set_weights([_statistics(v, np.asarray(v), rng) for v in ref.weights])
    for layer in ref.layers:  # Normalization reads its statistics when finalized
        if hasattr(layer, "finalize_state"):
            layer.finalize_state()
    x = make_input(np.random.RandomState(1)).astype("float32")
    if name == "ResNet50":
        x = keras.applications.resnet50.preprocess_input(x)
    folder = tmp_path_factory.mktemp(name)
    legacy = str(folder / "keras.h5")
    from keras.src.legacy.saving import legacy_h5_format  # noqa: E402 -- lazy: Keras-only path
    with h5py.File(legacy, "w") as f:
        legacy_h5_format.save_weights_to_hdf5_group(f, ref)
    modern = str(folder / "keras.weights.h5")
    ref.save_weights(modern)
    return name, ref, x, legacy, modern, _minitf(name, shape, weights=legacy)


def _minitf(name, case_shape, weights=None):
    minitf.keras.backend.clear_session()  # auto names start afresh, as in the Keras fixture
    return getattr(minitf.keras.applications, name)(weights=weights, input_shape=case_shape,
                                                    classifier_activation=None)


def _layout(model):
    return [(layer.name, type(layer).__name__,
             [(w.name.split("/")[-1].split(":")[0], tuple(w.shape)) for w in layer.weights])
            for layer in model.layers]


def _outputs(lib, model, name, x):
    """The model's output and its PROBES layers' outputs on `x`, as numpy arrays."""
    probe = lib.keras.Model(model.input, [model.get_layer(n).output for n in PROBES[name]]
                            + [model.output])
    return [np.asarray(o) for o in probe(x)]


def _close(got, want):
    for i, (g, w) in enumerate(zip(got, want, strict=True)):
        if i == 0:  # the early feature map clearly differs between the two images
            assert np.abs(w[0] - w[1]).max() > 0.05 * np.abs(w).max() > 0
        np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-4 * float(np.abs(w).max()))


def test_same_architecture(case):
    name, ref, _, _, _, mine = case
    assert mine.name == ref.name
    assert mine.count_params() == ref.count_params()
    assert len(mine.weights) == len(ref.weights)
    assert _layout(mine) == _layout(ref)  # names, types, order and variables of every layer
    for a, b in zip(mine.get_weights(), ref.get_weights(), strict=True):  # get_weights order
        np.testing.assert_array_equal(a, np.asarray(b))
    notop = getattr(minitf.keras.applications, name)(weights=None, include_top=False,
                                                     input_shape=CASES[name][0])
    ref_notop = getattr(tf_ref.keras.applications, name)(weights=None, include_top=False,
                                                         input_shape=CASES[name][0])
    assert notop.count_params() == ref_notop.count_params()
    assert notop.output.shape.as_list() == list(ref_notop.output.shape)


@pytest.mark.parametrize("fmt", ["legacy_h5", "weights_h5"])
def test_keras_weights_load_in_minitf(case, fmt):
    name, ref, x, _, modern, mine = case
    if fmt == "weights_h5":
        mine = _minitf(name, CASES[name][0], weights=modern)
    by_name = {layer.name: layer for layer in mine.layers}
    for layer in ref.layers:
        for a, b in zip(layer.get_weights(), by_name[layer.name].get_weights(), strict=True):
            np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
    _close(_outputs(minitf, mine, name, x), _outputs(tf_ref, ref, name, x))


def test_minitf_files_load_in_keras(case, tmp_path):
    name, ref, x, _, _, mine = case
    want = _outputs(tf_ref, ref, name, x)
    mine_legacy, mine_modern = str(tmp_path / "m.h5"), str(tmp_path / "m.weights.h5")
    imagenet_utils.save_legacy_h5_weights(mine, mine_legacy)
    mine.save_weights(mine_modern)
    back = getattr(tf_ref.keras.applications, name)(weights=mine_legacy,
                                                    input_shape=CASES[name][0],
                                                    classifier_activation=None)
    _close(_outputs(tf_ref, back, name, x), want)
    back.set_weights([np.zeros(v.shape, v.dtype) for v in back.weights])
    back.load_weights(mine_modern)  # Keras' own loader for the Keras 3 format
    for layer in back.layers:
        if hasattr(layer, "finalize_state"):
            layer.finalize_state()
    _close(_outputs(tf_ref, back, name, x), want)
