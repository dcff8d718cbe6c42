"""RaggedTensor construction, structure, conversion, printing and validation errors (values and
messages from TF 2.21)."""
import numpy as np
import pytest

import minitf as tf
from minitf.errors import errors


def digits():
    return tf.ragged.constant([[3, 1, 4, 1], [], [5, 9, 2], [6], []])


def test_constant_structure_and_repr():
    rt = digits()
    assert isinstance(rt, tf.RaggedTensor)
    assert rt.to_list() == [[3, 1, 4, 1], [], [5, 9, 2], [6], []]
    assert rt.shape.as_list() == [5, None] and rt.dtype == tf.int32 and rt.ragged_rank == 1
    assert repr(rt) == "<tf.RaggedTensor [[3, 1, 4, 1], [], [5, 9, 2], [6], []]>" == str(rt)
    assert rt.row_splits.numpy().tolist() == [0, 4, 4, 7, 8, 8] and rt.row_splits.dtype == tf.int64
    assert rt.row_lengths().numpy().tolist() == [4, 0, 3, 1, 0]
    assert rt.value_rowids().numpy().tolist() == [0, 0, 0, 0, 2, 2, 2, 3]
    assert int(rt.nrows()) == 5 and rt.bounding_shape().numpy().tolist() == [5, 4]
    words = tf.ragged.constant([["So", "long"], ["thanks"]])
    assert repr(words) == "<tf.RaggedTensor [[b'So', b'long'], [b'thanks']]>" and words.dtype == tf.string


def test_constant_nesting_ragged_rank_and_inner_shape():
    rt = tf.ragged.constant([[[1, 2], [3]], [[4, 5]]])
    assert rt.ragged_rank == 2 and rt.shape.as_list() == [2, None, None]
    assert len(rt.nested_row_splits) == 2 and rt.flat_values.numpy().tolist() == [1, 2, 3, 4, 5]
    uniform = tf.ragged.constant([[[1, 2], [3, 4]], []], ragged_rank=1)
    assert uniform.shape.as_list() == [2, None, 2] and uniform.flat_values.shape.as_list() == [2, 2]
    assert repr(uniform) == "<tf.RaggedTensor [[[1, 2],\n  [3, 4]], []]>"
    assert tf.ragged.constant([[1.5, 2.0]]).dtype == tf.float32
    assert tf.ragged.constant([[1, 2]], dtype=tf.float64).dtype == tf.float64
    assert tf.ragged.constant([[], []]).to_list() == [[], []]
    flat = tf.ragged.constant([1, 2])  # no ragged dimension: a plain Tensor, as in TF
    assert type(flat) is tf.Tensor
    inner = tf.ragged.constant([[[1, 2], [3, 4]], [[5, 6]]], inner_shape=(2,))
    assert inner.shape.as_list() == [2, None, 2]


@pytest.mark.parametrize("value, message", [
    ([["one", "two"], [3, 4]], "Can't convert Python sequence with mixed types to Tensor."),
    (["A", ["B", "C"]], "all scalar values must have the same nesting depth"),
    ([[[1, 2], [3]], []], "inner values have inconsistent shape"),
])
def test_constant_errors(value, message):
    kwargs = {"ragged_rank": 1} if message.startswith("inner") else {}
    with pytest.raises(ValueError) as info:
        tf.ragged.constant(value, **kwargs)
    assert str(info.value) == message


def test_dense_constant_of_ragged_lists_raises_tf_text():
    with pytest.raises(ValueError, match=r"^Can't convert non-rectangular Python sequence to Tensor\."):
        tf.constant([[1, 2], [3]])


