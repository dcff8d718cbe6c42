"""pad_sequences, timeseries_dataset_from_array and set_random_seed."""
import random

import numpy as np
import pytest

import minitf as tf


def test_pad_sequences_pads_and_truncates_at_either_end():
    seqs = [[1, 2, 3], [4], [5, 6, 7, 8]]
    np.testing.assert_array_equal(tf.keras.utils.pad_sequences(seqs),
                                  [[0, 1, 2, 3], [0, 0, 0, 4], [5, 6, 7, 8]])
    np.testing.assert_array_equal(tf.keras.utils.pad_sequences(seqs, maxlen=2, padding="post", truncating="post",
                                                               value=-1),
                                  [[1, 2], [4, -1], [5, 6]])
    np.testing.assert_array_equal(tf.keras.utils.pad_sequences(seqs, maxlen=2), [[2, 3], [0, 4], [7, 8]])
    out = tf.keras.preprocessing.sequence.pad_sequences([[0.5], []], dtype="float32", maxlen=3, value=9)
    assert out.dtype == np.float32
    np.testing.assert_array_equal(out, [[9, 9, 0.5], [9, 9, 9]])


def test_pad_sequences_of_vectors_and_errors():
    out = tf.keras.utils.pad_sequences([np.ones((1, 2)), np.zeros((3, 2)) + 2], padding="post")
    assert out.shape == (2, 3, 2)
    np.testing.assert_array_equal(out[0], [[1, 1], [0, 0], [0, 0]])
    with pytest.raises(ValueError, match="different from expected shape"):
        tf.keras.utils.pad_sequences([np.ones((1, 2)), np.ones((1, 3))])
    with pytest.raises(ValueError, match="non-iterable"):
        tf.keras.utils.pad_sequences([[1], 5])
    with pytest.raises(ValueError, match="dtype=object"):
        tf.keras.utils.pad_sequences([["a"]], value="x")
    with pytest.raises(ValueError, match="Padding type"):
        tf.keras.utils.pad_sequences([[1]], padding="middle")
    with pytest.raises(ValueError, match="Truncating type"):
        tf.keras.utils.pad_sequences([[1]], truncating="middle")


def _all(ds):
    return [tuple(np.asarray(part) for part in (e if isinstance(e, tuple) else (e,))) for e in ds]


def test_timeseries_windows_and_targets():
    data = np.arange(10)
    ds = tf.keras.utils.timeseries_dataset_from_array(data, data[3:], sequence_length=3, batch_size=4)
    batches = _all(ds)
    np.testing.assert_array_equal(batches[0][0], [[0, 1, 2], [1, 2, 3], [2, 3, 4], [3, 4, 5]])
    np.testing.assert_array_equal(batches[0][1], [3, 4, 5, 6])
    assert sum(len(b[1]) for b in batches) == 7  # windows whose target exists
    strided = _all(tf.keras.utils.timeseries_dataset_from_array(data, None, sequence_length=2, sequence_stride=3,
                                                                sampling_rate=2, batch_size=None))
    np.testing.assert_array_equal([w[0] for w in strided], [[0, 2], [3, 5], [6, 8]])
    ranged = _all(tf.keras.utils.timeseries_dataset_from_array(data, None, sequence_length=2, start_index=4,
                                                               end_index=8))
    np.testing.assert_array_equal(ranged[0][0], [[4, 5], [5, 6], [6, 7]])


def test_timeseries_shuffle_keeps_windows_and_pairs():
    data = np.arange(50, dtype="float32")
    ds = tf.keras.utils.timeseries_dataset_from_array(data, data + 100, sequence_length=4, shuffle=True, seed=1,
                                                      batch_size=8)
    batches = _all(ds)  # one pass: each iteration reshuffles
    windows = np.concatenate([b[0] for b in batches])
    targets = np.concatenate([b[1] for b in batches])
    assert sorted(windows[:, 0].tolist()) == list(range(47))
    np.testing.assert_array_equal(windows[:, 1] - windows[:, 0], 1)
    np.testing.assert_array_equal(targets, windows[:, 0] + 100)


