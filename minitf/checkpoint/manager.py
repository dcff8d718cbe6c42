"""tf.train.CheckpointManager and the 'checkpoint' state file.

The state file is TF's text format:
    model_checkpoint_path: "ckpt-3"
    all_model_checkpoint_paths: "ckpt-2"
    all_model_checkpoint_paths: "ckpt-3"
    all_model_checkpoint_timestamps: 1700000000.5
    last_preserved_timestamp: 1699999999.0
Paths inside the directory are written relative to it. A save writes the new checkpoint file,
then the state file (both atomically), and only then deletes checkpoints that fell out of the
window, so the state file never names a file that is gone.
"""
import collections
import os
import re
import time

from minitf.checkpoint import h5format, temp_files
from minitf import distribution_context as _distribute_context

STATE_FILE = "checkpoint"

__all__ = ["CheckpointManager", "latest_checkpoint", "read_state", "write_state"]


def read_state(directory, latest_filename=None):
    """The parsed state file of `directory` as a dict, or None if there is none."""
    path = os.path.join(directory, latest_filename or STATE_FILE)
    try:
        with open(path) as f:
            text = f.read()
    except OSError:
        return None
    state = {"model_checkpoint_path": None, "all_model_checkpoint_paths": [],
             "all_model_checkpoint_timestamps": [], "last_preserved_timestamp": None}
    for line in text.splitlines():
        match = re.match(r'\s*(\w+)\s*:\s*(.*?)\s*$', line)
        if not match:
            continue
        field, raw = match.groups()
        value = raw[1:-1].encode().decode("unicode_escape") if raw.startswith('"') else raw
        if field == "model_checkpoint_path":
            state[field] = value
        elif field == "all_model_checkpoint_paths":
            state[field].append(value)
        elif field == "all_model_checkpoint_timestamps":
            state[field].append(float(value))
        elif field == "last_preserved_timestamp":
            state[field] = float(value)
    return state


def _relative(directory, path):
    if os.path.dirname(os.path.abspath(path)) == os.path.abspath(directory):
        return os.path.basename(path)
    return path


def _quote(path):
    return '"' + path.replace("\\", "\\\\").replace('"', '\\"') + '"'


def write_state(directory, latest, all_paths, timestamps=None, last_preserved=None):
    """Atomically write the state file of `directory`."""
    lines = [f"model_checkpoint_path: {_quote(_relative(directory, latest))}"]
    lines += [f"all_model_checkpoint_paths: {_quote(_relative(directory, p))}" for p in all_paths]
    lines += [f"all_model_checkpoint_timestamps: {t!r}" for t in (timestamps or [])]
    if last_preserved is not None:
        lines.append(f"last_preserved_timestamp: {last_preserved!r}")
    h5format.atomic_write_text(os.path.join(directory, STATE_FILE), "\n".join(lines) + "\n")


def _absolute(directory, path):
    return path if os.path.isabs(path) else os.path.join(directory, path)


def _exists(prefix):
    return os.path.isfile(h5format.data_path(prefix)) or os.path.isfile(prefix)


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
        directory has no state file or the checkpoint it names no longer exists.
    """
    state = read_state(checkpoint_dir, latest_filename)
    if state is None or not state["model_checkpoint_path"]:
        return None
    path = _absolute(checkpoint_dir, state["model_checkpoint_path"])
    return path if _exists(path) else None


def remove_checkpoint_files(prefix):
    """Delete the file(s) of checkpoint `prefix`, if there (a missing one is not an error)."""
    for candidate in (h5format.data_path(prefix), prefix):
        if os.path.isfile(candidate):
            os.remove(candidate)


def is_listed(path):
    """Whether the state file of `path`'s directory lists checkpoint `path`."""
    directory = os.path.dirname(os.path.abspath(path))
    state = read_state(directory) or {"all_model_checkpoint_paths": []}
    return any(os.path.abspath(_absolute(directory, p)) == os.path.abspath(path)
               for p in state["all_model_checkpoint_paths"])


def record_plain_save(path):
    """After `Checkpoint.save`: add `path` to its directory's state file (nothing deleted)."""
    directory = os.path.dirname(os.path.abspath(path))
    state = read_state(directory) or {"all_model_checkpoint_paths": []}
    paths = [_absolute(directory, p) for p in state["all_model_checkpoint_paths"]]
    paths = [p for p in paths if os.path.abspath(p) != os.path.abspath(path)] + [path]
    write_state(directory, path, paths)


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
        latest = state["model_checkpoint_path"]
        if latest and _exists(_absolute(self._directory, latest)):
            self._latest = _absolute(self._directory, latest)
        paths = state["all_model_checkpoint_paths"]
        stamps = state["all_model_checkpoint_timestamps"]
        now = time.time()
        for i, path in enumerate(paths):
            full = _absolute(self._directory, path)
            if _exists(full):
                self._maybe_delete[full] = stamps[i] if i < len(stamps) else now
        if state["last_preserved_timestamp"] is not None:
            self._last_preserved = state["last_preserved_timestamp"]

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
        for old in doomed:
            if os.path.abspath(h5format.data_path(old)) != os.path.abspath(h5format.data_path(path)):
                remove_checkpoint_files(old)
        return path
