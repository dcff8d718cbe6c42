"""tf.math.lbeta: values against Python's math.lgamma, empty last axis, errors, and float64
finite-difference gradients to second order."""
import math

import numpy as np
import pytest

import minitf as tf
from minitf.gradient_checker import assert_gradients_close


def test_values_and_empty_last_axis():
    x = np.array([[1.0, 2.0], [0.5, 3.0], [2.5, 0.25]])
    want = [sum(math.lgamma(v) for v in row) - math.lgamma(sum(row)) for row in x]
    np.testing.assert_allclose(tf.math.lbeta(tf.constant(x, tf.float64)).numpy(), want, rtol=1e-13)
    np.testing.assert_array_equal(tf.math.lbeta(tf.zeros([2, 0])).numpy(), [-np.inf, -np.inf])


def test_errors():
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.math.lbeta(2.0)  # no last axis
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.math.lbeta([1, 2])  # integers: Lgamma has no kernel


def test_gradient():
    x = np.array([[0.75, 2.0, 1.5], [3.0, 0.5, 1.25]])
    assert_gradients_close(tf.math.lbeta, [tf.constant(x)], order=2)
