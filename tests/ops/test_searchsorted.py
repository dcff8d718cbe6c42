"""tf.searchsorted: both sides, batched rows, NaN placement, out_type and TF's errors."""
import numpy as np
import pytest

import minitf as tf
from minitf.ops.searchsorted import merged_rank


@pytest.mark.parametrize("side", ["left", "right"])
def test_one_row_matches_numpy(side):
    seq = np.array([-3.0, 0.0, 0.0, 2.0, 5.0])
    vals = np.array([[-4.0, 0.0], [2.0, 6.0]])
    y = tf.searchsorted(seq, vals.reshape(-1), side=side)
    assert y.dtype == tf.int32
    assert y.numpy().tolist() == np.searchsorted(seq, vals.reshape(-1), side=side).tolist()


@pytest.mark.parametrize("side", ["left", "right"])
def test_batched_rows_each_search_their_own_row(side):
    rng = np.random.default_rng(3)
    seq = np.sort(rng.integers(-5, 5, size=(2, 3, 6)), axis=-1).astype(np.int64)
    vals = rng.integers(-6, 6, size=(2, 3, 4)).astype(np.int64)
    y = tf.searchsorted(seq, vals, side=side, out_type=tf.int64)
    want = np.stack([np.searchsorted(s, v, side=side) for s, v in zip(seq.reshape(6, 6), vals.reshape(6, 4))])
    assert y.dtype == tf.int64 and y.shape == (2, 3, 4)
    np.testing.assert_array_equal(y.numpy(), want.reshape(2, 3, 4))


def test_merged_rank_matches_per_row_searches():
    rng = np.random.default_rng(4)
    seq = np.sort(rng.normal(size=(5, 8)).round(1), axis=1)
    vals = np.concatenate([seq[:, :3], rng.normal(size=(5, 4)).round(1)], axis=1)  # ties included
    for side in ("left", "right"):
        want = np.stack([np.searchsorted(s, v, side=side) for s, v in zip(seq, vals)])
        np.testing.assert_array_equal(merged_rank(np, seq, vals, side), want)


def test_nan_goes_first_left_and_last_right_as_tf():
    seq = [[1.0, 2.0], [0.0, 3.0]]
    vals = [[np.nan], [1.0]]
    assert tf.searchsorted(seq, vals).numpy().tolist() == [[0], [1]]
    assert tf.searchsorted(seq, vals, side="right").numpy().tolist() == [[2], [1]]


def test_rows_are_counted_not_shapes():
    y = tf.searchsorted([[1.0, 2.0], [3.0, 4.0]], [[[2.0], [3.0]]])
    assert y.shape == (1, 2, 1) and y.numpy().reshape(-1).tolist() == [1, 0]


def test_empty_sequences_and_values():
    assert tf.searchsorted(tf.zeros([0]), [1.0]).numpy().tolist() == [0]
    assert tf.searchsorted([1.0, 2.0], tf.zeros([0])).shape == (0,)


def test_errors():
    with pytest.raises(ValueError, match="side"):
        tf.searchsorted([1.0], [1.0], side="middle")
    with pytest.raises(tf.errors.InvalidArgumentError, match="out_type"):
        tf.searchsorted([1.0], [1.0], out_type=tf.float32)
    with pytest.raises(tf.errors.InvalidArgumentError, match="Leading dim_size"):
        tf.searchsorted([[1.0, 2.0], [0.0, 5.0]], [[2.0, 3.0]])
    with pytest.raises(tf.errors.InvalidArgumentError, match="LowerBound"):
        tf.searchsorted([1, 2], [2.0])
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.searchsorted(1.0, [2.0])
    with pytest.raises(tf.errors.NotFoundError):
        tf.searchsorted([True], [False])


def test_stays_on_the_array_module_of_its_inputs(fake_gpu):
    seq = np.sort(np.random.default_rng(1).normal(size=(3, 5)), axis=1)
    vals = np.random.default_rng(2).normal(size=(3, 4))
    for side in ("left", "right"):
        y = tf.searchsorted(tf.constant(seq), tf.constant(vals), side=side)
        assert isinstance(y._value, fake_gpu.ndarray)
        want = np.stack([np.searchsorted(s, v, side=side) for s, v in zip(seq, vals)])
        np.testing.assert_array_equal(y.numpy(), want)
        one = tf.searchsorted(tf.constant(seq[0]), tf.constant(vals[0]), side=side)
        assert isinstance(one._value, fake_gpu.ndarray)
