"""tf.experimental.RowPartition: encodings, static sizes, dtypes, repr and bad input (TF 2.21's)."""
import numpy as np
import pytest

import minitf as tf

RP = tf.experimental.RowPartition


def test_from_row_lengths_gives_every_encoding():
    p = RP.from_row_lengths([5, 3, 2])
    assert p.row_splits().numpy().tolist() == [0, 5, 8, 10]
    assert p.row_lengths().numpy().tolist() == [5, 3, 2]
    assert p.value_rowids().numpy().tolist() == [0] * 5 + [1] * 3 + [2] * 2
    assert p.row_starts().numpy().tolist() == [0, 5, 8] and p.row_limits().numpy().tolist() == [5, 8, 10]
    assert int(p.nrows()) == 3 and int(p.nvals()) == 10
    assert p.offsets_in_rows().numpy().tolist() == [0, 1, 2, 3, 4, 0, 1, 2, 0, 1]
    assert p.dtype == tf.int64 and p.row_splits().dtype == tf.int64
    assert not p.is_uniform() and p.uniform_row_length() is None
    assert (p.static_nrows, p.static_nvals, p.static_uniform_row_length) == (3, None, None)
    assert repr(p) == "tf.RowPartition(row_splits=[ 0  5  8 10])"


def test_uniform_partition():
    u = RP.from_uniform_row_length(4, nvals=12)
    assert repr(u) == "tf.RowPartition(nrows=3, uniform_row_length=4)"
    assert u.is_uniform() and int(u.uniform_row_length()) == 4
    assert (u.static_nrows, u.static_nvals, u.static_uniform_row_length) == (3, 12, 4)
    assert RP.from_uniform_row_length(2, nrows=3).row_splits().numpy().tolist() == [0, 2, 4, 6]
    assert RP.from_uniform_row_length(0, nvals=0, nrows=2).row_lengths().numpy().tolist() == [0, 0]
    with pytest.raises(ValueError, match="must equal nvals"):
        RP.from_uniform_row_length(5, nvals=12, nrows=3)
    with pytest.raises(ValueError, match="nvals or nrows"):
        RP.from_uniform_row_length(5)


def test_other_factories_and_dtypes():
    assert RP.from_row_splits([0, 2, 2, 5]).row_lengths().numpy().tolist() == [2, 0, 3]
    assert RP.from_value_rowids([0, 0, 2], nrows=4).row_lengths().numpy().tolist() == [2, 0, 1, 0]
    assert RP.from_value_rowids([0, 0, 2]).static_nvals == 3
    with pytest.raises(ValueError, match="nrows >= value_rowids"):
        RP.from_value_rowids([0, 2], nrows=2)
    assert RP.from_row_starts([0, 1, 1], nvals=4).row_splits().numpy().tolist() == [0, 1, 1, 4]
    assert RP.from_row_limits([1, 1, 4]).row_splits().numpy().tolist() == [0, 1, 1, 4]
    p32 = RP.from_row_lengths(tf.constant([1, 2], tf.int32))
    assert p32.dtype == tf.int32 and p32.row_splits().dtype == tf.int32
    assert RP.from_row_lengths([1, 2], dtype=tf.int32).nrows().dtype == tf.int32
    assert RP.from_row_lengths([1, 2]).with_dtype(tf.int32).row_splits().numpy().dtype == np.int32
    with pytest.raises(ValueError, match="int32 or int64"):
        RP.from_row_lengths([1, 2]).with_dtype(tf.float32)


def test_bad_partitions_raise_tf_errors():
    with pytest.raises(tf.errors.InvalidArgumentError):
        RP.from_row_lengths([2, -1])
    with pytest.raises(tf.errors.InvalidArgumentError):
        RP.from_row_splits([1, 2])
    with pytest.raises(tf.errors.InvalidArgumentError):
        RP.from_row_splits([0, 3, 2])
    with pytest.raises(tf.errors.InvalidArgumentError):
        RP.from_value_rowids([1, 0])
    with pytest.raises(ValueError, match="rank 1"):
        RP.from_row_lengths([[1, 2]])
    with pytest.raises(TypeError, match="integers"):
        RP.from_row_splits([0.0, 1.5])
    with pytest.raises(ValueError, match="private"):
        RP([0, 1])


def test_compare_with_tensorflow():
    tf_ref = pytest.importorskip("tensorflow")
    for build in (lambda lib: lib.experimental.RowPartition.from_row_lengths([5, 3, 2]),
                  lambda lib: lib.experimental.RowPartition.from_uniform_row_length(4, nvals=12),
                  lambda lib: lib.experimental.RowPartition.from_value_rowids([0, 0, 2], nrows=4)):
        mine, ref = build(tf), build(tf_ref)
        assert repr(mine) == repr(ref)
        assert mine.row_splits().numpy().tolist() == ref.row_splits().numpy().tolist()
        assert (mine.static_nrows, mine.static_nvals, mine.static_uniform_row_length) == \
            (ref.static_nrows, ref.static_nvals, ref.static_uniform_row_length)
