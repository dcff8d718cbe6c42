"""GradientTape through the sparse ops: tape gradients against central finite differences in
float64, with respect to the sparse values and the dense operands."""
import numpy as np
import pytest

import minitf as tf
from minitf.gradient_checker import assert_gradients_close

IDX = [[0, 1], [1, 0], [1, 2], [2, 2]]
SHAPE = [3, 3]
RNG = np.random.default_rng(7)


def _vals(n=4):
    return tf.constant(RNG.normal(size=n), dtype=tf.float64)


def _sp(values, idx=IDX, shape=SHAPE):
    return tf.sparse.SparseTensor(idx, values, shape)


def test_to_dense_and_from_dense():
    assert_gradients_close(lambda v: tf.sparse.to_dense(_sp(v)), [_vals()], order=2)
    assert_gradients_close(lambda v: tf.sparse.to_dense(_sp(v), default_value=tf.constant(2.0, tf.float64)),
                           [_vals()])
    # no zeros, so the finite differences keep the sparsity pattern
    dense = tf.constant(RNG.uniform(0.5, 2.0, size=(3, 3)), dtype=tf.float64)
    assert_gradients_close(lambda d: tf.sparse.from_dense(d).values * 1.0, [dense], order=2)
    # entries that are zero are not stored, so (as in TF) they get no gradient
    d = tf.constant([[0.0, 2.0], [3.0, 0.0]], dtype=tf.float64)
    with tf.GradientTape() as tape:
        tape.watch(d)
        y = tf.reduce_sum(tf.sparse.to_dense(tf.sparse.from_dense(d)) * 3.0)
    assert tape.gradient(y, d).numpy().tolist() == [[0.0, 3.0], [3.0, 0.0]]


@pytest.mark.parametrize("adjoint_a, adjoint_b", [(False, False), (True, False), (False, True), (True, True)])
def test_sparse_dense_matmul(adjoint_a, adjoint_b):
    b = tf.constant(RNG.normal(size=(3, 2) if not adjoint_b else (2, 3)), dtype=tf.float64)
    assert_gradients_close(
        lambda v, m: tf.sparse.sparse_dense_matmul(_sp(v), m, adjoint_a=adjoint_a, adjoint_b=adjoint_b),
        [_vals(), b], order=2)


def test_dense_times_sparse():
    a = tf.constant(RNG.normal(size=(2, 3)), dtype=tf.float64)
    assert_gradients_close(lambda m, v: tf.sparse.sparse_dense_matmul(m, _sp(v)), [a, _vals()])


def test_add():
    other = [[0, 1], [2, 0]]
    assert_gradients_close(
        lambda v, w: tf.sparse.add(_sp(v), _sp(w, other)).values, [_vals(), _vals(2)], order=2)
    # entries whose |sum| falls under the threshold are dropped: their gradient is zero
    assert_gradients_close(
        lambda v, w: tf.sparse.add(_sp(v), _sp(w, other), threshold=0.01).values, [_vals(), _vals(2)])
    dense = tf.constant(RNG.normal(size=(3, 3)), dtype=tf.float64)
    assert_gradients_close(lambda v, d: tf.sparse.add(_sp(v), d), [_vals(), dense], order=2)


@pytest.mark.parametrize("axis, keepdims", [(None, False), (0, False), (1, True), ([0, 1], True)])
def test_reduce_sum(axis, keepdims):
    assert_gradients_close(lambda v: tf.sparse.reduce_sum(_sp(v), axis=axis, keepdims=keepdims), [_vals()],
                           order=2)
    assert_gradients_close(
        lambda v: tf.sparse.reduce_sum(_sp(v), axis=axis, keepdims=keepdims, output_is_sparse=True).values,
        [_vals()])


def test_map_values_and_operators():
    assert_gradients_close(lambda v: tf.sparse.to_dense(tf.sparse.map_values(tf.sin, _sp(v))), [_vals()],
                           order=2)
    assert_gradients_close(lambda v, w: tf.sparse.map_values(tf.multiply, _sp(v), _sp(w)).values,
                           [_vals(), _vals()])
    dense = tf.constant(RNG.uniform(1, 2, size=(3, 3)), dtype=tf.float64)
    assert_gradients_close(lambda v, d: (_sp(v) * d).values, [_vals(), dense], order=2)
    assert_gradients_close(lambda v, d: (_sp(v) / d).values, [_vals(), dense], order=2)


def test_reordering_ops_route_gradients_to_values():
    unordered = [[2, 2], [0, 1], [1, 2], [1, 0]]
    assert_gradients_close(lambda v: tf.sparse.reorder(_sp(v, unordered)).values, [_vals()])
    assert_gradients_close(lambda v: tf.sparse.to_dense(tf.sparse.transpose(_sp(v))), [_vals()])
    assert_gradients_close(lambda v: tf.sparse.to_dense(tf.sparse.reshape(_sp(v), [9, 1])), [_vals()])
    assert_gradients_close(lambda v, w: tf.sparse.to_dense(tf.sparse.concat(1, [_sp(v), _sp(w)])),
                           [_vals(), _vals()])
    assert_gradients_close(lambda v: tf.sparse.to_dense(tf.sparse.slice(_sp(v), [1, 0], [2, 2])), [_vals()])
    assert_gradients_close(lambda v: tf.sparse.retain(_sp(v), [True, False, True, True]).values, [_vals()])
    assert_gradients_close(lambda v, d: tf.sparse.fill_empty_rows(_sp(v, [[0, 1], [2, 0]]), d)[0].values,
                           [_vals(2), tf.constant(0.5, tf.float64)])
    assert_gradients_close(lambda v, w: tf.sparse.maximum(_sp(v), _sp(w, [[0, 1], [2, 0]])).values,
                           [_vals(), _vals(2)])


def test_tape_reaches_values_of_a_variable():
    v = tf.Variable([1.0, 2.0, 3.0, 4.0])
    b = tf.constant([[1.0], [2.0], [3.0]])
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(tf.sparse.sparse_dense_matmul(_sp(v), b))
    g = tape.gradient(y, v)
    # d/dv of sum(A @ b) is b[col] for each entry
    assert tf.convert_to_tensor(g).numpy().tolist() == [2.0, 1.0, 3.0, 3.0]


@pytest.mark.parametrize("output_is_sparse, op", [(False, "SparseReduceMax"), (True, "SparseReduceMaxSparse")])
def test_reduce_max_has_no_gradient_as_in_tf(output_is_sparse, op):
    v = _vals()
    with tf.GradientTape() as tape:
        tape.watch(v)
        out = tf.sparse.reduce_max(_sp(v), axis=1, output_is_sparse=output_is_sparse)
        y = tf.reduce_sum(out.values if output_is_sparse else out)
    with pytest.raises(LookupError, match=f"gradient registry has no entry for: {op}"):
        tape.gradient(y, v)
