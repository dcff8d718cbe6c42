"""TFRecord files and tf.train.Example bytes cross between TF and minitf both ways."""
import os

import numpy as np
import pytest

import minitf

RECORDS = [b"", b"a", os.urandom(5000), bytes(range(256)) * 300]


@pytest.mark.parametrize("compression", ["", "GZIP", "ZLIB"])
def test_tf_writes_minitf_reads(tf_ref, tmp_path, compression):
    path = str(tmp_path / "tf.tfr")
    with tf_ref.io.TFRecordWriter(path, tf_ref.io.TFRecordOptions(compression)) as w:
        for r in RECORDS:
            w.write(r)
    got = list(minitf.data.TFRecordDataset(path, compression_type=compression).as_numpy_iterator())
    assert got == RECORDS


@pytest.mark.parametrize("compression", ["", "GZIP", "ZLIB"])
def test_minitf_writes_tf_reads(tf_ref, tmp_path, compression):
    path = str(tmp_path / "minitf.tfr")
    with minitf.io.TFRecordWriter(path, minitf.io.TFRecordOptions(compression)) as w:
        for r in RECORDS:
            w.write(r)
    got = list(tf_ref.data.TFRecordDataset(path, compression_type=compression).as_numpy_iterator())
    assert got == RECORDS
    if not compression:  # the uncompressed bytes are the same file
        tf_path = str(tmp_path / "tf.tfr")
        with tf_ref.io.TFRecordWriter(tf_path) as w:
            for r in RECORDS:
                w.write(r)
        assert open(tf_path, "rb").read() == open(path, "rb").read()


def _example(lib):
    return lib.train.Example(features=lib.train.Features(feature={
        "i": lib.train.Feature(int64_list=lib.train.Int64List(value=[1, -2, 2**40])),
        "f": lib.train.Feature(float_list=lib.train.FloatList(value=[0.5, -1e30])),
        "s": lib.train.Feature(bytes_list=lib.train.BytesList(value=[b"x", "é".encode()])),
    }))


def _spec(lib):
    return {"i": lib.io.FixedLenFeature([3], lib.int64), "f": lib.io.VarLenFeature(lib.float32),
            "s": lib.io.FixedLenFeature([2], lib.string), "m": lib.io.FixedLenFeature([], lib.int64, default_value=9)}


def _plain(out):
    return {k: (v.values.numpy().tolist(), v.indices.numpy().tolist(), v.dense_shape.numpy().tolist())
            if hasattr(v, "indices") else v.numpy().tolist() for k, v in out.items()}


@pytest.mark.parametrize("writer, reader", [("tf", "minitf"), ("minitf", "tf")])
def test_example_bytes_cross(tf_ref, writer, reader):
    libs = {"tf": tf_ref, "minitf": minitf}
    data = _example(libs[writer]).SerializeToString()
    assert libs[reader].train.Example.FromString(data).SerializeToString() == \
        libs[writer].train.Example.FromString(data).SerializeToString()
    assert _plain(libs[reader].io.parse_single_example(data, _spec(libs[reader]))) == \
        _plain(libs[writer].io.parse_single_example(data, _spec(libs[writer])))
    batch = [data, libs[writer].train.Example().SerializeToString()]
    spec = {"f": libs[reader].io.VarLenFeature(libs[reader].float32)}
    ours = _plain(libs[reader].io.parse_example(batch, spec))
    theirs = _plain(libs[writer].io.parse_example(batch, {"f": libs[writer].io.VarLenFeature(libs[writer].float32)}))
    assert ours == theirs


def test_parse_errors_match_tf_types(tf_ref):
    data = _example(tf_ref).SerializeToString()
    cases = [lambda lib: {"i": lib.io.FixedLenFeature([2], lib.int64)},
             lambda lib: {"i": lib.io.FixedLenFeature([3], lib.float32)},
             lambda lib: {"x": lib.io.FixedLenFeature([], lib.int64)},
             lambda lib: {"i": lib.io.VarLenFeature(lib.string)},
             lambda lib: {}]
    for k, case in enumerate(cases):
        raised = []
        for lib in (tf_ref, minitf):
            try:
                lib.io.parse_single_example(data, case(lib))
                raised.append(None)
            except Exception as e:  # noqa: BLE001 (comparing the types)
                raised.append(type(e).__name__)
        assert raised[0] == raised[1] and raised[0] is not None, (k, raised)
    np.testing.assert_equal(minitf.io.parse_single_example(data, {"i": minitf.io.FixedLenFeature([3], minitf.int64)})
                            ["i"].numpy(), [1, -2, 2**40])
