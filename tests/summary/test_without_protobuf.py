"""Without the optional protobuf package, tf.summary says which extra to install, and importing
minitf, tf.summary and the callbacks still works."""
import sys

import pytest

import minitf as tf
from minitf.summary import _proto


def test_missing_protobuf_names_the_extra(monkeypatch, tmp_path):
    monkeypatch.setattr(_proto, "_CLASSES", {})
    for mod in ("google.protobuf", "google.protobuf.descriptor_pb2", "google.protobuf.descriptor_pool",
                "google.protobuf.message_factory"):
        monkeypatch.setitem(sys.modules, mod, None)
    assert tf.keras.callbacks.TensorBoard is not None
    with pytest.raises(ImportError, match=r"pip install 'minitf\[tensorboard\]'"):
        tf.summary.create_file_writer(str(tmp_path))
