"""tf.math.bincount: counts, weights, lengths, rows along axis -1, binary output, dtypes and
TF's errors."""
import numpy as np
import pytest

import minitf as tf


def test_counts_and_lengths():
    np.testing.assert_array_equal(tf.math.bincount([1, 1, 3]).numpy(), [0, 2, 0, 1])
    np.testing.assert_array_equal(tf.math.bincount([1, 1, 3], minlength=6).numpy(), [0, 2, 0, 1, 0, 0])
    np.testing.assert_array_equal(tf.math.bincount([1, 1, 3], maxlength=2).numpy(), [0, 2])
    empty = tf.math.bincount(tf.constant([], tf.int32))
    assert empty.shape == (0,) and empty.dtype == tf.int32
    assert tf.math.bincount([[1, 2], [2, 0]]).shape == (3,)  # axis=None flattens


def test_weights_give_their_dtype_and_sum():
    y = tf.math.bincount([1, 1, 3], weights=[0.5, 1.0, 2.0])
    assert y.dtype == tf.float32
    np.testing.assert_array_equal(y.numpy(), [0.0, 1.5, 0.0, 2.0])
    y = tf.math.bincount(tf.constant([0, 0], tf.int64), weights=tf.constant([2**40, 3], tf.int64))
    assert y.dtype == tf.int64 and int(y.numpy()[0]) == 2**40 + 3
    assert tf.math.bincount([1, 2], dtype=tf.float64).dtype == tf.float64


def test_rows_along_last_axis_and_binary_output():
    y = tf.math.bincount([[1, 2, 2], [0, 5, 5]], axis=-1, binary_output=True, minlength=7)
    np.testing.assert_array_equal(y.numpy(), [[0, 1, 1, 0, 0, 0, 0], [1, 0, 0, 0, 0, 1, 0]])
    y = tf.math.bincount([[1, 2], [0, 5]], axis=-1, weights=[[1.0, 2.0], [3.0, 4.0]], maxlength=3)
    np.testing.assert_array_equal(y.numpy(), [[0, 1, 2], [3, 0, 0]])


def test_floats_are_truncated_to_int32():
    np.testing.assert_array_equal(tf.math.bincount([1.7, 2.2]).numpy(), [0, 1, 1])


def test_errors():
    with pytest.raises(tf.errors.InvalidArgumentError, match="non-negative"):
        tf.math.bincount([1, -1])
    with pytest.raises(ValueError, match="mutually exclusive"):
        tf.math.bincount([1], weights=[1.0], binary_output=True)
    with pytest.raises(ValueError, match="axis=1"):
        tf.math.bincount([1], axis=1)
    with pytest.raises(tf.errors.InvalidArgumentError, match="same shape"):
        tf.math.bincount([1, 2], weights=[1.0])
    with pytest.raises(tf.errors.InvalidArgumentError, match="float16"):
        tf.math.bincount([1, 2], dtype=tf.float16)
    with pytest.raises(tf.errors.InvalidArgumentError, match="uint8"):
        tf.math.bincount(tf.constant([1], tf.uint8))
    with pytest.raises(tf.errors.InvalidArgumentError, match="rank 3"):
        tf.math.bincount(tf.zeros([2, 2, 2], tf.int32), axis=-1)
    with pytest.raises(tf.errors.InvalidArgumentError, match="size"):
        tf.math.bincount([0, 2**31 - 1], maxlength=3)  # max + 1 wraps in int32, as in TF
    with pytest.raises(TypeError):
        tf.math.bincount([1, 2], minlength=2.5)


def test_inside_tf_function():
    f = tf.function(lambda a: tf.math.bincount(a, minlength=4))
    np.testing.assert_array_equal(f(tf.constant([0, 2, 2])).numpy(), [1, 0, 2, 0])
