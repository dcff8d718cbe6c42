"""get_file against misbehaving servers and hostile names: truncation, resume, paths leaving the cache."""
import hashlib
import http.server
import os
import threading

import pytest

from minitf.utils import data_utils
from minitf.utils.data_utils import DownloadError, get_file

PAYLOAD = os.urandom(300_000)
SHA = hashlib.sha256(PAYLOAD).hexdigest()


class _Handler(http.server.BaseHTTPRequestHandler):
    """Serves PAYLOAD at any path; `plan` is a list of per-request behaviours, used in order."""
    protocol_version = "HTTP/1.1"

    def do_GET(self):  # noqa: N802 (http.server's name)
        server = self.server
        server.seen.append({"range": self.headers.get("Range"), "if_range": self.headers.get("If-Range")})
        mode = server.plan.pop(0) if server.plan else "full"
        body, start = server.body, 0
        wanted = self.headers.get("Range")
        if mode in ("cut", "cut-chunked", "cut-unsized") or not wanted or mode == "ignore-range":
            status = 200
        elif mode == "416":
            self.send_response(416)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        elif mode == "wrong-start":
            status, start = 206, 7  # a server answering another range than the one asked for
        elif self.headers.get("If-Range") not in (None, server.etag):
            status = 200  # the file changed since the partial copy: the whole new file
        else:
            status, start = 206, int(wanted.split("=")[1].split("-")[0])
        self.send_response(status)
        self.send_header("ETag", server.etag)
        self.send_header("Accept-Ranges", "bytes")
        part = body[start:]
        if status == 206:
            self.send_header("Content-Range", f"bytes {start}-{len(body) - 1}/{len(body)}")
        if mode == "cut-chunked":
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            chunk = part[:50_000]
            self.wfile.write(f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n")  # no final 0-chunk
            self.close_connection = True
            return
        if mode != "cut-unsized":
            self.send_header("Content-Length", str(len(part)))
        else:
            self.send_header("Connection", "close")
        self.end_headers()
        if mode.startswith("cut"):
            self.wfile.write(part[: len(part) // 3])
            self.close_connection = True
            return
        self.wfile.write(part)

    def log_message(self, *args):
        pass


@pytest.fixture
def server():
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    httpd.body, httpd.etag, httpd.plan, httpd.seen = PAYLOAD, '"v1"', [], []
    httpd.url = f"http://127.0.0.1:{httpd.server_address[1]}/blob.bin"
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    yield httpd
    httpd.shutdown()
    httpd.server_close()
    thread.join(5)


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("MINITF_NO_PROGRESS", "1")
    return tmp_path / "cache"


def _folder(cache):
    return sorted(os.listdir(cache / "datasets"))


PARTIAL = [".blob.bin.partial", ".blob.bin.partial.json"]


def test_cut_transfer_with_length_is_not_cached_then_resumes_with_range(server, cache):
    server.plan = ["cut"]
    with pytest.raises(DownloadError, match="received 100000 of 300000 bytes"):
        get_file("blob.bin", origin=server.url, cache_dir=cache)  # no hash given
    assert _folder(cache) == PARTIAL
    path = get_file("blob.bin", origin=server.url, cache_dir=cache)
    assert open(path, "rb").read() == PAYLOAD
    assert server.seen[1] == {"range": "bytes=100000-", "if_range": '"v1"'}
    assert _folder(cache) == ["blob.bin"]


def test_cut_chunked_transfer_is_not_cached(server, cache):
    server.plan = ["cut-chunked"]
    with pytest.raises(DownloadError, match="interrupted"):
        get_file("blob.bin", origin=server.url, cache_dir=cache)
    assert "blob.bin" not in _folder(cache)
    assert open(get_file("blob.bin", origin=server.url, cache_dir=cache, file_hash=SHA), "rb").read() == PAYLOAD


def test_cut_transfer_without_length_is_caught_by_the_hash(server, cache):
    server.plan = ["cut-unsized"]
    with pytest.raises(ValueError, match="sha256"):
        get_file("blob.bin", origin=server.url, cache_dir=cache, file_hash=SHA)
    assert _folder(cache) == []  # a wrong hash keeps nothing, not even a partial to resume


def test_resumed_file_that_changed_on_the_server_restarts(server, cache):
    server.plan = ["cut"]
    with pytest.raises(DownloadError):
        get_file("blob.bin", origin=server.url, cache_dir=cache)
    server.body, server.etag = PAYLOAD[::-1], '"v2"'
    path = get_file("blob.bin", origin=server.url, cache_dir=cache)
    assert open(path, "rb").read() == PAYLOAD[::-1]  # If-Range: the server sent the new file whole


@pytest.mark.parametrize("answer", ["ignore-range", "416", "wrong-start"])
def test_server_refusing_the_range_restarts_from_zero(server, cache, answer):
    server.plan = ["cut", answer]
    with pytest.raises(DownloadError):
        get_file("blob.bin", origin=server.url, cache_dir=cache)
    path = get_file("blob.bin", origin=server.url, cache_dir=cache, file_hash=SHA)
    assert open(path, "rb").read() == PAYLOAD
    assert server.seen[-1]["range"] is None or answer == "ignore-range"
    assert _folder(cache) == ["blob.bin"]


def test_partial_from_another_origin_is_not_resumed(server, cache):
    server.plan = ["cut"]
    with pytest.raises(DownloadError):
        get_file("blob.bin", origin=server.url, cache_dir=cache)
    path = get_file("blob.bin", origin=server.url + "?mirror=2", cache_dir=cache, file_hash=SHA)
    assert open(path, "rb").read() == PAYLOAD
    assert server.seen[-1]["range"] is None


def test_force_download_discards_the_partial(server, cache):
    server.plan = ["cut"]
    with pytest.raises(DownloadError):
        get_file("blob.bin", origin=server.url, cache_dir=cache)
    get_file("blob.bin", origin=server.url, cache_dir=cache, force_download=True)
    assert server.seen[-1]["range"] is None


def test_truncated_resumable_partial_is_still_checked_against_the_hash(server, cache):
    server.plan = ["cut"]
    with pytest.raises(DownloadError):
        get_file("blob.bin", origin=server.url, cache_dir=cache)
    partial = cache / "datasets" / PARTIAL[0]
    partial.write_bytes(b"X" * partial.stat().st_size)  # corrupted while waiting
    with pytest.raises(ValueError, match="corrupted"):
        get_file("blob.bin", origin=server.url, cache_dir=cache, file_hash=SHA)
    assert _folder(cache) == []
    assert open(get_file("blob.bin", origin=server.url, cache_dir=cache, file_hash=SHA), "rb").read() == PAYLOAD


@pytest.mark.parametrize("fname", ["../../x", "../x", "sub/x", "..", "/tmp/minitf-abs-x", "."])
def test_fname_must_be_a_plain_name(server, cache, tmp_path, fname):
    with pytest.raises(ValueError, match="fname"):
        get_file(fname, origin=server.url, cache_dir=cache)
    assert server.seen == [] and not (tmp_path / "x").exists() and not os.path.exists("/tmp/minitf-abs-x")


@pytest.mark.parametrize("subdir", ["../x", "a/../../x", "/tmp/minitf-abs-subdir"])
def test_cache_subdir_must_stay_in_the_cache(server, cache, tmp_path, subdir):
    with pytest.raises(ValueError, match="cache_subdir"):
        get_file("blob.bin", origin=server.url, cache_dir=cache, cache_subdir=subdir)
    assert server.seen == [] and not (tmp_path / "x").exists()
    assert not os.path.exists("/tmp/minitf-abs-subdir")


def test_nested_cache_subdir_is_fine(server, cache):
    path = get_file("blob.bin", origin=server.url, cache_dir=cache, cache_subdir="a/b/../c")
    assert path == str(cache / "a" / "c" / "blob.bin")


def test_fname_from_the_url_is_checked_too(server, cache):
    with pytest.raises(ValueError, match="fname"):
        get_file(origin=server.url.replace("blob.bin", ".."), cache_dir=cache)
    assert data_utils._check_fname("ok.bin") == "ok.bin"
