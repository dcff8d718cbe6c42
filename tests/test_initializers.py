"""Keras initializers: statistics, seeding, fan computation, configs and lookup."""
import math

import numpy as np
import pytest

import minitf as tf
from minitf.initializers import initializers as init


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
    with pytest.raises(TypeError):  # Keras: 'Cannot convert 0.0 to EagerTensor of dtype int32'
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
    assert init.GlorotUniform(seed=2).get_config() == {"seed": 2, "input_axes": None, "output_axes": None}
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


def test_constant_broadcasts_value_like_keras():
    # Keras 3: cast(value, dtype) * ones(shape)
    v = [1.0, 2.0, 3.0]
    np.testing.assert_array_equal(init.Constant(v)((2, 3)).numpy(), [v, v])
    assert init.Constant(v)(()).shape == (3,)  # shape () gives the value's shape
    assert init.Constant(v)((0, 3)).shape == (0, 3)
    np.testing.assert_array_equal(init.Constant(v)((3,), dtype="int32").numpy(), [1, 2, 3])
    assert init.Constant(2.5)((2,), dtype="int32").numpy().tolist() == [2, 2]
    assert init.Constant(v)((), dtype="float16").dtype == tf.float16
    for bad in ((4, 4), (3, 2)):
        with pytest.raises(tf.errors.InvalidArgumentError, match="Incompatible shapes"):
            init.Constant(v)(bad)


_NORMAL_FAMILY = [init.RandomNormal, init.TruncatedNormal, init.GlorotNormal, init.HeNormal,
                  init.LecunNormal, init.Orthogonal]


@pytest.mark.parametrize("cls", _NORMAL_FAMILY + [
    lambda: init.VarianceScaling(distribution="untruncated_normal")])
def test_normal_initializers_reject_int_dtype_with_type_error(cls):
    with pytest.raises(TypeError, match="dtype int32"):
        cls()((3, 3), dtype="int32")


def test_identity_and_orthogonal_int_dtype_check_rank_first():
    with pytest.raises(TypeError, match="Cannot convert 1.0"):
        init.Identity()((3, 3), dtype="int32")
    with pytest.raises(ValueError, match="2D"):
        init.Identity()((3,), dtype="int32")
    with pytest.raises(ValueError, match="rank"):
        init.Orthogonal()((3,), dtype="int32")


@pytest.mark.parametrize("cls", [init.GlorotUniform, init.HeUniform, init.LecunUniform])
def test_uniform_family_in_int_dtype_truncates_the_bounds(cls):
    # small fans: the limit is >= 1, so Keras draws integers in [int(-limit), int(limit))
    w = cls(seed=1)((3, 3), dtype="int32")
    assert w.dtype == tf.int32 and w.shape == (3, 3)
    assert set(np.unique(w.numpy())) <= {-2, -1, 0, 1}
    # large fans: both bounds truncate to 0 and TF's op refuses them
    with pytest.raises(tf.errors.InvalidArgumentError, match="minval < maxval"):
        cls(seed=1)((40, 30), dtype="int32")


def test_random_uniform_int_dtype():
    with pytest.raises(tf.errors.InvalidArgumentError, match="minval < maxval"):
        init.RandomUniform()((3,), dtype="int32")  # +-0.05 truncates to 0, 0
    assert init.RandomUniform()((0, 4), dtype="int32").shape == (0, 4)  # empty: no check
    w = init.RandomUniform(-3.0, 3.0, seed=2)((50,), dtype="int32")
    assert w.dtype == tf.int32 and w.numpy().min() >= -3 and w.numpy().max() < 3


def test_serialize_has_keras3_module_and_registered_name():
    assert init.serialize(init.Ones()) == {"module": "keras.initializers", "class_name": "Ones",
                                           "config": {}, "registered_name": None}
    config = init.serialize(init.Constant(2.0))
    assert config["module"] == "keras.initializers" and config["registered_name"] is None
    assert init.deserialize(config)((2,)).numpy().tolist() == [2.0, 2.0]

    class Filled(init.Initializer):
        def __call__(self, shape, dtype=None):
            return tf.ones(shape)

    custom = init.serialize(Filled())
    assert custom["registered_name"] == "Filled" and custom["module"] == __name__


def test_variance_scaling_fan_axes_in_config_and_fans():
    assert init.GlorotUniform(seed=3).get_config() == {"seed": 3, "input_axes": None,
                                                       "output_axes": None}
    config = init.VarianceScaling(scale=2.0, mode="fan_out", distribution="uniform").get_config()
    assert config["input_axes"] is None and config["output_axes"] is None
    assert init.compute_fans((2, 3, 4), input_axes=[0], output_axes=[1, 2]) == (2, 12)
    # fan_in from axis 0 only (4), not the conv rule (3 * 4 = 12)
    w = init.VarianceScaling(mode="fan_in", distribution="uniform", seed=1,
                             input_axes=[0], output_axes=[1])((4, 3, 500)).numpy()
    assert np.abs(w).max() <= math.sqrt(3.0 / 4) and np.abs(w).max() > 0.9 * math.sqrt(3.0 / 4)


def test_keras_seeding_rules():
    """An int seed repeats its values on every call; an unseeded initializer takes its seed from
    Python's `random` when built (so set_random_seed repeats it) and reports None in its config;
    a SeedGenerator seed gives new values on each call."""
    seeded = tf.keras.initializers.GlorotUniform(seed=5)
    assert np.array_equal(seeded((3, 4)).numpy(), seeded((3, 4)).numpy())
    tf.keras.utils.set_random_seed(9)
    first = tf.keras.initializers.RandomNormal()
    tf.keras.utils.set_random_seed(9)
    second = tf.keras.initializers.RandomNormal()
    assert first.seed == second.seed and np.array_equal(first((4,)).numpy(), second((4,)).numpy())
    assert first.get_config()["seed"] is None and seeded.get_config()["seed"] == 5
    generator = tf.keras.random.SeedGenerator(3)
    drawing = tf.keras.initializers.RandomUniform(seed=generator)
    assert not np.array_equal(drawing((5,)).numpy(), drawing((5,)).numpy())
    with pytest.raises(ValueError, match="SeedGenerator"):
        tf.keras.initializers.HeNormal(seed="7")
