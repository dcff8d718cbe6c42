"""The on-disk format: one HDF5 file per checkpoint, written atomically.

Each value is a dataset named by its checkpoint key. A write goes to a temporary file in the
target directory, is flushed and fsynced, renamed over the target (os.replace) and the directory
is fsynced, so a crash at any moment leaves either the old file or the complete new one.
Nothing is ever unpickled: only numeric datasets are read.
"""
import os
import uuid

import numpy as np

from minitf import errors

FORMAT_TAG = "minitf-checkpoint/1"
SUFFIX = ".h5"

__all__ = ["write_arrays", "read_arrays", "read_checkpoint", "atomic_write_text", "data_path", "find_data_path",
           "FORMAT_TAG", "SUFFIX"]


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


def _atomic_replace(write, path):
    """Run `write(tmp_path)`, fsync it, rename over `path`, fsync the directory."""
    directory = os.path.dirname(os.path.abspath(path))
    os.makedirs(directory, exist_ok=True)
    tmp = os.path.join(directory, f".{os.path.basename(path)}.tmp-{uuid.uuid4().hex[:12]}")
    try:
        write(tmp)
        _fsync_path(tmp)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.remove(tmp)
        raise
    _fsync_path(directory, directory=True)


def write_arrays(path, arrays, attrs=None):
    """Write {key: numpy array} to the HDF5 file `path`, atomically."""
    import h5py

    def write(tmp):
        with h5py.File(tmp, "w") as f:
            f.attrs["format"] = FORMAT_TAG
            for name, value in (attrs or {}).items():
                f.attrs[name] = value
            for key, array in arrays.items():
                f.create_dataset(key, data=array)
    _atomic_replace(write, path)


def read_arrays(path):
    """{key: numpy array} of every dataset in checkpoint file `path`.

    Raises NotFoundError for a missing file and DataLossError for a truncated or corrupt one.
    """
    return read_checkpoint(path)[0]


def read_checkpoint(path):
    """({key: numpy array}, {attribute: str}) of checkpoint file `path` (see `read_arrays`)."""
    import h5py
    if not os.path.isfile(path):
        raise errors.NotFoundError(None, None, f"Checkpoint file {path!r} does not exist.")
    try:
        f = h5py.File(path, "r")
    except OSError as e:
        raise errors.DataLossError(None, None, f"Checkpoint file {path!r} is truncated or "
                                   f"corrupt and cannot be opened: {e}") from None
    key = None
    try:
        with f:
            if f.attrs.get("format") != FORMAT_TAG:
                raise errors.DataLossError(None, None, f"File {path!r} is not a minitf checkpoint "
                                           f"(format tag {f.attrs.get('format')!r}).")
            keys = []
            f.visititems(lambda name, obj: keys.append(name) if isinstance(obj, h5py.Dataset) else None)
            attrs = {k: _attr_text(v) for k, v in f.attrs.items() if k != "format"}
            out = {}
            for key in keys:
                ds = f[key]
                if ds.dtype.kind not in "biufc":
                    raise errors.DataLossError(None, None, f"Checkpoint file {path!r}: value {key!r} "
                                               f"has non-numeric dtype {ds.dtype}.")
                out[key] = np.asarray(ds[...])
            return out, attrs
    except (OSError, RuntimeError, KeyError) as e:
        raise errors.DataLossError(None, None, f"Checkpoint file {path!r} is corrupt while reading "
                                   f"{key!r}: {e}") from None


def _attr_text(value):
    return value.decode("utf-8") if isinstance(value, bytes) else str(value)


def atomic_write_text(path, text):
    """Write `text` to `path` atomically (temp file, fsync, rename, directory fsync)."""
    def write(tmp):
        with open(tmp, "w") as f:
            f.write(text)
    _atomic_replace(write, path)
