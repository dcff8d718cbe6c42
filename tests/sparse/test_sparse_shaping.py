"""reorder, reshape, transpose, concat, slice, split, expand_dims, reset_shape, compared with the
values and messages TF 2.21 gives."""
import pytest

import minitf as tf

IAE = tf.errors.InvalidArgumentError


def _parts(st):
    return st.indices.numpy().tolist(), st.values.numpy().tolist(), st.dense_shape.numpy().tolist()


def _u():
    return tf.sparse.SparseTensor([[1, 0], [0, 2], [0, 1]], [1.0, 2.0, 3.0], [2, 3])


def test_reorder():
    assert _parts(tf.sparse.reorder(_u())) == ([[0, 1], [0, 2], [1, 0]], [3.0, 2.0, 1.0], [2, 3])


def test_reshape():
    assert _parts(tf.sparse.reshape(_u(), [3, 2])) == ([[1, 1], [1, 0], [0, 1]], [1.0, 2.0, 3.0], [3, 2])
    assert _parts(tf.sparse.reshape(_u(), [-1])) == ([[3], [2], [1]], [1.0, 2.0, 3.0], [6])
    with pytest.raises(IAE, match=r"tensor with 6 dense values, but the requested shape has 8. "
                                  r"input_shape=\[2,3\] output_shape=\[4,2\]"):
        tf.sparse.reshape(_u(), [4, 2])
    with pytest.raises(IAE, match="only one output dimension may be -1, not both 0 and 1"):
        tf.sparse.reshape(_u(), [-1, -1])
    with pytest.raises(IAE, match=r"requires a multiple of 4. input_shape=\[2,3\] output_shape=\[1,4\]"):
        tf.sparse.reshape(_u(), [-1, 4])


def test_transpose():
    assert _parts(tf.sparse.transpose(_u())) == ([[0, 1], [1, 0], [2, 0]], [1.0, 3.0, 2.0], [3, 2])
    assert _parts(tf.sparse.transpose(_u(), [0, 1])) == ([[0, 1], [0, 2], [1, 0]], [3.0, 2.0, 1.0], [2, 3])
    with pytest.raises(ValueError, match="Dimensions 1 and 2 are not compatible"):
        tf.sparse.transpose(_u(), [0])
    with pytest.raises(IAE, match="not a permutation"):  # TF returns garbage here
        tf.sparse.transpose(_u(), [0, 0])


def test_concat():
    s1 = tf.sparse.SparseTensor([[0, 1]], [1.0], [2, 2])
    s2 = tf.sparse.SparseTensor([[1, 0], [0, 1]], [2.0, 3.0], [2, 3])
    want = ([[0, 1], [0, 3], [1, 2]], [1.0, 3.0, 2.0], [2, 5])
    assert _parts(tf.sparse.concat(1, [s1, s2])) == want
    assert _parts(tf.sparse.concat(-1, [s1, s2])) == want
    assert _parts(tf.sparse.concat(0, [s1, s2], expand_nonconcat_dims=True)) == (
        [[0, 1], [2, 1], [3, 0]], [1.0, 3.0, 2.0], [4, 3])
    assert _parts(tf.sparse.concat(0, [s1])) == ([[0, 1]], [1.0], [2, 2])
    with pytest.raises(IAE, match="Input shapes must match: expected 2 for dimension 1 but got 3 at position 1"):
        tf.sparse.concat(0, [s1, s2])
    with pytest.raises(TypeError, match="Input must be a SparseTensor"):
        tf.sparse.concat(0, [s1, tf.ones([2, 2])])
    with pytest.raises(IAE, match=r"input #3\(zero-based\) was expected to be a float tensor but is a int32"):
        tf.sparse.concat(1, [s1, tf.sparse.SparseTensor([[0, 1]], [1], [2, 2])])
    with pytest.raises(IAE, match="Ranks of all input tensors must match: expected 2 but got 1 at position 1"):
        tf.sparse.concat(0, [s1, tf.sparse.SparseTensor([[1]], [1.0], [2])])
    with pytest.raises(IAE, match=r"Concat dimension must be in range \[-2, 2\), got 2"):
        tf.sparse.concat(2, [s1, s1])


def test_slice():
    assert _parts(tf.sparse.slice(_u(), [0, 1], [2, 5])) == ([[0, 1], [0, 0]], [2.0, 3.0], [2, 2])
    empty = tf.sparse.slice(_u(), [0, 5], [2, 5])
    assert _parts(empty) == ([], [], [2, 0]) and empty.indices.shape == (0, 2)
    assert _parts(tf.sparse.slice(_u(), [-1, 0], [2, 2])) == ([[1, 1]], [3.0], [2, 2])
    with pytest.raises(IAE, match="Expected start to be a vector of length 2 but got length 1"):
        tf.sparse.slice(_u(), [1], [2])
    with pytest.raises(IAE, match="Expected a non-negative size, got -1"):
        tf.sparse.slice(_u(), [0, 0], [-1, 2])


def test_split():
    a, b = tf.sparse.split(sp_input=_u(), num_split=2, axis=1)
    assert _parts(a) == ([[1, 0], [0, 1]], [1.0, 3.0], [2, 2])
    assert _parts(b) == ([[0, 0]], [2.0], [2, 1])


def test_expand_dims():
    assert _parts(tf.sparse.expand_dims(_u(), 0)) == ([[0, 1, 0], [0, 0, 2], [0, 0, 1]], [1.0, 2.0, 3.0], [1, 2, 3])
    want = ([[1, 0, 0], [0, 2, 0], [0, 1, 0]], [1.0, 2.0, 3.0], [2, 3, 1])
    assert _parts(tf.sparse.expand_dims(_u(), -1)) == want
    assert _parts(tf.sparse.expand_dims(_u())) == want
    with pytest.raises(IAE):
        tf.sparse.expand_dims(_u(), 3)


def test_reset_shape():
    assert _parts(tf.sparse.reset_shape(_u()))[2] == [2, 3]
    assert _parts(tf.sparse.reset_shape(_u(), [3, 4]))[2] == [3, 4]
    with pytest.raises(ValueError, match="Requested new_shape should have dimension sizes >= sp_input.shape"):
        tf.sparse.reset_shape(_u(), [1, 4])
