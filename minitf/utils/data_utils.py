"""tf.keras.utils.get_file: download once into a cache, verify the checksum, write atomically.

A download goes to a hidden partial file in the destination folder and is moved into place
with `os.replace` only after its size and hash check out, so an interrupted or corrupted
transfer never leaves a file that looks complete. An interrupted transfer keeps its partial
file (with the origin and the server's validators beside it) and the next call resumes it with
an HTTP Range request when the server answers 206. Archives are extracted by
minitf.utils.archives, which checks every member first.
"""
import hashlib
import http.client
import json
import os
import urllib.error
import urllib.parse
import urllib.request
import warnings

from tqdm.auto import tqdm

from minitf.utils.archives import extract_archive
from minitf.api_export import export

__all__ = ["get_file", "cache_root", "validate_file", "hash_file", "extract_archive",
           "DownloadError"]

_CHUNK = 1 << 16
_TIMEOUT_S = 60


class DownloadError(OSError):
    """A file could not be fetched from its origin (offline, HTTP error, cut-off transfer)."""


def cache_root(cache_dir=None):
    """The cache folder, Keras' own so that files Keras downloaded are reused (hashes checked).

    `cache_dir` when given, else $MINITF_HOME, else $KERAS_HOME, else ~/.keras (or /tmp/.keras
    when the home folder is not writable, as Keras does).
    """
    if cache_dir:
        return os.path.expanduser(os.fspath(cache_dir))
    for variable in ("MINITF_HOME", "KERAS_HOME"):
        if os.environ.get(variable):
            return os.path.expanduser(os.environ[variable])
    home = os.path.expanduser("~")
    if not os.access(home, os.W_OK):
        home = "/tmp"
    return os.path.join(home, ".keras")


def _resolve_algorithm(hash_algorithm, file_hash):
    algorithm = (hash_algorithm or "auto").lower()
    if algorithm == "auto":
        return "sha256" if file_hash is not None and len(file_hash) == 64 else "md5"
    if algorithm not in ("sha256", "md5"):
        raise ValueError(f"hash_algorithm must be 'auto', 'sha256' or 'md5', got {hash_algorithm!r}.")
    return algorithm


def hash_file(fpath, algorithm="sha256", chunk_size=_CHUNK):
    """The hex digest of the file at `fpath` ('sha256' or 'md5')."""
    hasher = hashlib.sha256() if algorithm == "sha256" else hashlib.md5()  # noqa: S324 (published hashes)
    with open(fpath, "rb") as f:
        for chunk in iter(lambda: f.read(chunk_size), b""):
            hasher.update(chunk)
    return hasher.hexdigest()


def validate_file(fpath, file_hash, algorithm="auto", chunk_size=_CHUNK):
    """True when the file's hash equals `file_hash` (algorithm chosen from its length by 'auto')."""
    algorithm = _resolve_algorithm(algorithm, file_hash)
    return hash_file(fpath, algorithm, chunk_size) == str(file_hash).lower()


def _progress_bar(total, name):
    """A tqdm bar over `total` bytes (hidden when MINITF_NO_PROGRESS=1)."""
    return tqdm(total=total, unit="B", unit_scale=True, unit_divisor=1024, desc=name,
                disable=os.environ.get("MINITF_NO_PROGRESS") == "1", leave=False)


def _partial_paths(target_dir, fname):
    """The resumable partial file of `fname` and the JSON note of where it came from."""
    part = os.path.join(target_dir, f".{fname}.partial")
    return part, part + ".json"


def _discard(*paths):
    for path in paths:
        if os.path.lexists(path):
            os.remove(path)


def _resume_offset(part, note, origin):
    """Bytes of `part` that can be resumed from `origin` (0 when none), and its validators."""
    try:
        with open(note, encoding="utf-8") as f:
            info = json.load(f)
        size = os.path.getsize(part)
    except (OSError, ValueError):
        _discard(part, note)
        return 0, {}
    if not isinstance(info, dict) or info.get("origin") != origin or size <= 0:
        _discard(part, note)  # another origin wrote it: its bytes cannot be continued
        return 0, {}
    return size, info


def _download(origin, target_dir, fname, file_hash, algorithm, restart=False):
    """Fetch `origin` to the partial file of `fname` in `target_dir`, verify it, return its path.

    A partial file left by an interrupted call for the same origin is resumed (HTTP Range) unless
    `restart`. A failed transfer keeps the partial file for the next call; a hash mismatch
    removes it.
    """
    part, note = _partial_paths(target_dir, fname)
    if restart:
        _discard(part, note)
    offset, validators = _resume_offset(part, note, origin)
    try:
        _fetch(origin, part, note, offset, validators, fname)
    except BaseException:
        if os.path.exists(part) and os.path.getsize(part) == 0:
            _discard(part, note)  # nothing worth resuming
        raise
    if file_hash is not None and not validate_file(part, file_hash, algorithm):
        actual = hash_file(part, algorithm)
        _discard(part, note)
        raise ValueError(f"Incomplete or corrupted file detected for {fname!r} from {origin}: "
                         f"its {algorithm} hash is {actual} but {file_hash} was expected. "
                         f"Nothing was kept in the cache.")
    _discard(note)
    return part


