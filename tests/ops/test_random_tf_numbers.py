"""minitf's random numbers equal TensorFlow 2.21's: Philox known answers, and bit patterns pinned
from TF for stateless ops, Generator, seed splitting and the seeded stateful ops."""
import numpy as np
import pytest

import minitf as tf
from minitf.ops import philox


@pytest.fixture(autouse=True)
def _reset_seed():
    yield
    tf.random.set_seed(None)


def bits(x):
    a = np.asarray(x.numpy())
    return a.view(f"u{a.itemsize}").tolist() if a.dtype.kind == "f" else a.tolist()


def _words(*values):
    return [np.array([v], dtype=np.uint32) for v in values]


@pytest.mark.parametrize("key, counter, expected", [  # Random123's known answers for Philox4x32-10
    (0, (0, 0, 0, 0), (0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8)),
    ((1 << 64) - 1, (0xFFFFFFFF,) * 4, (0x408F276D, 0x41C83B0E, 0xA20BC7C6, 0x6D5451FD)),
    (0x299F31D0A4093822, (0x243F6A88, 0x85A308D3, 0x13198A2E, 0x03707344),
     (0xD16CFE09, 0x94FDCCEB, 0x5001E420, 0x24126EA1)),
])
def test_philox_known_answers(key, counter, expected):
    assert tuple(int(w[0]) for w in philox.philox(key, _words(*counter))) == expected


def test_counter_blocks_carry_into_the_high_word():
    words = philox.counters(((1 << 64) - 2, 5), 3)
    assert [(int(w[0]), int(w[1]), int(w[2]), int(w[3])) for w in zip(*words)] == [
        (0xFFFFFFFE, 0xFFFFFFFF, 5, 0), (0xFFFFFFFF, 0xFFFFFFFF, 5, 0), (0, 0, 6, 0)]
    assert philox.skip(((1 << 64) - 1, 0), 1) == (0, 1)


def test_stateless_ops_give_tf_numbers():
    assert bits(tf.random.stateless_normal([2, 3], seed=[1, 2])) == [
        [1057704653, 1045715841, 1033283812], [1027486248, 3215366783, 3212062705]]
    assert bits(tf.random.stateless_normal([3], seed=[1, 2], dtype=tf.float64)) == [
        13817667380461884307, 4604846016580931118, 13832666858564119687]
    assert bits(tf.random.stateless_uniform([5], seed=[3, 4], dtype=tf.float16)) == [8576, 15122, 14660, 12920, 14108]
    assert bits(tf.random.stateless_truncated_normal([5], seed=[3, 4])) == [
        3190954934, 1070993336, 1051870044, 3218741527, 1059288572]
    logits = tf.math.log(tf.constant([[0.2, 0.3, 0.5]]))
    assert tf.random.stateless_categorical(logits, 8, seed=[1, 2]).numpy().tolist() == [[2, 2, 0, 2, 2, 2, 2, 1]]


def test_seed_tools_give_tf_numbers():  # the values in TF's docstrings
    assert tf.random.split([1, 2], 3).numpy().tolist() == [
        [1105988140, 1738052849], [-335576002, 370444179], [10670227, -246211131]]
    assert tf.random.experimental.stateless_split is tf.random.split
    assert tf.random.fold_in([1, 2], 3).numpy().tolist() == [1105988140, 3]
    assert tf.random.experimental.stateless_fold_in is tf.random.fold_in
    shuffled = tf.random.experimental.index_shuffle(tf.range(10), [5, 8], 9)
    assert shuffled.numpy().tolist() == [3, 8, 0, 1, 2, 7, 6, 9, 4, 5] and shuffled.dtype == tf.int32
    assert tf.random.experimental.index_shuffle(tf.range(4), seed=[5, 9], max_index=3).numpy().tolist() == [2, 0, 1, 3]
    assert int(tf.random.experimental.index_shuffle(3, [5, 8], 100000)) == 8374
    with pytest.raises(tf.errors.InvalidArgumentError, match="Seed must be"):
        tf.random.experimental.index_shuffle(tf.range(2), [[1, 2], [3, 4]], 5)


def test_generator_gives_tf_numbers_and_states():
    g = tf.random.Generator.from_seed(1)
    assert bits(g.normal([2, 3])) == [[1054898418, 3205025366, 3181242362], [1070099529, 3184481289, 3196881651]]
    assert g.state.numpy().tolist() == [1537, 0, 0]  # counter 1 + 6 values * 256 blocks
    assert bits(g.truncated_normal([3])) == [3202755985, 1070571575, 3215936293]
    assert g.uniform([2], maxval=100, dtype=tf.int32).numpy().tolist() == [24, 31]
    assert g.state.numpy().tolist() == [2817, 0, 0]
    g = tf.random.Generator.from_seed(5)
    assert g.make_seeds(2).numpy().tolist() == [[511886651086640123, 6557199171514225562], [0, 0]]
    assert [bits(c.normal([])) for c in g.split(2)] == [1075332058, 1065221790]


