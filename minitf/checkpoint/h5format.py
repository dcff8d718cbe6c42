"""The on-disk format: one HDF5 file per checkpoint, written atomically.

Each value is a dataset named by its checkpoint key. A write goes to a temporary file in the
target directory, is flushed and fsynced, renamed over the target (os.replace) and the directory
is fsynced, so a crash at any moment leaves either the old file or the complete new one.
Every dataset is written with a fletcher32 checksum (0-d ones excepted: HDF5 cannot chunk them).
Reading goes through `safe_h5`: nothing is unpickled, no link is followed, only numeric
datasets are read, and every refusal is a DataLossError naming the file and the value.
"""
import errno
import os
import threading

import h5py

from minitf.errors import errors
from minitf.checkpoint import safe_h5, temp_files

FORMAT_TAG = "minitf-checkpoint/1"
SUFFIX = ".h5"

__all__ = ["write_hdf5", "atomic_replace", "write_arrays", "read_arrays", "read_checkpoint", "open_checkpoint",
           "text_attrs", "atomic_write_text", "data_path", "find_data_path", "FORMAT_TAG", "SUFFIX", "KIND"]
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


def atomic_replace(write, path, free_old_later=False, size_hint=0):
    """Run `write(tmp_path)`, fsync it, rename over `path`, fsync the directory.

    The leftover temp files of earlier saves killed in this directory are removed first (see
    `temp_files`). `size_hint`, the bytes about to be written, is checked against the free
    space first: a write that cannot fit fails before HDF5 starts it (HDF5 handles a full disk
    mid-write badly: RuntimeErrors instead of OSError, and with h5py 3.16 a crash at exit at
    one free-space size). Any failure on a full disk is `OSError(ENOSPC)` naming the path.
    With `free_old_later`, the file being replaced keeps a hidden second name until the rename
    is done and is deleted on a background thread: freeing a large file's blocks is what made
    the rename slow, and nobody needs to wait for it.
    """
    directory = os.path.dirname(os.path.abspath(path))
    os.makedirs(directory, exist_ok=True)
    temp_files.remove_stale(directory)
    if _free_bytes(directory) < size_hint + _SPACE_MARGIN:
        raise _disk_full(path, size_hint)
    base = os.path.basename(path)
    tmp = None
    old = None
    try:
        tmp = temp_files.TempFile(directory, base)
        write(tmp.path)
        _fsync_path(tmp.path)
        if free_old_later:
            old = _second_name(path, temp_files.new_name(directory, base, temp_files.OLD_MARK))
        os.replace(tmp.path, path)
    except BaseException as e:
        for leftover in (tmp and tmp.path, old):
            if leftover and os.path.exists(leftover):
                os.remove(leftover)
        if isinstance(e, Exception) and _is_disk_full(e, directory, size_hint):
            raise _disk_full(path, size_hint) from e
        raise
    finally:
        if tmp is not None:
            tmp.close()
    _fsync_path(directory, directory=True)
    if old:
        _remove_in_background([old])


# room left beside the data for HDF5's metadata, the state file and the directory entries
_SPACE_MARGIN = 64 * 1024


def _free_bytes(directory):
    """Bytes an unprivileged writer may still use in `directory` (unbounded where unknown)."""
    try:
        st = os.statvfs(directory)
    except (OSError, AttributeError):  # no statvfs on Windows
        return float("inf")
    return st.f_bavail * st.f_frsize


def _is_disk_full(error, directory, size_hint):
    """Whether `error`, raised while writing into `directory`, comes from a full disk: an
    OSError saying so, or any failure (HDF5 reports it as RuntimeError or a bare OSError) with
    less free space left than the write needed."""
    if isinstance(error, OSError) and error.errno in (errno.ENOSPC, errno.EDQUOT):
        return True
    if isinstance(error, (TypeError, ValueError)):
        return False  # bad values, not a bad disk
    return _free_bytes(directory) < size_hint + _SPACE_MARGIN


def _disk_full(path, size_hint):
    return OSError(errno.ENOSPC, f"No space left on device to save {path!r} (about {size_hint} bytes "
                                 f"needed, {_free_bytes(os.path.dirname(os.path.abspath(path)))} "
                                 f"free); the previous file there, if any, is intact. Free some space "
                                 f"or save to another disk", path)


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


def write_hdf5(path, fill, size_hint, free_old_later=False):
    """Write the HDF5 file `path` atomically; `fill(h5file)` adds its contents.

    With room to spare HDF5 writes the temp file itself. When the free space is tight (under
    `_ROOMY` times the size), the file is built in memory and its bytes written by Python, so
    that a disk filling up mid-write is a clean OSError: HDF5 meeting ENOSPC mid-write leaves
    RuntimeErrors and, with h5py 3.16, a segfault (measured on a tmpfs at free sizes from 4 KB
    to 200 KB, every time).
    """
    directory = os.path.dirname(os.path.abspath(path))

    def write(tmp):
        if _free_bytes(directory) >= _ROOMY * (size_hint + _SPACE_MARGIN):
            with h5py.File(tmp, "w", locking=False) as f:  # the temp file's own lock is held
                fill(f)
            return
        with h5py.File(tmp, "w", driver="core", backing_store=False) as f:  # nothing on disk
            fill(f)
            f.flush()
            image = f.id.get_file_image()
        with open(tmp, "wb") as out:
            out.write(image)
    atomic_replace(write, path, free_old_later=free_old_later, size_hint=size_hint)


_ROOMY = 4


def write_arrays(path, arrays, attrs=None):
    """Write {key: numpy array} to the HDF5 file `path`, atomically, each value checksummed."""

    def fill(f):
        f.attrs["format"] = FORMAT_TAG
        for name, value in (attrs or {}).items():
            f.attrs[name] = value
        for key, array in arrays.items():
            safe_h5.create_dataset(f, key, array)
    size = sum(getattr(a, "nbytes", 0) for a in arrays.values()) + 1024 * len(arrays)
    write_hdf5(path, fill, size, free_old_later=True)


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
    atomic_replace(write, path, size_hint=len(text.encode()))
