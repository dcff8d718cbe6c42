"""add, sparse_dense_matmul, reduce_sum/reduce_max, minimum/maximum, map_values and mask, compared
with the values and messages TF 2.21 gives."""
import numpy as np
import pytest

import minitf as tf

IAE = tf.errors.InvalidArgumentError


def _parts(st):
    return st.indices.numpy().tolist(), st.values.numpy().tolist(), st.dense_shape.numpy().tolist()


A = ([[0, 2], [3, 4]], [31.0, 2.0], [4, 10])
B = ([[0, 2], [3, 0]], [-31.0, 38.0], [4, 10])


def test_add_sparse_sparse_with_threshold():
    a, b = tf.sparse.SparseTensor(*A), tf.sparse.SparseTensor(*B)
    assert _parts(tf.sparse.add(a, b)) == ([[0, 2], [3, 0], [3, 4]], [0.0, 38.0, 2.0], [4, 10])
    # only sums of coinciding entries are thresholded, as TF's kernel does
    assert _parts(tf.sparse.add(a, b, threshold=3)) == ([[3, 0], [3, 4]], [38.0, 2.0], [4, 10])


def test_add_merges_unsorted_and_repeated_inputs_as_tf():
    a = tf.sparse.SparseTensor(*A)
    unsorted = tf.sparse.SparseTensor([[3, 4], [0, 2]], [1.0, 2.0], [4, 10])
    assert _parts(tf.sparse.add(unsorted, a)) == ([[0, 2], [3, 4], [0, 2]], [31.0, 3.0, 2.0], [4, 10])
    repeated = tf.sparse.SparseTensor([[0, 2], [0, 2]], [1.0, 2.0], [4, 10])
    assert _parts(tf.sparse.add(repeated, a)) == ([[0, 2], [0, 2], [3, 4]], [32.0, 2.0, 2.0], [4, 10])


def test_add_sparse_dense():
    a = tf.sparse.SparseTensor(*A)
    want = np.ones([4, 10], np.float32)
    want[0, 2], want[3, 4] = 32.0, 3.0
    for out in (tf.sparse.add(a, tf.ones([4, 10])), tf.sparse.add(tf.ones([4, 10]), a)):
        assert isinstance(out, tf.Tensor)
        np.testing.assert_array_equal(out.numpy(), want)


def test_add_errors():
    a = tf.sparse.SparseTensor(*A)
    with pytest.raises(IAE, match="Operands' shapes do not match: got 10 and 11 for dimension 1"):
        tf.sparse.add(a, tf.sparse.SparseTensor([[0, 2]], [1.0], [4, 11]))
    with pytest.raises(IAE, match=r"input #4\(zero-based\) was expected to be a float tensor but is a int32"):
        tf.sparse.add(a, tf.sparse.SparseTensor([[0, 2]], [1], [4, 10]))
    with pytest.raises(IAE, match="Dimension 1 does not equal .no broadcasting is supported.: sparse side 10 "
                                  "vs dense side 11"):
        tf.sparse.add(a, tf.ones([4, 11]))
    with pytest.raises(IAE, match="Two operands have different ranks; received: 2 and 1"):
        tf.sparse.add(a, tf.ones([10]))
    with pytest.raises(TypeError, match="At least one input should be SparseTensor"):
        tf.sparse.add(tf.ones([2]), tf.ones([2]))


C = ([[0, 1], [1, 0], [1, 1]], [13, 15, 17], [2, 2])


def test_sparse_dense_matmul():
    c = tf.sparse.SparseTensor(*C)
    mb = tf.constant([[4], [6]])
    assert tf.sparse.sparse_dense_matmul(c, mb).numpy().tolist() == [[78], [162]]
    assert tf.sparse.sparse_dense_matmul(c, mb, adjoint_a=True).numpy().tolist() == [[90], [154]]
    assert tf.sparse.sparse_dense_matmul(c, tf.constant([[4, 6]]), adjoint_b=True).numpy().tolist() == [[78], [162]]
    assert tf.sparse.sparse_dense_matmul(tf.constant([[4, 6]]), c).numpy().tolist() == [[90, 154]]
    ones = tf.ones([2, 2])
    unsorted = tf.sparse.SparseTensor([[1, 0], [0, 1]], [1.0, 2.0], [2, 2])
    assert tf.sparse.sparse_dense_matmul(unsorted, ones).numpy().tolist() == [[2.0, 2.0], [1.0, 1.0]]
    repeated = tf.sparse.SparseTensor([[1, 0], [1, 0]], [1.0, 2.0], [2, 2])
    assert tf.sparse.sparse_dense_matmul(repeated, ones).numpy().tolist() == [[0.0, 0.0], [3.0, 3.0]]


