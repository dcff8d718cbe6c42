"""Without the optional protobuf package, tf.train.Example and parsing say which extra to install."""
import sys

import pytest

import minitf as tf
from minitf.example import proto as example_proto


def test_missing_protobuf_names_the_extra(monkeypatch):
    monkeypatch.setattr(example_proto, "_CLASSES", {})
    for mod in ("google.protobuf", "google.protobuf.descriptor_pb2", "google.protobuf.descriptor_pool",
                "google.protobuf.message_factory"):
        monkeypatch.setitem(sys.modules, mod, None)
    with pytest.raises(ImportError, match=r"minitf\[tfrecord\]"):
        tf.train.Example()
    with pytest.raises(ImportError, match="protobuf"):
        tf.io.parse_single_example(b"", {"x": tf.io.VarLenFeature(tf.int64)})


def test_tfrecord_files_need_no_protobuf(monkeypatch, tmp_path):
    monkeypatch.setattr(example_proto, "_CLASSES", {})
    monkeypatch.setitem(sys.modules, "google.protobuf", None)
    path = str(tmp_path / "r.tfr")
    with tf.io.TFRecordWriter(path, "GZIP") as w:
        w.write(b"opaque")
    assert list(tf.data.TFRecordDataset(path, "GZIP").as_numpy_iterator()) == [b"opaque"]
