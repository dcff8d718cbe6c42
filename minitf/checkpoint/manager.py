"""tf.train.CheckpointManager, tf.train.latest_checkpoint and the files of a checkpoint.

The directory's 'checkpoint' state file (`state_file`) names the latest checkpoint and the ones
kept. A save writes the new checkpoint, then the state file (both atomically), and only then
deletes checkpoints that fell out of the window, so the state file never names a file that is
gone. The state file is untrusted: only checkpoints directly inside the directory are taken from
it, and a manager deletes only files it recognises as a checkpoint's own: '<directory>/<its
checkpoint_name>-<n>' followed by '.index', '.data-NNNNN-of-NNNNN' or '.h5' (minitf's older
format), never a path the file names as it is. Another process cleaning the same directory at
the same time (two managers, say) cannot make a save fail once it has been committed.
"""
import collections
import os
import re
import time
import warnings

from minitf.checkpoint import h5format, state_file, tensor_bundle, temp_files
from minitf.checkpoint.state_file import read_state, write_state
from minitf import distribution_context as _distribute_context
from minitf.api_export import export

__all__ = ["CheckpointManager", "latest_checkpoint", "get_checkpoint_state", "CheckpointState",
           "read_state", "write_state", "checkpoint_exists", "remove_checkpoint_files"]

_DATA_SHARD = re.compile(r"\.data-\d{5}-of-\d{5}$")


def checkpoint_exists(prefix):
    """Whether checkpoint `prefix` exists, in TF's format or minitf's older HDF5 one."""
    return (os.path.isfile(tensor_bundle.index_path(prefix))
            or os.path.isfile(h5format.data_path(prefix)))


def _listed(directory, state, field):
    """The checkpoints `state` lists in `field` that are inside `directory` (a warning names
    each one that is not)."""
    values = state[field] if isinstance(state[field], list) else [state[field]]
    out = []
    for value in values:
        if not value:
            continue
        path = state_file.inside(directory, value)
        if path is None:
            warnings.warn(f"The checkpoint state file of {directory!r} names {value!r}, which is "
                          "not a checkpoint inside that directory; it is ignored.", stacklevel=4)
        out.append(path)
    return out


class CheckpointState:
    """The parsed 'checkpoint' state file (TF's CheckpointState proto): the latest checkpoint,
    all kept ones, their timestamps and the last preserved timestamp."""

    def __init__(self, model_checkpoint_path, all_model_checkpoint_paths,
                 all_model_checkpoint_timestamps, last_preserved_timestamp):
        self.model_checkpoint_path = model_checkpoint_path
        self.all_model_checkpoint_paths = all_model_checkpoint_paths
        self.all_model_checkpoint_timestamps = all_model_checkpoint_timestamps
        self.last_preserved_timestamp = last_preserved_timestamp

    def __repr__(self):
        return (f"CheckpointState(model_checkpoint_path={self.model_checkpoint_path!r}, "
                f"all_model_checkpoint_paths={self.all_model_checkpoint_paths!r})")


@export("train.get_checkpoint_state")
def get_checkpoint_state(checkpoint_dir, latest_filename=None):
    """The directory's state file as a CheckpointState, or None if it has none.

    Paths are joined to the directory (TF's relative-path rule). A path that does not name a
    file directly inside the directory (absolute elsewhere, or through '..') is left out with a
    warning, where TF would follow it.

    Raises:
        DataLossError (also a ValueError): the state file is a symlink, a device, a FIFO or
            larger than `state_file.SIZE_LIMIT`.
    """
    directory = os.fspath(checkpoint_dir)
    state = read_state(directory, latest_filename)
    if state is None:
        return None
    latest = _listed(directory, state, "model_checkpoint_path")
    paths = _listed(directory, state, "all_model_checkpoint_paths")
    return CheckpointState(latest[0] if latest else None, [p for p in paths if p],
                           list(state["all_model_checkpoint_timestamps"]),
                           state["last_preserved_timestamp"])