@pytest.mark.parametrize("sp, dense, text", [
    (C, [[4], [5], [6]], "Cannot multiply A and B because inner dimension does not match: 2 vs. 3."),
    (C, [[4.0], [5.0]], r"input #3\(zero-based\) was expected to be a int32 tensor but is a float tensor"),
    (([[0, 0, 0]], [1], [1, 2, 2]), [[1, 1], [1, 1]], "Tensor 'a_shape' must have 2 elements"),
    (([[0, 5]], [1], [2, 2]), [[1, 1], [1, 1]], r"k \(5\) from index\[0,1\] out of bounds \(>=2\)"),
    (C, [4, 6], "Tensor 'b' is not a matrix"),
])
def test_sparse_dense_matmul_errors(sp, dense, text):
    with pytest.raises(IAE, match=text):
        tf.sparse.sparse_dense_matmul(tf.sparse.SparseTensor(*sp), tf.constant(dense))


X = ([[0, 0], [0, 2], [1, 1]], [1.0, -2.0, 3.0], [2, 3])


@pytest.mark.parametrize("axis, keepdims, dense_sum, dense_max", [
    (None, False, 2.0, 3.0), (None, True, [[2.0]], [[3.0]]),
    (0, False, [1.0, 3.0, -2.0], [1.0, 3.0, -2.0]), (1, False, [-1.0, 3.0], [1.0, 3.0]),
    (-1, True, [[-1.0], [3.0]], [[1.0], [3.0]]), ([0, 1], False, 2.0, 3.0),
])
def test_reductions(axis, keepdims, dense_sum, dense_max):
    x = tf.sparse.SparseTensor(*X)
    assert tf.sparse.reduce_sum(x, axis=axis, keepdims=keepdims).numpy().tolist() == dense_sum
    assert tf.sparse.reduce_max(x, axis=axis, keepdims=keepdims).numpy().tolist() == dense_max
    for fn, want in ((tf.sparse.reduce_sum, dense_sum), (tf.sparse.reduce_max, dense_max)):
        out = fn(x, axis=axis, keepdims=keepdims, output_is_sparse=True)
        assert isinstance(out, tf.SparseTensor)
        assert tf.sparse.to_dense(out).numpy().tolist() == want


def test_full_reduction_as_sparse_is_rank_zero():
    out = tf.sparse.reduce_sum(tf.sparse.SparseTensor(*X), output_is_sparse=True)
    assert out.indices.shape == (1, 0) and _parts(out) == ([[]], [2.0], [])


def test_reduce_max_ignores_implicit_zeros():
    y = tf.sparse.SparseTensor([[0, 0], [0, 2]], [-1.0, -2.0], [3, 3])
    assert tf.sparse.reduce_max(y, axis=1).numpy().tolist() == [-1.0, 0.0, 0.0]
    assert _parts(tf.sparse.reduce_max(y, axis=1, output_is_sparse=True)) == ([[0]], [-1.0], [3])
    assert tf.sparse.reduce_max(tf.sparse.from_dense([-5, 0, -3])).numpy() == -3


def test_reduce_sum_sparse_output_groups_and_keeps_zero_sums():
    st = tf.sparse.SparseTensor([[1, 0], [0, 1], [1, 0]], [1.0, 2.0, 5.0], [2, 2])
    assert _parts(tf.sparse.reduce_sum(st, axis=1, output_is_sparse=True)) == ([[0], [1]], [2.0, 6.0], [2])
    zero = tf.sparse.SparseTensor([[1, 0], [1, 1]], [1.0, -1.0], [2, 2])
    assert _parts(tf.sparse.reduce_sum(zero, axis=1, output_is_sparse=True)) == ([[1]], [0.0], [2])


