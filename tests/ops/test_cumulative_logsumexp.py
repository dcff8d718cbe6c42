"""tf.math.cumulative_logsumexp: values against numpy, exclusive/reverse, stability, errors, and
float64 finite-difference gradients."""
import numpy as np
import pytest

import minitf as tf
from minitf.gradient_checker import assert_gradients_close


def test_values_exclusive_and_reverse():
    x = np.array([[1.0, 2.0, 3.0], [-1.0, 0.5, 0.5]])
    want = np.log(np.cumsum(np.exp(x), axis=1))
    np.testing.assert_allclose(tf.math.cumulative_logsumexp(tf.constant(x), axis=1).numpy(), want, rtol=1e-14)
    y = tf.math.cumulative_logsumexp([1.0, 2.0, 3.0], reverse=True, exclusive=True).numpy()
    np.testing.assert_allclose(y, [np.logaddexp(2.0, 3.0), 3.0, -np.inf], rtol=1e-6)


def test_stable_for_large_values():
    y = tf.math.cumulative_logsumexp(tf.constant([1000.0, 1000.0], tf.float64)).numpy()
    np.testing.assert_allclose(y, [1000.0, 1000.0 + np.log(2.0)])


def test_errors():
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.math.cumulative_logsumexp([1, 2])
    with pytest.raises(tf.errors.InvalidArgumentError, match="axis"):
        tf.math.cumulative_logsumexp([1.0, 2.0], axis=1)
    with pytest.raises(tf.errors.InvalidArgumentError, match="scalar"):
        tf.math.cumulative_logsumexp([1.0, 2.0], axis=[0])


@pytest.mark.parametrize("exclusive,reverse", [(False, False), (True, False), (False, True), (True, True)])
def test_gradient(exclusive, reverse):
    x = np.array([[0.5, -1.0, 2.0], [1.5, 1.5, -0.25]])
    # an exclusive scan's -inf entry (first, or last when reversed) has no finite difference
    keep = slice(None) if not exclusive else (slice(None, -1) if reverse else slice(1, None))

    def f(t):
        return tf.math.cumulative_logsumexp(t, axis=1, exclusive=exclusive, reverse=reverse)[:, keep]
    assert_gradients_close(f, [tf.constant(x)])
