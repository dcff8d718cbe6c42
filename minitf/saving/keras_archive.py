"""The `.keras` file: Keras 3's zip of `metadata.json`, `config.json` and `model.weights.h5`.

Writing builds the weights in a scratch folder, then the whole archive in a temporary file
beside the target, and renames it into place (fsynced), so an interrupted save leaves the
previous file intact. `zipped=False` writes the same three files into a folder instead, also
renamed into place at the end.

Reading treats the archive as hostile: only the members Keras writes are looked at (the three
files, and small plain files under `assets/`, copied after name checks into a private folder;
anything else is ignored), a member named twice is refused, the JSON members must be small, and
the weights member is copied out with its bytes counted against the extraction limit (a lying
header or a decompression bomb stops there) before `safe_h5` opens it. Every refusal is a
ValueError naming the file and the member, as Keras raises for a decompression bomb; nothing is
unpickled.
"""
import contextlib
import json
import os
import shutil
import tempfile
import zipfile
import zlib

from minitf.checkpoint import h5format, temp_files
from minitf.utils.archives import extract_size_limit

__all__ = ["write_archive", "read_archive", "CONFIG", "METADATA", "WEIGHTS", "ASSETS"]

CONFIG = "config.json"
METADATA = "metadata.json"
WEIGHTS = "model.weights.h5"
ASSETS = "assets"
_JSON_LIMIT = 64 << 20   # a config is a few KB; this leaves room for huge graphs, not for bombs
_CHUNK = 1 << 20
_READ_ERRORS = (zipfile.BadZipFile, zlib.error, EOFError, NotImplementedError, RuntimeError)


def write_archive(path, config, metadata, write_weights, size_hint, zipped=True):
    """Write `config` and `metadata` (JSON-able dicts) and the weights that
    `write_weights(h5py.File)` fills, atomically, as a `.keras` zip or (zipped=False) a folder."""
    path = os.fspath(path)
    directory = os.path.dirname(os.path.abspath(path))
    os.makedirs(directory, exist_ok=True)
    with temp_files.scratch_folder() as scratch:  # also removes killed saves' folders
        weights = os.path.join(scratch, WEIGHTS)
        h5format.write_hdf5(weights, write_weights, size_hint)
        texts = {METADATA: json.dumps(metadata), CONFIG: json.dumps(config)}
        if not zipped:
            _write_folder(path, scratch, texts)
            return

        def write(tmp):
            with zipfile.ZipFile(tmp, "w", compression=zipfile.ZIP_STORED) as zf:
                for name, text in texts.items():
                    zf.writestr(name, text)
                zf.write(weights, WEIGHTS)
        h5format.atomic_replace(write, path, size_hint=size_hint + sum(len(t) for t in texts.values()))


def _write_folder(path, scratch, texts):
    for name, text in texts.items():
        with open(os.path.join(scratch, name), "w") as f:
            f.write(text)
    staged = tempfile.mkdtemp(dir=os.path.dirname(os.path.abspath(path)),
                              prefix=f".{os.path.basename(path)}.staging-")
    try:
        for name in (METADATA, CONFIG, WEIGHTS):
            shutil.move(os.path.join(scratch, name), os.path.join(staged, name))
        if os.path.isdir(path):
            shutil.rmtree(path)
        os.replace(staged, path)
    except BaseException:
        shutil.rmtree(staged, ignore_errors=True)
        raise


def _refuse(path, member, what):
    return ValueError(f"Not allowed: {path!r} is not a .keras file minitf will read: {member} {what}")


def _json(path, text, member):
    try:
        value = json.loads(text)
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise _refuse(path, member, f"is not valid JSON ({e}).") from None
    if not isinstance(value, dict):
        raise _refuse(path, member, f"holds a {type(value).__name__}, not a JSON object.")
    return value


@contextlib.contextmanager
def read_archive(path):
    """Open a `.keras` zip or folder: yields (config dict, metadata dict, weights h5 path, assets
    folder or None).

    The weights path is a private copy (zip) or the folder's file, and the assets folder a private
    copy of the archive's `assets/` members (vocabularies of adapted layers), valid inside the block.

    Raises:
      ValueError: a hostile or damaged archive (see the module docstring).
    """
    path = os.fspath(path)
    if os.path.isdir(path):
        assets = os.path.join(path, ASSETS)
        yield _read_folder(path) + (assets if os.path.isdir(assets) else None,)
        return
    with tempfile.TemporaryDirectory(prefix="minitf-keras-load-") as scratch:
        try:
            with zipfile.ZipFile(path) as zf:
                members = _members(path, zf)
                config = _json(path, _read_small(path, zf, members[CONFIG]), CONFIG)
                metadata = (_json(path, _read_small(path, zf, members[METADATA]), METADATA)
                            if METADATA in members else {})
                weights = os.path.join(scratch, WEIGHTS)
                _copy_out(path, zf, members[WEIGHTS], weights)
                assets = _copy_assets(path, zf, os.path.join(scratch, ASSETS))
        except _READ_ERRORS as e:
            raise _refuse(path, "the archive", f"is damaged or truncated: {e}") from None
        yield config, metadata, weights, assets


