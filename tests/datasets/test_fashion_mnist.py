import gzip
import hashlib
import struct

import numpy as np
import pytest

from minitf.datasets.fashion_mnist import fashion_mnist


def _idx(array):
    header = struct.pack(">I", 0x0800 | array.ndim) + b"".join(struct.pack(">I", d) for d in array.shape)
    return gzip.compress(header + array.astype(np.uint8).tobytes())


@pytest.fixture
def served(file_server, cache_home, monkeypatch):
    rng = np.random.default_rng(1)
    arrays = {"train-images-idx3-ubyte.gz": rng.integers(0, 256, (7, 28, 28), dtype=np.uint8),
              "train-labels-idx1-ubyte.gz": rng.integers(0, 10, 7, dtype=np.uint8),
              "t10k-images-idx3-ubyte.gz": rng.integers(0, 256, (3, 28, 28), dtype=np.uint8),
              "t10k-labels-idx1-ubyte.gz": rng.integers(0, 10, 3, dtype=np.uint8)}
    hashes = {}
    for name, array in arrays.items():
        blob = _idx(array)
        file_server.add(name, blob)
        hashes[name] = hashlib.md5(blob).hexdigest()  # noqa: S324
    monkeypatch.setattr(fashion_mnist, "ORIGIN_FOLDER", file_server.url)
    monkeypatch.setattr(fashion_mnist, "FILES", hashes)
    return arrays


def test_published_md5s_are_listed():
    assert set(fashion_mnist.FILES) == {"train-labels-idx1-ubyte.gz", "train-images-idx3-ubyte.gz",
                                        "t10k-labels-idx1-ubyte.gz", "t10k-images-idx3-ubyte.gz"}
    assert all(len(h) == 32 for h in fashion_mnist.FILES.values())


def test_load(served, cache_home):
    (x_train, y_train), (x_test, y_test) = fashion_mnist.load_data()
    np.testing.assert_array_equal(x_train, served["train-images-idx3-ubyte.gz"])
    np.testing.assert_array_equal(y_train, served["train-labels-idx1-ubyte.gz"])
    np.testing.assert_array_equal(x_test, served["t10k-images-idx3-ubyte.gz"])
    np.testing.assert_array_equal(y_test, served["t10k-labels-idx1-ubyte.gz"])
    assert x_train.dtype == np.uint8 and x_train.shape == (7, 28, 28) and y_test.shape == (3,)
    assert (cache_home / "datasets" / "fashion-mnist" / "t10k-images-idx3-ubyte.gz").exists()


def test_interrupted_download(served, file_server, cache_home):
    file_server.handler.truncated.add("/train-images-idx3-ubyte.gz")
    with pytest.raises(OSError, match="interrupted"):
        fashion_mnist.load_data()
    folder = cache_home / "datasets" / "fashion-mnist"
    assert "train-images-idx3-ubyte.gz" not in [p.name for p in folder.iterdir()]
    assert not any(p.name.endswith(".part") for p in folder.iterdir())


def test_truncated_idx_rejected(tmp_path):
    path = tmp_path / "bad.gz"
    path.write_bytes(gzip.compress(struct.pack(">IIII", 0x803, 2, 28, 28) + b"\0" * 100))
    with pytest.raises(ValueError, match="truncated"):
        fashion_mnist._read_idx(str(path), 0x803)
    with pytest.raises(ValueError, match="magic"):
        fashion_mnist._read_idx(str(path), 0x801)
