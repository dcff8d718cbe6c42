"""Embedding: lookup values, shapes, sparse gradients."""
import numpy as np

import minitf as tf
from minitf import layers


def test_lookup_shape_and_values():
    emb = layers.Embedding(10, 4)
    ids = np.array([[1, 2, 1], [9, 0, 3]])
    y = emb(ids)
    assert y.shape == (2, 3, 4) and y.dtype == tf.float32
    np.testing.assert_array_equal(y.numpy(), emb.embeddings.numpy()[ids])
    assert emb.weights[0].name == "embeddings" and emb.weights[0].path == "embedding/embeddings"
    assert np.abs(emb.embeddings.numpy()).max() <= 0.05  # 'uniform' default: U(-0.05, 0.05)


def test_gradient_is_indexed_slices_and_correct(weight_grads_close):
    emb = layers.Embedding(5, 2)
    ids = tf.constant([0, 3, 3])
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(emb(ids))
    g = tape.gradient(loss, emb.embeddings)
    from minitf.indexed_slices import IndexedSlices
    assert isinstance(g, IndexedSlices)
    dense = np.zeros((5, 2))
    np.add.at(dense, np.asarray(g.indices), np.asarray(g.values))
    np.testing.assert_array_equal(dense, [[1, 1], [0, 0], [0, 0], [2, 2], [0, 0]])
    weight_grads_close(layers.Embedding(4, 3, dtype="float64"), np.array([[1, 2], [2, 0]]))
