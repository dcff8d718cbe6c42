"""Keras initializers: statistics, seeding, fan computation, configs and lookup."""
import math

import numpy as np
import pytest

import minitf as tf
from minitf import initializers as init


def _np(t):
    return np.asarray(t, dtype=np.float64)


@pytest.mark.parametrize("shape,fans", [((), (1, 1)), ((7,), (7, 7)), ((5, 3), (5, 3)),
                                        ((3, 3, 4, 8), (36, 72)), ((2, 4, 6), (8, 12))])
def test_fans(shape, fans):
    assert init.compute_fans(shape) == fans


@pytest.mark.parametrize("cls,scale,mode,dist", [
    (init.GlorotUniform, 1.0, "fan_avg", "uniform"), (init.GlorotNormal, 1.0, "fan_avg", "truncated"),
    (init.HeNormal, 2.0, "fan_in", "truncated"), (init.HeUniform, 2.0, "fan_in", "uniform"),
    (init.LecunNormal, 1.0, "fan_in", "truncated"), (init.LecunUniform, 1.0, "fan_in", "uniform")])
def test_variance_scaling_family_statistics(cls, scale, mode, dist):
    shape = (3, 3, 40, 60)  # conv kernel: fan_in = 360, fan_out = 540
    fan_in, fan_out = 9 * 40, 9 * 60
    n = {"fan_in": fan_in, "fan_avg": (fan_in + fan_out) / 2}[mode]
    w = _np(cls(seed=3)(shape))
    assert w.shape == shape
    target_std = math.sqrt(scale / n)
    np.testing.assert_allclose(w.std(), target_std, rtol=0.03)
    assert abs(w.mean()) < 0.02 * target_std * 10
    if dist == "uniform":
        assert np.abs(w).max() <= math.sqrt(3 * scale / n)
        assert np.abs(w).max() > 0.95 * math.sqrt(3 * scale / n)
    else:  # truncated at two (uncorrected) standard deviations
        raw_std = target_std / 0.87962566103423978
        assert np.abs(w).max() <= 2 * raw_std + 1e-7
        assert np.abs(w).max() > 1.9 * raw_std


def test_untruncated_normal_and_modes():
    w = _np(init.VarianceScaling(scale=3.0, mode="fan_out", distribution="untruncated_normal", seed=1)((200, 400)))
    np.testing.assert_allclose(w.std(), math.sqrt(3.0 / 400), rtol=0.03)
    assert np.abs(w).max() > 2.5 * math.sqrt(3.0 / 400)  # tails are not cut
    with pytest.raises(ValueError, match="mode"):
        init.VarianceScaling(mode="fan_x")
    with pytest.raises(ValueError, match="distribution"):
        init.VarianceScaling(distribution="cauchy")
    with pytest.raises(ValueError, match="scale"):
        init.VarianceScaling(scale=0.0)


@pytest.mark.parametrize("make", [lambda s: init.RandomNormal(seed=s), lambda s: init.RandomUniform(seed=s),
                                  lambda s: init.TruncatedNormal(seed=s), lambda s: init.GlorotUniform(seed=s),
                                  lambda s: init.Orthogonal(seed=s), lambda s: init.HeNormal(seed=s)])
def test_seeding(make):
    a = _np(make(7)((6, 5)))
    np.testing.assert_array_equal(a, _np(make(7)((6, 5))))
    np.testing.assert_array_equal(a, _np(make(7)((6, 5))))
    assert not np.array_equal(a, _np(make(8)((6, 5))))
    u1, u2 = _np(make(None)((6, 5))), _np(make(None)((6, 5)))
    assert not np.array_equal(u1, u2)


def test_simple_distributions():
    w = _np(init.RandomNormal(mean=1.0, stddev=0.5, seed=0)((300, 300)))
    np.testing.assert_allclose([w.mean(), w.std()], [1.0, 0.5], rtol=0.02)
    u = _np(init.RandomUniform(minval=-2.0, maxval=3.0, seed=0)((300, 300)))
    assert u.min() >= -2.0 and u.max() < 3.0
    np.testing.assert_allclose([u.mean(), u.var()], [0.5, 25 / 12], rtol=0.02)
    t = _np(init.TruncatedNormal(mean=0.0, stddev=2.0, seed=0)((300, 300)))
    assert np.abs(t).max() <= 4.0
    # variance of a standard normal truncated at +-2: 0.87962566103423978 ** 2
    np.testing.assert_allclose(t.std(), 2.0 * 0.87962566103423978, rtol=0.02)
    assert init.RandomNormal()((2, 2)).dtype == tf.float32
    assert init.RandomNormal(seed=1)((2, 2), dtype=tf.float64).dtype == tf.float64
    with pytest.raises(ValueError):
        init.RandomNormal()((2,), dtype=tf.int32)