@pytest.mark.parametrize("kwargs, message", [
    (dict(start_index=-1), "0 or greater"), (dict(start_index=20), "start_index"),
    (dict(start_index=5, end_index=3), "higher than `start_index`"), (dict(end_index=10), "end_index"),
    (dict(sampling_rate=0), "sampling_rate"), (dict(sequence_stride=0), "sequence_stride"),
    (dict(sequence_stride=10), "sequence_stride"),
])
def test_timeseries_bad_arguments(kwargs, message):
    with pytest.raises(ValueError, match=message):
        tf.keras.utils.timeseries_dataset_from_array(np.arange(10), None, sequence_length=2, **kwargs)


def test_set_random_seed_repeats_every_stream():
    def draw():
        return (random.random(), np.random.rand(), tf.random.uniform([3]).numpy(),
                tf.keras.layers.Dense(2, kernel_initializer="glorot_uniform")(np.ones((1, 2))).numpy())
    tf.keras.utils.set_random_seed(7)
    first = draw()
    tf.keras.utils.set_random_seed(7)
    second = draw()
    assert first[0] == second[0] and first[1] == second[1]
    np.testing.assert_array_equal(first[2], second[2])
    np.testing.assert_array_equal(first[3], second[3])
    tf.keras.utils.set_random_seed(8)
    assert draw()[0] != first[0]


@pytest.mark.parametrize("seed", [1.5, "3", None, -1, 2 ** 32])
def test_set_random_seed_rejects_non_integers_and_out_of_range(seed):
    state = random.getstate()
    with pytest.raises(ValueError, match="seed"):
        tf.keras.utils.set_random_seed(seed)
    assert random.getstate() == state  # nothing was seeded


def test_split_dataset_sizes_order_and_shuffle():
    x = np.arange(10)
    left, right = tf.keras.utils.split_dataset(x, left_size=0.8)
    assert [int(v) for v in left] == list(range(8)) and [int(v) for v in right] == [8, 9]
    left, right = tf.keras.utils.split_dataset((x, x * 10), left_size=3, right_size=4, shuffle=True, seed=5)
    order = list(range(10))
    random.Random(5).shuffle(order)  # Keras: random.seed(seed); random.shuffle(samples)
    assert [int(a) for a, _ in left] == order[:3] and [int(a) for a, _ in right] == order[-4:]
    assert all(int(b) == 10 * int(a) for a, b in right)
    batched = tf.data.Dataset.from_tensor_slices(x).batch(4)
    left, right = tf.keras.utils.split_dataset(batched, right_size=0.3)
    assert [list(b) for b in left.as_numpy_iterator()] == [[0, 1, 2, 3], [4, 5, 6]]
    assert [list(b) for b in right.as_numpy_iterator()] == [[7, 8, 9]]


@pytest.mark.parametrize("kwargs, error, message", [
    (dict(), ValueError, "At least one"), (dict(left_size=0), ValueError, "left_size"),
    (dict(left_size=10), ValueError, "smaller than 10"), (dict(left_size=0.6, right_size=0.6), ValueError, "sum"),
    (dict(left_size=7, right_size=5), ValueError, "sum"), (dict(left_size="half"), TypeError, "left_size"),
    (dict(left_size=0.01), ValueError, "empty"),
])
def test_split_dataset_bad_sizes(kwargs, error, message):
    with pytest.raises(error, match=message):
        tf.keras.utils.split_dataset(np.arange(10), **kwargs)


def test_split_dataset_bad_inputs():
    with pytest.raises(TypeError, match="tf.data.Dataset"):
        tf.keras.utils.split_dataset({"a": np.arange(3)}, left_size=1)
    with pytest.raises(ValueError, match="different lengths"):
        tf.keras.utils.split_dataset((np.arange(3), np.arange(4)), left_size=1)
    with pytest.raises(ValueError, match="numpy.ndarray"):
        tf.keras.utils.split_dataset([[1, 2], [3, 4]], left_size=1)
