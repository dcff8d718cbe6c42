"""tf.math.confusion_matrix: counts, weights and their gradient, num_classes, squeezing, dtype and
TF's errors."""
import numpy as np
import pytest

import minitf as tf
from minitf.gradient_checker import assert_gradients_close


def test_counts_with_inferred_and_given_num_classes():
    m = tf.math.confusion_matrix([1, 2, 4], [2, 2, 4])
    assert m.dtype == tf.int32 and m.shape == (5, 5)
    expected = np.zeros((5, 5), np.int32)
    expected[1, 2] = expected[2, 2] = expected[4, 4] = 1
    np.testing.assert_array_equal(m.numpy(), expected)
    assert tf.math.confusion_matrix([0, 1], [1, 1], num_classes=4).shape == (4, 4)


def test_weights_are_cast_to_dtype_and_summed():
    m = tf.math.confusion_matrix([1, 1, 2], [2, 2, 2], num_classes=3, weights=[0.5, 1.5, 2.0], dtype=tf.float64)
    np.testing.assert_array_equal(m.numpy(), [[0, 0, 0], [0, 0, 2.0], [0, 0, 2.0]])
    # int32 (the default) truncates the weights, as TF's cast does
    m = tf.math.confusion_matrix([1, 2], [2, 2], num_classes=3, weights=[0.5, 1.5])
    np.testing.assert_array_equal(m.numpy(), [[0, 0, 0], [0, 0, 0], [0, 0, 1]])


def test_trailing_unit_axis_is_squeezed():
    m = tf.math.confusion_matrix([[1], [2]], [2, 2])
    np.testing.assert_array_equal(m.numpy(), [[0, 0, 0], [0, 0, 1], [0, 0, 1]])


def test_errors():
    with pytest.raises(tf.errors.InvalidArgumentError, match="labels` contains negative"):
        tf.math.confusion_matrix([1, -2], [2, 2])
    with pytest.raises(tf.errors.InvalidArgumentError, match="predictions` out of bound"):
        tf.math.confusion_matrix([1, 2], [2, 3], num_classes=3)
    with pytest.raises(ValueError, match="incompatible"):
        tf.math.confusion_matrix([1, 2], [2, 2], weights=[1.0, 2.0, 3.0])


def test_gradient_with_respect_to_weights():
    w = np.array([0.5, -1.5, 2.0])
    assert_gradients_close(lambda w: tf.math.confusion_matrix([0, 1, 1], [1, 1, 0], num_classes=2, weights=w,
                                                              dtype=tf.float64), [tf.constant(w)])