def test_factories_agree():
    values = [3, 1, 4, 1, 5, 9, 2]
    expected = [[3, 1, 4, 1], [], [5, 9], [2]]
    R = tf.RaggedTensor
    assert R.from_row_splits(values, [0, 4, 4, 6, 7]).to_list() == expected
    assert R.from_row_lengths(values, [4, 0, 2, 1]).to_list() == expected
    assert R.from_value_rowids(values, [0, 0, 0, 0, 2, 2, 3]).to_list() == expected
    assert R.from_value_rowids(values, [0, 0, 0, 0, 2, 2, 3], nrows=6).to_list() == expected + [[], []]
    assert R.from_row_starts(values, [0, 4, 4, 6]).to_list() == expected
    assert R.from_row_limits(values, [4, 4, 6, 7]).to_list() == expected
    nested = R.from_nested_row_splits(list(range(10, 20)), ([0, 1, 1, 5], [0, 3, 3, 5, 9, 10]))
    assert nested.to_list() == [[[10, 11, 12]], [], [[], [13, 14], [15, 16, 17, 18], [19]]]
    uniform = R.from_uniform_row_length(R.from_row_splits(list(range(10, 20)), [0, 3, 5, 9, 10]), 2)
    assert uniform.shape.as_list() == [2, 2, None]
    with pytest.raises(ValueError, match="constructor is private"):
        R(tf.constant([1]), [0, 1])


@pytest.mark.parametrize("build, first_line", [
    (lambda: tf.RaggedTensor.from_row_splits([1, 2, 3], [0, 2, 1, 3]),
     "Arguments to from_row_splits do not form a valid RaggedTensor:monotonic."),
    (lambda: tf.RaggedTensor.from_row_splits([1, 2, 3], [1, 3]),
     "Arguments to from_row_splits do not form a valid RaggedTensor:zero"),
    (lambda: tf.RaggedTensor.from_row_splits([1, 2, 3], [0, 2]),
     "Arguments to _from_row_partition do not form a valid RaggedTensor"),
    (lambda: tf.RaggedTensor.from_row_lengths([1, 2, 3], [4, -1]),
     "Arguments to from_row_lengths do not form a valid RowPartition."),
    (lambda: tf.RaggedTensor.from_row_starts([1, 2, 3], [1, 2]),
     "Arguments to from_row_starts do not form a valid RaggedTensor"),
    (lambda: tf.RaggedTensor.from_value_rowids([1, 2, 3], [1, 0, 0]),
     "Arguments to from_value_rowids do not form a valid RowPartition."),
])
def test_validation_errors(build, first_line):
    with pytest.raises(errors.InvalidArgumentError) as info:
        build()
    assert str(info.value).splitlines()[0] == first_line


def test_validation_off_and_row_id_count():
    with pytest.raises(ValueError, match=r"Shapes \(3,\) and \(2,\) are incompatible"):
        tf.RaggedTensor.from_value_rowids([1, 2, 3], [0, 1])


def test_to_tensor_from_tensor_and_numpy():
    sentences = tf.ragged.constant([["Hi"], ["Welcome", "to", "the", "fair"], ["Have", "fun"]])
    dense = sentences.to_tensor(default_value="", shape=[None, 10])
    assert dense.shape.as_list() == [3, 10] and dense.numpy()[1, 3] == b"fair" and dense.numpy()[0, 1] == b""
    x = [[1, 3, -1, -1], [2, -1, -1, -1], [4, 5, 8, 9]]
    assert tf.RaggedTensor.from_tensor(x, padding=-1).to_list() == [[1, 3], [2], [4, 5, 8, 9]]
    assert tf.RaggedTensor.from_tensor(x, lengths=[1, 0, 5]).to_list() == [[1], [], [4, 5, 8, 9]]
    assert tf.RaggedTensor.from_tensor([[1, 2], [3, 4]]).shape.as_list() == [2, 2]
    deep = tf.RaggedTensor.from_tensor(tf.reshape(tf.range(12), [2, 3, 2]), ragged_rank=2)
    assert deep.shape.as_list() == [2, 3, 2] and deep.ragged_rank == 2
    cut = tf.ragged.constant([[1.0, 2.0], [3.0]]).to_tensor(shape=[3, 1])
    assert cut.numpy().tolist() == [[1.0], [3.0], [0.0]]
    arr = digits().numpy()
    assert arr.dtype == object and arr[2].tolist() == [5, 9, 2]
    same = tf.ragged.constant([[1, 2], [3, 4]]).numpy()
    assert same.dtype == np.int32 and same.shape == (2, 2)


