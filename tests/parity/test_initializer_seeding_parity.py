"""Keras 3's initializer seeding against TF 2.21: seeded initializers give TF's values on every
call, unseeded ones take their seed from Python's `random` when built, so after
`keras.utils.set_random_seed` a model's starting weights are TF's, layer by layer."""
import numpy as np
import pytest

import minitf

tf_ref = pytest.importorskip("tensorflow")

_INITIALIZERS = ["GlorotUniform", "GlorotNormal", "HeNormal", "HeUniform", "LecunNormal", "LecunUniform",
                 "RandomNormal", "RandomUniform", "TruncatedNormal", "Orthogonal"]


@pytest.mark.parametrize("name", _INITIALIZERS)
@pytest.mark.parametrize("seed", [0, 3, 2**31 - 1])
def test_seeded_initializer_values(name, seed):
    def values(lib):
        init = getattr(lib.keras.initializers, name)(seed=seed)
        return [np.asarray(init((4, 3))), np.asarray(init((4, 3))), np.asarray(init((2, 2, 3, 5), dtype="float64")),
                init.get_config()]

    ours, theirs = values(minitf), values(tf_ref)
    assert ours[3] == theirs[3]
    for a, b in zip(ours[:3], theirs[:3]):
        assert a.dtype == b.dtype
        np.testing.assert_allclose(a, b, rtol=1e-5 if name == "Orthogonal" else 0, atol=1e-6 if name == "Orthogonal" else 0)


def test_unseeded_initializers_follow_python_random():
    def values(lib):
        lib.keras.utils.set_random_seed(11)
        inits = [lib.keras.initializers.GlorotUniform(), lib.keras.initializers.RandomNormal(),
                 lib.keras.initializers.Orthogonal()]
        return [np.asarray(i((3, 3))) for i in inits] + [inits[0].get_config()]

    ours, theirs = values(minitf), values(tf_ref)
    assert ours[3] == theirs[3] and theirs[3]["seed"] is None
    for a, b in zip(ours[:3], theirs[:3]):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("layers", ["dense_conv", "embedding", "gru", "batchnorm"])
def test_models_start_from_tf_weights_after_set_random_seed(layers):
    def weights(lib):
        L = lib.keras.layers
        lib.keras.utils.set_random_seed(7)
        build = {
            "dense_conv": lambda: [lib.keras.Input((8, 8, 3)), L.Conv2D(4, 3), L.Flatten(),
                                   L.Dense(5, kernel_initializer="he_normal"), L.Dense(2, kernel_initializer="lecun_uniform")],
            "embedding": lambda: [lib.keras.Input((4,)), L.Embedding(10, 3), L.GlobalAveragePooling1D(), L.Dense(1)],
            "gru": lambda: [lib.keras.Input((5, 3)), L.GRU(4)],
            "batchnorm": lambda: [lib.keras.Input((4,)), L.Dense(3), L.BatchNormalization(), L.Dense(2)],
        }[layers]
        return lib.keras.Sequential(build()).get_weights()

    for a, b in zip(weights(minitf), weights(tf_ref), strict=True):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-6, atol=1e-7)
