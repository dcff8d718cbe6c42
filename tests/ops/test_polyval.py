"""tf.math.polyval: Horner values, broadcasting coefficients, empty lists, errors, gradients."""
import numpy as np
import pytest

import minitf as tf
from minitf.gradient_checker import assert_gradients_close


def test_values():
    np.testing.assert_allclose(tf.math.polyval([1.0, 2.0, 3.0], tf.constant([0.5, -1.0])).numpy(), [4.25, 2.0])
    y = tf.math.polyval([tf.constant([1.0, 2.0]), 3.0], tf.constant([[1.0], [2.0]]))
    np.testing.assert_array_equal(y.numpy(), [[4.0, 5.0], [5.0, 7.0]])
    z = tf.math.polyval([], tf.constant([1, 2]))
    assert z.dtype == tf.int32 and z.numpy().tolist() == [0, 0]


def test_errors():
    with pytest.raises(ValueError, match="list"):
        tf.math.polyval((1.0, 2.0), 1.0)
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.math.polyval([1.0, 2.0], tf.constant([1, 2]))


def test_gradients_reach_coefficients_and_x():
    c0, c1 = np.array([0.5, -1.5]), np.array(2.0)
    x = np.array([[0.25, -1.0], [1.5, 0.75]])
    assert_gradients_close(lambda a, b, x: tf.math.polyval([a, b, a], x),
                           [tf.constant(c0), tf.constant(c1), tf.constant(x)], order=2)