def test_generator_state_rules():
    assert tf.random.create_rng_state(1234, "philox").numpy().tolist() == [1234, 0, 0]
    assert tf.random.create_rng_state([12, 34], "philox").numpy().tolist() == [0, 12, 34]
    assert tf.random.create_rng_state(2 ** 70 + 5, 1).numpy().tolist() == [5, 64, 0]
    assert tf.random.create_rng_state(1, "threefry").numpy().tolist() == [1, 0]
    g = tf.random.Generator.from_seed(1)
    assert g.skip(5).numpy().tolist() == [1, 0, 0] and g.state.numpy().tolist() == [1281, 0, 0]
    assert int(g.key) == 0
    g.reset_from_key_counter(7, [3, 4])
    assert g.state.numpy().tolist() == [3, 4, 7]
    with pytest.raises(ValueError, match="incompatible"):
        tf.random.Generator(state=[1, 2], alg="philox")
    with pytest.raises(ValueError, match="unsupported value"):
        tf.random.Generator.from_seed(1, alg="mersenne")
    with pytest.raises(tf.errors.UnimplementedError, match="ThreeFry"):
        tf.random.Generator.from_seed(1, alg="threefry").normal([2])
    assert [a.value for a in tf.random.Algorithm] == [1, 2, 3]
    assert tf.random.experimental.Algorithm is tf.random.Algorithm


def test_seeded_stateful_ops_give_tf_numbers():
    tf.random.set_seed(42)
    assert bits(tf.random.normal([3])) == [1051175412, 3210196563, 1050905808]
    assert bits(tf.random.normal([3])) == [1034714608, 3210503216, 1052875096]
    # an op seed keeps one stream per op and dtype: the second call continues it
    assert bits(tf.random.uniform([2], seed=5)) == [1020704704, 1054765776]
    assert bits(tf.random.uniform([2], seed=5)) == [1045337976, 1048685076]
    tf.random.set_seed(None)
    assert bits(tf.random.normal([2], seed=3)) == [1065870475, 3210799746]


def test_large_normal_draws_are_as_exact_as_small_ones():
    """With glibc's functions ported, a draw past the fallback's size limit rounds as glibc does
    too: its first values are those of a small draw from the same key and counter."""
    assert philox.ported_libm()
    n = philox.FALLBACK_EXACT_LIMIT + 4
    for kind in ("float32", "float64"):
        large = philox.normal(123, (0, 456), n, kind)
        small = philox.normal(123, (0, 456), 4096, kind)
        assert large[:4096].tobytes() == small.tobytes()
    truncated = philox.truncated_normal(7, (1, 2), n, "float32")
    assert truncated[:1000].tobytes() == philox.truncated_normal(7, (1, 2), 1000, "float32").tobytes()


def test_fallback_past_its_limit_stays_within_two_ulps_of_exact(monkeypatch):
    """Where the port does not match the libm, draws past `FALLBACK_EXACT_LIMIT` round numpy's
    float64 results: logf and sincosf each one ulp at most from glibc's, so two ulps at most."""
    exact = philox.normal(123, (0, 456), 4096, "float32")
    monkeypatch.setattr(philox, "_PORT_MATCHES_LIBM", False)
    assert philox.normal(123, (0, 456), 4096, "float32").tobytes() == exact.tobytes()
    fast = philox.normal(123, (0, 456), philox.FALLBACK_EXACT_LIMIT + 4, "float32")
    gap = np.abs(fast[:4096].view(np.int32).astype(np.int64) - exact.view(np.int32))
    assert gap.max() <= 2 and (gap == 0).mean() > 0.95 and gap.max() > 0


def test_binomial_gives_tf_numbers():
    assert tf.random.stateless_binomial([2], [123, 456], [10.0, 20.0], [0.8]).numpy().tolist() == [5, 16]
    draws = tf.random.stateless_binomial([4, 3], [1, 2], [3.0, 50.0, 1000.0], [0.3, 0.7, 0.01])
    assert draws.dtype == tf.int32
    assert draws.numpy().tolist() == [[3, 38, 6], [1, 32, 12], [2, 35, 10], [1, 35, 8]]
    g = tf.random.Generator.from_seed(234)
    assert g.binomial([2], counts=[10.0, 20.0], probs=[0.8]).numpy().tolist() == [8, 15]
    assert g.state.numpy().tolist() == [102634, 0, 0]
    with pytest.raises(tf.errors.InvalidArgumentError, match="must end with broadcasted shape"):
        tf.random.stateless_binomial([3], [1, 2], [10.0, 20.0], [0.8])


def test_poisson_gives_tf_numbers():
    draws = tf.random.stateless_poisson([3, 2], seed=[12, 34], lam=[5, 15])
    assert draws.dtype == tf.int32 and draws.numpy().tolist() == [[8, 8], [8, 18], [5, 19]]
    assert tf.random.stateless_poisson([2], seed=[1, 2], lam=[2.5, 400.0], dtype=tf.float32).numpy().tolist() == [
        4.0, 413.0]
    tf.random.set_seed(3)
    assert tf.random.poisson([2], [0.5, 12.0]).numpy().tolist() == [[1.0, 5.0], [0.0, 9.0]]
    with pytest.raises(tf.errors.InvalidArgumentError, match="must end with"):
        tf.random.stateless_poisson([3], seed=[1, 2], lam=[1.0, 2.0])


def test_shuffles_give_tf_order():
    tf.random.set_seed(5)
    assert tf.random.shuffle(tf.range(10)).numpy().tolist() == [0, 5, 2, 8, 1, 6, 7, 9, 4, 3]
    assert tf.random.experimental.stateless_shuffle(tf.range(10), seed=[1, 2]).numpy().tolist() == [
        0, 3, 8, 1, 5, 4, 9, 7, 6, 2]
    rows = tf.random.experimental.stateless_shuffle(tf.reshape(tf.range(8), [4, 2]), seed=[1, 2]).numpy()
    assert (rows[:, 1] - rows[:, 0] == 1).all()  # rows move whole
    assert tf.random.shuffle(tf.constant(3.0)).numpy() == 3.0
