"""Ragged and sparse tensors as tf.data elements (from_tensor_slices, from_tensors, batch,
unbatch, map), and the specs TF 2.21 gives them; the spec of a map over an empty dataset."""
import pytest

import minitf as tf


def sparse6x4():
    return tf.sparse.SparseTensor(indices=[(0, 0), (0, 1), (0, 2), (4, 3), (5, 0), (5, 1)],
                                  values=[1, 1, 1, 1, 1, 1], dense_shape=(6, 4))


def dense_rows(sp):
    return tf.sparse.to_dense(sp).numpy().tolist()


def test_sparse_slices_batches_and_maps():
    ds = tf.data.Dataset.from_tensor_slices(sparse6x4())
    assert repr(ds.element_spec) == "SparseTensorSpec(TensorShape([4]), tf.int32)"
    assert ds.element_spec.value_type is tf.SparseTensor
    rows = list(ds)
    assert [dense_rows(r) for r in rows] == tf.sparse.to_dense(sparse6x4()).numpy().tolist()
    assert rows[0].indices.numpy().tolist() == [[0], [1], [2]] and rows[1].values.shape == (0,)
    batched = ds.batch(2)
    assert batched.element_spec.shape.as_list() == [None, 4]
    assert ds.batch(2, drop_remainder=True).element_spec.shape.as_list() == [2, 4]
    first = next(iter(batched))
    assert first.dense_shape.numpy().tolist() == [2, 4] and first.indices.numpy().tolist() == [[0, 0], [0, 1], [0, 2]]
    again = list(batched.unbatch())
    assert [dense_rows(r) for r in again] == [dense_rows(r) for r in rows]
    assert batched.unbatch().element_spec.shape.as_list() == [4]
    doubled = list(ds.map(lambda x: x * 2))
    assert doubled[5].values.numpy().tolist() == [2, 2]
    assert repr(tf.data.Dataset.from_tensors(sparse6x4()).element_spec) == "SparseTensorSpec(TensorShape([6, 4]), tf.int32)"


def test_ragged_slices_batches_and_unbatches():
    rt = tf.ragged.constant([[1, 2], [3], [4, 5, 6], []])
    ds = tf.data.Dataset.from_tensor_slices(rt)
    assert repr(ds.element_spec) == "RaggedTensorSpec(TensorShape([None]), tf.int32, 0, tf.int64)"
    rows = list(ds)
    assert all(type(r) is tf.Tensor for r in rows) and [r.numpy().tolist() for r in rows] == rt.to_list()
    batched = ds.batch(2)
    assert repr(batched.element_spec) == "RaggedTensorSpec(TensorShape([None, None]), tf.int32, 1, tf.int64)"
    assert [b.to_list() for b in batched] == [[[1, 2], [3]], [[4, 5, 6], []]]
    assert [r.numpy().tolist() for r in batched.unbatch()] == rt.to_list()
    deep = tf.data.Dataset.from_tensor_slices(tf.ragged.constant([[[1], [2, 3]], [[4]], []]))
    assert [r.to_list() for r in deep] == [[[1], [2, 3]], [[4]], []]
    assert deep.batch(2).element_spec.ragged_rank == 2
    whole = tf.data.Dataset.from_tensors(rt)
    assert repr(whole.element_spec) == "RaggedTensorSpec(TensorShape([4, None]), tf.int32, 1, tf.int64)"
    assert repr(whole.batch(2).element_spec) == "RaggedTensorSpec(TensorShape([None, 4, None]), tf.int32, 2, tf.int64)"
    assert [b.to_list() for b in whole.batch(2)] == [[rt.to_list()]]


