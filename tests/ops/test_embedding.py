"""tf.nn.embedding_lookup: rows, TF 2's 'div' sharding, max_norm, IndexedSlices gradients."""
import numpy as np
import pytest

import minitf as tf
from minitf.gradient_checker import assert_gradients_close


def table(rows, cols=3, seed=0, dtype="float64"):
    return np.random.default_rng(seed).normal(size=(rows, cols)).astype(dtype)


def test_rows_and_shape():
    p = table(5)
    ids = [[0, 4], [2, 2]]
    y = tf.nn.embedding_lookup(tf.constant(p), tf.constant(ids))
    assert y.shape == (2, 2, 3) and y.dtype == tf.float64
    np.testing.assert_array_equal(y.numpy(), p[np.array(ids)])
    np.testing.assert_array_equal(tf.nn.embedding_lookup(p, 3).numpy(), p[3])


def test_gradient_is_indexed_slices():
    v = tf.Variable(table(5, dtype="float32"))
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(tf.nn.embedding_lookup(v, [1, 4, 1]) * 2.0)
    g = tape.gradient(loss, v)
    assert isinstance(g, tf.IndexedSlices)
    assert g.indices.numpy().tolist() == [1, 4, 1]
    dense = np.zeros((5, 3), "float32")
    dense[1] = 4.0
    dense[4] = 2.0
    np.testing.assert_allclose(tf.convert_to_tensor(g).numpy(), dense)


@pytest.mark.parametrize("max_norm", [None, 0.7])
def test_gradient_matches_finite_differences(max_norm):
    ids = tf.constant([[0, 3], [3, 1]])
    assert_gradients_close(lambda p: tf.nn.embedding_lookup(p, ids, max_norm=max_norm),
                           [tf.constant(table(4))])


def test_div_sharding():
    """Ids 0..12 over shards of 5, 4 and 4 rows: the first shard holds one extra row."""
    shards = [table(5, seed=1), table(4, seed=2), table(4, seed=3)]
    full = np.concatenate(shards)
    ids = np.array([[0, 12], [5, 4], [9, 8]])
    y = tf.nn.embedding_lookup([tf.constant(s) for s in shards], tf.constant(ids))
    assert y.shape == (3, 2, 3)
    np.testing.assert_array_equal(y.numpy(), full[ids])


def test_sharded_gradients_are_indexed_slices_per_shard():
    shards = [tf.Variable(table(3, seed=1)), tf.Variable(table(2, seed=2))]
    with tf.GradientTape() as tape:
        y = tf.nn.embedding_lookup(shards, [4, 0, 3, 0])
        loss = tf.reduce_sum(y * y)
    g0, g1 = tape.gradient(loss, shards)
    assert isinstance(g0, tf.IndexedSlices) and isinstance(g1, tf.IndexedSlices)
    full = np.concatenate([s.numpy() for s in shards])
    want = np.zeros_like(full)
    for i in [4, 0, 3, 0]:
        want[i] += 2 * full[i]
    np.testing.assert_allclose(tf.convert_to_tensor(g0).numpy(), want[:3])
    np.testing.assert_allclose(tf.convert_to_tensor(g1).numpy(), want[3:])


def test_sharded_gradient_matches_finite_differences():
    ids = tf.constant([2, 4, 0, 3])
    assert_gradients_close(lambda a, b: tf.nn.embedding_lookup([a, b], ids, max_norm=1.0),
                           [tf.constant(table(3, seed=4)), tf.constant(table(2, seed=5))])


def test_max_norm_clips_each_embedding():
    p = np.array([[3.0, 4.0], [0.3, 0.4]])
    y = tf.nn.embedding_lookup(p, [0, 1], max_norm=1.0).numpy()
    np.testing.assert_allclose(y, [[0.6, 0.8], [0.3, 0.4]])


def test_errors():
    with pytest.raises(ValueError, match="params must be specified"):
        tf.nn.embedding_lookup(None, [0])
    with pytest.raises(ValueError, match="Need at least one param"):
        tf.nn.embedding_lookup([], [0])
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.nn.embedding_lookup(table(3), [3])
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.nn.embedding_lookup([table(3), table(2)], [5])
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.nn.embedding_lookup([table(3), table(2)], [-1])
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.nn.embedding_lookup(table(3), [1.0])