def _open_url(origin, headers):
    request = urllib.request.Request(origin, headers=headers)
    try:
        return urllib.request.urlopen(request, timeout=_TIMEOUT_S)  # noqa: S310 (user-chosen URL)
    except urllib.error.HTTPError as e:
        if e.code == 416 and "Range" in headers:
            e.close()
            return None  # the partial file does not fit the server's copy: start again
        raise DownloadError(f"URL fetch failure on {origin}: HTTP {e.code} {e.reason}.") from e
    except (urllib.error.URLError, OSError, ValueError, http.client.HTTPException) as e:
        reason = getattr(e, "reason", e)
        raise DownloadError(f"URL fetch failure on {origin}: {reason}. If you are offline, download "
                            f"the file elsewhere and place it at the cache path shown below.") from e


def _resumed_total(response, offset):
    """The full size from a 206 answer's Content-Range, or False when it does not start at `offset`."""
    content_range = response.headers.get("Content-Range", "")
    unit, _, spec = content_range.partition(" ")
    span, _, total = spec.partition("/")
    first = span.partition("-")[0]
    if unit.strip().lower() != "bytes" or not first.isdigit() or int(first) != offset:
        return False
    return int(total) if total.isdigit() else None


def _fetch(origin, part, note, offset, validators, fname):
    headers = {}
    if offset:
        headers["Range"] = f"bytes={offset}-"
        # If-Range: the server sends the whole file (200) when its copy changed since the partial
        validator = validators.get("etag") or validators.get("last_modified")
        if validator:
            headers["If-Range"] = validator
    response = _open_url(origin, headers)
    total = False
    if response is not None and offset and response.status == 206:
        total = _resumed_total(response, offset)
    if total is False:  # a fresh transfer: no partial, or the server sent the whole file (200)
        if response is None or response.status == 206:  # 416, or a range not starting at offset
            if response is not None:
                response.close()
            response = _open_url(origin, {})
        offset = 0
        length = response.headers.get("Content-Length")
        total = int(length) if length and length.isdigit() else None
        with open(note, "w", encoding="utf-8") as f:
            json.dump({"origin": origin, "etag": response.headers.get("ETag"),
                       "last_modified": response.headers.get("Last-Modified")}, f)
    with response, open(part, "ab" if offset else "wb") as out:
        _copy_body(response, out, origin, fname, offset, total, part)


def _copy_body(response, out, origin, fname, offset, total, part):
    bar = _progress_bar(total, fname)
    bar.update(offset)
    received = offset
    try:
        while True:
            chunk = response.read(_CHUNK)
            if not chunk:
                break
            out.write(chunk)
            received += len(chunk)
            bar.update(len(chunk))
    except (OSError, ValueError, http.client.HTTPException) as e:  # IncompleteRead, reset connections
        raise DownloadError(f"The transfer from {origin} was interrupted after {received} bytes "
                            f"({e!r}); the partial download {part} is kept and the next call "
                            f"resumes it.") from e
    finally:
        bar.close()
    if total is not None and received != total:
        raise DownloadError(f"The transfer from {origin} was interrupted: received {received} of "
                            f"{total} bytes; the partial download {part} is kept and the next call "
                            f"resumes it.")


def _check_fname(fname):
    name = os.fspath(fname)
    seps = {"/", os.sep, os.altsep} - {None}
    if os.path.isabs(name) or any(sep in name for sep in seps) or name in (".", ".."):
        raise ValueError(f"Paths are not accepted as the `fname` argument of get_file: it must be a "
                         f"plain file name. To choose the folder, use `cache_dir` (and "
                         f"`cache_subdir`). Received: fname={name!r}")
    return name


def _cache_folder(cache_dir, cache_subdir):
    """cache_dir/cache_subdir, refusing a subdir that leaves the cache folder (Keras allows it)."""
    root = cache_root(cache_dir)
    subdir = os.fspath(cache_subdir) if cache_subdir is not None else ""
    datadir = os.path.normpath(os.path.join(root, subdir))
    base = os.path.normpath(root)
    if os.path.isabs(subdir) or os.path.commonpath([os.path.abspath(datadir), os.path.abspath(base)]) \
            != os.path.abspath(base):
        raise ValueError(f"cache_subdir={subdir!r} leads outside the cache folder {base!r}; minitf "
                         f"only writes inside it. Pass the folder you want as `cache_dir` instead.")
    return datadir


