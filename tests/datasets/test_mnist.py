import hashlib
import io
import os

import numpy as np
import pytest

from minitf.datasets.mnist import mnist
from minitf.utils.data_utils import DownloadError


def _npz_bytes(rng):
    arrays = {"x_train": rng.integers(0, 256, (12, 28, 28), dtype=np.uint8),
              "y_train": rng.integers(0, 10, 12, dtype=np.uint8),
              "x_test": rng.integers(0, 256, (5, 28, 28), dtype=np.uint8),
              "y_test": rng.integers(0, 10, 5, dtype=np.uint8)}
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)
    return buffer.getvalue(), arrays


@pytest.fixture
def served_mnist(file_server, cache_home, monkeypatch):
    data, arrays = _npz_bytes(np.random.default_rng(0))
    file_server.add("mnist.npz", data)
    monkeypatch.setattr(mnist, "ORIGIN_FOLDER", file_server.url)
    monkeypatch.setattr(mnist, "FILE_HASH", hashlib.sha256(data).hexdigest())
    return arrays


def test_keras_origin_and_hash():
    assert mnist.ORIGIN_FOLDER == "https://storage.googleapis.com/tensorflow/tf-keras-datasets/"
    assert len(mnist.FILE_HASH) == 64


def test_load_from_server(served_mnist, cache_home):
    (x_train, y_train), (x_test, y_test) = mnist.load_data()
    for got, key in ((x_train, "x_train"), (y_train, "y_train"), (x_test, "x_test"), (y_test, "y_test")):
        assert got.dtype == np.uint8
        np.testing.assert_array_equal(got, served_mnist[key])
    assert x_train.shape == (12, 28, 28) and y_train.shape == (12,)
    assert os.path.exists(cache_home / "datasets" / "mnist.npz")


def test_cached_file_needs_no_network(served_mnist, cache_home, monkeypatch, file_server):
    mnist.load_data()
    monkeypatch.setattr(mnist, "ORIGIN_FOLDER", "http://127.0.0.1:9/unreachable/")
    (x_train, _), _ = mnist.load_data()
    np.testing.assert_array_equal(x_train, served_mnist["x_train"])
    assert file_server.requests == ["/mnist.npz"]


def test_checksum_mismatch(served_mnist, cache_home, monkeypatch):
    monkeypatch.setattr(mnist, "FILE_HASH", "0" * 64)
    with pytest.raises(ValueError, match="corrupted"):
        mnist.load_data()
    assert os.listdir(cache_home / "datasets") == []


def test_offline_message(cache_home, monkeypatch):
    monkeypatch.setattr(mnist, "ORIGIN_FOLDER", "http://127.0.0.1:9/x/")
    with pytest.raises(DownloadError, match=r"http://127.0.0.1:9/x/mnist.npz.*mnist.npz"):
        mnist.load_data()


def test_pickled_arrays_are_refused(file_server, cache_home, monkeypatch):
    buffer = io.BytesIO()
    np.savez(buffer, x_train=np.array([{"a": 1}], dtype=object), y_train=np.zeros(1),
             x_test=np.zeros(1), y_test=np.zeros(1))
    data = buffer.getvalue()
    file_server.add("mnist.npz", data)
    monkeypatch.setattr(mnist, "ORIGIN_FOLDER", file_server.url)
    monkeypatch.setattr(mnist, "FILE_HASH", hashlib.sha256(data).hexdigest())
    with pytest.raises(ValueError, match="pickle"):
        mnist.load_data()
