import hashlib
import io
import os
import tarfile
import zipfile

import pytest

from minitf.utils import data_utils
from minitf.utils.data_utils import DownloadError, get_file

PAYLOAD = os.urandom(200_000)
SHA = hashlib.sha256(PAYLOAD).hexdigest()
MD5 = hashlib.md5(PAYLOAD).hexdigest()  # noqa: S324


def _listing(folder):
    return sorted(os.listdir(folder)) if os.path.isdir(folder) else []


def test_download_verifies_and_caches(file_server, cache_home):
    file_server.add("blob.bin", PAYLOAD)
    path = get_file("blob.bin", origin=file_server.url + "blob.bin", file_hash=SHA)
    assert path == os.path.join(str(cache_home), "datasets", "blob.bin")
    with open(path, "rb") as f:
        assert f.read() == PAYLOAD
    assert _listing(os.path.dirname(path)) == ["blob.bin"]  # no temporary left behind
    # second call: valid cached file, no new request
    get_file("blob.bin", origin=file_server.url + "blob.bin", file_hash=SHA)
    assert file_server.requests == ["/blob.bin"]


def test_md5_auto_detected_and_cache_dir_argument(file_server, tmp_path):
    file_server.add("blob.bin", PAYLOAD)
    path = get_file(origin=file_server.url + "blob.bin", file_hash=MD5, cache_dir=tmp_path,
                    cache_subdir="sub")
    assert path == str(tmp_path / "sub" / "blob.bin")
    assert data_utils.validate_file(path, MD5)
    assert not data_utils.validate_file(path, SHA[::-1])


def test_checksum_mismatch_leaves_nothing(file_server, cache_home):
    file_server.add("blob.bin", PAYLOAD)
    wrong = hashlib.sha256(b"something else").hexdigest()
    with pytest.raises(ValueError, match="blob.bin.*sha256"):
        get_file("blob.bin", origin=file_server.url + "blob.bin", file_hash=wrong)
    assert _listing(cache_home / "datasets") == []


def test_corrupted_cached_file_is_fetched_again(file_server, cache_home):
    file_server.add("blob.bin", PAYLOAD)
    target = cache_home / "datasets" / "blob.bin"
    target.parent.mkdir(parents=True)
    target.write_bytes(b"damaged")
    path = get_file("blob.bin", origin=file_server.url + "blob.bin", file_hash=SHA)
    assert open(path, "rb").read() == PAYLOAD
    assert file_server.requests == ["/blob.bin"]


def test_interrupted_transfer_leaves_no_complete_looking_file(file_server, cache_home):
    file_server.add("blob.bin", PAYLOAD, truncate=True)
    with pytest.raises(DownloadError, match="interrupted"):
        get_file("blob.bin", origin=file_server.url + "blob.bin")  # even without a hash
    # only the hidden partial download (and its origin note), kept so the next call can resume
    assert _listing(cache_home / "datasets") == [".blob.bin.partial", ".blob.bin.partial.json"]


def test_offline_error_names_url_and_location(cache_home):
    origin = "http://127.0.0.1:9/nothing-listens-here/blob.bin"
    with pytest.raises(DownloadError) as info:
        get_file("blob.bin", origin=origin, file_hash=SHA)
    message = str(info.value)
    assert origin in message
    assert os.path.join(str(cache_home), "datasets", "blob.bin") in message
    assert isinstance(info.value, OSError)


def test_missing_origin_is_value_error():
    with pytest.raises(ValueError, match="origin"):
        get_file("x.bin")


def _tar_bytes(members):
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for name, data, kind in members:
            info = tarfile.TarInfo(name)
            if kind == "sym":
                info.type, info.linkname = tarfile.SYMTYPE, data
                tar.addfile(info)
            else:
                info.size = len(data)
                tar.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def test_extract_tar(file_server, cache_home):
    file_server.add("a.tar.gz", _tar_bytes([("folder/x.txt", b"hello", "file")]))
    path = get_file("a.tar.gz", origin=file_server.url + "a.tar.gz", extract=True)
    assert path == str(cache_home / "datasets" / "a_extracted")  # Keras 3's layout
    assert (cache_home / "datasets" / "a_extracted" / "folder" / "x.txt").read_bytes() == b"hello"


@pytest.mark.parametrize("members", [
    [("../evil.txt", b"x", "file")],
    [("ok/../../evil.txt", b"x", "file")],
    [("/tmp/minitf-evil-abs.txt", b"x", "file")],
    [("link", "/etc/passwd", "sym")],
    [("inner/link", "../../outside", "sym")],
])
def test_hostile_tar_refused(tmp_path, members):
    archive = tmp_path / "bad.tar.gz"
    archive.write_bytes(_tar_bytes([("good.txt", b"fine", "file")] + members))
    target = tmp_path / "out"
    with pytest.raises(ValueError, match="Refusing to extract"):
        data_utils.extract_archive(str(archive), str(target))
    assert not (tmp_path / "evil.txt").exists()
    assert _listing(target) == []  # checked before anything was written


def test_hostile_zip_refused(tmp_path):
    archive = tmp_path / "bad.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("../evil.txt", "x")
    with pytest.raises(ValueError, match="leaves the target"):
        data_utils.extract_archive(str(archive), str(tmp_path / "out"))
    assert not (tmp_path / "evil.txt").exists()


def test_cache_root_precedence(monkeypatch, tmp_path):
    monkeypatch.setenv("MINITF_HOME", str(tmp_path / "env"))
    monkeypatch.setenv("KERAS_HOME", str(tmp_path / "keras_env"))
    assert data_utils.cache_root() == str(tmp_path / "env")
    assert data_utils.cache_root(tmp_path / "arg") == str(tmp_path / "arg")
    monkeypatch.delenv("MINITF_HOME")
    assert data_utils.cache_root() == str(tmp_path / "keras_env")
    monkeypatch.delenv("KERAS_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    (tmp_path / "home").mkdir()
    assert data_utils.cache_root() == str(tmp_path / "home" / ".keras")


def test_a_file_keras_already_downloaded_is_reused_without_network(monkeypatch, tmp_path):
    """Keras' cache layout (~/.keras/datasets/<fname>) is minitf's: a file with the right hash there
    is used as is; the origin is unreachable, so any download attempt would fail."""
    monkeypatch.delenv("MINITF_HOME", raising=False)
    monkeypatch.setenv("KERAS_HOME", str(tmp_path / "keras"))
    (tmp_path / "keras" / "datasets").mkdir(parents=True)
    cached = tmp_path / "keras" / "datasets" / "data.bin"
    cached.write_bytes(b"downloaded by keras")
    digest = data_utils.hash_file(str(cached))
    path = data_utils.get_file("data.bin", origin="http://127.0.0.1:9/data.bin", file_hash=digest)
    assert path == str(cached)
    cached.write_bytes(b"damaged")  # a wrong hash makes it fetch again, which fails offline
    with pytest.raises(data_utils.DownloadError):
        data_utils.get_file("data.bin", origin="http://127.0.0.1:9/data.bin", file_hash=digest)
