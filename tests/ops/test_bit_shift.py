"""tf.bitwise.left_shift / right_shift: wrapping, sign filling, clamped counts, dtypes."""
import numpy as np
import pytest

import minitf as tf


def test_shifts_wrap_and_clamp_counts_as_tf():
    x = tf.constant([1, -3, 5, 100], tf.int8)
    y = tf.constant([1, 2, -1, 9], tf.int8)
    np.testing.assert_array_equal(tf.bitwise.left_shift(x, y).numpy(), [2, -12, 5, 0])
    np.testing.assert_array_equal(tf.bitwise.right_shift(x, y).numpy(), [0, -1, 5, 0])
    u = tf.constant([1, 200, 5, 100], tf.uint8)
    np.testing.assert_array_equal(tf.bitwise.left_shift(u, tf.constant([1, 2, 255, 9], tf.uint8)).numpy(),
                                  [2, 32, 128, 0])
    assert tf.bitwise.left_shift(3, 2).numpy() == 12


def test_floats_are_refused():
    with pytest.raises(tf.errors.InvalidArgumentError, match="LeftShift"):
        tf.bitwise.left_shift(tf.constant([1.0]), tf.constant([1.0]))
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.bitwise.right_shift(tf.constant([1, 2]), tf.constant([1, 2, 3]))
