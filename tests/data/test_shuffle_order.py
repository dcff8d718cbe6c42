"""Dataset.shuffle's order mechanics (TF's, see minitf.data.shuffle_order): permutations,
seeded reproducibility, one seed-sequence index per iteration, probes that use none, and exact
resumption from a checkpoint. The orders themselves are compared with TF 2.21 in
tests/parity/test_shuffle_order_parity.py."""

import minitf as tf
from minitf.data import shuffle_order
from minitf.ops import philox


def _ints(dataset):
    return [int(v) for v in dataset]


def test_seed_sequence_pairs_are_consecutive_generator_samples():
    draws = shuffle_order.Draws(87654321, 42)
    samples = [draws() for _ in range(10)]
    for k in range(5):
        assert shuffle_order.iteration_seeds(87654321, 42, k) == (samples[2 * k], samples[2 * k + 1])
    first_block = philox.blocks(87654321, (0, 42), 1)[0].tolist()
    assert samples[:4] == first_block


def test_draws_cross_batch_boundaries_in_stream_order():
    draws = shuffle_order.Draws(5, 6)
    got = [draws() for _ in range(16 * 4 + 32 * 4 + 3)]  # two refills, into the third batch
    assert got == philox.blocks(5, (0, 6), 16 + 32 + 1).reshape(-1).tolist()[:len(got)]


def test_pack_round_trips_within_int64():
    for pair in [(0, 0), (2**31 - 1, 2**32 - 1), (87654321, 42)]:
        packed = shuffle_order.pack(*pair)
        assert 0 <= packed < 2**63 and shuffle_order.unpack(packed) == pair


def test_each_iteration_is_a_permutation_and_reshuffles():
    ds = tf.data.Dataset.range(50).shuffle(50, seed=3)
    first, second = _ints(ds), _ints(ds)
    assert sorted(first) == sorted(second) == list(range(50)) and first != second
    again = tf.data.Dataset.range(50).shuffle(50, seed=3)
    assert _ints(again) == first  # the same seeds, a new dataset: the sequence starts over


def test_small_buffer_only_mixes_nearby_elements():
    order = _ints(tf.data.Dataset.range(200).shuffle(5, seed=1))
    assert sorted(order) == list(range(200))
    assert all(v <= i + 4 for i, v in enumerate(order))  # at most buffer_size - 1 ahead


def test_fixed_seed_repeats_one_order():
    ds = tf.data.Dataset.range(9).shuffle(9, seed=8, reshuffle_each_iteration=False)
    assert _ints(ds) == _ints(ds) == _ints(ds.repeat(2))[:9] == _ints(ds.repeat(2))[9:]


def test_element_spec_probes_use_no_index():
    ds = tf.data.Dataset.range(6).shuffle(6, seed=2)
    reference = _ints(tf.data.Dataset.range(6).shuffle(6, seed=2))
    mapped = ds.map(lambda x: x * 2)
    mapped.element_spec  # noqa: B018 (a probe)
    assert _ints(ds) == reference


def test_checkpointed_iterator_resumes_the_same_order(tmp_path):
    ds = tf.data.Dataset.range(40).shuffle(16, seed=5).repeat(2)
    reference = _ints(tf.data.Dataset.range(40).shuffle(16, seed=5).repeat(2))
    it = iter(ds)
    head = [int(next(it)) for _ in range(45)]  # into the second epoch
    path = tf.train.Checkpoint(iterator=it).save(str(tmp_path / "ckpt"))
    rest = [int(v) for v in it]
    assert head + rest == reference
    it2 = iter(ds)
    tf.train.Checkpoint(iterator=it2).restore(path)
    assert [int(v) for v in it2] == rest
