"""Layers that draw random numbers, against Keras 3 (TF 2.21): each builds its SeedGenerator
where Keras does (so later layers' initializers get the same seeds after
`keras.utils.set_random_seed`) and draws its masks from it, so training-mode outputs are TF's."""
import numpy as np
import pytest

import minitf

tf_ref = pytest.importorskip("tensorflow")

_X = np.random.default_rng(0).normal(size=(2, 5, 3)).astype("float32")


@pytest.mark.parametrize("cls, options", [
    ("LSTM", {}), ("GRU", {}), ("SimpleRNN", {}), ("LSTM", {"recurrent_dropout": 0.2}),
    ("GRU", {"recurrent_dropout": 0.2}), ("GRU", {"recurrent_dropout": 0.2, "reset_after": False}),
    ("SimpleRNN", {"recurrent_dropout": 0.2}),
])
def test_recurrent_dropout_masks(cls, options):
    def outputs(lib):
        lib.keras.utils.set_random_seed(3)
        layer = getattr(lib.keras.layers, cls)(4, dropout=0.3, **options)
        return [layer(_X, training=True).numpy(), layer(_X, training=True).numpy(), layer(_X).numpy()]

    for a, b in zip(outputs(minitf), outputs(tf_ref)):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("stack", ["lstm_then_dense", "simple_rnn_then_dense"])
def test_seed_generators_keep_later_initializers_in_step(stack):
    def weights(lib):
        lib.keras.utils.set_random_seed(7)
        L = lib.keras.layers
        recurrent = L.LSTM(4) if stack == "lstm_then_dense" else L.SimpleRNN(3, dropout=0.1)
        return lib.keras.Sequential([lib.keras.Input((5, 3)), recurrent, L.Dense(2)]).get_weights()

    for a, b in zip(weights(minitf), weights(tf_ref), strict=True):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-5, atol=1e-6)


def test_attention_dropout_weights():
    q = np.random.default_rng(1).normal(size=(2, 3, 4)).astype("float32")
    v = np.random.default_rng(2).normal(size=(2, 5, 4)).astype("float32")

    def outputs(lib):
        lib.keras.utils.set_random_seed(5)
        layer = lib.keras.layers.Attention(dropout=0.4)
        first, weights = layer([q, v], training=True, return_attention_scores=True)
        return [first.numpy(), weights.numpy(), layer([q, v], training=True).numpy(), layer([q, v]).numpy()]

    for a, b in zip(outputs(minitf), outputs(tf_ref)):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_multi_head_attention_starts_from_tf_weights():
    def weights(lib):
        lib.keras.utils.set_random_seed(7)
        inputs = lib.keras.Input((5, 6))
        outputs = lib.keras.layers.MultiHeadAttention(2, 4)(inputs, inputs)
        return lib.keras.Model(inputs, lib.keras.layers.Dense(3)(outputs)).get_weights()

    for a, b in zip(weights(minitf), weights(tf_ref), strict=True):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("layer", ["Dropout", "Dropout_seeded", "Dropout_noise_shape", "SpatialDropout1D",
                                   "GaussianNoise", "MultiHeadAttention"])
def test_training_noise(layer):
    x = np.random.default_rng(0).normal(size=(2, 3, 4)).astype("float32")

    def outputs(lib):
        L = lib.keras.layers
        lib.keras.utils.set_random_seed(4)
        made = {"Dropout": lambda: L.Dropout(0.4), "Dropout_seeded": lambda: L.Dropout(0.4, seed=2),
                "Dropout_noise_shape": lambda: L.Dropout(0.5, noise_shape=(None, 1, 4)),
                "SpatialDropout1D": lambda: L.SpatialDropout1D(0.5), "GaussianNoise": lambda: L.GaussianNoise(0.3),
                "MultiHeadAttention": lambda: L.MultiHeadAttention(2, 3, dropout=0.5)}[layer]()
        args = (x, x) if layer == "MultiHeadAttention" else (x,)
        return [made(*args, training=True).numpy(), made(*args, training=True).numpy(), made(*args).numpy()]

    for a, b in zip(outputs(minitf), outputs(tf_ref)):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_traced_dropout_with_unknown_batch():
    def outputs(lib):
        generator = lib.keras.random.SeedGenerator(1)

        @lib.function(input_signature=[lib.TensorSpec([None, 4])])
        def step(x):
            return lib.keras.random.dropout(x, 0.5, noise_shape=(None, 1), seed=generator)

        return [step(lib.ones((2, 4))).numpy(), step(lib.ones((3, 4))).numpy()]

    for a, b in zip(outputs(minitf), outputs(tf_ref)):
        np.testing.assert_array_equal(a, b)


def test_dropout_between_layers_keeps_initializers_in_step():
    def weights(lib):
        lib.keras.utils.set_random_seed(7)
        L = lib.keras.layers
        return lib.keras.Sequential([lib.keras.Input((4,)), L.Dense(3), L.Dropout(0.5), L.GaussianNoise(0.1),
                                     L.Dense(2)]).get_weights()

    for a, b in zip(weights(minitf), weights(tf_ref), strict=True):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-6, atol=1e-7)


def test_augmentation_layers_take_their_seed_where_keras_does():
    def weights(lib):
        lib.keras.utils.set_random_seed(7)
        L = lib.keras.layers
        return lib.keras.Sequential([lib.keras.Input((8, 8, 3)), L.RandomFlip(), L.RandomRotation(0.1),
                                     L.RandomCrop(6, 6), L.Conv2D(2, 3)]).get_weights()

    for a, b in zip(weights(minitf), weights(tf_ref), strict=True):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-6, atol=1e-7)
