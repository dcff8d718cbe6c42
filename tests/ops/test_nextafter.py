"""tf.math.nextafter: steps in both directions, subnormals, dtypes and errors."""
import numpy as np
import pytest

import minitf as tf


def test_steps_and_dtypes():
    y = tf.math.nextafter([1.0, 0.0], [2.0, -1.0])
    assert y.dtype == tf.float32
    np.testing.assert_array_equal(y.numpy(), [np.nextafter(np.float32(1), np.float32(2)), -np.float32(1.4e-45)])
    y = tf.math.nextafter(tf.constant([1.0], tf.float64), [0.0])
    assert y.numpy()[0] == np.nextafter(1.0, 0.0)
    assert tf.math.nextafter([1], [2]).dtype == tf.float32  # Python numbers become float32


def test_errors():
    with pytest.raises(tf.errors.InvalidArgumentError, match="NextAfter"):
        tf.math.nextafter(tf.constant([1.0], tf.float16), tf.constant([2.0], tf.float16))
    with pytest.raises(tf.errors.InvalidArgumentError, match="NextAfter"):
        tf.math.nextafter([1.0, 2.0], [1.0, 2.0, 3.0])
