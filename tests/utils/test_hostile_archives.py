"""Hostile tar and zip archives: every member is checked first, and a refusal leaves nothing behind."""
import io
import os
import stat
import struct
import tarfile
import zipfile

import pytest

from minitf.utils import archives
from minitf.utils.archives import MAX_EXTRACT_BYTES_ENV, extract_archive
from minitf.utils.data_utils import get_file

MIB = 1 << 20


def _tar(path, members, mode="w:gz"):
    """members: (name, kind, data) with kind 'file', 'dir', 'sym', 'hard', 'fifo', 'chr'."""
    with tarfile.open(path, mode) as tar:
        for name, kind, data in members:
            info = tarfile.TarInfo(name)
            if kind == "file":
                info.size, info.mode = len(data), 0o644
                tar.addfile(info, io.BytesIO(data))
                continue
            info.type = {"dir": tarfile.DIRTYPE, "sym": tarfile.SYMTYPE, "hard": tarfile.LNKTYPE,
                         "fifo": tarfile.FIFOTYPE, "chr": tarfile.CHRTYPE}[kind]
            if kind in ("sym", "hard"):
                info.linkname = data
            tar.addfile(info)
    return str(path)


def _listing(folder):
    """Every path under `folder` (relative), links not followed."""
    found = []
    for root, dirs, files in os.walk(folder):
        for name in dirs + files:
            found.append(os.path.relpath(os.path.join(root, name), folder))
    return sorted(found)


def _assert_refused(tmp_path, archive, match="Refusing to extract", **kwargs):
    target = tmp_path / "out"
    before = sorted(os.listdir(tmp_path))
    with pytest.raises(ValueError, match=match) as info:
        extract_archive(archive, str(target), **kwargs)
    assert not target.exists()
    assert sorted(os.listdir(tmp_path)) == before  # no staging folder left next to it
    assert not (tmp_path / "evil.txt").exists() and not (tmp_path.parent / "evil.txt").exists()
    return info.value


@pytest.mark.parametrize("name", ["../evil.txt", "ok/../../evil.txt", "/tmp/minitf-evil-abs.txt",
                                  "./../evil.txt", "a\\..\\..\\evil.txt"])
@pytest.mark.parametrize("fmt", ["tar", "zip"])
def test_names_leaving_the_folder_are_refused(tmp_path, name, fmt):
    if fmt == "tar":
        archive = _tar(tmp_path / "bad.tar.gz", [("good.txt", "file", b"fine"), (name, "file", b"x")])
    else:
        archive = str(tmp_path / "bad.zip")
        with zipfile.ZipFile(archive, "w") as zf:
            zf.writestr("good.txt", "fine")
            zf.writestr(zipfile.ZipInfo(name), "x")  # ZipInfo keeps the name as given
    _assert_refused(tmp_path, archive)


@pytest.mark.parametrize("members", [
    [("link", "sym", "/etc/passwd")],
    [("inner/link", "sym", "../../outside")],
    [("up", "sym", "..")],
    # a chain: each link looks harmless on its own, the second escapes through the first
    [("d", "dir", None), ("d/up", "sym", ".."), ("d/up2", "sym", "up/..")],
    # a later link changes where an earlier, accepted one leads
    [("a", "sym", "b/.."), ("b", "sym", ".")],
    [("loop1", "sym", "loop2"), ("loop2", "sym", "loop1")],
    # the same chain through another spelling, as a case-insensitive file system would follow it
    [("d", "dir", None), ("d/Up", "sym", ".."), ("d/up2", "sym", "up/..")],
], ids=["absolute", "dotdot", "parent", "chain", "retargeted", "loop", "case"])
def test_symlinks_leaving_the_folder_are_refused(tmp_path, members):
    archive = _tar(tmp_path / "bad.tar.gz", [("good.txt", "file", b"fine")] + members)
    error = _assert_refused(tmp_path, archive)
    assert "symbolic link" in str(error)


def test_writing_through_a_symlink_is_refused(tmp_path):
    archive = _tar(tmp_path / "bad.tar.gz", [("sub", "dir", None), ("l", "sym", "sub"),
                                             ("l/x.txt", "file", b"x")])
    assert "through the symbolic link" in str(_assert_refused(tmp_path, archive))


def test_a_file_replacing_a_symlink_is_refused(tmp_path):
    archive = _tar(tmp_path / "bad.tar.gz", [("l", "sym", "x.txt"), ("l", "file", b"x")])
    _assert_refused(tmp_path, archive)


@pytest.mark.parametrize("target", ["../evil.txt", "/etc/passwd", "missing.txt", "link"])
def test_hard_links_must_point_to_an_earlier_file(tmp_path, target):
    archive = _tar(tmp_path / "bad.tar.gz", [("good.txt", "file", b"fine"), ("link", "sym", "good.txt"),
                                             ("hard", "hard", target)])
    _assert_refused(tmp_path, archive)