@export("checkpoint.latest_checkpoint", "train.latest_checkpoint")
def latest_checkpoint(checkpoint_dir, latest_filename=None):
    """Finds the newest checkpoint saved in a directory.

    Reads the directory's 'checkpoint' state file, which `Checkpoint.save` and
    `CheckpointManager.save` keep up to date (`Checkpoint.write` does not). The usual way to
    resume training:

    >>> ckpt.restore(tf.train.latest_checkpoint("/tmp/training"))

    (`restore(None)` restores nothing, so this also works on the first run.)

    Args:
        checkpoint_dir: The directory the checkpoints were saved in.
        latest_filename: The name of the state file (default 'checkpoint').

    Returns:
        The prefix of the newest checkpoint (e.g. '/tmp/training/ckpt-3'), or None if the
        directory has no state file, the checkpoint it names no longer exists, or it names a
        path outside the directory (a warning says so).

    Raises:
        DataLossError (also a ValueError): the state file is not a regular file or is too large.
    """
    state = get_checkpoint_state(checkpoint_dir, latest_filename)
    if state is None or not state.model_checkpoint_path:
        return None
    path = state.model_checkpoint_path
    return path if checkpoint_exists(path) else None


def _files_of(prefix):
    """The existing files of checkpoint `prefix` (index first, then data shards, then HDF5)."""
    directory, base = os.path.split(prefix)
    try:
        names = os.listdir(directory or ".")
    except OSError:
        return []
    index = base + tensor_bundle.INDEX_SUFFIX
    shards = sorted(n for n in names if n.startswith(base) and _DATA_SHARD.fullmatch(n[len(base):]))
    ordered = ([index] if index in names else []) + shards + \
        ([base + h5format.SUFFIX] if base + h5format.SUFFIX in names else [])
    return [os.path.join(directory, n) for n in ordered]


def remove_checkpoint_files(prefix):
    """Delete the files of checkpoint `prefix` (its '.index', '.data-*' shards and older '.h5'
    file), never `prefix` itself. A file someone else deleted first is not an error; any other
    failure is a warning, since the caller's own save is already safe on disk."""
    for path in _files_of(prefix):
        try:
            if os.path.isfile(path) or os.path.islink(path):
                os.remove(path)
        except FileNotFoundError:
            pass
        except OSError as e:
            warnings.warn(f"Could not delete old checkpoint file {path!r}: {e}", stacklevel=3)


def is_listed(path):
    """Whether the state file of `path`'s directory lists checkpoint `path`."""
    directory = os.path.dirname(os.path.abspath(path))
    state = read_state(directory)
    if state is None:
        return False
    return any(p is not None and os.path.abspath(p) == os.path.abspath(path)
               for p in _listed(directory, state, "all_model_checkpoint_paths"))


def record_plain_save(path):
    """After `Checkpoint.save`: add `path` to its directory's state file (nothing deleted)."""
    directory = os.path.dirname(os.path.abspath(path))
    state = read_state(directory)
    paths = [p for p in _listed(directory, state, "all_model_checkpoint_paths") if p] \
        if state is not None else []
    paths = [p for p in paths if os.path.abspath(p) != os.path.abspath(path)] + [path]
    write_state(directory, path, paths)


