"""tf.keras.utils.get_file: download once into a cache, verify the checksum, write atomically.

A download goes to a hidden temporary file in the destination folder and is moved into place
with `os.replace` only after its size and hash check out, so an interrupted or corrupted
transfer never leaves a file that looks complete. Archives are extracted only after every
member is checked to stay inside the target folder.
"""
import hashlib
import os
import tarfile
import tempfile
import urllib.error
import urllib.request
import zipfile

from tqdm.auto import tqdm

__all__ = ["get_file", "cache_root", "validate_file", "hash_file", "extract_archive",
           "DownloadError"]

_CHUNK = 1 << 16
_TIMEOUT_S = 60


class DownloadError(OSError):
    """A file could not be fetched from its origin (offline, HTTP error, cut-off transfer)."""


def cache_root(cache_dir=None):
    """The cache folder: `cache_dir`, else $MINITF_HOME, else ~/.minitf."""
    if cache_dir:
        return os.path.expanduser(os.fspath(cache_dir))
    env = os.environ.get("MINITF_HOME")
    return os.path.expanduser(env) if env else os.path.join(os.path.expanduser("~"), ".minitf")


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


def _download(origin, target_dir, fname, file_hash, algorithm):
    """Fetch `origin` to a temporary file in `target_dir`, verify it, return its path."""
    fd, tmp = tempfile.mkstemp(dir=target_dir, prefix=f".{fname}.", suffix=".part")
    try:
        with os.fdopen(fd, "wb") as out:
            _copy_url(origin, out, fname)
        if file_hash is not None and not validate_file(tmp, file_hash, algorithm):
            actual = hash_file(tmp, algorithm)
            raise ValueError(f"Incomplete or corrupted file detected for {fname!r} from {origin}: "
                             f"its {algorithm} hash is {actual} but {file_hash} was expected. "
                             f"Nothing was kept in the cache.")
        return tmp
    except BaseException:
        if os.path.exists(tmp):
            os.remove(tmp)
        raise


def _copy_url(origin, out, fname):
    try:
        response = urllib.request.urlopen(origin, timeout=_TIMEOUT_S)  # noqa: S310 (user-chosen URL)
    except (urllib.error.URLError, OSError, ValueError) as e:
        reason = getattr(e, "reason", e)
        raise DownloadError(f"URL fetch failure on {origin}: {reason}. If you are offline, download "
                            f"the file elsewhere and place it at the cache path shown below.") from e
    with response:
        length = response.headers.get("Content-Length")
        total = int(length) if length and length.isdigit() else None
        bar = _progress_bar(total, fname)
        received = 0
        try:
            while True:
                chunk = response.read(_CHUNK)
                if not chunk:
                    break
                out.write(chunk)
                received += len(chunk)
                bar.update(len(chunk))
        except (OSError, ValueError) as e:  # http.client.IncompleteRead, reset connections
            raise DownloadError(f"The transfer from {origin} was interrupted after {received} bytes: "
                                f"{e!r}") from e
        finally:
            bar.close()
    if total is not None and received != total:
        raise DownloadError(f"The transfer from {origin} was interrupted: received {received} of "
                            f"{total} bytes.")