@pytest.mark.parametrize("kind", ["fifo", "chr"])
def test_special_files_are_refused(tmp_path, kind):
    archive = _tar(tmp_path / "bad.tar", [("good.txt", "file", b"fine"), ("dev", kind, None)], mode="w")
    assert "special file" in str(_assert_refused(tmp_path, archive))


def test_zip_symlink_entries_are_refused_not_written_as_files(tmp_path):
    archive = str(tmp_path / "bad.zip")
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("good.txt", "fine")
        info = zipfile.ZipInfo("link")
        info.create_system = 3  # unix
        info.external_attr = (stat.S_IFLNK | 0o777) << 16
        zf.writestr(info, "/etc/passwd")  # a symlink's target is its content
    assert "symbolic link" in str(_assert_refused(tmp_path, archive))


def test_safe_archive_with_inner_links_extracts(tmp_path):
    archive = _tar(tmp_path / "ok.tar.gz", [
        ("pkg", "dir", None), ("pkg/v1", "dir", None), ("pkg/v1/data.txt", "file", b"data"),
        ("pkg/current", "sym", "v1"), ("pkg/latest", "sym", "current/data.txt"),
        ("pkg/copy.txt", "hard", "pkg/v1/data.txt"), ("pkg/self", "sym", "../pkg"),
        ("pkg/v1/data.txt", "file", b"newer"),  # tar's append: a later copy wins
    ])
    assert extract_archive(archive, str(tmp_path / "out")) is True
    out = tmp_path / "out" / "pkg"
    assert (out / "latest").read_bytes() == b"newer"
    assert os.readlink(out / "current") == "v1"
    assert (out / "copy.txt").read_bytes() == b"data"
    assert [p for p in os.listdir(tmp_path) if p.startswith(".")] == []


