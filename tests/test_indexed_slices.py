"""IndexedSlices as TF gives them: int32 dense_shape tensor, densifying sums repeated rows."""
import numpy as np
import pytest

import minitf as tf
from minitf.indexed_slices import IndexedSlices


def _gather_gradient():
    params = tf.Variable(np.arange(6.0, dtype="float32").reshape(3, 2))
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(tf.gather(params, [0, 2, 0]))
    return tape.gradient(y, params)


def test_dense_shape_is_an_int32_tensor():
    g = _gather_gradient()
    assert isinstance(g, tf.IndexedSlices)
    assert tf.is_tensor(g.dense_shape) and g.dense_shape.dtype == tf.int32
    assert g.dense_shape.numpy().tolist() == [3, 2]
    assert g.shape.as_list() == [3, 2]


def test_densifying_sums_repeated_rows():
    dense = tf.convert_to_tensor(_gather_gradient())
    np.testing.assert_array_equal(dense.numpy(), [[2, 2], [0, 0], [1, 1]])


def test_dense_shape_may_be_given_as_a_tensor_or_a_list():
    values, indices = tf.constant([[1.0, 2.0]]), tf.constant([1])
    for shape in ([2, 2], (2, 2), tf.constant([2, 2], tf.int64)):
        s = tf.IndexedSlices(values, indices, shape)
        assert s.dense_shape.numpy().tolist() == [2, 2]
        np.testing.assert_array_equal(tf.convert_to_tensor(s).numpy(), [[0, 0], [1, 2]])


def test_two_sparse_gradients_of_one_variable_stay_sparse_and_add_up():
    v = tf.Variable([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(tf.gather(v, [0])) + 2.0 * tf.reduce_sum(tf.gather(v, [0, 2]))
    g = tape.gradient(y, v)
    assert isinstance(g, IndexedSlices)
    assert sorted(g.indices.numpy().tolist()) == [0, 0, 2]
    np.testing.assert_array_equal(tf.convert_to_tensor(g).numpy(), [[3, 3], [0, 0], [2, 2]])


def test_indexed_slices_follow_tf_operators():
    s = IndexedSlices(tf.constant([[1.0, 2.0]]), tf.constant([0]), (3, 2))
    with pytest.raises(TypeError):
        s + s  # TF: unsupported operand types; the tape adds sparse gradients itself
    np.testing.assert_array_equal((s + tf.ones((3, 2))).numpy(), [[2, 3], [1, 1], [1, 1]])
    np.testing.assert_array_equal((tf.ones((3, 2)) + s).numpy(), [[2, 3], [1, 1], [1, 1]])
    assert tf.is_tensor(s)
