"""The on-disk format: one HDF5 file per checkpoint, written atomically.

Each value is a dataset named by its checkpoint key. A write goes to a temporary file in the
target directory, is flushed and fsynced, renamed over the target (os.replace) and the directory
is fsynced, so a crash at any moment leaves either the old file or the complete new one.
Every dataset is written with a fletcher32 checksum (0-d ones excepted: HDF5 cannot chunk them).
Reading goes through `safe_h5`: nothing is unpickled, no link is followed, only numeric
datasets are read, and every refusal is a DataLossError naming the file and the value.
"""
import os
import threading

import h5py

from minitf import errors
from minitf.checkpoint import safe_h5, temp_files

FORMAT_TAG = "minitf-checkpoint/1"
SUFFIX = ".h5"

__all__ = ["write_arrays", "read_arrays", "read_checkpoint", "open_checkpoint", "text_attrs",
           "atomic_write_text", "data_path", "find_data_path", "FORMAT_TAG", "SUFFIX", "KIND"]
KIND = "Checkpoint file"


def data_path(prefix):
    """The file a checkpoint prefix is written to ('<prefix>.h5'; a '.h5' prefix is kept)."""
    return prefix if prefix.endswith(SUFFIX) else prefix + SUFFIX


def find_data_path(prefix):
    """The existing file for `prefix`, or raise NotFoundError naming what was looked for."""
    prefix = os.fspath(prefix)
    for candidate in (data_path(prefix), prefix):
        if os.path.isfile(candidate):
            return candidate
    raise errors.NotFoundError(None, None,
                               f"Failed to find any matching files for checkpoint {prefix!r} "
                               f"(looked for {data_path(prefix)!r}).")


def _fsync_path(path, directory=False):
    flags = os.O_RDONLY | (getattr(os, "O_DIRECTORY", 0) if directory else 0)
    try:
        fd = os.open(path, flags)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _atomic_replace(write, path, free_old_later=False):
    """Run `write(tmp_path)`, fsync it, rename over `path`, fsync the directory.

    The leftover temp files of earlier saves killed in this directory are removed first (see
    `temp_files`). With `free_old_later`, the file being replaced keeps a hidden second name
    until the rename is done and is deleted on a background thread: freeing a large file's
    blocks is what made the rename slow, and nobody needs to wait for it.
    """
    directory = os.path.dirname(os.path.abspath(path))
    os.makedirs(directory, exist_ok=True)
    temp_files.remove_stale(directory)
    base = os.path.basename(path)
    tmp = temp_files.TempFile(directory, base)
    old = None
    try:
        write(tmp.path)
        _fsync_path(tmp.path)
        if free_old_later:
            old = _second_name(path, temp_files.new_name(directory, base, temp_files.OLD_MARK))
        os.replace(tmp.path, path)
    except BaseException:
        for leftover in (tmp.path, old):
            if leftover and os.path.exists(leftover):
                os.remove(leftover)
        raise
    finally:
        tmp.close()
    _fsync_path(directory, directory=True)
    if old:
        _remove_in_background([old])


def _second_name(path, alias):
    """Hard-link `alias` to the existing file `path`; the alias, or None if that is impossible."""
    try:
        os.link(path, alias)
    except OSError:  # no old file, or a filesystem without hard links
        return None
    return alias


def _remove_files(paths):
    for path in paths:
        try:
            os.remove(path)
        except OSError:
            pass


def _remove_in_background(paths):
    """Delete `paths` on a (non-daemon, so it finishes before exit) worker thread."""
    if paths:
        threading.Thread(target=_remove_files, args=(paths,), name="minitf-ckpt-cleanup").start()


def write_arrays(path, arrays, attrs=None):
    """Write {key: numpy array} to the HDF5 file `path`, atomically, each value checksummed."""

    def write(tmp):
        with h5py.File(tmp, "w", locking=False) as f:  # the temp file's own lock is held
            f.attrs["format"] = FORMAT_TAG
            for name, value in (attrs or {}).items():
                f.attrs[name] = value
            for key, array in arrays.items():
                safe_h5.create_dataset(f, key, array)
    _atomic_replace(write, path, free_old_later=True)


def open_checkpoint(path):
    """A `safe_h5.SafeH5` of checkpoint file `path`, after checking that it is one: the format
    tag is minitf's and every dataset is numeric. Nothing is read yet; close it when done.

    Raises NotFoundError for a missing file and DataLossError for anything else wrong.
    """
    if not os.path.isfile(path):
        raise errors.NotFoundError(None, None, f"Checkpoint file {path!r} does not exist.")
    store = safe_h5.SafeH5(path, KIND)
    try:
        tag = store.attr("", "format")
        if tag != FORMAT_TAG:
            raise safe_h5.refusal(KIND, path, "", f"is not a minitf checkpoint (format tag {tag!r}).")
        for entry in store.entries.values():
            store.check_value(entry)
    except BaseException:
        store.close()
        raise
    return store


def text_attrs(store):
    """{attribute: str} of an open checkpoint's root, the format tag left out."""
    out = {}
    for name in store.attr_names(""):
        if name != "format":
            value = store.attr("", name)
            out[name] = value if isinstance(value, str) else str(value)
    return out


def read_arrays(path):
    """{key: numpy array} of every dataset in checkpoint file `path`.

    Raises NotFoundError for a missing file and DataLossError for a truncated, corrupt or
    hostile one (see `safe_h5`).
    """
    return read_checkpoint(path)[0]


def read_checkpoint(path):
    """({key: numpy array}, {attribute: str}) of checkpoint file `path` (see `read_arrays`).

    With no variables to compare against, all values together must fit the read budget that
    the file's size sets (`safe_h5.SafeH5.check_budget`).
    """
    with open_checkpoint(path) as store:
        attrs = text_attrs(store)
        store.check_budget(list(store.entries.values()))
        return {key: store.read(entry) for key, entry in store.entries.items()}, attrs


def atomic_write_text(path, text):
    """Write `text` to `path` atomically (temp file, fsync, rename, directory fsync)."""
    def write(tmp):
        with open(tmp, "w") as f:
            f.write(text)
    _atomic_replace(write, path)