def _read_folder(path):
    def text(name, limit):
        file = os.path.join(path, name)
        if os.path.getsize(file) > limit:
            raise _refuse(path, name, f"is larger than {limit} bytes.")
        with open(file, "rb") as f:
            return f.read()
    for name in (CONFIG, WEIGHTS):
        if not os.path.isfile(os.path.join(path, name)):
            raise _refuse(path, name, "is missing from the saved-model folder.")
    metadata = (_json(path, text(METADATA, _JSON_LIMIT), METADATA)
                if os.path.isfile(os.path.join(path, METADATA)) else {})
    return _json(path, text(CONFIG, _JSON_LIMIT), CONFIG), metadata, os.path.join(path, WEIGHTS)


def _members(path, zf):
    """{name: ZipInfo} of the members minitf reads, after refusing duplicates and encryption."""
    found = {}
    for info in zf.infolist():
        if info.filename not in (CONFIG, METADATA, WEIGHTS):
            continue
        if info.filename in found:
            raise _refuse(path, info.filename, "appears twice in the archive (which one is meant is "
                                               "ambiguous).")
        if info.flag_bits & 0x1:
            raise _refuse(path, info.filename, "is encrypted.")
        found[info.filename] = info
    for name in (CONFIG, WEIGHTS):
        if name not in found:
            raise _refuse(path, name, f"is missing: a .keras archive holds {CONFIG}, {METADATA} and "
                                      f"{WEIGHTS} (found {sorted(zf.namelist())[:10]}).")
    return found


def _read_small(path, zf, info):
    if info.file_size > _JSON_LIMIT:
        raise _refuse(path, info.filename, f"declares {info.file_size} bytes; configs are limited to "
                                           f"{_JSON_LIMIT}.")
    with zf.open(info) as f:
        data = f.read(_JSON_LIMIT + 1)
    if len(data) > _JSON_LIMIT:
        raise _refuse(path, info.filename, f"inflates past {_JSON_LIMIT} bytes.")
    return data


def _copy_assets(path, zf, folder):
    """Copy the `assets/` files (small text files such as vocabularies) into `folder`; None when
    there are none. A name that is absolute, has '..' or '.' parts, or a member that is not a plain
    file is refused; each file and all of them together stay under the config size limit."""
    infos = [i for i in zf.infolist() if i.filename.startswith(ASSETS + "/") and not i.is_dir()]
    if not infos:
        return None
    total = 0
    for info in infos:
        parts = info.filename.split("/")[1:]
        if info.filename.startswith("/") or "\\" in info.filename or any(p in ("", ".", "..") for p in parts):
            raise _refuse(path, info.filename, "has a path minitf will not write (absolute, '.' or '..' parts).")
        if (info.external_attr >> 16) & 0o170000 not in (0, 0o100000):
            raise _refuse(path, info.filename, "is not a plain file (a link or a device).")
        total += info.file_size
        if info.file_size > _JSON_LIMIT or total > _JSON_LIMIT:
            raise _refuse(path, info.filename, f"takes the assets past {_JSON_LIMIT} bytes.")
        target = os.path.join(folder, *parts)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with open(target, "wb") as out:
            out.write(_read_small(path, zf, info))
    return folder


def _copy_out(path, zf, info, target):
    """Copy one member to `target`, never writing more than its declared size or the limit."""
    limit = extract_size_limit()
    if info.file_size > limit:
        raise _refuse(path, info.filename, f"declares {info.file_size} bytes, over the extraction limit "
                                           f"of {limit} (raise $MINITF_MAX_EXTRACT_BYTES to allow it).")
    written = 0
    with zf.open(info) as src, open(target, "wb") as out:
        while True:
            chunk = src.read(_CHUNK)
            if not chunk:
                break
            written += len(chunk)
            if written > info.file_size:
                raise _refuse(path, info.filename, f"inflates past its declared size of {info.file_size} bytes.")
            out.write(chunk)
