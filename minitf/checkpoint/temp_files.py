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

Scratch folders (`scratch_folder`, where a `.keras` save builds its weights file) live in the
system's temp directory, named '<prefix><pid>-<process start time>-<random>'. A process killed
mid-save leaves its folder behind; the next save removes every such folder whose process is gone:
no process with that pid, or one with another start time (the pid was reused), or a zombie.
Where the start time cannot be read (no /proc) nothing is removed, and a folder of a live
process never is.
"""
import contextlib
import os
import re
import shutil
import stat
import tempfile
import uuid

try:
    import fcntl
except ImportError:  # Windows: no flock, so no way to tell a live writer from a dead one
    fcntl = None

__all__ = ["TempFile", "remove_stale", "scratch_folder", "remove_stale_scratch", "TEMP_MARK",
           "NEW_MARK", "OLD_MARK", "KERAS_SCRATCH"]

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


KERAS_SCRATCH = "minitf-keras-save-"
_UNKNOWN = object()


def _start_time(pid):
    """The start time of process `pid` (clock ticks after boot, from /proc/<pid>/stat); None
    when there is no such live process (zombies included); `_UNKNOWN` without /proc."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            data = f.read()
    except FileNotFoundError:
        return None if os.path.isdir("/proc/self") else _UNKNOWN
    except OSError:
        return _UNKNOWN
    fields = data.rsplit(b")", 1)[-1].split()  # the name in parentheses may hold anything
    if len(fields) < 20:
        return _UNKNOWN
    if fields[0] in (b"Z", b"X"):
        return None  # a zombie writes nothing
    return int(fields[19])  # field 22 of the file; `fields` starts at field 3


def remove_stale_scratch(directory=None, prefix=KERAS_SCRATCH):
    """Delete the scratch folders of dead processes in `directory` (the temp directory by
    default); returns how many. Only this user's real folders named by `scratch_folder` are
    looked at."""
    directory = directory or tempfile.gettempdir()
    pattern = re.compile(re.escape(prefix) + r"(\d+)-(\d+)-[A-Za-z0-9_]+")
    try:
        names = os.listdir(directory)
    except OSError:
        return 0
    removed = 0
    for name in names:
        match = pattern.fullmatch(name)
        if match is None:
            continue
        path = os.path.join(directory, name)
        try:
            st = os.lstat(path)
        except OSError:
            continue
        if not stat.S_ISDIR(st.st_mode) or (hasattr(os, "getuid") and st.st_uid != os.getuid()):
            continue
        alive = _start_time(int(match.group(1)))
        if alive is _UNKNOWN or alive == int(match.group(2)):
            continue
        shutil.rmtree(path, ignore_errors=True)
        removed += 1
    return removed


@contextlib.contextmanager
def scratch_folder(prefix=KERAS_SCRATCH):
    """A new private folder in the temp directory, removed on exit; the folders that killed
    processes left behind are removed first (`remove_stale_scratch`)."""
    directory = tempfile.gettempdir()
    remove_stale_scratch(directory, prefix)
    start = _start_time(os.getpid())
    start = start if isinstance(start, int) else 0
    path = tempfile.mkdtemp(prefix=f"{prefix}{os.getpid()}-{start}-", dir=directory)
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)
