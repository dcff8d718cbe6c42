"""tf.slice and tf.tensor_scatter_nd_max/min: values, TF's errors, and gradients against central
finite differences (float64), ties included for the scatters (TF splits the gradient evenly)."""
import numpy as np
import pytest

import minitf as tf
from minitf.gradient_checker import assert_gradients_close


def test_slice_takes_a_block_with_minus_one_meaning_to_the_end():
    x = np.arange(24).reshape(2, 3, 4)
    np.testing.assert_array_equal(tf.slice(x, [0, 1, 1], [2, -1, 2]).numpy(), x[:, 1:, 1:3])
    np.testing.assert_array_equal(tf.slice(tf.constant(x), tf.constant([1, 0, 0]), [1, 1, 4]).numpy(), x[1:, :1])
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"Expected size\[1\] in \[0, 2\], but got 5"):
        tf.slice(x, [0, 1, 1], [2, 5, 2])
    with pytest.raises(tf.errors.InvalidArgumentError, match="1-D tensors of size 3"):
        tf.slice(x, [0, 1], [2, 2])


def test_slice_gradient_matches_finite_differences():
    x = np.random.default_rng(0).normal(size=(3, 4))
    assert_gradients_close(lambda t: tf.slice(t, [1, 0], [2, 3]), [tf.constant(x)], order=2)


def test_scatter_max_and_min_apply_every_repeated_index():
    t = tf.constant([1.0, 5.0, 3.0])
    np.testing.assert_array_equal(tf.tensor_scatter_nd_max(t, [[0], [0], [2]], [4.0, 2.0, 1.0]).numpy(), [4, 5, 3])
    np.testing.assert_array_equal(tf.tensor_scatter_nd_min(t, [[1], [1]], [2.0, 7.0]).numpy(), [1, 2, 3])
    with pytest.raises(tf.errors.InvalidArgumentError, match="int32 tensor"):
        tf.tensor_scatter_nd_max(t, [[0]], tf.constant([1], dtype=tf.int32))


@pytest.mark.parametrize("op", [tf.tensor_scatter_nd_max, tf.tensor_scatter_nd_min])
def test_scatter_extremes_gradients_match_finite_differences(op):
    rng = np.random.default_rng(1)
    x, u = rng.normal(size=(4, 2)), rng.normal(size=(3, 2))
    indices = tf.constant([[0], [2], [3]])
    assert_gradients_close(lambda a, b: op(a, indices, b), [tf.constant(x), tf.constant(u)])


def test_a_tie_splits_the_gradient_evenly_as_tf():
    x = tf.Variable([1.0, 5.0, 3.0])
    u = tf.Variable([5.0, 5.0, 0.0])
    with tf.GradientTape() as tape:
        y = tf.tensor_scatter_nd_max(x, [[0], [1], [2]], u)
    gx, gu = tape.gradient(y, [x, u])
    np.testing.assert_array_equal(gx.numpy(), [0.0, 0.5, 1.0])
    np.testing.assert_array_equal(gu.numpy(), [1.0, 0.5, 0.0])