def _targets(datadir, fname, provided, extract):
    """(download path, extraction folder or None), laid out as Keras 3 does."""
    if not extract:
        return os.path.join(datadir, fname), None
    if provided and "." in fname:
        return os.path.join(datadir, fname), os.path.join(datadir, fname[:fname.find(".")] + "_extracted")
    return os.path.join(datadir, fname + "_archive"), os.path.join(datadir, fname)


@export("utils.get_file", "keras.utils.get_file")
def get_file(fname=None, origin=None, untar=False, md5_hash=None, file_hash=None,
             cache_subdir="datasets", hash_algorithm="auto", extract=False, archive_format="auto",
             cache_dir=None, force_download=False, max_extract_bytes=None):
    """Download `origin` into the cache unless a file with a valid hash is already there.

    Returns the local path. The file lands in `cache_dir/cache_subdir` (cache_dir defaults to
    Keras' folder: $MINITF_HOME, else $KERAS_HOME, else ~/.keras; see `cache_root`) under the
    name `fname` (default: the last part of the URL).
    `fname` must be a plain file name: a path (absolute, or with a separator or '..') raises
    ValueError, as in Keras 3. `cache_subdir` must stay inside the cache folder: unlike Keras,
    which writes wherever an absolute or '../' subdir points, minitf raises ValueError.

    `file_hash` (sha256 or md5; 'auto' picks by length) is checked after download and for a
    cached file; a mismatching download raises ValueError and leaves nothing behind. The
    transfer goes to a hidden `.<fname>.partial` file and is moved into place only when complete
    (all the bytes of the announced Content-Length, and the right hash). An interrupted transfer
    raises DownloadError (an OSError) and keeps the partial file; the next call resumes it with
    an HTTP Range request when the server supports it (answer 206), and starts again otherwise.
    A server that announces no length and closes the connection early cannot be told apart from
    a complete transfer: pass `file_hash` to catch that. `force_download=True` fetches from
    scratch. Offline, the error names the URL and the path where the file can be placed by hand.

    `extract=True` (or the older `untar=True`, tar only) unpacks a tar or zip archive as Keras 3
    does: the archive is saved as `fname` and extracted into `<fname up to its first dot>_extracted`
    when `fname` has a dot, else saved as `<fname>_archive` and extracted into `fname`; the
    extraction folder is returned. Members are checked first (see
    `minitf.utils.archives.extract_archive`): absolute paths, '..' components, links leaving the
    folder and special files raise ValueError, and extraction stops with ValueError beyond
    `max_extract_bytes` (default: $MINITF_MAX_EXTRACT_BYTES, else 8 GiB). The archive is
    extracted next to the folder and moved into place at the end; it is extracted again only
    when it was just downloaded or the folder is missing.
    """
    if origin is None:
        raise ValueError('Please specify the "origin" argument (URL of the file to download).')
    if md5_hash is not None and file_hash is None:
        file_hash, hash_algorithm = md5_hash, "md5"
    provided = bool(fname)
    if not provided:
        fname = os.path.basename(urllib.parse.urlsplit(origin).path)
        if not fname:
            raise ValueError(f"Can't parse a file name from origin {origin!r}; pass `fname`.")
    fname = _check_fname(fname)
    algorithm = _resolve_algorithm(hash_algorithm, file_hash)
    datadir = _cache_folder(cache_dir, cache_subdir)
    os.makedirs(datadir, exist_ok=True)
    fpath, extraction_dir = _targets(datadir, fname, provided, extract or untar)

    needed = force_download or not os.path.exists(fpath)
    if not needed and file_hash is not None and not validate_file(fpath, file_hash, algorithm):
        needed = True  # stale or damaged cached copy: fetch it again
    if needed:
        try:
            tmp = _download(origin, datadir, os.path.basename(fpath), file_hash, algorithm,
                            restart=force_download)
        except DownloadError as e:
            raise DownloadError(f"{e} Expected location: {fpath}") from e.__cause__
        os.replace(tmp, fpath)

    if extraction_dir is None:
        return fpath
    if needed or not os.path.isdir(extraction_dir):
        fmt = "tar" if untar else archive_format
        if not extract_archive(fpath, extraction_dir, fmt, max_extract_bytes=max_extract_bytes,
                               replace=True):
            warnings.warn(f"Could not extract {fpath}: it is not a {fmt} archive.", stacklevel=2)
    return extraction_dir
