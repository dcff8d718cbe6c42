"""Tests for minitf/ops/random.py: distributions, TF's seed rules, stateless ops and Generator."""
import numpy as np
import pytest

import minitf as tf


@pytest.fixture(autouse=True)
def _reset_seed():
    yield
    tf.random.set_seed(None)


def test_global_seed_gives_a_reproducible_sequence_of_different_values():
    tf.random.set_seed(42)
    a1, a2 = tf.random.normal([5]).numpy(), tf.random.normal([5]).numpy()
    assert not np.array_equal(a1, a2)
    tf.random.set_seed(42)
    b1, b2 = tf.random.normal([5]).numpy(), tf.random.normal([5]).numpy()
    np.testing.assert_array_equal(a1, b1)
    np.testing.assert_array_equal(a2, b2)
    tf.random.set_seed(43)
    assert not np.array_equal(tf.random.normal([5]).numpy(), a1)


def test_op_seed_rules():
    tf.random.set_seed(1)
    a1, a2 = tf.random.uniform([3], seed=7).numpy(), tf.random.uniform([3], seed=7).numpy()
    assert not np.array_equal(a1, a2)
    tf.random.set_seed(1)
    np.testing.assert_array_equal(tf.random.uniform([3], seed=7).numpy(), a1)
    # an op seed alone (no global seed) is reproducible too, from a fixed default global seed
    tf.random.set_seed(None)
    c1 = tf.random.uniform([3], seed=7).numpy()
    tf.random.set_seed(None)
    np.testing.assert_array_equal(tf.random.uniform([3], seed=7).numpy(), c1)


def test_unseeded_draws_differ():
    assert not np.array_equal(tf.random.normal([8]).numpy(), tf.random.normal([8]).numpy())


def test_normal_statistics_and_dtypes():
    tf.random.set_seed(0)
    x = tf.random.normal([20000], mean=3.0, stddev=2.0)
    assert x.dtype == tf.float32 and x.shape == [20000]
    assert abs(float(np.mean(x.numpy())) - 3.0) < 0.05
    assert abs(float(np.std(x.numpy())) - 2.0) < 0.05
    assert tf.random.normal([2], dtype=tf.float64).dtype == tf.float64
    with pytest.raises(TypeError):  # TF fails converting mean=0.0 to int32
        tf.random.normal([2], dtype=tf.int32)
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.random.normal([2], mean=0, stddev=1, dtype=tf.int32)
    with pytest.raises(TypeError):
        tf.random.truncated_normal([2], dtype=tf.int32)
    with pytest.raises(TypeError):
        tf.random.uniform([2], minval=-1.0, maxval=1, dtype=tf.int32)


def test_uniform_float_and_int():
    tf.random.set_seed(0)
    u = tf.random.uniform([10000], minval=-2.0, maxval=3.0).numpy()
    assert u.min() >= -2.0 and u.max() < 3.0 and abs(u.mean() - 0.5) < 0.1
    i = tf.random.uniform([10000], minval=2, maxval=5, dtype=tf.int32)
    assert i.dtype == tf.int32
    assert set(np.unique(i.numpy()).tolist()) == {2, 3, 4}
    with pytest.raises(ValueError, match="maxval"):
        tf.random.uniform([2], dtype=tf.int32)
    with pytest.raises(tf.errors.InvalidArgumentError, match="minval < maxval"):
        tf.random.uniform([2], minval=5, maxval=5, dtype=tf.int64)


def test_truncated_normal_stays_within_two_stddev():
    tf.random.set_seed(0)
    x = tf.random.truncated_normal([20000], mean=1.0, stddev=0.5).numpy()
    assert x.min() >= 0.0 and x.max() <= 2.0
    assert abs(x.std() - 0.5 * 0.8796) < 0.02  # std of a normal truncated at +-2 sigma


def test_categorical_follows_probabilities():
    tf.random.set_seed(0)
    logits = tf.math.log(tf.constant([[0.2, 0.8, 0.0], [1.0, 0.0, 0.0]]) + 1e-30)
    s = tf.random.categorical(logits, 4000)
    assert s.dtype == tf.int64 and s.shape == [2, 4000]
    row0 = s.numpy()[0]
    assert abs((row0 == 1).mean() - 0.8) < 0.03 and not (row0 == 2).any()
    assert (s.numpy()[1] == 0).all()
    assert tf.random.categorical(logits, 3, dtype=tf.int32).dtype == tf.int32


def test_shuffle_permutes_first_dimension():
    x = tf.reshape(tf.range(20), [10, 2]) if hasattr(tf, "range") else tf.constant(np.arange(20).reshape(10, 2))
    y = tf.random.shuffle(x, seed=3).numpy()
    assert sorted(y[:, 0].tolist()) == list(range(0, 20, 2))
    np.testing.assert_array_equal(y[:, 1] - y[:, 0], 1)  # rows move whole


