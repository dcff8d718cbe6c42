"""tf.math.erfc: values against Python's math.erfc (tail accuracy included), specials, dtypes and
float64 finite-difference gradients to second order."""
import math

import numpy as np
import pytest

import minitf as tf
from minitf.gradient_checker import assert_gradients_close


def test_matches_python_math_including_the_tail():
    x = np.linspace(-6.0, 26.0, 641)
    got = tf.math.erfc(tf.constant(x, tf.float64)).numpy()
    want = np.array([math.erfc(v) for v in x])
    np.testing.assert_allclose(got, want, rtol=1e-14)
    assert tf.math.erfc(tf.constant(10.0, tf.float64)).numpy() > 0  # no cancellation to 0


def test_specials_and_dtypes():
    got = tf.math.erfc(tf.constant([np.inf, -np.inf, np.nan, -0.0])).numpy()
    assert got[0] == 0 and got[1] == 2 and np.isnan(got[2]) and got[3] == 1
    assert tf.math.erfc(tf.constant([1.0], tf.float16)).dtype == tf.float16
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.math.erfc(tf.constant([1, 2]))


def test_gradient():
    x = np.array([[-2.0, -0.25], [0.5, 3.0]])
    assert_gradients_close(tf.math.erfc, [tf.constant(x)], order=2)
