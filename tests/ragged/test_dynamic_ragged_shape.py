"""tf.experimental.DynamicRaggedShape and tf.shape of a RaggedTensor, and the ops that take one
(tf.reshape, tf.zeros, tf.ones, tf.fill), as in TF 2.21's ragged tensor guide."""
import numpy as np
import pytest

import minitf as tf
from minitf.gradient_checker import assert_gradients_close

DRS = tf.experimental.DynamicRaggedShape
RP = tf.experimental.RowPartition


def rt_shape():
    return tf.shape(tf.ragged.constant([[1], [2, 3, 4], [], [5, 6]]))


def test_shape_of_a_ragged_tensor():
    s = rt_shape()
    assert repr(s) == "<DynamicRaggedShape lengths=[4, (1, 3, 0, 2)] num_row_partitions=1>"
    assert s.dtype == tf.int32 and s.rank == 2 and s.num_row_partitions == 1 and s.inner_rank == 1
    assert s.inner_shape.numpy().tolist() == [6]
    assert int(s[0]) == 4 and s[0].dtype == tf.int32
    assert repr(s[:1]) == "<DynamicRaggedShape lengths=[4] num_row_partitions=0>"
    with pytest.raises(ValueError, match="Index 1 is not uniform"):
        s[1]
    with pytest.raises(ValueError, match="must be uniform"):
        s[1:]
    with pytest.raises(IndexError):
        s[::2]
    assert tf.shape(tf.ragged.constant([[1]]), out_type=tf.int64).dtype == tf.int64


def test_constructor_and_from_lengths():
    s = DRS(row_partitions=[RP.from_row_lengths([5, 3, 2])], inner_shape=[10, 8])
    assert repr(s) == "<DynamicRaggedShape lengths=[3, (5, 3, 2), 8] num_row_partitions=1>"
    assert s.dtype == tf.int64 and s.static_lengths() == [3, (5, 3, 2), 8]
    assert int(s[2]) == 8 and s.is_uniform(2) and not s.is_uniform(1)
    assert repr(DRS.from_lengths([4, (2, 1, 0, 8), 12])) == \
        "<DynamicRaggedShape lengths=[4, (2, 1, 0, 8), 12] num_row_partitions=1>"
    assert DRS.from_lengths([2, 3]).num_row_partitions == 0
    deep = DRS.from_lengths([3, (1, 2, 0), (1, 1, 1)])
    assert deep.num_row_partitions == 2 and deep.inner_shape.numpy().tolist() == [3]
    uniform = DRS.from_lengths([2, 2, 3], num_row_partitions=2)
    assert uniform.static_lengths() == [2, 2, 3] and int(uniform[1]) == 2
    with pytest.raises(ValueError, match="Shape not consistent"):
        DRS.from_lengths([4, (2, 1, 0), 12])
    with pytest.raises(ValueError, match="should be a list"):
        DRS.from_lengths((2, 3))
    with pytest.raises(TypeError, match="not a RowPartition"):
        DRS(row_partitions=[[1, 2]], inner_shape=[3])
    with pytest.raises(ValueError, match="does not match inner_shape"):
        DRS(row_partitions=[RP.from_uniform_row_length(2, nrows=2)], inner_shape=[5])


def test_from_tensor():
    assert DRS.from_tensor(tf.zeros([2, 3])).static_lengths() == [2, 3]
    shape = DRS.from_tensor(tf.ragged.constant([[[1, 2]], [[3, 4], [5, 6]]], ragged_rank=1))
    assert shape.static_lengths() == [2, (1, 2), 2]


def test_ops_build_ragged_tensors_of_a_shape():
    s = rt_shape()
    x = tf.constant([["a", "b"], ["c", "d"], ["e", "f"]])
    assert tf.reshape(x, s).to_list() == [[b"a"], [b"b", b"c", b"d"], [], [b"e", b"f"]]
    zeros = tf.zeros(s)
    assert zeros.to_list() == [[0.0], [0.0, 0.0, 0.0], [], [0.0, 0.0]] and zeros.dtype == tf.float32
    ones = tf.ones(s, dtype=tf.int32)
    assert ones.to_list() == [[1], [1, 1, 1], [], [1, 1]] and ones.dtype == tf.int32
    assert tf.fill(s, "x").to_list() == [[b"x"], [b"x", b"x", b"x"], [], [b"x", b"x"]]
    dense = tf.zeros(DRS.from_lengths([2, 3]))
    assert isinstance(dense, tf.Tensor) and dense.shape == (2, 3)
    inner = tf.zeros(DRS.from_lengths([2, (1, 2), 2]))
    assert inner.to_list() == [[[0.0, 0.0]], [[0.0, 0.0], [0.0, 0.0]]]
    with pytest.raises(tf.errors.InvalidArgumentError, match="reshape"):
        tf.reshape(tf.constant([1, 2, 3]), s)


def test_reshape_gradient_flows_to_the_dense_input():
    x = tf.constant([1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reshape(x, rt_shape())
        loss = tf.reduce_sum(y.flat_values * tf.range(6, dtype=tf.float32))
    assert tape.gradient(loss, x).numpy().tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]


def test_compare_with_tensorflow():
    tf_ref = pytest.importorskip("tensorflow")

    def run(lib):
        shape = lib.shape(lib.ragged.constant([[1], [2, 3, 4], [], [5, 6]]))
        built = lib.experimental.DynamicRaggedShape.from_lengths([2, (1, 2), 2])
        return [repr(shape), repr(shape[:1]), repr(built), lib.zeros(built).to_list(),
                lib.reshape(lib.range(6), shape).to_list(), lib.fill(shape, 9).to_list()]
    assert run(tf) == run(tf_ref)


def test_reshape_to_a_ragged_shape_finite_differences():
    shape = DRS.from_lengths([3, (2, 0, 1), 2])
    assert_gradients_close(lambda x: tf.reshape(x, shape).flat_values * x[0, 0],
                           [np.linspace(-1.0, 2.0, 6).reshape(3, 2)], order=2)
