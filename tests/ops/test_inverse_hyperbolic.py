"""tf.math.acosh, asinh, atanh (and tf.acosh ...): values against numpy, domain edges, dtypes,
and float64 finite-difference gradients to second order."""
import numpy as np
import pytest

import minitf as tf
from minitf.gradient_checker import assert_gradients_close


def test_root_aliases_are_the_same_functions():
    assert tf.acosh is tf.math.acosh and tf.asinh is tf.math.asinh and tf.atanh is tf.math.atanh


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_values_and_domain_edges(dtype):
    np.testing.assert_allclose(tf.math.asinh(tf.constant([-2.0, -0.0, 0.5], dtype)).numpy(),
                               np.arcsinh(np.array([-2.0, -0.0, 0.5], dtype)), rtol=1e-3)
    y = tf.math.acosh(tf.constant([1.0, 2.0, 0.5], dtype)).numpy()
    assert y[0] == 0 and np.isnan(y[2]) and y.dtype == np.dtype(dtype)
    y = tf.math.atanh(tf.constant([1.0, -1.0, 2.0, 0.0], dtype)).numpy()
    assert y[0] == np.inf and y[1] == -np.inf and np.isnan(y[2]) and y[3] == 0


def test_integers_are_refused():
    for fn in (tf.math.acosh, tf.math.asinh, tf.math.atanh):
        with pytest.raises(tf.errors.InvalidArgumentError):
            fn(tf.constant([1, 2]))


def test_complex_inputs():
    z = np.array([0.5 + 1j, -2 - 0.5j])
    np.testing.assert_allclose(tf.math.atanh(tf.constant(z)).numpy(), np.arctanh(z))
    np.testing.assert_allclose(tf.math.acosh(tf.constant(z)).numpy(), np.arccosh(z))


@pytest.mark.parametrize("fn,low,high", [(tf.math.acosh, 1.25, 4.0), (tf.math.asinh, -3.0, 3.0),
                                         (tf.math.atanh, -0.8, 0.8)])
def test_gradients_match_finite_differences(fn, low, high):
    x = np.random.default_rng(1).uniform(low, high, (2, 3))
    assert_gradients_close(fn, [tf.constant(x)], order=2)
    assert_gradients_close(fn, [tf.constant((low + high) / 2, tf.float64)], order=2)
