"""tf.math.multiply_no_nan, reciprocal_no_nan, xdivy and xlog1py: values where TF promises 0,
dtypes, errors and gradients (finite differences in float64)."""
import numpy as np
import pytest

import minitf as tf
from minitf.gradient_checker import assert_gradients_close


def test_multiply_no_nan_is_zero_where_y_is_zero_even_for_inf_and_nan():
    x = tf.constant([np.inf, np.nan, 2.0, -3.0])
    y = tf.constant([0.0, 0.0, 0.0, 2.0])
    np.testing.assert_array_equal(tf.math.multiply_no_nan(x, y).numpy(), [0.0, 0.0, 0.0, -6.0])
    # a NaN y still gives NaN: only y == 0 is special
    assert np.isnan(tf.math.multiply_no_nan(0.0, np.nan).numpy())


def test_multiply_no_nan_refuses_other_dtypes():
    with pytest.raises(ValueError):
        tf.math.multiply_no_nan(tf.constant([1.0]), tf.constant([1.0], tf.float64))
    with pytest.raises(tf.errors.InvalidArgumentError, match="MulNoNan"):
        tf.math.multiply_no_nan(tf.constant([1, 2]), tf.constant([1, 2]))
    with pytest.raises(tf.errors.InvalidArgumentError, match="MulNoNan"):
        tf.math.multiply_no_nan(tf.constant([1.0, 2.0]), tf.constant([1.0, 2.0, 3.0]))


def test_reciprocal_no_nan_values_and_integer_refusal():
    y = tf.math.reciprocal_no_nan(tf.constant([0.0, -0.0, 2.0, -4.0], tf.float16))
    assert y.dtype == tf.float16
    np.testing.assert_array_equal(y.numpy(), [0.0, 0.0, 0.5, -0.25])
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.math.reciprocal_no_nan(tf.constant([1, 2]))


def test_xdivy_and_xlog1py_are_zero_where_x_is_zero():
    x = tf.constant([0.0, 0.0, 2.0, 3.0], tf.float64)
    np.testing.assert_array_equal(tf.math.xdivy(x, [0.0, np.nan, 4.0, -1.0]).numpy(), [0.0, 0.0, 0.5, -3.0])
    got = tf.math.xlog1py(x, [-1.0, np.nan, 0.0, 1.0]).numpy()
    np.testing.assert_allclose(got, [0.0, 0.0, 0.0, 3.0 * np.log(2.0)])
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.math.xlog1py(tf.constant([1, 2]), tf.constant([1, 2]))
    with pytest.raises(tf.errors.InvalidArgumentError, match="Xdivy"):
        tf.math.xdivy(tf.constant([1.0, 2.0]), tf.constant([1.0, 2.0, 3.0]))


def test_complex_operands_keep_their_dtype():
    z = tf.constant([1 + 1j, 0j], tf.complex64)
    assert tf.math.multiply_no_nan(z, z).dtype == tf.complex64
    np.testing.assert_allclose(tf.math.reciprocal_no_nan(z).numpy(), [0.5 - 0.5j, 0])


@pytest.mark.parametrize("fn", [tf.math.multiply_no_nan, tf.math.xdivy, tf.math.xlog1py])
def test_gradients_match_finite_differences(fn):
    rng = np.random.default_rng(0)
    x = rng.uniform(-2, 2, (3, 4))
    y = rng.uniform(0.5, 2, (4,))
    assert_gradients_close(fn, [tf.constant(x), tf.constant(y)])
    assert_gradients_close(fn, [tf.constant(1.5, tf.float64), tf.constant(y)])


def test_reciprocal_no_nan_gradient_second_order():
    x = np.array([[0.5, -1.5], [2.0, -0.75]])
    assert_gradients_close(tf.math.reciprocal_no_nan, [tf.constant(x)], order=2)


def test_gradient_is_zero_where_the_op_promises_zero():
    x, y = tf.Variable([np.inf, 2.0]), tf.Variable([0.0, 3.0])
    with tf.GradientTape() as tape:
        z = tf.math.multiply_no_nan(x, y)
    gx, gy = tape.gradient(z, [x, y])
    np.testing.assert_array_equal(gx.numpy(), [0.0, 3.0])
    np.testing.assert_array_equal(gy.numpy(), [np.inf, 2.0])
    a, b = tf.Variable([0.0, 2.0]), tf.Variable([-1.0, 1.0])
    with tf.GradientTape() as tape:
        z = tf.math.xlog1py(a, b)
    ga, gb = tape.gradient(z, [a, b])
    np.testing.assert_allclose(ga.numpy(), [0.0, np.log(2.0)])
    np.testing.assert_allclose(gb.numpy(), [0.0, 1.0])
