"""tf.train.Example messages and tf.io.parse_single_example / parse_example."""
import numpy as np
import pytest

import minitf as tf

# the bytes TF 2.21 serializes for EXAMPLE below (map order differs between writers; parsing
# must not care)
TF_BYTES = bytes.fromhex("0a350a0e0a017312090a070a0261620a01630a0d0a0166120812060a040000c03f0a050a01651200"
                         "0a0d0a016912081a060a0401020304")


pytest.importorskip("google.protobuf")  # the rest needs the optional dependency


def _example():
    return tf.train.Example(features=tf.train.Features(feature={
        "i": tf.train.Feature(int64_list=tf.train.Int64List(value=[1, 2, 3, 4])),
        "f": tf.train.Feature(float_list=tf.train.FloatList(value=[1.5])),
        "s": tf.train.Feature(bytes_list=tf.train.BytesList(value=[b"ab", b"c"])),
        "e": tf.train.Feature(),
    }))


def test_message_api():
    ex = _example()
    again = tf.train.Example.FromString(ex.SerializeToString())
    assert again == ex and tf.train.Example.FromString(TF_BYTES) == ex
    parsed = tf.train.Example()
    parsed.ParseFromString(TF_BYTES)
    assert list(parsed.features.feature["i"].int64_list.value) == [1, 2, 3, 4]
    assert parsed.features.feature["f"].WhichOneof("kind") == "float_list"
    assert parsed.features.feature["e"].WhichOneof("kind") is None
    assert type(ex).__name__ == "Example" and tf.train.Example.DESCRIPTOR.full_name == "tensorflow.Example"
    assert "int64_list" in str(ex)


def test_values_from_tensors_and_numpy():
    f = tf.train.Feature(int64_list=tf.train.Int64List(value=[tf.constant(3), np.int64(4)]))
    assert list(f.int64_list.value) == [3, 4]
    f = tf.train.Feature(float_list=tf.train.FloatList(value=tf.constant([3.5, 1.0])))
    assert list(f.float_list.value) == [3.5, 1.0]
    with pytest.raises(TypeError, match="bytes"):
        tf.train.BytesList(value=[tf.constant(b"x")])  # TF too: call .numpy() first
    with pytest.raises(TypeError):
        tf.train.Int64List(value=[1.5])


def test_sequence_example():
    seq = tf.train.SequenceExample(
        context=tf.train.Features(feature={"n": tf.train.Feature(int64_list=tf.train.Int64List(value=[2]))}),
        feature_lists=tf.train.FeatureLists(feature_list={"a": tf.train.FeatureList(feature=[
            tf.train.Feature(int64_list=tf.train.Int64List(value=[1]))])}))
    back = tf.train.SequenceExample.FromString(seq.SerializeToString())
    assert back.feature_lists.feature_list["a"].feature[0].int64_list.value[0] == 1
    assert tf.train.SequenceExample.FromString(b"\n\x00\x12\x0e\n\x0c\n\x01a\x12\x07\n\x05\x1a\x03\n\x01\x01"
                                               ).feature_lists.feature_list["a"].feature[0].int64_list.value[0] == 1


def test_parse_single_example_dense():
    out = tf.io.parse_single_example(TF_BYTES, {
        "i": tf.io.FixedLenFeature([2, 2], tf.int64), "f": tf.io.FixedLenFeature([], tf.float32),
        "s": tf.io.FixedLenFeature([2], tf.string), "x": tf.io.FixedLenFeature([2], tf.float32, [3, 4]),
        "e": tf.io.FixedLenFeature([], tf.int64, default_value=7)})
    assert list(out) == ["e", "f", "i", "s", "x"]
    assert out["i"].dtype == tf.int64 and out["i"].numpy().tolist() == [[1, 2], [3, 4]]
    assert out["f"].dtype == tf.float32 and out["f"].shape == [] and float(out["f"]) == 1.5
    assert out["s"].numpy().tolist() == [b"ab", b"c"]
    assert out["x"].numpy().tolist() == [3.0, 4.0] and int(out["e"]) == 7
    assert tf.io.parse_single_example(tf.constant(TF_BYTES), {
        "m": tf.io.FixedLenFeature([], tf.string, default_value="")})["m"].numpy() == b""


def test_parse_single_example_varlen():
    out = tf.io.parse_single_example(TF_BYTES, {"i": tf.io.VarLenFeature(tf.int64),
                                                "x": tf.io.VarLenFeature(tf.string)})
    assert isinstance(out["i"], tf.SparseTensor)
    assert out["i"].indices.numpy().tolist() == [[0], [1], [2], [3]]
    assert out["i"].values.numpy().tolist() == [1, 2, 3, 4]
    assert out["i"].dense_shape.numpy().tolist() == [4]
    assert out["x"].values.dtype == tf.string and out["x"].indices.shape == [0, 1]


