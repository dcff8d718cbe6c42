"""tf.io.RaggedFeature with tf.io.parse_example / parse_single_example, as TF 2.21 parses them."""
import pytest

import minitf as tf

pytest.importorskip("google.protobuf")
RF = tf.io.RaggedFeature


def _example(**features):
    feature = {}
    for key, values in features.items():
        if values and isinstance(values[0], str):
            feature[key] = tf.train.Feature(bytes_list=tf.train.BytesList(value=[v.encode() for v in values]))
        elif values and isinstance(values[0], float):
            feature[key] = tf.train.Feature(float_list=tf.train.FloatList(value=values))
        else:
            feature[key] = tf.train.Feature(int64_list=tf.train.Int64List(value=values))
    return tf.train.Example(features=tf.train.Features(feature=feature)).SerializeToString()


# the ragged tensor guide's batch (its second record holds an empty int64 list)
GUIDE = [_example(colors=["red", "blue"], lengths=[7]), _example(colors=["orange"], lengths=[]),
         _example(colors=["black", "yellow"], lengths=[1, 3]), _example(colors=["green"], lengths=[3, 5, 2])]
NESTED = [_example(v=[3, 1, 4, 1, 5, 9], s1=[0, 2, 3, 3, 6], s2=[0, 2, 3, 4], c=["a"]),
          _example(v=[2, 7, 1, 8, 2, 8, 1], s1=[0, 3, 4, 5, 7], s2=[0, 1, 1, 4])]


def test_records_ending_with_nul_bytes():
    record = _example(lengths=[])  # an empty int64 list serializes as ... 0x1a 0x00
    assert record.endswith(b"\x00")
    assert tf.io.parse_example([record, record], {"lengths": RF(tf.int64)})["lengths"].to_list() == [[], []]


def test_the_guides_batch():
    out = tf.io.parse_example(GUIDE, {"colors": RF(tf.string), "lengths": RF(tf.int64)})
    assert out["colors"].to_list() == [[b"red", b"blue"], [b"orange"], [b"black", b"yellow"], [b"green"]]
    assert out["lengths"].to_list() == [[7], [], [1, 3], [3, 5, 2]]
    assert out["lengths"].dtype == tf.int64 and out["lengths"].row_splits.dtype == tf.int32
    assert out["lengths"].shape.as_list() == [4, None]
    assert str(out["colors"]) == "<tf.RaggedTensor [[b'red', b'blue'], [b'orange'], [b'black', b'yellow'], [b'green']]>"
    wide = tf.io.parse_example(GUIDE, {"lengths": RF(tf.int64, row_splits_dtype=tf.int64)})
    assert wide["lengths"].row_splits.dtype == tf.int64


def test_single_example_and_missing_features():
    one = tf.io.parse_single_example(GUIDE[0], {"colors": RF(tf.string), "x": RF(tf.float32)})
    assert isinstance(one["colors"], tf.Tensor) and one["colors"].numpy().tolist() == [b"red", b"blue"]
    assert one["x"].shape == (0,) and one["x"].dtype == tf.float32
    out = tf.io.parse_example(GUIDE[:2], {"zz": RF(tf.float32)})
    assert out["zz"].to_list() == [[], []]
    assert tf.io.parse_example([], {"zz": RF(tf.int64)})["zz"].to_list() == []


