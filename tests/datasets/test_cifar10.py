import hashlib
import io
import tarfile

import numpy as np
import pytest

from minitf.datasets.cifar10 import cifar10


def _records(rng, n):
    labels = rng.integers(0, 10, n, dtype=np.uint8)
    images = rng.integers(0, 256, (n, 32, 32, 3), dtype=np.uint8)
    planar = images.transpose(0, 3, 1, 2).reshape(n, -1)  # R plane, G plane, B plane
    return np.concatenate([labels[:, None], planar], axis=1).tobytes(), images, labels


def _archive(members):
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for name, data in members:
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def _serve(file_server, monkeypatch, blob):
    file_server.add("cifar-10-binary.tar.gz", blob)
    monkeypatch.setattr(cifar10, "ORIGIN", file_server.url + "cifar-10-binary.tar.gz")
    monkeypatch.setattr(cifar10, "FILE_HASH", hashlib.sha256(blob).hexdigest())


def test_published_origin():
    assert cifar10.ORIGIN == "https://www.cs.toronto.edu/~kriz/cifar-10-binary.tar.gz"
    assert cifar10.FILE_HASH == "c32a1d4ab5d03f1284b67883e8d87530"


def test_load_binary_records(file_server, cache_home, monkeypatch):
    rng = np.random.default_rng(2)
    members, train_x, train_y = [], [], []
    for name in cifar10.TRAIN_FILES:
        data, x, y = _records(rng, 3)
        members.append((f"cifar-10-batches-bin/{name}", data))
        train_x.append(x)
        train_y.append(y)
    data, test_x, test_y = _records(rng, 4)
    members.append(("cifar-10-batches-bin/test_batch.bin", data))
    _serve(file_server, monkeypatch, _archive(members))
    (x_train, y_train), (x_test, y_test) = cifar10.load_data()
    assert x_train.shape == (15, 32, 32, 3) and x_train.dtype == np.uint8
    assert y_train.shape == (15, 1) and y_train.dtype == np.uint8
    np.testing.assert_array_equal(x_train, np.concatenate(train_x))
    np.testing.assert_array_equal(y_train[:, 0], np.concatenate(train_y))
    np.testing.assert_array_equal(x_test, test_x)
    np.testing.assert_array_equal(y_test[:, 0], test_y)
    # a second load reuses the extracted folder without downloading again
    cifar10.load_data()
    assert file_server.requests == ["/cifar-10-binary.tar.gz"]


def test_hostile_archive_refused(file_server, cache_home, monkeypatch, tmp_path):
    blob = _archive([("cifar-10-batches-bin/data_batch_1.bin", b"\0" * 3073),
                     ("../../escaped.bin", b"gotcha")])
    _serve(file_server, monkeypatch, blob)
    with pytest.raises(ValueError, match="Refusing to extract.*escaped"):
        cifar10.load_data()
    assert not list(tmp_path.rglob("escaped.bin"))
    assert not (cache_home / "datasets" / "cifar-10-batches-bin").exists()


def test_bad_record_size(tmp_path):
    path = tmp_path / "x.bin"
    path.write_bytes(b"\0" * 100)
    with pytest.raises(ValueError, match="3073"):
        cifar10._read_batch(str(path))