def _zip_bomb(path, size):
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("readme.txt", "hello")
        with zf.open("zeros.bin", "w", force_zip64=True) as f:
            for _ in range(size // MIB):
                f.write(bytes(MIB))
    return str(path)


class _Zeros(io.RawIOBase):
    def __init__(self, n):
        self.n = n

    def readable(self):
        return True

    def readinto(self, buffer):
        k = min(len(buffer), self.n)
        buffer[:k] = bytes(k)
        self.n -= k
        return k


def _tar_bomb(path, size):
    with tarfile.open(path, "w:gz") as tar:
        tar.addfile(tarfile.TarInfo("readme.txt"), io.BytesIO(b""))
        info = tarfile.TarInfo("zeros.bin")
        info.size = size
        tar.addfile(info, io.BufferedReader(_Zeros(size)))
    return str(path)


@pytest.mark.parametrize("make", [_zip_bomb, _tar_bomb], ids=["zip", "tar.gz"])
def test_bombs_are_refused_by_the_size_limit(tmp_path, make):
    archive = make(tmp_path / "bomb", 200 * MIB)
    assert os.path.getsize(archive) < 2 * MIB  # 200 MiB of zeros compress ~1000x
    error = _assert_refused(tmp_path, archive, match="extraction limit of 1048576 bytes",
                            max_extract_bytes=MIB)
    message = str(error)
    assert "max_extract_bytes" in message and MAX_EXTRACT_BYTES_ENV in message


def test_limit_from_the_environment(tmp_path, monkeypatch):
    archive = _tar(tmp_path / "two.tar.gz", [("a.bin", "file", bytes(3000))])
    monkeypatch.setenv(MAX_EXTRACT_BYTES_ENV, "2999")
    _assert_refused(tmp_path, archive, match="limit of 2999 bytes")
    monkeypatch.setenv(MAX_EXTRACT_BYTES_ENV, "3000")
    assert extract_archive(archive, str(tmp_path / "out"))
    monkeypatch.setenv(MAX_EXTRACT_BYTES_ENV, "lots")
    with pytest.raises(ValueError, match=MAX_EXTRACT_BYTES_ENV):
        extract_archive(archive, str(tmp_path / "out2"))
    monkeypatch.delenv(MAX_EXTRACT_BYTES_ENV)
    assert archives.extract_size_limit() == archives.DEFAULT_MAX_EXTRACT_BYTES


def test_bytes_are_counted_even_when_the_reader_yields_more_than_declared(tmp_path, monkeypatch):
    archive = _tar(tmp_path / "liar.tar.gz", [("small.bin", "file", b"0123456789")])
    real_extractfile = tarfile.TarFile.extractfile

    def lying(self, member):  # as if the header understated the member's size
        real_extractfile(self, member)
        return io.BytesIO(bytes(5 * MIB))
    monkeypatch.setattr(tarfile.TarFile, "extractfile", lying)
    _assert_refused(tmp_path, archive, match="actually extracted", max_extract_bytes=MIB)


def test_zip_with_understated_size_is_refused(tmp_path):
    archive = str(tmp_path / "liar.zip")
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("zeros.bin", bytes(4 * MIB))
    raw = bytearray(open(archive, "rb").read())
    # the local header and the central directory both declare 4 MiB: make them claim 100 bytes
    real = struct.pack("<I", 4 * MIB)
    positions = [i for i in range(len(raw) - 3) if raw[i:i + 4] == real]
    assert len(positions) == 2
    for i in positions:
        raw[i:i + 4] = struct.pack("<I", 100)
    open(archive, "wb").write(bytes(raw))
    with zipfile.ZipFile(archive) as zf:
        assert zf.getinfo("zeros.bin").file_size == 100
    # the declared 100 bytes pass the limit; the 4 MiB behind them are never written
    _assert_refused(tmp_path, archive, match="Cannot extract", max_extract_bytes=MIB)


def test_damaged_archive_is_a_value_error_and_leaves_nothing(tmp_path):
    archive = _tar(tmp_path / "ok.tar.gz", [("a.bin", "file", os.urandom(200_000))])
    data = open(archive, "rb").read()
    open(archive, "wb").write(data[: len(data) // 2])
    _assert_refused(tmp_path, archive, match="damaged or truncated")


def test_existing_folder_is_untouched_by_a_refused_archive(tmp_path):
    target = tmp_path / "out"
    target.mkdir()
    (target / "mine.txt").write_bytes(b"keep")
    archive = _tar(tmp_path / "bad.tar.gz", [("mine.txt", "file", b"overwritten"), ("../evil.txt", "file", b"x")])
    with pytest.raises(ValueError):
        extract_archive(archive, str(target))
    assert _listing(target) == ["mine.txt"] and (target / "mine.txt").read_bytes() == b"keep"


def test_existing_folder_receives_files_but_no_type_changes(tmp_path):
    target = tmp_path / "out"
    (target / "sub").mkdir(parents=True)
    (target / "old.txt").write_bytes(b"old")
    archive = _tar(tmp_path / "a.tar.gz", [("sub/new.txt", "file", b"new"), ("old.txt", "file", b"v2")])
    assert extract_archive(archive, str(target))
    assert _listing(target) == ["old.txt", "sub", "sub/new.txt"]
    assert (target / "old.txt").read_bytes() == b"v2"
    clash = _tar(tmp_path / "clash.tar.gz", [("sub", "file", b"a file where a folder is")])
    with pytest.raises(ValueError, match="another type"):
        extract_archive(clash, str(target))
    assert _listing(target) == ["old.txt", "sub", "sub/new.txt"]


def test_not_an_archive_returns_false_and_writes_nothing(tmp_path):
    plain = tmp_path / "plain.txt"
    plain.write_bytes(b"just text")
    assert extract_archive(str(plain), str(tmp_path / "out")) is False
    assert sorted(os.listdir(tmp_path)) == ["plain.txt"]


def test_get_file_refuses_hostile_archive_without_an_extraction_folder(file_server, cache_home):
    file_server.add("bad.tar.gz", open(_tar(cache_home.parent / "bad.tar.gz", [
        ("d", "dir", None), ("d/up", "sym", ".."), ("d/up2", "sym", "up/..")]), "rb").read())
    with pytest.raises(ValueError, match="symbolic link"):
        get_file("bad.tar.gz", origin=file_server.url + "bad.tar.gz", extract=True)
    assert _listing(cache_home / "datasets") == ["bad.tar.gz"]  # the download itself was fine


def test_get_file_limit_keyword_and_reextraction(file_server, cache_home):
    archive = _tar(cache_home.parent / "big.tar.gz", [("big.bin", "file", bytes(5000))])
    file_server.add("big.tar.gz", open(archive, "rb").read())
    origin = file_server.url + "big.tar.gz"
    with pytest.raises(ValueError, match="limit of 4096 bytes"):
        get_file("big.tar.gz", origin=origin, extract=True, max_extract_bytes=4096)
    path = get_file("big.tar.gz", origin=origin, extract=True, max_extract_bytes=5000)
    assert _listing(path) == ["big.bin"]
    # untar=True: tar only, Keras 3's layout for a name without a dot
    path = get_file("big", origin=origin, untar=True)
    assert path == str(cache_home / "datasets" / "big")
    assert _listing(cache_home / "datasets") == ["big", "big.tar.gz", "big/big.bin", "big_archive",
                                                 "big_extracted", "big_extracted/big.bin"]