def test_partitions():
    splits = RF(tf.int64, value_key="v", partitions=[RF.RowSplits("s2"), RF.RowSplits("s1")])
    nested = tf.io.parse_example(NESTED, {"f": splits})["f"]
    assert nested.ragged_rank == 3
    assert nested.to_list() == [[[[3, 1], [4]], [[]], [[1, 5, 9]]], [[[2, 7, 1]], [], [[8], [2], [8, 1]]]]
    assert all(s.dtype == tf.int32 for s in nested.nested_row_splits)
    single = tf.io.parse_single_example(NESTED[0], {"f": splits})["f"]
    assert single.to_list() == [[[3, 1], [4]], [[]], [[1, 5, 9]]]
    one = NESTED[0]
    assert tf.io.parse_single_example(one, {"f": RF(tf.int64, value_key="v", partitions=[RF.RowStarts("s1")])})[
        "f"].to_list() == [[3, 1], [4], [], [1, 5, 9], []]
    assert tf.io.parse_single_example(one, {"f": RF(tf.int64, value_key="v", partitions=[RF.RowLimits("s1")])})[
        "f"].to_list() == [[], [3, 1], [4], [], [1, 5, 9]]
    uniform = tf.io.parse_example(NESTED, {"f": RF(tf.int64, value_key="s2", partitions=[RF.UniformRowLength(2)])})
    assert uniform["f"].shape.as_list() == [2, None, 2] and uniform["f"].ragged_rank == 1
    assert uniform["f"].to_list() == [[[0, 2], [3, 4]], [[0, 1], [1, 4]]]


def test_bad_records_and_partitions_raise_tf_errors():
    with pytest.raises(tf.errors.InvalidArgumentError, match="Key: c, Index: 0.  Data types don't match"):
        tf.io.parse_example(NESTED, {"c": RF(tf.int64)})
    with pytest.raises(tf.errors.InvalidArgumentError, match="Key: c.  Data types don't match"):
        tf.io.parse_single_example(NESTED[0], {"f": RF(tf.int64, value_key="v", partitions=[RF.RowLengths("c")])})
    with pytest.raises(tf.errors.InvalidArgumentError, match="multiple of 4"):
        tf.io.parse_single_example(NESTED[0], {"f": RF(tf.int64, value_key="v", partitions=[RF.UniformRowLength(4)])})
    with pytest.raises(ValueError, match="incompatible"):
        tf.io.parse_single_example(NESTED[0], {"f": RF(tf.int64, value_key="v", partitions=[RF.ValueRowIds("s1")])})
    with pytest.raises(tf.errors.InvalidArgumentError):  # lengths that do not add up (TF checks with validate)
        tf.io.parse_single_example(NESTED[0], {"f": RF(tf.int64, value_key="v", partitions=[RF.RowLengths("s1")])})


def test_constructor_checks():
    assert repr(RF(tf.int64, value_key="v", partitions=[RF.RowLengths("s")])) == (
        "RaggedFeature(dtype=tf.int64, value_key='v', partitions=(RowLengths(key='s'),), "
        "row_splits_dtype=tf.int32, validate=False)")
    with pytest.raises(ValueError, match="must be int64, float32, or bytes"):
        RF(tf.int32)
    with pytest.raises(ValueError, match="must not be empty"):
        RF(tf.int64, value_key="")
    with pytest.raises(TypeError, match="list or tuple"):
        RF(tf.int64, partitions="x")
    with pytest.raises(TypeError, match="cannot be cast"):
        RF(tf.int64, partitions=["x"])
    with pytest.raises(TypeError, match="must be a bool"):
        RF(tf.int64, validate=1)
    with pytest.raises(ValueError, match="int32 or int64"):
        RF(tf.int64, row_splits_dtype=tf.float32)


def test_compare_with_tensorflow():
    tf_ref = pytest.importorskip("tensorflow")

    def run(lib):
        R = lib.io.RaggedFeature
        out = lib.io.parse_example(GUIDE, {"colors": R(lib.string), "lengths": R(lib.int64)})
        nested = lib.io.parse_example(NESTED, {"f": R(lib.int64, value_key="v", partitions=[
            R.RowSplits("s2"), R.RowSplits("s1")])})["f"]
        one = lib.io.parse_single_example(NESTED[0], {"f": R(lib.int64, value_key="v", partitions=[R.RowStarts("s1")])})
        return [str(out["colors"]), str(out["lengths"]), out["lengths"].row_splits.numpy().tolist(),
                nested.to_list(), one["f"].to_list(), repr(R(lib.float32, partitions=[R.UniformRowLength(2)]))]
    assert run(tf) == run(tf_ref)
