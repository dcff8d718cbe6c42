"""The worked example of the project's seed documents (a gradients notebook written for TF 2.0),
with the values it shows: a tf.Variable made from a Python range, through matmul, and a
persistent tape asked for gradients inside its context."""
import numpy as np

import minitf as tf


def test_a_variable_from_a_range_through_matmul():
    x = tf.reshape(tf.Variable(range(4), dtype=tf.float32), (4, 1))
    assert x.shape == (4, 1) and x.dtype == tf.float32
    np.testing.assert_array_equal(x.numpy(), [[0.0], [1.0], [2.0], [3.0]])
    with tf.GradientTape() as t:
        t.watch(x)
        y = 2 * tf.matmul(tf.transpose(x), x)
    np.testing.assert_array_equal(t.gradient(y, x).numpy(), [[0.0], [4.0], [8.0], [12.0]])


def test_a_persistent_tape_answers_inside_its_context():
    x = tf.reshape(tf.Variable(range(4), dtype=tf.float32), (4, 1))
    with tf.GradientTape(persistent=True) as g:
        g.watch(x)
        y = x * x
        z = y * y
        dz_dx = g.gradient(z, x)
        dy_dx = g.gradient(y, x)
    np.testing.assert_array_equal(dz_dx.numpy(), [[0.0], [4.0], [32.0], [108.0]])
    np.testing.assert_array_equal(dy_dx.numpy(), [[0.0], [2.0], [4.0], [6.0]])


def test_ranges_convert_as_the_lists_they_stand_for():
    assert tf.constant(range(4)).dtype == tf.int32
    np.testing.assert_array_equal(tf.convert_to_tensor(range(1, 7, 2)).numpy(), [1, 3, 5])
    empty = tf.constant(range(0))
    assert empty.shape == (0,) and empty.dtype == tf.float32  # as TF: an empty list is float32
    np.testing.assert_array_equal(tf.Variable(range(3), dtype=tf.float64).numpy(), [0.0, 1.0, 2.0])
