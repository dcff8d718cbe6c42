"""Temporary files of atomic saves: named so they can be found, locked while they are written,
and removed once the save that made them is gone.

A save creates `.<name>.new-<12 hex>` beside its target, locks it and renames it to
`.<name>.tmp-<12 hex>`, writes it and renames it over the target at the end; a replaced
checkpoint keeps a hidden second name `.<name>.old-<12 hex>` until its blocks are freed. A
process killed mid-save leaves these behind. The writer holds an exclusive `flock` on its temp
file for as long as it writes, and the lock dies with the process, so a '.new-' or '.tmp-' file
whose lock can be taken is a leftover: `remove_stale` deletes those (and every '.old-' alias,
which is only an extra name) in a directory, and every save and every new `CheckpointManager`
calls it.
Only names of this exact pattern are touched. Without `fcntl` (Windows) temp files are kept.
"""
import os
import re
import uuid

try:
    import fcntl
except ImportError:  # Windows: no flock, so no way to tell a live writer from a dead one
    fcntl = None

__all__ = ["TempFile", "remove_stale", "TEMP_MARK", "NEW_MARK", "OLD_MARK"]

TEMP_MARK = ".tmp-"
NEW_MARK = ".new-"
OLD_MARK = ".old-"
_PATTERN = re.compile(r"^\..+(\.tmp-|\.new-|\.old-)[0-9a-f]{12}$")


def new_name(directory, base, mark):
    """A fresh hidden name beside `base`: '.<base><mark><12 hex>'."""
    return os.path.join(directory, f".{base}{mark}{uuid.uuid4().hex[:12]}")


class TempFile:
    """A new temp file for `base` in `directory`, created empty and locked until `close()`.

    The writer opens `path` by name (h5py with `locking=False`, since HDF5's own lock would
    collide with this one; open()); the lock is held on a descriptor of our own.
    """

    def __init__(self, directory, base):
        # Made as '.new-', locked, then renamed to '.tmp-': a cleaner can only meet a live file
        # unlocked in the instant between its creation and its lock, under the '.new-' name;
        # if it removes it then, the rename fails and the file is made again.
        for attempt in range(5):
            unlocked = new_name(directory, base, NEW_MARK)
            self._fd = os.open(unlocked, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
            try:
                if fcntl is not None:
                    fcntl.flock(self._fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                self.path = new_name(directory, base, TEMP_MARK)
                os.rename(unlocked, self.path)
                return
            except FileNotFoundError:
                os.close(self._fd)
                if attempt == 4:
                    raise
            except BaseException:
                os.close(self._fd)
                if os.path.exists(unlocked):
                    os.remove(unlocked)
                raise

    def close(self):
        """Release the lock (the file itself is renamed or removed by the caller)."""
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None


def _is_stale(path, name):
    if OLD_MARK in name:
        return True
    if fcntl is None:
        return False
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return False  # a live save holds it
    finally:
        os.close(fd)  # closing releases the lock we may have taken
    return True


def remove_stale(directory):
    """Delete the leftover temp files of killed saves in `directory`; returns how many."""
    try:
        names = os.listdir(directory)
    except OSError:
        return 0
    removed = 0
    for name in names:
        if not _PATTERN.match(name):
            continue
        path = os.path.join(directory, name)
        if os.path.isfile(path) and not os.path.islink(path) and _is_stale(path, name):
            try:
                os.remove(path)
                removed += 1
            except OSError:
                pass
    return removed
