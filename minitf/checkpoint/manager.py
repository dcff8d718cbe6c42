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

from minitf.checkpoint import h5format

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
    """The prefix of the newest checkpoint recorded in `checkpoint_dir`, or None."""
    state = read_state(checkpoint_dir, latest_filename)
    if state is None or not state["model_checkpoint_path"]:
        return None
    path = _absolute(checkpoint_dir, state["model_checkpoint_path"])
    return path if _exists(path) else None


def record_plain_save(path):
    """After `Checkpoint.save`: add `path` to its directory's state file (nothing deleted)."""
    directory = os.path.dirname(os.path.abspath(path))
    state = read_state(directory) or {"all_model_checkpoint_paths": []}
    paths = [_absolute(directory, p) for p in state["all_model_checkpoint_paths"]]
    paths = [p for p in paths if os.path.abspath(p) != os.path.abspath(path)] + [path]
    write_state(directory, path, paths)


class CheckpointManager:
    """Saves numbered checkpoints into a directory and keeps only the newest `max_to_keep`.

    Checkpoints older than the window are deleted unless `keep_checkpoint_every_n_hours` says
    to preserve one per that many hours. With `checkpoint_interval`, `save()` skips (returns
    None) until `step_counter` has advanced that many steps since the last save.
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
        """The prefix of the newest checkpoint, or None."""
        return self._latest

    @property
    def checkpoints(self):
        """Prefixes of the checkpoints being kept, oldest first."""
        return list(self._maybe_delete)

    def restore_or_initialize(self):
        """Restore the latest checkpoint if there is one (returns its path), else run init_fn."""
        if self._latest is not None:
            self._checkpoint.restore(self._latest)
            return self._latest
        if self._init_fn is not None:
            self._init_fn()
        return None

    def _sweep(self):
        """Drop checkpoints beyond `max_to_keep`; returns the prefixes to delete."""
        doomed = []
        if self._max_to_keep is None:
            return doomed
        while len(self._maybe_delete) > self._max_to_keep:
            path, stamp = self._maybe_delete.popitem(last=False)
            hours = self._keep_every_n_hours
            if hours is not None and stamp - self._last_preserved >= hours * 3600.0:
                self._last_preserved = stamp
                continue
            doomed.append(path)
        return doomed

    def save(self, checkpoint_number=None, check_interval=True, options=None):
        """Write a new checkpoint, update the state file, delete old ones; returns its path.

        Returns None when `checkpoint_interval` says it is too early (and `check_interval`).
        """
        if self._checkpoint_interval is not None:
            step = int(getattr(self._step_counter, "_value", self._step_counter))
            if (check_interval and self._last_checkpoint_step is not None
                    and step < self._last_checkpoint_step + self._checkpoint_interval):
                return None
            self._last_checkpoint_step = step
        counter = self._checkpoint.save_counter
        counter.assign_add(1)
        if checkpoint_number is None:
            checkpoint_number = int(counter._value)
        else:
            checkpoint_number = int(getattr(checkpoint_number, "_value", checkpoint_number))
        path = self._checkpoint.write(f"{self._prefix}-{checkpoint_number}")
        self._maybe_delete.pop(path, None)
        self._maybe_delete[path] = time.time()
        self._latest = path
        doomed = self._sweep()
        write_state(self._directory, path, list(self._maybe_delete),
                    list(self._maybe_delete.values()), self._last_preserved)
        for old in doomed:
            for candidate in (h5format.data_path(old), old):
                if os.path.isfile(candidate) and os.path.abspath(candidate) != os.path.abspath(
                        h5format.data_path(path)):
                    os.remove(candidate)
        return path