@export("checkpoint.CheckpointManager", "train.CheckpointManager")
class CheckpointManager:
    """Saves numbered checkpoints into a directory and deletes all but the newest few.

    Each `save()` writes '<directory>/<checkpoint_name>-<n>', with n taken from the
    checkpoint's `save_counter` (or given), records it in the directory's 'checkpoint' state
    file and deletes the checkpoints that fell out of the `max_to_keep` window. A manager
    created on a directory that already has checkpoints picks up their list, so a restarted
    program continues the numbering and the deletion where the previous one stopped:

    >>> ckpt = tf.train.Checkpoint(model=model, optimizer=opt)
    >>> manager = tf.train.CheckpointManager(ckpt, "/tmp/training", max_to_keep=3)
    >>> ckpt.restore(manager.latest_checkpoint)   # None on the first run: nothing restored
    >>> for epoch in range(10):
    ...     train_one_epoch()
    ...     manager.save()

    The state file is written only after the new checkpoint is complete, and old files are
    deleted only after that, so the state file never names a missing checkpoint.

    Args:
        checkpoint: The `tf.train.Checkpoint` to save and restore.
        directory: The directory to write checkpoints in (created by the first save).
        max_to_keep: How many recent checkpoints to keep; None keeps all of them.
        keep_checkpoint_every_n_hours: Additionally keep one checkpoint per this many hours
            of the ones that leave the window (None: keep none of them).
        checkpoint_name: The file name prefix of the checkpoints (default 'ckpt').
        step_counter: A variable (or int) holding the training step, needed with
            `checkpoint_interval`.
        checkpoint_interval: The minimum number of steps between two saves; `save()` does
            nothing earlier.
        init_fn: Called by `restore_or_initialize()` when there is no checkpoint to restore.

    Raises:
        ValueError: If `checkpoint` is missing, `max_to_keep` is not positive, or
            `checkpoint_interval` is given without `step_counter`.
    """

    def __init__(self, checkpoint, directory, max_to_keep, keep_checkpoint_every_n_hours=None,
                 checkpoint_name="ckpt", step_counter=None, checkpoint_interval=None,
                 init_fn=None):
        if not checkpoint:
            raise ValueError("`checkpoint` must be a tf.train.Checkpoint.")
        if max_to_keep is not None and max_to_keep <= 0:
            raise ValueError("Expected a positive integer or `None` for `max_to_keep`, got "
                             f"{max_to_keep}.")
        if checkpoint_interval is not None and step_counter is None:
            raise ValueError("`step_counter` should be passed if `checkpoint_interval` is not None.")
        self._checkpoint = checkpoint
        self._directory = os.fspath(directory)
        self._max_to_keep = max_to_keep
        self._keep_every_n_hours = keep_checkpoint_every_n_hours
        self._prefix = os.path.join(self._directory, checkpoint_name)
        self._step_counter = step_counter
        self._checkpoint_interval = checkpoint_interval
        self._last_checkpoint_step = None
        self._init_fn = init_fn
        self._maybe_delete = collections.OrderedDict()
        self._latest = None
        self._last_preserved = time.time()
        if _distribute_context.is_chief():  # a non-chief worker never touches the files
            temp_files.remove_stale(self._directory)  # what saves killed in this directory left behind
        self._recover_state()

    def _recover_state(self):
        state = read_state(self._directory)
        if state is None:
            return
        latest = _listed(self._directory, state, "model_checkpoint_path")
        if latest and latest[0] and checkpoint_exists(latest[0]):
            self._latest = latest[0]
        paths = _listed(self._directory, state, "all_model_checkpoint_paths")
        stamps = state["all_model_checkpoint_timestamps"]
        now = time.time()
        for i, full in enumerate(paths):
            if full is not None and checkpoint_exists(full):
                self._maybe_delete[full] = stamps[i] if i < len(stamps) else now
        if state["last_preserved_timestamp"] is not None:
            self._last_preserved = state["last_preserved_timestamp"]

    def _is_own(self, prefix):
        """Whether `prefix` is '<directory>/<checkpoint_name>-<n>': a checkpoint this manager
        may delete."""
        return (os.path.dirname(os.path.abspath(prefix)) == os.path.abspath(self._directory)
                and re.fullmatch(re.escape(os.path.basename(self._prefix)) + r"-\d+",
                                 os.path.basename(prefix)) is not None)

    @property
    def directory(self):
        """The directory checkpoints are written to."""
        return self._directory

    @property
    def checkpoint(self):
        """The managed tf.train.Checkpoint."""
        return self._checkpoint

    @property
    def checkpoint_interval(self):
        """Minimum number of steps between saves, or None."""
        return self._checkpoint_interval

    @property
    def latest_checkpoint(self):
        """The prefix of the newest checkpoint this manager knows of, or None.

        Found in the directory when the manager was created, then updated by each `save()`;
        pass it to `Checkpoint.restore` to resume.
        """
        return self._latest

    @property
    def checkpoints(self):
        """The prefixes of the checkpoints currently kept, oldest first.

        At most `max_to_keep` of them (the ones preserved by `keep_checkpoint_every_n_hours`
        are no longer listed, as in TF). A new list, so changing it changes nothing.
        """
        return list(self._maybe_delete)

    def restore_or_initialize(self):
        """Restore the latest checkpoint if there is one (returns its path), else run init_fn."""
        if self._latest is not None:
            self._checkpoint.restore(self._latest)
            return self._latest
        if self._init_fn is not None:
            self._init_fn()
        return None

    def _sweep(self, kept):
        """Drop checkpoints beyond `max_to_keep` from `kept` (in place); returns the prefixes to
        delete and the new last-preserved time (keep_checkpoint_every_n_hours)."""
        doomed, last_preserved = [], self._last_preserved
        if self._max_to_keep is None:
            return doomed, last_preserved
        while len(kept) > self._max_to_keep:
            path, stamp = kept.popitem(last=False)
            hours = self._keep_every_n_hours
            if hours is not None and stamp - last_preserved >= hours * 3600.0:
                last_preserved = stamp
                continue
            doomed.append(path)
        return doomed, last_preserved

    def save(self, checkpoint_number=None, check_interval=True, options=None):
        """Saves a new checkpoint, records it and deletes those beyond `max_to_keep`.

        Adds one to the checkpoint's `save_counter` and writes
        '<directory>/<checkpoint_name>-<n>'. Then the state file is rewritten (so
        `tf.train.latest_checkpoint` finds the new checkpoint) and the oldest checkpoints
        beyond `max_to_keep` are deleted.

        Args:
            checkpoint_number: The number n to use in the file name instead of the save
                counter (an int or an integer variable, e.g. the training step).
            check_interval: With `checkpoint_interval`, whether to skip the save when too few
                steps passed since the last one. False saves anyway.
            options: Unused; accepted for TF compatibility.

        Returns:
            The prefix of the new checkpoint, or None if it was skipped because of
            `checkpoint_interval`.

        On a non-chief worker of a multi-worker tf.distribute job nothing is written: the
        counter and this manager's list advance and the chief's path is returned.

        Raises:
            OSError: the save failed (errno ENOSPC for a full disk). Nothing advances then: the
                save counter, this manager's list and the state file are as before, the
                previous checkpoints are intact and no new file is left behind.
        """
        last_step = self._last_checkpoint_step
        if self._checkpoint_interval is not None:
            step = int(getattr(self._step_counter, "_value", self._step_counter))
            if (check_interval and last_step is not None
                    and step < last_step + self._checkpoint_interval):
                return None
        counter = self._checkpoint.save_counter
        before = int(counter._value)
        counter.assign_add(1)
        if checkpoint_number is None:
            checkpoint_number = before + 1
        else:
            checkpoint_number = int(getattr(checkpoint_number, "_value", checkpoint_number))
        path = f"{self._prefix}-{checkpoint_number}"
        kept = collections.OrderedDict(self._maybe_delete)
        kept.pop(path, None)
        kept[path] = time.time()
        doomed, last_preserved = self._sweep(kept)
        if not _distribute_context.is_chief():
            # a non-chief worker of a multi-worker job writes nothing (the chief saves the same
            # variables), so no two processes write one file; it creates the directory, as TF's
            # tutorial code removes it after saving, and keeps the bookkeeping in step
            os.makedirs(self._directory, exist_ok=True)
            self._maybe_delete, self._latest, self._last_preserved = kept, path, last_preserved
            if self._checkpoint_interval is not None:
                self._last_checkpoint_step = step
            return path
        written = False
        try:
            self._checkpoint.write(path)
            written = True
            write_state(self._directory, path, list(kept), list(kept.values()), last_preserved)
        except BaseException:
            # nothing advances: the counter, the list and the state file stay as they were,
            # and a checkpoint the state file does not name is not left behind
            counter.assign(before)
            if written and path not in self._maybe_delete:  # a listed one was overwritten: keep it
                remove_checkpoint_files(path)
            raise
        self._maybe_delete, self._latest, self._last_preserved = kept, path, last_preserved
        if self._checkpoint_interval is not None:
            self._last_checkpoint_step = step
        for old in doomed:  # the save is committed: cleaning up can no longer make it fail
            if os.path.abspath(old) != os.path.abspath(path) and self._is_own(old):
                remove_checkpoint_files(old)
        return path