def test_not_a_tensor():
    rt = digits()
    with pytest.raises(ValueError, match="has no len()"):
        tf.convert_to_tensor(rt)
    with pytest.raises(TypeError, match="RaggedTensor is unhashable."):
        hash(rt)


def test_getitem_documented_cases():
    queries = tf.ragged.constant([["Who", "is", "George", "Washington"],
                                  ["What", "is", "the", "weather", "tomorrow"], ["Goodnight"]])
    assert queries[1].numpy().tolist() == [b"What", b"is", b"the", b"weather", b"tomorrow"]
    assert queries[1, 2].numpy() == b"the"
    assert queries[1:].to_list()[1] == [b"Goodnight"]
    assert queries[:, :3].to_list()[0] == [b"Who", b"is", b"George"]
    assert queries[:, -2:].to_list() == [[b"George", b"Washington"], [b"weather", b"tomorrow"], [b"Goodnight"]]
    rt = tf.ragged.constant([[[1, 2, 3], [4]], [[5], [], [6]], [[7]], [[8, 9], [10]]])
    assert rt[1].to_list() == [[5], [], [6]]
    assert rt[3, 0].numpy().tolist() == [8, 9]
    assert rt[:, 1:3].to_list() == [[[4]], [[], [6]], [], [[10]]]
    assert rt[:, -1:].to_list() == [[[4]], [[6]], [[7]], [[10]]]
    with pytest.raises(ValueError, match="Cannot index into an inner ragged dimension."):
        rt[:, 0]
    with pytest.raises(IndexError, match="Row key 10 out of bounds"):
        rt[10]


def test_spec_and_shape():
    spec = tf.ragged.RaggedTensorSpec(shape=[None, None], dtype=tf.int32)
    assert repr(spec) == "RaggedTensorSpec(TensorShape([None, None]), tf.int32, 1, tf.int64)"
    assert spec.is_compatible_with(tf.ragged.constant([[1], [2, 3]]))
    assert not spec.is_compatible_with(tf.ragged.constant([[1.0]]))
    shape = tf.shape(tf.ragged.constant([[1], [2, 3, 4], [], [5, 6]]))
    assert repr(shape) == "<DynamicRaggedShape lengths=[4, (1, 3, 0, 2)] num_row_partitions=1>"
    assert int(shape[0]) == 4 and shape[0].dtype == tf.int32
    assert repr(shape[:1]) == "<DynamicRaggedShape lengths=[4] num_row_partitions=0>"
    with pytest.raises(ValueError, match="Index 1 is not uniform"):
        shape[1]


def test_repr_of_deeper_ragged_tensors_matches_tf():
    paragraphs = tf.ragged.constant([
        [["I", "have", "a", "cat"], ["His", "name", "is", "Mat"]],
        [["Do", "you", "want", "to", "come", "visit"], ["I'm", "free", "tomorrow"]]])
    assert repr(paragraphs) == (
        "<tf.RaggedTensor [[[b'I', b'have', b'a', b'cat'], [b'His', b'name', b'is', b'Mat']],\n"
        " [[b'Do', b'you', b'want', b'to', b'come', b'visit'],\n"
        "  [b\"I'm\", b'free', b'tomorrow']]]>")
    uniform = tf.RaggedTensor.from_uniform_row_length(
        tf.RaggedTensor.from_row_splits(list(range(10, 20)), [0, 3, 5, 9, 10]), 2)
    assert repr(uniform) == "<tf.RaggedTensor [[[10, 11, 12], [13, 14]],\n [[15, 16, 17, 18], [19]]]>"