def test_stateless_ops_depend_only_on_seed():
    a = tf.random.stateless_normal([4], seed=[1, 2]).numpy()
    tf.random.normal([3])  # stateful draws do not disturb stateless ones
    np.testing.assert_array_equal(tf.random.stateless_normal([4], seed=[1, 2]).numpy(), a)
    assert not np.array_equal(tf.random.stateless_normal([4], seed=[1, 3]).numpy(), a)
    u = tf.random.stateless_uniform([100], seed=tf.constant([5, 6]), minval=0, maxval=10, dtype=tf.int32)
    assert u.numpy().min() >= 0 and u.numpy().max() < 10
    t = tf.random.stateless_truncated_normal([500], seed=[1, 1]).numpy()
    assert np.abs(t).max() <= 2
    with pytest.raises(ValueError, match="seed"):
        tf.random.stateless_normal([2], seed=[1, 2, 3])


def test_random_ops_are_constants_for_the_tape():
    x = tf.constant([1.0, 2.0])
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        noise = tf.random.normal([2])
        y = x * noise
        z = tf.random.normal([2], mean=tf.reduce_sum(x))  # the draw itself records nothing
    np.testing.assert_array_equal(tape.gradient(y, x).numpy(), noise.numpy())
    assert tape.gradient(z, x) is None


def test_generator_from_seed_is_reproducible_and_advances():
    g1, g2 = tf.random.Generator.from_seed(1234), tf.random.Generator.from_seed(1234)
    a = g1.normal([3]).numpy()
    np.testing.assert_array_equal(g2.normal([3]).numpy(), a)
    assert not np.array_equal(g1.normal([3]).numpy(), a)
    assert g1.state.dtype == tf.int64 and g1.state.shape == [3]
    assert not g1.state.trainable
    u = g1.uniform([1000], minval=1, maxval=4, dtype=tf.int64).numpy()
    assert set(np.unique(u).tolist()) == {1, 2, 3}
    with pytest.raises(ValueError, match="maxval"):
        g1.uniform([2], dtype=tf.int32)
    assert np.abs(g1.truncated_normal([1000]).numpy()).max() <= 2


def test_generator_state_restores_the_exact_stream():
    g = tf.random.Generator.from_seed(7)
    g.normal([2])
    saved = g.state.numpy().copy()
    expected = g.uniform([5]).numpy()
    g.normal([10])
    g.state.assign(saved)
    np.testing.assert_array_equal(g.uniform([5]).numpy(), expected)
    copy = tf.random.Generator(copy_from=g)
    np.testing.assert_array_equal(copy.normal([4]).numpy(), g.normal([4]).numpy())
    deps = g._checkpoint_dependencies()
    assert deps[0][0] == "state" and deps[0][1] is g.state
    assert isinstance(g, tf.trackable.Trackable) if hasattr(tf, "trackable") else True


def test_generator_split_and_make_seeds():
    g = tf.random.Generator.from_seed(0)
    seeds = g.make_seeds(3)
    assert seeds.shape == [2, 3] and seeds.dtype == tf.int64
    children = g.split(2)
    assert len(children) == 2
    a, b = children[0].normal([4]).numpy(), children[1].normal([4]).numpy()
    assert not np.array_equal(a, b)
    again = tf.random.Generator.from_seed(0)
    again.make_seeds(3)
    np.testing.assert_array_equal(again.split(2)[0].normal([4]).numpy(), a)


def test_non_deterministic_and_global_generators():
    a = tf.random.Generator.from_non_deterministic_state().normal([4]).numpy()
    b = tf.random.Generator.from_non_deterministic_state().normal([4]).numpy()
    assert not np.array_equal(a, b)
    g = tf.random.Generator.from_seed(3)
    tf.random.set_global_generator(g)
    assert tf.random.get_global_generator() is g
    with pytest.raises(TypeError):
        tf.random.set_global_generator("not a generator")


def test_generator_checkpoint_round_trip(tmp_path):
    train = pytest.importorskip("minitf.train")
    g = tf.random.Generator.from_seed(5)
    g.normal([3])
    path = train.Checkpoint(gen=g).save(str(tmp_path / "ckpt"))
    expected = g.normal([4]).numpy()
    other = tf.random.Generator.from_seed(99)
    train.Checkpoint(gen=other).restore(path)
    np.testing.assert_array_equal(other.normal([4]).numpy(), expected)


def test_stateless_seed_errors_follow_tf():
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"shape \[2\]"):
        tf.random.stateless_normal([4], [1])
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"shape \[2\]"):
        tf.random.stateless_uniform([4], [1, 2, 3])
    with pytest.raises(tf.errors.InvalidArgumentError, match="Tseed"):
        tf.random.stateless_uniform([4], [1.0, 2.0])