def test_constant_zeros_ones_identity():
    np.testing.assert_array_equal(_np(init.Zeros()((2, 3))), np.zeros((2, 3)))
    assert init.Zeros()((2,), dtype=tf.int32).dtype == tf.int32
    np.testing.assert_array_equal(_np(init.Ones()((4,))), np.ones(4))
    np.testing.assert_array_equal(_np(init.Constant(2.5)((2, 2))), np.full((2, 2), 2.5))
    np.testing.assert_array_equal(_np(init.Constant([1.0, 2.0])((3, 2))), [[1, 2]] * 3)
    np.testing.assert_array_equal(_np(init.Identity(gain=3.0)((2, 3))), 3 * np.eye(2, 3))
    with pytest.raises(ValueError, match="2D"):
        init.Identity()((2, 2, 2))


@pytest.mark.parametrize("shape", [(6, 4), (4, 6), (3, 2, 5)])
def test_orthogonal(shape):
    w = _np(init.Orthogonal(gain=2.0, seed=4)(shape))
    assert w.shape == shape
    flat = w.reshape(-1, shape[-1])
    gram = flat.T @ flat if flat.shape[0] >= flat.shape[1] else flat @ flat.T
    np.testing.assert_allclose(gram, 4.0 * np.eye(gram.shape[0]), atol=1e-5)


def test_config_round_trip_and_get():
    vs = init.VarianceScaling(scale=2.0, mode="fan_avg", distribution="uniform", seed=5)
    again = init.VarianceScaling.from_config(vs.get_config())
    np.testing.assert_array_equal(_np(vs((3, 4))), _np(again((3, 4))))
    assert init.GlorotUniform(seed=2).get_config() == {"seed": 2}
    assert init.RandomNormal().get_config() == {"mean": 0.0, "stddev": 0.05, "seed": None}
    assert isinstance(init.get("glorot_uniform"), init.GlorotUniform)
    assert isinstance(init.get("he_normal"), init.HeNormal)
    assert isinstance(init.get("zeros"), init.Zeros)
    assert isinstance(init.get("Ones"), init.Ones)
    assert isinstance(init.get(init.serialize(vs)), init.VarianceScaling)
    assert init.get(None) is None
    with pytest.raises(ValueError, match="bogus"):
        init.get("bogus")


def test_tf_core_aliases():
    assert set(init.TF_ALIASES) >= {"random_normal_initializer", "zeros_initializer", "ones_initializer",
                                     "random_uniform_initializer", "constant_initializer",
                                     "glorot_uniform_initializer"}
    np.testing.assert_array_equal(_np(init.constant_initializer(3)((2,))), [3.0, 3.0])
    np.testing.assert_array_equal(_np(init.zeros_initializer()((2,))), [0.0, 0.0])
    w = _np(init.random_normal_initializer(mean=0.0, stddev=1.0, seed=2)((100, 100)))
    np.testing.assert_allclose(w.std(), 1.0, rtol=0.03)
    assert isinstance(init.glorot_uniform_initializer(), init.GlorotUniform)


def test_usable_as_variable_initial_value():
    v = tf.Variable(init.GlorotUniform(seed=0)((4, 3)))
    assert v.shape == (4, 3)
    limit = math.sqrt(6 / 7)
    assert np.abs(_np(v)).max() <= limit


def test_tf_constant_initializer_takes_its_dtype_from_the_value():
    """tf.constant_initializer infers the dtype as tf.constant does; Keras' Constant is float32."""
    assert tf.constant_initializer(3)([2]).dtype == tf.int32
    assert tf.constant_initializer(3.0)([2]).dtype == tf.float32
    assert tf.constant_initializer([1, 2])([2]).numpy().tolist() == [1, 2]
    assert tf.constant_initializer(3)([2], dtype=tf.float64).dtype == tf.float64
    assert tf.keras.initializers.Constant(3)([2]).dtype == tf.float32