@pytest.mark.parametrize("features, match", [
    ({"i": tf.io.FixedLenFeature([3], tf.int64)}, "Key: i.  Can't parse serialized Example"),
    ({"i": tf.io.FixedLenFeature([4], tf.float32)}, "Key: i.  Data types don't match. Data type: int64 but "
                                                     "expected type: float"),
    ({"i": tf.io.VarLenFeature(tf.float32)}, "Expected type: float, Actual type: int64"),
    ({"x": tf.io.FixedLenFeature([], tf.float32)}, r"Feature: x \(data type: float\) is required"),
    ({"e": tf.io.FixedLenFeature([], tf.int64)}, r"Feature: e \(data type: int64\) is required"),
    ({"x": tf.io.FixedLenFeature([2], tf.float32, default_value=3)}, "reshape .* 1 values"),
    ({"i": tf.io.FixedLenFeature([4], tf.int32)}, "int32"),
])
def test_parse_errors_are_invalid_argument(features, match):
    with pytest.raises(tf.errors.InvalidArgumentError, match=match):
        tf.io.parse_single_example(TF_BYTES, features)


def test_parse_argument_errors():
    spec = {"i": tf.io.FixedLenFeature([4], tf.int64)}
    with pytest.raises(tf.errors.InvalidArgumentError, match="Could not parse example input"):
        tf.io.parse_single_example(b"garbage", spec)
    with pytest.raises(ValueError, match="must be a scalar"):
        tf.io.parse_single_example([TF_BYTES, TF_BYTES], spec)
    with pytest.raises(ValueError, match="features cannot be empty"):
        tf.io.parse_single_example(TF_BYTES, {})
    with pytest.raises(ValueError, match="Unsupported int 3 for key 'i'"):
        tf.io.parse_single_example(TF_BYTES, {"i": 3})
    with pytest.raises(ValueError, match="First dimension of shape for feature i unknown"):
        tf.io.parse_single_example(TF_BYTES, {"i": tf.io.FixedLenFeature([None], tf.int64)})
    assert repr(tf.io.FixedLenFeature([], tf.int64)) == "FixedLenFeature(shape=[], dtype=tf.int64, default_value=None)"
    assert repr(tf.io.VarLenFeature(tf.int64)) == "VarLenFeature(dtype=tf.int64)"


def test_parse_example_batches():
    empty = tf.train.Example().SerializeToString()
    out = tf.io.parse_example([TF_BYTES, TF_BYTES], {"i": tf.io.FixedLenFeature([4], tf.int64),
                                                     "f": tf.io.FixedLenFeature([], tf.float32)})
    assert out["i"].shape == [2, 4] and out["f"].numpy().tolist() == [1.5, 1.5]
    sp = tf.io.parse_example(tf.constant([TF_BYTES, empty]), {"s": tf.io.VarLenFeature(tf.string)})["s"]
    assert sp.indices.numpy().tolist() == [[0, 0], [0, 1]]
    assert sp.dense_shape.numpy().tolist() == [2, 2]
    with pytest.raises(tf.errors.InvalidArgumentError, match="Name: <unknown>, Feature: x"):
        tf.io.parse_example([TF_BYTES], {"x": tf.io.FixedLenFeature([], tf.float32)})


def test_parse_in_a_tfrecord_pipeline(tmp_path):
    path = str(tmp_path / "ex.tfr")
    with tf.io.TFRecordWriter(path) as w:
        for k in range(5):
            w.write(tf.train.Example(features=tf.train.Features(feature={
                "k": tf.train.Feature(int64_list=tf.train.Int64List(value=[k] * (k % 3)))})).SerializeToString())
    ds = tf.data.TFRecordDataset(path).map(
        lambda r: tf.io.parse_single_example(r, {"k": tf.io.VarLenFeature(tf.int64)}))
    assert [int(e["k"].dense_shape[0]) for e in ds] == [0, 1, 2, 0, 1]
    assert type(ds.element_spec["k"]).__name__ == "SparseTensorSpec"  # tf.SparseTensorSpec is not mapped yet
    assert ds.element_spec["k"].shape.as_list() == [None] and ds.element_spec["k"].dtype == tf.int64
    dense = tf.data.TFRecordDataset(path).batch(5).map(
        lambda r: tf.io.parse_example(r, {"z": tf.io.FixedLenFeature([], tf.int64, default_value=-1)}))
    assert next(iter(dense))["z"].numpy().tolist() == [-1] * 5
    # an empty int64_list is present, not missing: no default for it (TF raises the same)
    empty = tf.data.TFRecordDataset(path).batch(5).map(
        lambda r: tf.io.parse_example(r, {"k": tf.io.FixedLenFeature([], tf.int64, default_value=-1)}))
    with pytest.raises(tf.errors.InvalidArgumentError, match="Key: k"):
        next(iter(empty))