def get_file(fname=None, origin=None, untar=False, md5_hash=None, file_hash=None,
             cache_subdir="datasets", hash_algorithm="auto", extract=False, archive_format="auto",
             cache_dir=None, force_download=False):
    """Download `origin` into the cache unless a file with a valid hash is already there.

    Returns the local path. The file lands in `cache_dir/cache_subdir` (cache_dir defaults to
    $MINITF_HOME or ~/.minitf; an absolute `fname` is used as is). `file_hash` (sha256 or md5;
    'auto' picks by length) is checked after download and for a cached file; a mismatching
    download raises ValueError and leaves nothing behind. `extract=True` unpacks a tar or zip
    archive next to it, refusing members that would land outside that folder. Offline, the
    error names the URL and the path where the file can be placed by hand.
    """
    if origin is None:
        raise ValueError('Please specify the "origin" argument (URL of the file to download).')
    if md5_hash is not None and file_hash is None:
        file_hash, hash_algorithm = md5_hash, "md5"
    if fname is None:
        fname = os.path.basename(urllib.request.urlparse(origin).path)
        if not fname:
            raise ValueError(f"Can't parse a file name from origin {origin!r}; pass `fname`.")
    fname = os.fspath(fname)
    algorithm = _resolve_algorithm(hash_algorithm, file_hash)

    datadir = os.path.join(cache_root(cache_dir), cache_subdir)
    if os.path.isabs(fname):
        datadir, fname = os.path.split(fname)
    os.makedirs(datadir, exist_ok=True)
    if untar:
        untar_path = os.path.join(datadir, fname)
        fpath = untar_path + ".tar.gz"
        fname = os.path.basename(fpath)
    else:
        fpath = os.path.join(datadir, fname)

    needed = force_download or not os.path.exists(fpath)
    if not needed and file_hash is not None and not validate_file(fpath, file_hash, algorithm):
        needed = True  # stale or damaged cached copy: fetch it again
    if needed:
        try:
            tmp = _download(origin, datadir, fname, file_hash, algorithm)
        except DownloadError as e:
            raise DownloadError(f"{e} Expected location: {fpath}") from e.__cause__
        os.replace(tmp, fpath)

    if untar:
        if not os.path.exists(untar_path):
            extract_archive(fpath, datadir, archive_format="tar")
        return untar_path
    if extract:
        extract_archive(fpath, datadir, archive_format)
    return fpath


def _inside(root, path):
    root = os.path.realpath(root)
    target = os.path.realpath(path)
    return target == root or target.startswith(root + os.sep)


def _check_name(name, target_dir, archive):
    if os.path.isabs(name) or name.startswith(("/", "\\")) or ".." in name.replace("\\", "/").split("/"):
        raise ValueError(f"Refusing to extract {archive!r}: member {name!r} has a path that leaves "
                         f"the target directory {target_dir!r}.")
    if not _inside(target_dir, os.path.join(target_dir, name)):
        raise ValueError(f"Refusing to extract {archive!r}: member {name!r} resolves outside "
                         f"{target_dir!r}.")


def _check_tar(tar, target_dir, archive):
    for member in tar.getmembers():
        _check_name(member.name, target_dir, archive)
        if member.issym() or member.islnk():
            base = target_dir if member.islnk() else os.path.dirname(
                os.path.join(target_dir, member.name))
            link = member.linkname
            if os.path.isabs(link) or not _inside(target_dir, os.path.join(base, link)):
                raise ValueError(f"Refusing to extract {archive!r}: link {member.name!r} points to "
                                 f"{link!r}, outside the target directory {target_dir!r}.")
        elif not (member.isfile() or member.isdir()):
            raise ValueError(f"Refusing to extract {archive!r}: member {member.name!r} is a device "
                             f"or special file.")


def extract_archive(file_path, path=".", archive_format="auto"):
    """Extract a tar(.gz/.bz2/.xz) or zip archive into `path` after checking every member.

    Raises ValueError, before writing anything, when a member has an absolute path, a '..'
    component, or is a link pointing outside `path`. Returns True when something was extracted.
    """
    formats = ["tar", "zip"] if archive_format in ("auto", None) else (
        [archive_format] if isinstance(archive_format, str) else list(archive_format))
    os.makedirs(path, exist_ok=True)
    if "tar" in formats and tarfile.is_tarfile(file_path):
        with tarfile.open(file_path) as tar:
            _check_tar(tar, path, file_path)
            _extract_tar(tar, path)
        return True
    if "zip" in formats and zipfile.is_zipfile(file_path):
        with zipfile.ZipFile(file_path) as zf:
            for name in zf.namelist():
                _check_name(name, path, file_path)
            zf.extractall(path)
        return True
    return False


def _extract_tar(tar, path):
    try:
        tar.extractall(path, filter="data")  # Python >= 3.12 (and patched 3.8+): a second guard
    except TypeError:
        tar.extractall(path)  # noqa: S202 (members checked by _check_tar)
    except getattr(tarfile, "FilterError", ()) as e:
        raise ValueError(f"Refusing to extract archive member: {e}") from e
