"""tf.nn.crelu: positive and negative parts along an axis, errors, and gradients."""
import numpy as np
import pytest

import minitf as tf
from minitf.gradient_checker import assert_gradients_close


def test_values_along_axes():
    x = np.array([[1.0, -2.0], [0.0, 3.0]], np.float32)
    np.testing.assert_array_equal(tf.nn.crelu(x).numpy(), [[1, 0, 0, 2], [0, 3, 0, 0]])
    assert tf.nn.crelu(x, axis=0).shape == (4, 2)


def test_bad_axis():
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.nn.crelu(tf.constant([1.0, 2.0]), axis=3)


def test_gradient():
    x = np.array([[0.5, -1.5, 2.0], [-0.25, 1.0, -3.0]])
    assert_gradients_close(lambda t: tf.nn.crelu(t, axis=0), [tf.constant(x)])
