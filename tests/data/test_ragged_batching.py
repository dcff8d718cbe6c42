"""Dataset.ragged_batch and tf.data.experimental.dense_to_ragged_batch (TF 2.21's rules)."""
import pytest

import minitf as tf


def ranges():
    return tf.data.Dataset.from_tensor_slices([1, 5, 3, 2, 8]).map(tf.range)


def test_rows_of_different_lengths_batch_raggedly():
    batched = ranges().apply(tf.data.experimental.dense_to_ragged_batch(2))
    assert repr(batched.element_spec) == "RaggedTensorSpec(TensorShape([None, None]), tf.int32, 1, tf.int64)"
    assert [b.to_list() for b in batched] == [[[0], [0, 1, 2, 3, 4]], [[0, 1, 2], [0, 1]], [[0, 1, 2, 3, 4, 5, 6, 7]]]
    assert str(next(iter(batched))) == "<tf.RaggedTensor [[0], [0, 1, 2, 3, 4]]>"
    same = ranges().ragged_batch(2)
    assert [b.to_list() for b in same] == [b.to_list() for b in batched]


def test_known_shapes_batch_densely_and_options():
    dense = tf.data.Dataset.from_tensor_slices([[1, 2], [3, 4], [5, 6]]).ragged_batch(2)
    assert dense.element_spec == tf.TensorSpec([None, 2], tf.int32)
    assert [type(b) for b in dense] == [tf.Tensor, tf.Tensor]
    narrow = ranges().apply(tf.data.experimental.dense_to_ragged_batch(2, drop_remainder=True,
                                                                         row_splits_dtype=tf.int32))
    assert repr(narrow.element_spec) == "RaggedTensorSpec(TensorShape([2, None]), tf.int32, 1, tf.int32)"
    out = list(narrow)
    assert len(out) == 2 and out[0].row_splits.numpy().tolist() == [0, 1, 6] and out[0].row_splits.dtype == tf.int32
    deep = tf.data.Dataset.from_tensor_slices([1, 2]).map(lambda x: tf.zeros([x, 2, x])).ragged_batch(2)
    assert deep.element_spec.ragged_rank == 3 and deep.element_spec.shape.as_list() == [None, None, 2, None]
    assert next(iter(deep)).to_list() == [[[[0.0], [0.0]]], [[[0.0, 0.0], [0.0, 0.0]], [[0.0, 0.0], [0.0, 0.0]]]]
    with pytest.raises(ValueError, match="row_splits_dtype"):
        ranges().ragged_batch(2, row_splits_dtype=tf.float32)


def test_compare_with_tensorflow():
    tf_ref = pytest.importorskip("tensorflow")

    def run(lib):
        ds = lib.data.Dataset.from_tensor_slices([1, 5, 3, 2, 8]).map(lib.range)
        out = ds.apply(lib.data.experimental.dense_to_ragged_batch(2))
        narrow = ds.ragged_batch(2, drop_remainder=True, row_splits_dtype=lib.int32)
        return [repr(out.element_spec), [b.to_list() for b in out], repr(narrow.element_spec),
                [b.row_splits.numpy().tolist() for b in narrow]]
    assert run(tf) == run(tf_ref)
