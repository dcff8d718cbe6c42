"""keras.random: seeds and SeedGenerator streams, the distributions' properties, and argument
checks. (Bit-for-bit agreement with Keras on TF is pinned by tests/parity/parity_rows_keras_random.py.)"""
import numpy as np
import pytest

import minitf as tf

R = tf.keras.random


def test_an_int_seed_repeats_and_different_seeds_differ():
    a = R.normal((4, 3), seed=5).numpy()
    np.testing.assert_array_equal(a, R.normal((4, 3), seed=5).numpy())
    assert not np.array_equal(a, R.normal((4, 3), seed=6).numpy())
    assert R.normal((2,), dtype="float64", seed=1).dtype == tf.float64


def test_a_seed_generator_advances_and_replays():
    gen = R.SeedGenerator(42)
    first, second = R.uniform((5,), seed=gen).numpy(), R.uniform((5,), seed=gen).numpy()
    assert not np.array_equal(first, second)
    assert gen.state.numpy().tolist() == [42, 2]
    again = R.SeedGenerator(42)
    np.testing.assert_array_equal(R.uniform((5,), seed=again).numpy(), first)
    assert gen.get_config() == {"seed": 42, "name": gen.name}
    assert R.SeedGenerator.from_config(gen.get_config()).state.numpy().tolist() == [42, 0]


def test_unseeded_draws_use_the_global_generator_which_clear_session_forgets():
    a, b = R.normal((6,)).numpy(), R.normal((6,)).numpy()
    assert not np.array_equal(a, b)
    from minitf.keras_ops import random as impl
    before = impl.global_seed_generator()
    tf.keras.backend.clear_session()
    assert impl.global_seed_generator() is not before


def test_distributions_have_the_right_moments_and_support():
    n = (20000,)
    x = R.normal(n, mean=2.0, stddev=0.5, seed=1).numpy()
    assert abs(x.mean() - 2.0) < 0.02 and abs(x.std() - 0.5) < 0.02
    t = R.truncated_normal(n, stddev=2.0, seed=2).numpy()
    assert np.all(np.abs(t) <= 4.0) and abs(t.mean()) < 0.05
    u = R.uniform(n, -1.0, 3.0, seed=3).numpy()
    assert u.min() >= -1.0 and u.max() < 3.0 and abs(u.mean() - 1.0) < 0.05
    i = R.randint(n, -2, 5, dtype="int8", seed=4).numpy()
    assert i.dtype == np.int8 and set(np.unique(i)) == set(range(-2, 5))
    g = R.gamma(n, 3.0, seed=5).numpy()
    assert abs(g.mean() - 3.0) < 0.1 and abs(g.var() - 3.0) < 0.2
    small = R.gamma(n, 0.5, seed=6).numpy()
    assert small.min() >= 0 and abs(small.mean() - 0.5) < 0.05
    b = R.beta(n, 2.0, 3.0, seed=7).numpy()
    assert 0 <= b.min() and b.max() <= 1 and abs(b.mean() - 0.4) < 0.01
    k = R.binomial(n, 10, 0.3, seed=8).numpy()
    assert abs(k.mean() - 3.0) < 0.05 and k.dtype == np.float32


def test_categorical_follows_the_logits():
    logits = tf.math.log(tf.constant([[0.1, 0.2, 0.7]]))
    draws = R.categorical(logits, 20000, seed=3).numpy()[0]
    assert draws.dtype == np.int32
    np.testing.assert_allclose(np.bincount(draws, minlength=3) / 20000, [0.1, 0.2, 0.7], atol=0.02)


def test_dropout_scales_the_kept_elements_and_respects_noise_shape():
    x = tf.ones((200, 50))
    y = R.dropout(x, 0.25, seed=4).numpy()
    kept = y != 0
    np.testing.assert_allclose(y[kept], 1 / 0.75)
    assert abs(kept.mean() - 0.75) < 0.02
    cols = R.dropout(x, 0.5, noise_shape=(1, None), seed=4).numpy()
    assert np.all(cols == cols[:1])  # whole columns kept or dropped
    np.testing.assert_array_equal(R.dropout(x, 1.0).numpy(), np.zeros((200, 50)))
    assert R.dropout(x, 0.0) is x


def test_shuffle_permutes_along_the_axis():
    x = tf.reshape(tf.range(12), (4, 3))
    y = R.shuffle(x, seed=9).numpy()
    assert sorted(map(tuple, y)) == sorted(map(tuple, x.numpy()))
    z = R.shuffle(x, axis=1, seed=9).numpy()
    np.testing.assert_array_equal(np.sort(z, axis=1), x.numpy())


def test_bad_arguments_raise_value_error():
    with pytest.raises(ValueError, match="floating point"):
        R.uniform((2,), dtype="int32")
    with pytest.raises(ValueError, match="integer"):
        R.randint((2,), 0, 3, dtype="float32")
    with pytest.raises(ValueError, match="2-D"):
        R.categorical(tf.zeros((3,)), 2)
    with pytest.raises(ValueError, match="SeedGenerator"):
        R.normal((2,), seed="x")
    with pytest.raises(ValueError, match="integer"):
        R.SeedGenerator(1.5)
    with pytest.raises(ValueError, match="Unrecognized"):
        R.SeedGenerator(1, foo=2)
