"""tf.map_fn and tf.nn.embedding_lookup on RaggedTensors (TF 2.21's output-signature rules)."""
import numpy as np
import pytest

import minitf as tf
from minitf.gradient_checker import assert_gradients_close


def digits():
    return tf.ragged.constant([[3, 1, 4, 1], [], [5, 9, 2], [6], []])


def test_map_fn_over_rows_gives_a_ragged_tensor():
    out = tf.map_fn(tf.math.square, digits())
    assert isinstance(out, tf.RaggedTensor)
    assert out.to_list() == [[9, 1, 16, 1], [], [25, 81, 4], [36], []] and out.dtype == tf.int32
    assert out.row_splits.numpy().tolist() == [0, 4, 4, 7, 8, 8]
    padded = tf.map_fn(lambda r: tf.pad(r, [[0, 1]]), digits())
    assert padded.to_list() == [[3, 1, 4, 1, 0], [0], [5, 9, 2, 0], [6, 0], [0]]
    deep = tf.map_fn(lambda r: r + 1, tf.ragged.constant([[[1], [2, 3]], [[4]], []]))
    assert deep.ragged_rank == 2 and deep.to_list() == [[[2], [3, 4]], [[5]], []]
    assert tf.map_fn(tf.math.square, digits()[:0]).to_list() == []


def test_map_fn_output_signatures():
    sums = tf.map_fn(tf.reduce_sum, digits(), fn_output_signature=tf.int32)
    assert isinstance(sums, tf.Tensor) and sums.numpy().tolist() == [9, 0, 16, 6, 0]
    spec = tf.TensorSpec([], tf.int32)
    assert tf.map_fn(tf.reduce_sum, digits(), fn_output_signature=spec).numpy().tolist() == [9, 0, 16, 6, 0]
    floats = tf.map_fn(lambda r: tf.cast(r, tf.float32), digits(),
                       fn_output_signature=tf.RaggedTensorSpec([None], tf.float32, ragged_rank=0))
    assert floats.dtype == tf.float32 and floats.to_list()[2] == [5.0, 9.0, 2.0]
    ranges = tf.map_fn(tf.range, tf.constant([1, 3, 0]),
                       fn_output_signature=tf.RaggedTensorSpec([None], tf.int32, ragged_rank=0))
    assert ranges.to_list() == [[0], [0, 1, 2], []]
    mixed = tf.map_fn(lambda a: a[0] + tf.reduce_sum(a[1]), (tf.constant([1, 2, 3, 4, 5]), digits()),
                      fn_output_signature=tf.int32)
    assert mixed.numpy().tolist() == [10, 2, 19, 10, 5]


def test_map_fn_errors_as_tf():
    with pytest.raises(ValueError, match="Expected `fn` to return a"):
        tf.map_fn(lambda r: tf.cast(r, tf.float32), digits())
    with pytest.raises(tf.errors.InvalidArgumentError, match="rank >= 1"):
        tf.map_fn(tf.reduce_sum, digits())
    with pytest.raises(ValueError, match="Incompatible shape"):
        tf.map_fn(lambda r: r, digits(), fn_output_signature=tf.int32)
    with pytest.raises(ValueError):
        tf.map_fn(lambda r: (r, r), (digits(), digits()))


def test_map_fn_gradient_through_ragged_rows():
    def f(values):
        rt = tf.RaggedTensor.from_row_lengths(values, [2, 0, 3])
        return tf.map_fn(lambda r: r * r, rt).flat_values
    assert_gradients_close(f, [np.array([0.5, -1.0, 2.0, 0.0, -3.0])])


def test_embedding_lookup_keeps_the_partitions():
    table = tf.Variable(np.arange(20, dtype=np.float32).reshape(10, 2))
    ids = tf.ragged.constant([[1, 2], [9], []], dtype=tf.int64)
    out = tf.nn.embedding_lookup(table, ids)
    assert isinstance(out, tf.RaggedTensor) and out.shape.as_list() == [3, None, 2]
    assert out.to_list() == [[[2.0, 3.0], [4.0, 5.0]], [[18.0, 19.0]], []]
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(tf.nn.embedding_lookup(table, ids).flat_values)
    grad = tf.convert_to_tensor(tape.gradient(loss, table)).numpy()
    assert grad[:, 0].tolist() == [0, 1, 1, 0, 0, 0, 0, 0, 0, 1]
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.nn.embedding_lookup(table, tf.ragged.constant([[10]]))


def test_compare_with_tensorflow():
    tf_ref = pytest.importorskip("tensorflow")

    def run(lib):
        d = lib.ragged.constant([[3, 1, 4, 1], [], [5, 9, 2], [6], []])
        table = lib.constant(np.arange(20, dtype=np.float32).reshape(10, 2))
        return [lib.map_fn(lib.math.square, d).to_list(),
                lib.map_fn(lib.reduce_sum, d, fn_output_signature=lib.int32).numpy().tolist(),
                lib.nn.embedding_lookup(table, d).to_list()]
    assert run(tf) == run(tf_ref)