def test_dicts_of_ragged_features_and_maps_returning_ragged():
    features = {"lengths": tf.ragged.constant([[7], [], [1, 3]], dtype=tf.int64),
                "colors": tf.ragged.constant([["a", "b"], ["c"], ["d", "e"]])}
    ds = tf.data.Dataset.from_tensor_slices(features)
    first = next(iter(ds))
    assert "{}".format(first["colors"]) == "[b'a' b'b']" and "{}".format(first["lengths"]) == "[7]"

    def transform(f):
        return {"mean": tf.math.reduce_mean(f["lengths"]), "ranges": tf.ragged.range(f["lengths"])}
    mapped = ds.map(transform)
    assert [e["ranges"].to_list() for e in mapped] == [[[0, 1, 2, 3, 4, 5, 6]], [], [[0], [0, 1, 2]]]
    assert [int(e["mean"]) for e in mapped] == [7, 0, 2]
    # the row count of a computed ragged element is not fixed by the first element: rows of
    # different counts batch together
    assert mapped.element_spec["ranges"].shape.as_list() == [None, None]
    assert [b["ranges"].to_list() for b in mapped.batch(3)] == [[[[0, 1, 2, 3, 4, 5, 6]], [], [[0], [0, 1, 2]]]]


def test_bad_composite_elements():
    with pytest.raises(ValueError, match="same size in the first dimension"):
        tf.data.Dataset.from_tensor_slices((tf.ragged.constant([[1], [2]]), tf.constant([1, 2, 3])))
    with pytest.raises(ValueError, match="rank >= 1"):
        tf.data.Dataset.from_tensor_slices(tf.sparse.SparseTensor(tf.zeros([0, 0], tf.int64), [], []))


def test_map_over_an_empty_dataset_traces_for_its_spec():
    empty = tf.data.Dataset.from_tensor_slices(tf.constant([], tf.float32))
    spec = empty.map(lambda x: (x * 2, tf.cast(x, tf.int32))).element_spec
    assert spec == (tf.TensorSpec([], tf.float32), tf.TensorSpec([], tf.int32))
    assert empty.map(lambda x: tf.fill([3], x)).element_spec == tf.TensorSpec([3], tf.float32)
    with pytest.raises(ValueError, match="empty dataset"):
        empty.map(lambda x: tf.ragged.range(tf.cast(x, tf.int32))).element_spec


def test_parse_over_an_empty_tfrecord_dataset_has_the_features_spec():
    pytest.importorskip("google.protobuf")
    description = {"a": tf.io.FixedLenFeature([], tf.int64, default_value=0),
                   "b": tf.io.FixedLenFeature([2], tf.float32, default_value=[0.0, 1.0])}
    empty = tf.data.Dataset.from_tensor_slices(tf.constant([], tf.string))
    parsed = empty.map(lambda r: tf.io.parse_single_example(r, description))
    assert parsed.element_spec == {"a": tf.TensorSpec([], tf.int64), "b": tf.TensorSpec([2], tf.float32)}
    required = empty.map(lambda r: tf.io.parse_single_example(r, {"c": tf.io.FixedLenFeature([], tf.int64)}))
    with pytest.raises(ValueError, match="empty dataset"):
        required.element_spec


def test_compare_with_tensorflow():
    tf_ref = pytest.importorskip("tensorflow")

    def run(lib):
        sp = lib.sparse.SparseTensor(indices=[(0, 0), (0, 1), (4, 3)], values=[1, 2, 3], dense_shape=(6, 4))
        rt = lib.ragged.constant([[1, 2], [3], [4, 5, 6], []])
        sparse = lib.data.Dataset.from_tensor_slices(sp)
        ragged = lib.data.Dataset.from_tensor_slices(rt)
        return [repr(sparse.element_spec), repr(sparse.batch(4).element_spec),
                [lib.sparse.to_dense(b).numpy().tolist() for b in sparse.batch(4)],
                [lib.sparse.to_dense(r).numpy().tolist() for r in sparse.batch(4).unbatch()],
                repr(ragged.element_spec), repr(ragged.batch(3).element_spec),
                [b.to_list() for b in ragged.batch(3)], [r.numpy().tolist() for r in ragged.batch(3).unbatch()],
                repr(lib.data.Dataset.from_tensors(rt).batch(2).element_spec)]
    assert run(tf) == run(tf_ref)