def test_reduction_axis_error():
    with pytest.raises(IAE, match="Invalid reduction dimension 2, for input with 2 dimensions."):
        tf.sparse.reduce_sum(tf.sparse.SparseTensor(*X), axis=2)


def test_maximum_minimum():
    m1 = tf.sparse.SparseTensor([[0, 0], [1, 1]], [1.0, -5.0], [2, 2])
    m2 = tf.sparse.SparseTensor([[0, 0], [0, 1]], [3.0, -2.0], [2, 2])
    assert _parts(tf.sparse.maximum(m1, m2)) == ([[0, 0], [0, 1], [1, 1]], [3.0, 0.0, 0.0], [2, 2])
    assert _parts(tf.sparse.minimum(m1, m2)) == ([[0, 0], [0, 1], [1, 1]], [1.0, -2.0, -5.0], [2, 2])
    with pytest.raises(IAE, match="Operands' shapes do not match: got 2 and 3 for dimension 1"):
        tf.sparse.maximum(m1, tf.sparse.SparseTensor([[0, 0]], [1.0], [2, 3]))


def test_map_values():
    u = tf.sparse.SparseTensor([[1, 0], [0, 2], [0, 1]], [1.0, 2.0, 3.0], [2, 3])
    assert _parts(tf.sparse.map_values(tf.add, u, 5))[1] == [6.0, 7.0, 8.0]
    assert _parts(tf.sparse.map_values(tf.multiply, u, u))[1] == [1.0, 4.0, 9.0]
    assert _parts(tf.sparse.map_values(tf.add, x=u, y=1.0))[1] == [2.0, 3.0, 4.0]
    with pytest.raises(IAE, match="Mismatched shapes!"):
        tf.sparse.map_values(tf.multiply, u, tf.sparse.SparseTensor([[0, 1]], [1.0], [2, 2]))
    with pytest.raises(ValueError, match="No SparseTensor in argument list of map_values"):
        tf.sparse.map_values(tf.add, 1, 2)
    with pytest.raises(ValueError, match="Dimensions 3 and 1 are not compatible"):
        tf.sparse.map_values(lambda v: v[:1], u)


def test_mask_drops_indexed_slices_rows():
    a = tf.IndexedSlices(tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]), tf.constant([0, 2, 4]),
                         tf.constant([5, 2]))
    out = tf.sparse.mask(a, tf.constant([2]))
    assert isinstance(out, tf.IndexedSlices)
    assert out.indices.numpy().tolist() == [0, 4]
    assert out.values.numpy().tolist() == [[1.0, 2.0], [5.0, 6.0]]


def test_results_stay_on_the_device_of_the_values(fake_gpu):
    st = tf.sparse.SparseTensor([[0, 1], [1, 0], [2, 2]], tf.constant([1.0, 2.0, 3.0]), [3, 3])
    device_type = type(st.values._value)
    assert device_type.__name__ == "FakeDeviceArray"
    outs = [tf.sparse.to_dense(st), tf.sparse.sparse_dense_matmul(st, tf.ones([3, 2])),
            tf.sparse.add(st, st).values, tf.sparse.add(st, tf.ones([3, 3])), tf.sparse.reduce_sum(st, axis=1),
            tf.sparse.reduce_max(st, axis=1), tf.sparse.reduce_max(st, axis=1, output_is_sparse=True).values,
            (st * tf.ones([3, 3])).values, tf.sparse.reorder(st).values, tf.sparse.concat(0, [st, st]).values,
            tf.sparse.fill_empty_rows(st, 0.0)[0].values, tf.sparse.maximum(st, st).values]
    assert [type(o._value).__name__ for o in outs] == [device_type.__name__] * len(outs)
    np.testing.assert_array_equal(tf.sparse.reduce_max(st, axis=1).numpy(), [1.0, 2.0, 3.0])
