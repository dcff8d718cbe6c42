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
    assert deps[0][0] == "_state_var" and deps[0][1] is g.state  # TF's checkpoint name
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
    tf.random.set_global_generator("not a generator")  # TF stores anything without a check
    assert tf.random.get_global_generator() == "not a generator"
    tf.random.set_global_generator(g)


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


# -- behaviour pinned against TF 2.21 (shapes, dtypes and error classes; values differ by design) --

@pytest.mark.parametrize("draw", [
    lambda shape: tf.random.normal(shape), lambda shape: tf.random.uniform(shape),
    lambda shape: tf.random.uniform(shape, maxval=3, dtype=tf.int32),
    lambda shape: tf.random.truncated_normal(shape),
    lambda shape: tf.random.stateless_uniform(shape, [1, 2]),
    lambda shape: tf.random.stateless_normal(shape, [1, 2]),
    lambda shape: tf.random.Generator.from_seed(1).normal(shape)])
def test_shape_argument_checked_as_tf_kernels(draw):
    for bad in (3, [-1, 3], [[2, 3]], [2.0, 3.0], [True]):
        with pytest.raises(tf.errors.InvalidArgumentError):
            draw(bad)
    for good in ([], (2,), np.array([2, 3]), tf.constant([2, 3], tf.int64), tf.TensorShape([2, 3])):
        assert draw(good).shape == tuple(int(d) for d in np.asarray(good).reshape(-1)) or np.size(good) == 0


def test_normal_dtype_and_parameter_rules():
    # mean is converted to dtype first (TypeError), then the kernel wants a float dtype
    for dtype in (tf.int32, tf.bool):
        with pytest.raises(TypeError, match="Cannot convert 0.0"):
            tf.random.normal([2], dtype=dtype)
    for fn in (tf.random.truncated_normal, lambda s, **k: tf.random.stateless_normal(s, [1, 2], **k),
               tf.random.Generator.from_seed(1).normal):
        with pytest.raises(TypeError):
            fn([2], dtype=tf.int32)
    with pytest.raises(tf.errors.InvalidArgumentError, match="attr 'dtype' of int32"):
        tf.random.normal([2], mean=0, stddev=1, dtype=tf.int32)
    with pytest.raises(tf.errors.InvalidArgumentError, match="complex64"):
        tf.random.normal([2], dtype=tf.complex64)
    with pytest.raises(ValueError, match="float64"):
        tf.random.normal([2], mean=tf.constant(1.0, tf.float64))
    # mean/stddev broadcast against the shape like TF's Mul/AddV2
    assert tf.random.normal([2, 3], mean=[1.0, 2.0, 3.0]).shape == (2, 3)
    assert tf.random.normal([3], stddev=[[1.0], [2.0]]).shape == (2, 3)
    with pytest.raises(tf.errors.InvalidArgumentError, match="Incompatible shapes"):
        tf.random.normal([2, 3], mean=[1.0, 2.0])
    assert tf.random.normal([2], dtype=tf.float16).dtype == tf.float16


def test_uniform_dtype_and_bound_rules():
    for dtype in (tf.int16, tf.uint8, tf.bool, tf.complex64):
        with pytest.raises(ValueError, match="Accepted dtypes"):
            tf.random.uniform([2], maxval=5, dtype=dtype)
    with pytest.raises(ValueError, match="Must specify maxval"):
        tf.random.uniform([2], dtype=tf.int64)
    with pytest.raises(TypeError, match="Cannot convert 5.0"):
        tf.random.uniform([2], maxval=5.0, dtype=tf.int32)
    with pytest.raises(ValueError, match="int64"):
        tf.random.uniform([2], maxval=tf.constant(2, tf.int64), dtype=tf.int32)
    with pytest.raises(ValueError, match="float64"):
        tf.random.uniform([2], maxval=tf.constant(2.0, tf.float64))
    with pytest.raises(tf.errors.InvalidArgumentError, match="0-D"):
        tf.random.uniform([2], maxval=[5, 6], dtype=tf.int32)  # integer bounds do not broadcast
    with pytest.raises(tf.errors.InvalidArgumentError, match="minval < maxval"):
        tf.random.uniform([2], minval=5, maxval=5, dtype=tf.int32)
    assert tf.random.uniform([0], minval=5, maxval=5, dtype=tf.int32).shape == (0,)  # empty: no check
    assert tf.random.uniform([2], minval=0.0, maxval=[5.0, 6.0]).shape == (2,)  # float bounds broadcast
    assert tf.random.uniform([2], dtype=tf.float16).dtype == tf.float16


