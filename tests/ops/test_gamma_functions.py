"""tf.math.lgamma and tf.math.digamma: values against Python's math.lgamma and known constants,
poles and special values, dtypes, and float64 finite-difference gradients."""
import math

import numpy as np
import pytest

import minitf as tf
from minitf.gradient_checker import assert_gradients_close

POINTS = [-7.9, -2.5, -0.3, 1e-5, 0.5, 0.9, 1.015625, 2.0, 3.3, 25.5, 4e5]


def test_lgamma_matches_python_math():
    got = tf.math.lgamma(tf.constant(POINTS, tf.float64)).numpy()
    np.testing.assert_allclose(got, [math.lgamma(v) for v in POINTS], rtol=1e-13, atol=1e-14)


def test_lgamma_poles_and_specials():
    got = tf.math.lgamma(tf.constant([0.0, -0.0, -1.0, -1e20, np.inf, -np.inf, np.nan, 1e308], tf.float64)).numpy()
    assert np.all(np.isposinf(got[[0, 1, 2, 3, 4, 5, 7]])) and np.isnan(got[6])


def test_digamma_values_poles_and_specials():
    euler = 0.5772156649015329
    got = tf.math.digamma(tf.constant([1.0, 0.5, 2.0, -2.5], tf.float64)).numpy()
    np.testing.assert_allclose(got, [-euler, -euler - 2 * math.log(2), 1 - euler, 1.1031566406452433], rtol=1e-13)
    got = tf.math.digamma(tf.constant([0.0, -1.0, -np.inf, np.inf, np.nan])).numpy()
    assert np.all(np.isnan(got[[0, 1, 2, 4]])) and got[3] == np.inf


@pytest.mark.parametrize("fn", [tf.math.lgamma, tf.math.digamma])
def test_dtypes(fn):
    assert fn(tf.constant([1.5, 2.5], tf.float16)).dtype == tf.float16
    with pytest.raises(tf.errors.InvalidArgumentError):
        fn(tf.constant([1, 2]))


def test_lgamma_gradient_is_digamma_to_second_order():
    x = np.array([[-2.5, 0.75], [3.3, 12.0]])
    assert_gradients_close(tf.math.lgamma, [tf.constant(x)], order=2)
    assert_gradients_close(tf.math.digamma, [tf.constant(x)])


def test_digamma_gradient_refuses_float16_as_tf():
    v = tf.Variable(tf.constant([1.5], tf.float16))
    with tf.GradientTape() as tape:
        y = tf.math.digamma(v)
    with pytest.raises(tf.errors.InvalidArgumentError, match="Polygamma"):
        tape.gradient(y, v)
