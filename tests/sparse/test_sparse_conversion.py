"""from_dense, to_dense (with TF's index validation), to_indicator, fill_empty_rows, eye, retain.
Expected values and messages were taken from TF 2.21."""
import numpy as np
import pytest

import minitf as tf

IAE = tf.errors.InvalidArgumentError


def _parts(st):
    return st.indices.numpy().tolist(), st.values.numpy().tolist(), st.dense_shape.numpy().tolist()


def test_from_dense_and_back():
    st = tf.sparse.from_dense([[1, 0, 0, 8], [0, 0, 0, 0], [0, 0, 3, 0]])
    assert _parts(st) == ([[0, 0], [0, 3], [2, 2]], [1, 8, 3], [3, 4])
    assert st.dtype == tf.int32
    assert tf.sparse.to_dense(st).numpy().tolist() == [[1, 0, 0, 8], [0, 0, 0, 0], [0, 0, 3, 0]]


def test_from_dense_strings_and_bools():
    assert _parts(tf.sparse.from_dense(["a", "", "b"])) == ([[0], [2]], [b"a", b"b"], [3])
    assert _parts(tf.sparse.from_dense([True, False])) == ([[0]], [True], [2])
    assert tf.sparse.to_dense(tf.sparse.from_dense(["a", "", "b"])).numpy().tolist() == [b"a", b"", b"b"]


def test_from_dense_scalar_is_an_error():
    with pytest.raises(IAE, match="WhereOp : Unhandled input dimensions: 0"):
        tf.sparse.from_dense(tf.constant(5))


@pytest.mark.parametrize("indices, shape, text", [
    ([[1], [0]], [3], "indices[1] = [0] is out of order. Many sparse ops require sorted indices."),
    ([[1], [1]], [3], "indices[1] = [1] is repeated"),
    ([[1], [5]], [3], "indices[1] = [5] is out of bounds: need 0 <= index < [3]"),
    ([[0, 1], [0, 5]], [3, 3], "indices[1] = [0,5] is out of bounds: need 0 <= index < [3,3]"),
    ([[0, 1], [0, -1]], [3, 3], "indices[1] = [0,-1] is out of bounds: need 0 <= index < [3,3]"),
])
def test_to_dense_validation_messages(indices, shape, text):
    st = tf.sparse.SparseTensor(indices, [1, 2], shape)
    with pytest.raises(IAE) as info:
        tf.sparse.to_dense(st)
    assert text in str(info.value) and "[Op:SparseToDense]" in str(info.value)


def test_to_dense_without_validation_and_with_default():
    unordered = tf.sparse.SparseTensor([[1], [0]], [1, 2], [3])
    assert tf.sparse.to_dense(unordered, validate_indices=False).numpy().tolist() == [2, 1, 0]
    repeated = tf.sparse.SparseTensor([[1], [1]], [1, 2], [3])
    assert tf.sparse.to_dense(repeated, validate_indices=False).numpy().tolist() == [0, 2, 0]
    st = tf.sparse.SparseTensor([[0], [1]], [1.0, 2.0], [3])
    assert tf.sparse.to_dense(st, default_value=7.0).numpy().tolist() == [1.0, 2.0, 7.0]
    with pytest.raises(IAE, match="out of bounds"):
        tf.sparse.to_dense(tf.sparse.SparseTensor([[4]], [1], [3]), validate_indices=False)


def test_to_indicator():
    si = tf.sparse.SparseTensor([[0, 0], [0, 1], [1, 0]], [0, 3, 3], [2, 2])
    out = tf.sparse.to_indicator(si, 4)
    assert out.dtype == tf.bool
    assert out.numpy().tolist() == [[True, False, False, True], [False, False, False, True]]
    with pytest.raises(IAE, match=r"Indices are not valid \(out of bounds\).  Shape: \[2,3\]"):
        tf.sparse.to_indicator(si, 3)
    rank3 = tf.sparse.SparseTensor([[0, 0, 0], [1, 0, 1]], [1, 2], [2, 1, 2])
    assert tf.sparse.to_indicator(rank3, 3).numpy().tolist() == [[[False, True, False]], [[False, False, True]]]


def test_fill_empty_rows():
    fe = tf.sparse.SparseTensor([[0, 1], [2, 0], [2, 2]], [1.0, 2.0, 3.0], [4, 3])
    filled, empty = tf.sparse.fill_empty_rows(fe, -1)
    assert _parts(filled) == ([[0, 1], [1, 0], [2, 0], [2, 2], [3, 0]], [1.0, -1.0, 2.0, 3.0, -1.0], [4, 3])
    assert empty.numpy().tolist() == [False, True, False, True]
    unordered = tf.sparse.SparseTensor([[2, 0], [0, 1]], [1.0, 2.0], [4, 3])
    filled, _ = tf.sparse.fill_empty_rows(unordered, 0.0)
    assert _parts(filled) == ([[0, 1], [1, 0], [2, 0], [3, 0]], [2.0, 0.0, 1.0, 0.0], [4, 3])


def test_eye():
    assert _parts(tf.sparse.eye(3)) == ([[0, 0], [1, 1], [2, 2]], [1.0, 1.0, 1.0], [3, 3])
    e = tf.sparse.eye(2, 3, dtype=tf.int32)
    assert e.dtype == tf.int32 and _parts(e) == ([[0, 0], [1, 1]], [1, 1], [2, 3])
    assert _parts(tf.sparse.eye(3, 2))[2] == [3, 2]


def test_retain():
    u = tf.sparse.SparseTensor([[1, 0], [0, 2], [0, 1]], [1.0, 2.0, 3.0], [2, 3])
    assert _parts(tf.sparse.retain(u, [True, False, True])) == ([[1, 0], [0, 1]], [1.0, 3.0], [2, 3])
    assert _parts(tf.sparse.retain(u, np.array([1, 0, 1])))[1] == [1.0, 3.0]
    with pytest.raises(ValueError, match="Dimensions 3 and 2 are not compatible"):
        tf.sparse.retain(u, [True, False])


def test_ops_want_a_sparse_tensor():
    with pytest.raises(TypeError, match="Input must be a SparseTensor"):
        tf.sparse.to_dense(tf.constant([1, 2]))