def test_stateless_uniform_rules():
    su = tf.random.stateless_uniform
    with pytest.raises(ValueError, match="both None or not None"):
        su([2], [1, 2], dtype=tf.int32)
    for dtype in (tf.int32, tf.uint32, tf.int64, tf.uint64):  # no bounds: the full range
        assert su([2], [1, 2], minval=None, maxval=None, dtype=dtype).dtype == dtype
    with pytest.raises(ValueError, match="unsigned"):
        su([2], [1, 2], minval=0, maxval=5, dtype=tf.uint32)
    for dtype in (tf.uint8, tf.int16):
        with pytest.raises(ValueError, match="Accepted dtypes"):
            su([2], [1, 2], maxval=5, dtype=dtype)
    with pytest.raises(tf.errors.InvalidArgumentError, match="minval < maxval"):
        su([2], [1, 2], minval=5, maxval=5, dtype=tf.int32)
    with pytest.raises(tf.errors.InvalidArgumentError, match="Tseed"):
        su([2], tf.constant([1, 2], tf.uint8))
    assert su([2], tf.constant([1, 2], tf.int32)).shape == (2,)


def test_categorical_rules():
    logits = tf.zeros((2, 3))
    assert tf.random.categorical(logits, 4, dtype=tf.int32).dtype == tf.int32
    for dtype in (tf.float32, tf.int16):
        with pytest.raises(ValueError, match="Accepted dtypes"):
            tf.random.categorical(logits, 4, dtype=dtype)
    with pytest.raises(tf.errors.NotFoundError):
        tf.random.categorical(tf.zeros((2, 3), tf.int32), 4)
    assert tf.random.categorical(tf.zeros((2, 3), tf.float16), 4).shape == (2, 4)
    with pytest.raises(TypeError, match="Cannot convert 2.0"):
        tf.random.categorical(logits, 2.0)
    for bad_logits, n in ((tf.zeros((3,)), 2), (tf.zeros((2, 0)), 2), (logits, -1)):
        with pytest.raises(tf.errors.InvalidArgumentError):
            tf.random.categorical(bad_logits, n)
    assert tf.random.categorical(tf.zeros((0, 3)), 2).shape == (0, 2)


def test_generator_rules_as_tf():
    g = tf.random.Generator.from_seed(1)
    assert g.algorithm == 1  # TF's id for Philox
    with pytest.raises(ValueError, match="both `None`"):
        g.uniform([2], dtype=tf.int32)
    assert g.uniform([2], minval=None, maxval=None, dtype=tf.int32).dtype == tf.int32
    with pytest.raises(tf.errors.InvalidArgumentError, match="int16"):
        g.uniform([2], maxval=4, dtype=tf.int16)
    with pytest.raises(tf.errors.NotFoundError):
        g.uniform([2], maxval=4, dtype=tf.uint32)
    with pytest.raises(TypeError, match="Cannot convert 0"):
        g.uniform([2], dtype=tf.bool)
    assert g.uniform([2], dtype=tf.float64).dtype == tf.float64
    assert g.uniform_full_int([2], dtype=tf.uint32).dtype == tf.uint32
    for dtype in (tf.int16, tf.float32):
        with pytest.raises(tf.errors.InvalidArgumentError):
            g.uniform_full_int([2], dtype=dtype)
    b = g.binomial([3, 2], counts=[10.0, 5.0], probs=[0.5, 1.0])
    assert b.dtype == tf.int32 and b.shape == (3, 2)
    assert (b.numpy()[:, 1] == 5).all() and ((b.numpy() >= 0) & (b.numpy() <= 10)).all()



def test_generator_draws_anew_each_time_a_traced_function_runs():
    """Inside tf.function a Generator's draw is a stateful node: every call draws and advances
    the state (tracing draws nothing), whether the generator was made outside the function or
    by its first trace, as in TF's random-numbers guide."""
    outside = tf.random.Generator.from_seed(1)

    @tf.function
    def draw():
        return outside.normal([]), outside.uniform([2], maxval=10, dtype=tf.int32), outside.make_seeds(3)

    eager = tf.random.Generator.from_seed(1)
    for _ in range(3):
        got = draw()
        want = (eager.normal([]), eager.uniform([2], maxval=10, dtype=tf.int32), eager.make_seeds(3))
        for g, w in zip(got, want):
            assert g.dtype == w.dtype and g.shape == w.shape and np.array_equal(g.numpy(), w.numpy())
    assert outside.state.numpy().tolist() == eager.state.numpy().tolist()
    made = []

    @tf.function
    def lazily():
        if not made:
            made.append(tf.random.Generator.from_seed(1))
        return made[0].normal([])

    first, second = float(lazily()), float(lazily())
    reference = tf.random.Generator.from_seed(1)
    assert [first, second] == [float(reference.normal([])), float(reference.normal([]))]
    assert draw.get_concrete_function().structured_outputs[2].shape == (2, 3)
