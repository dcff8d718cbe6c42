"""Without the optional protobuf package, tf.summary says which extra to install, and importing
minitf, tf.summary and the callbacks still works."""
import sys

import numpy as np
import pytest

import minitf as tf
from minitf.summary import _proto


def test_missing_protobuf_names_the_extra(monkeypatch, tmp_path):
    monkeypatch.setattr(_proto, "_CLASSES", {})
    for mod in ("google.protobuf", "google.protobuf.descriptor_pb2", "google.protobuf.descriptor_pool",
                "google.protobuf.message_factory"):
        monkeypatch.setitem(sys.modules, mod, None)
    assert not bool(tf.summary.scalar("x", 1.0))  # no writer: nothing to write, nothing needed
    with pytest.raises(ImportError, match=r"pip install 'minitf\[tensorboard\]'"):
        tf.summary.create_file_writer(str(tmp_path))
    model = tf.keras.Sequential([tf.keras.Input((2,)), tf.keras.layers.Dense(1)])
    model.compile("sgd", "mse")
    callback = tf.keras.callbacks.TensorBoard(str(tmp_path))  # made without protobuf
    with pytest.raises(ImportError, match=r"minitf\[tensorboard\]"):  # said when fit starts
        model.fit(np.ones((2, 2)), np.ones((2, 1)), epochs=1, verbose=0, callbacks=[callback])
