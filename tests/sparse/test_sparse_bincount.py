"""tf.sparse.bincount against the values and messages TF 2.21 gives."""
import pytest

import minitf as tf

IAE = tf.errors.InvalidArgumentError
X = [[1, 2, 2], [3, 3, 0]]
W = [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]


def _parts(st):
    return st.indices.numpy().tolist(), st.values.numpy().tolist(), st.dense_shape.numpy().tolist()


@pytest.mark.parametrize("kwargs, want", [
    ({}, ([[0], [1], [2], [3]], [1, 1, 2, 2], [4])),
    ({"axis": -1}, ([[0, 1], [0, 2], [1, 0], [1, 3]], [1, 2, 1, 2], [2, 4])),
    ({"weights": W}, ([[0], [1], [2], [3]], [6.0, 1.0, 5.0, 9.0], [4])),
    ({"weights": W, "axis": -1}, ([[0, 1], [0, 2], [1, 0], [1, 3]], [1.0, 5.0, 6.0, 9.0], [2, 4])),
    ({"minlength": 6}, ([[0], [1], [2], [3]], [1, 1, 2, 2], [6])),
    ({"maxlength": 2}, ([[0], [1]], [1, 1], [2])),
    ({"binary_output": True}, ([[0], [1], [2], [3]], [1, 1, 1, 1], [4])),
])
def test_dense_input(kwargs, want):
    if "weights" in kwargs:
        kwargs = dict(kwargs, weights=tf.constant(kwargs["weights"]))
    out = tf.sparse.bincount(tf.constant(X), **kwargs)
    assert _parts(out) == want
    assert out.dtype == (tf.float32 if "weights" in kwargs else tf.int32)


def test_one_dimensional_and_sparse_inputs():
    assert _parts(tf.sparse.bincount(tf.constant([1, 5, 1], tf.int64))) == ([[1], [5]], [2, 1], [6])
    assert tf.sparse.bincount(tf.constant([1, 5, 1], tf.int64)).dtype == tf.int64
    assert _parts(tf.sparse.bincount(tf.constant([], tf.int32))) == ([], [], [1])
    sp = tf.sparse.SparseTensor([[0, 0], [0, 1], [1, 0]], [0, 3, 3], [2, 2])
    assert _parts(tf.sparse.bincount(sp)) == ([[0], [3]], [1, 2], [4])
    assert _parts(tf.sparse.bincount(sp, axis=-1)) == ([[0, 0], [0, 3], [1, 3]], [1, 1, 1], [2, 4])
    w = tf.sparse.SparseTensor([[0, 0], [0, 1], [1, 0]], [1.0, 2.0, 3.0], [2, 2])
    assert _parts(tf.sparse.bincount(sp, weights=w)) == ([[0], [3]], [1.0, 5.0], [4])


def test_errors():
    with pytest.raises(IAE, match="Input values must all be non-negative"):
        tf.sparse.bincount(tf.constant([1, -5, 1]))
    with pytest.raises(IAE, match="Value for attr 'T' of float is not in the list of allowed values: int32, int64"):
        tf.sparse.bincount(tf.constant([1.0, 5.0]))
    with pytest.raises(ValueError, match="Only 0 and -1 are currently supported"):
        tf.sparse.bincount(tf.constant(X), axis=1)
    with pytest.raises(IAE, match=r"Input must be a 1 or 2-dimensional tensor. Got: \[2,2,2\]"):
        tf.sparse.bincount(tf.ones([2, 2, 2], tf.int32), axis=-1)
    with pytest.raises(ValueError, match="`binary_output` and `weights` are mutually exclusive"):
        tf.sparse.bincount(tf.constant(X), weights=tf.ones([2, 3]), binary_output=True)
    with pytest.raises(IAE, match=r"Weight shape: \[4\]; data shape: \[6\]"):
        tf.sparse.bincount(tf.constant(X), weights=tf.ones([2, 2]))
    sp = tf.sparse.SparseTensor([[0, 0]], [1], [2, 2])
    with pytest.raises(ValueError, match="must be a SparseTensor if `values` is a SparseTensor"):
        tf.sparse.bincount(sp, weights=tf.constant([1.0]))
