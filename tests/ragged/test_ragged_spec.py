"""tf.RaggedTensorSpec: value_type, from_value, compatibility, batching and trace-type methods."""
import pytest

import minitf as tf


def test_value_type_and_from_value():
    spec = tf.RaggedTensorSpec([None, None], tf.int32)
    assert spec.value_type is tf.RaggedTensor and spec.ragged_rank == 1
    assert tf.RaggedTensorSpec([None], tf.int32, ragged_rank=0).value_type is tf.Tensor
    rt = tf.ragged.constant([[1, 2], [3]])
    assert tf.RaggedTensorSpec.from_value(rt) == tf.RaggedTensorSpec([2, None], tf.int32, 1)
    assert tf.RaggedTensorSpec.from_value(tf.constant([1.0])) == tf.RaggedTensorSpec([1], tf.float32, 0)


def test_compatibility_and_trace_types():
    spec = tf.RaggedTensorSpec([None, None], tf.int32)
    assert spec.is_compatible_with(tf.ragged.constant([[1, 2], [3]]))
    assert not spec.is_compatible_with(tf.ragged.constant([[1.0]]))
    assert not spec.is_compatible_with(tf.ragged.constant([[[1]]]))
    assert not spec.is_compatible_with(tf.RaggedTensorSpec([None, None], tf.int32, row_splits_dtype=tf.int32))
    assert tf.RaggedTensorSpec([None], tf.int32, 0).is_compatible_with(tf.constant([1, 2]))
    narrow = tf.RaggedTensorSpec([2, None], tf.int32)
    assert narrow.is_subtype_of(spec) and not spec.is_subtype_of(narrow)
    assert narrow.most_specific_common_supertype([tf.RaggedTensorSpec([3, None], tf.int32)]) == spec
    assert narrow.most_specific_common_supertype([tf.RaggedTensorSpec([3, None], tf.float32)]) is None


def test_batch_and_unbatch():
    spec = tf.RaggedTensorSpec([None, None], tf.int32)
    assert repr(spec._batch(2)) == "RaggedTensorSpec(TensorShape([2, None, None]), tf.int32, 2, tf.int64)"
    assert repr(spec._unbatch()) == "RaggedTensorSpec(TensorShape([None]), tf.int32, 0, tf.int64)"
    with pytest.raises(ValueError, match="rank 0"):
        spec._unbatch()._unbatch()


def test_compare_with_tensorflow():
    tf_ref = pytest.importorskip("tensorflow")

    def run(lib):
        spec = lib.RaggedTensorSpec([None, None], lib.int32)
        rt = lib.ragged.constant([[1, 2], [3]])
        return [repr(spec._batch(2)), repr(spec._unbatch()), repr(spec._batch(None)._unbatch()),
                repr(lib.RaggedTensorSpec.from_value(rt)), spec.is_compatible_with(rt),
                spec._unbatch().value_type.__name__ in ("Tensor", "EagerTensor")]
    assert run(tf) == run(tf_ref)