def test_the_tfrecord_tutorial_flow(tmp_path):
    """The TF tfrecord tutorial's main path: py_function-serialized Examples, written, read, parsed."""
    def _int64_feature(value):
        return tf.train.Feature(int64_list=tf.train.Int64List(value=[value]))

    def _float_feature(value):
        return tf.train.Feature(float_list=tf.train.FloatList(value=[value]))

    def _bytes_feature(value):
        if isinstance(value, type(tf.constant(0))):
            value = value.numpy()
        return tf.train.Feature(bytes_list=tf.train.BytesList(value=[value]))

    @tf.py_function(Tout=tf.string)
    def serialize_example(f0, f1, f2, f3):
        feature = {"feature0": _int64_feature(f0), "feature1": _int64_feature(f1),
                   "feature2": _bytes_feature(f2), "feature3": _float_feature(f3)}
        return tf.train.Example(features=tf.train.Features(feature=feature)).SerializeToString()

    rng = np.random.default_rng(0)
    f1 = rng.integers(0, 5, 20)
    f2 = np.array([b"cat", b"dog", b"chicken", b"horse", b"goat"])[f1]
    f3 = rng.standard_normal(20)
    path = str(tmp_path / "test.tfrecord")
    with tf.io.TFRecordWriter(path) as writer:
        for i in range(20):
            writer.write(serialize_example(i % 2, f1[i], f2[i], f3[i]).numpy())
    description = {"feature0": tf.io.FixedLenFeature([], tf.int64, default_value=0),
                   "feature1": tf.io.FixedLenFeature([], tf.int64, default_value=0),
                   "feature2": tf.io.FixedLenFeature([], tf.string, default_value=""),
                   "feature3": tf.io.FixedLenFeature([], tf.float32, default_value=0.0)}
    parsed = list(tf.data.TFRecordDataset([path]).map(lambda p: tf.io.parse_single_example(p, description)))
    assert [int(r["feature0"]) for r in parsed] == [i % 2 for i in range(20)]
    assert [r["feature2"].numpy() for r in parsed] == f2.tolist()
    np.testing.assert_allclose([float(r["feature3"]) for r in parsed], f3.astype(np.float32))
    example = tf.train.Example()
    example.ParseFromString(next(iter(tf.data.TFRecordDataset([path]))).numpy())
    result = {k: np.array(getattr(f, f.WhichOneof("kind")).value) for k, f in example.features.feature.items()}
    assert result["feature1"].tolist() == [f1[0]]


def test_varlen_features_batch_and_unbatch_as_in_tf():
    records = np.array([tf.train.Example(features=tf.train.Features(feature={"k": tf.train.Feature(
        int64_list=tf.train.Int64List(value=list(range(n))))})).SerializeToString() for n in [0, 2, 1, 3, 2]],
        dtype=object)
    ds = tf.data.Dataset.from_tensor_slices(records).map(
        lambda r: tf.io.parse_single_example(r, {"k": tf.io.VarLenFeature(tf.int64)}))
    batched = ds.batch(2)
    assert batched.element_spec["k"].shape.as_list() == [None, None]
    got = [(e["k"].indices.numpy().tolist(), e["k"].values.numpy().tolist(), e["k"].dense_shape.numpy().tolist())
           for e in batched]
    # TF 2.21's batches of the same records
    assert got == [([[1, 0], [1, 1]], [0, 1], [2, 2]),
                   ([[0, 0], [1, 0], [1, 1], [1, 2]], [0, 0, 1, 2], [2, 3]),
                   ([[0, 0], [0, 1]], [0, 1], [1, 2])]
    rows = batched.unbatch()
    assert rows.element_spec["k"].shape.as_list() == [None]
    assert [e["k"].dense_shape.numpy().tolist() for e in rows] == [[2], [2], [3], [3], [2]]
    assert [e["k"].values.numpy().tolist() for e in rows] == [[], [0, 1], [0], [0, 1, 2], [0, 1]]
