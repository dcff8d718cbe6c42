"""tf.train.Checkpoint: save and restore an object graph of variables in TF's checkpoint format.

Saving walks the object graph from the Checkpoint as TF 2.21 names it (`object_graph`,
`keras_view`) and writes every variable under its key, with the graph itself, as TF's tensor
bundle (`tensor_bundle`): files TF reads, and TF's own checkpoints restore here. Restoring
matches the saved graph against the objects that exist at restore time (`restore`); minitf's
older HDF5 checkpoints ('<prefix>.h5', `write_hdf5`) still restore.
"""
import json
import os

from minitf import backend
from minitf.dtypes import dtypes
from minitf.errors import errors
from minitf.checkpoint import graph, h5format, object_graph, protos, tensor_bundle
from minitf.checkpoint.manager import (is_listed, latest_checkpoint, record_plain_save,
                                       remove_checkpoint_files)
from minitf.checkpoint.restore import (ALIASES_ATTR, CheckpointLoadStatus,  # noqa: F401
                                       InitializationOnlyStatus, restore_into)
from minitf.module import collect_deps
from minitf.trackable import Trackable, wrap
from minitf.variable import Variable
from minitf.api_export import export

__all__ = ["Checkpoint", "CheckpointLoadStatus", "write_hdf5"]

# The Checkpoint's own bookkeeping, never dependencies.
_OWN_ATTRIBUTES = frozenset({"_root", "_deps", "_save_counter", "_pending_restore"})


@export("checkpoint.Checkpoint", "train.Checkpoint")
class Checkpoint(Trackable):
    """Saves and restores the variables of a group of objects, found by walking attributes.

    A Checkpoint does not store a list of variables: it stores an object graph. Its keyword
    arguments name the root's children (`model=..., optimizer=...`), and every variable
    reachable from them is saved under the path of attribute names that leads to it, such as
    `model/layer_with_weights-0/kernel`. Restoring walks the same names in the objects you have
    now, so a checkpoint can be loaded into freshly built objects, even into a different
    program, as long as the paths match. Python variable names and the order in which objects
    were created do not matter.

    Example:

    >>> model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
    >>> opt = tf.keras.optimizers.Adam()
    >>> ckpt = tf.train.Checkpoint(model=model, optimizer=opt)
    >>> path = ckpt.save("/tmp/training/ckpt")     # '/tmp/training/ckpt-1'
    >>> ckpt.restore(path)                          # later, or in another process

    Values whose objects do not exist yet (a layer not built, an optimizer slot not created)
    are kept and assigned when the object appears, so `restore()` can run before the first
    training step. The returned status object checks how much matched (`assert_consumed()`,
    `assert_existing_objects_matched()`, `expect_partial()`).

    A `save_counter` variable counts the saves and numbers the files. As in TF it is made
    lazily, by `save()`, `restore()` or reading `save_counter` (not by `write()`), so a
    Checkpoint used only as a stand-in node of another one adds none of its own. Attributes set
    later (`ckpt.optimizer = opt`, even after `restore()`) become dependencies too. Lists,
    dicts and tuples are wrapped in tracking containers (`ListWrapper`, `_DictWrapper`) whose
    items are saved as `name/0`, `name/key`, including items appended later; an item attached
    after `restore()` gets its saved value when it is appended.

    Files are TF's: '<prefix>.index' and '<prefix>.data-00000-of-00001', each written
    atomically (a crash leaves the old file or the complete new one), with TF's keys and object
    graph, so TensorFlow restores them and minitf restores TensorFlow's. Use
    `tf.train.CheckpointManager` to number checkpoints in a directory and delete old ones.

    Args:
        root: An optional trackable object whose own dependencies are saved at the top level
            (as if they were keyword arguments).
        **kwargs: Trackable objects (models, layers, optimizers, variables, dataset
            iterators, other Checkpoints), or lists and dicts of them (wrapped in tracking
            containers, as attributes are), saved under these names.

    Raises:
        ValueError: If a keyword argument is not trackable, or is named `save_counter`.
    """

    def __init__(self, root=None, **kwargs):
        kwargs = {name: wrap(value) for name, value in kwargs.items()}  # lists, dicts as in TF
        for name, value in kwargs.items():
            if not isinstance(value, (Trackable, Variable)):
                raise ValueError(f"`Checkpoint` was expecting a trackable object (an object "
                                 f"derived from `Trackable`) for {name!r}, got {value!r}.")
            if name == "save_counter":
                raise ValueError("'save_counter' is reserved by Checkpoint.")
        if root is not None and not isinstance(root, Trackable):
            raise ValueError(f"`Checkpoint` was expecting a trackable root, got {root!r}.")
        self._root = root
        self._deps = dict(sorted(kwargs.items()))  # TF's order: the graph lists them sorted
        self._save_counter = None
        for name, value in kwargs.items():
            object.__setattr__(self, name, value)

    def __setattr__(self, name, value):
        """An attribute holding a trackable becomes a dependency, a private one ('_kernel') as
        well, as in TF. A list, dict or tuple is first wrapped in a tracking container (as in
        TF: `ListWrapper`, `_DictWrapper`), whose items are saved as 'name/0', 'name/key',
        including items added later. Values that a restore which ran before the attribute was
        attached is waiting for are applied."""
        tracked = name not in _OWN_ATTRIBUTES and "_deps" in self.__dict__
        if tracked:
            value = wrap(value)
        object.__setattr__(self, name, value)
        if not tracked:
            return
        if isinstance(value, (Trackable, Variable)):
            self._deps[name] = value
            self._track_child(name, value)
        else:
            self._deps.pop(name, None)

    def __delattr__(self, name):
        object.__delattr__(self, name)
        self.__dict__.get("_deps", {}).pop(name, None)

    @property
    def save_counter(self):
        """How many times `save()` ran (an int64 variable, saved with the checkpoint)."""
        if self._save_counter is None:
            self._save_counter = Variable(0, dtype=dtypes.int64, trainable=False,
                                          name="save_counter")
            self._track_child("save_counter", self._save_counter)  # a restore may be waiting
        return self._save_counter

    def _checkpoint_dependencies(self):
        deps = list(self._root._checkpoint_dependencies()) if self._root is not None else []
        for name, value in self._deps.items():
            collect_deps(name, value, deps)
        if self._save_counter is not None:
            deps.append(("save_counter", self._save_counter))
        return deps

    def write(self, file_prefix, options=None):
        """Writes the checkpoint to exactly `file_prefix` ('<file_prefix>.index' and
        '<file_prefix>.data-00000-of-00001'), nothing else.

        The low-level form of `save`: no number is appended, `save_counter` is not touched and
        the directory's 'checkpoint' state file is not updated (so `tf.train.latest_checkpoint`
        does not see it). An existing file is replaced atomically.

        Args:
            file_prefix: The path prefix of the file to write (str or path-like).
            options: Unused; accepted for TF compatibility.

        Returns:
            `file_prefix`, to pass to `restore` or `read`.
        """
        file_prefix = os.fspath(file_prefix)
        nodes, variables = object_graph.build(self)
        values = {key: _bundle_value(var) for key, var in variables.items()}
        values[graph.OBJECT_GRAPH_KEY] = tensor_bundle.BundleValue(
            [protos.encode_object_graph(nodes)], "string", shape=())
        tensor_bundle.write_bundle(file_prefix, values)
        return file_prefix

    def save(self, file_prefix, options=None):
        """Saves a new numbered checkpoint and records it as the directory's latest.

        Adds one to `save_counter`, writes '<file_prefix>-<save_counter>' (so repeated saves
        never overwrite each other) and updates the 'checkpoint' state file in that directory,
        which `tf.train.latest_checkpoint` reads. Old checkpoints are never deleted; a
        `tf.train.CheckpointManager` does that.

        Args:
            file_prefix: The path prefix, e.g. '/tmp/training/ckpt' (str or path-like).
            options: Unused; accepted for TF compatibility.

        Returns:
            The prefix written, e.g. '/tmp/training/ckpt-3'.

        Raises:
            OSError: the save failed (errno ENOSPC for a full disk); `save_counter` and the
                state file are unchanged and earlier checkpoints intact.
        """
        counter = self.save_counter
        before = int(counter._value)
        counter.assign_add(1)  # before the write: the file holds the new count, as in TF
        path = f"{os.fspath(file_prefix)}-{before + 1}"
        listed = is_listed(path)
        written = False
        try:
            self.write(path)
            written = True
            record_plain_save(path)
        except BaseException:
            counter.assign(before)  # a failed save changes nothing, on disk or in memory
            if written and not listed:  # a file the state file names stays (it was overwritten)
                remove_checkpoint_files(path)
            raise
        return path

    def read(self, save_path, options=None):
        """Restores from `save_path`, the counterpart of `write`.

        Behaves as `restore` (values of objects not created yet are applied on creation),
        except that, as in TF, it does not make the `save_counter` (so a checkpoint written by
        `write`, which has none, can be `assert_consumed()`).

        Args:
            save_path: A prefix returned by `write` or `save`.
            options: Unused; accepted for TF compatibility.

        Returns:
            A load status object (see `restore`).

        Raises:
            NotFoundError: If no checkpoint file exists for `save_path`.
            ValueError: If a saved value's shape or dtype differs from its variable's.
        """
        if save_path is None:
            return InitializationOnlyStatus()
        save_path = os.fspath(save_path)
        if os.path.isdir(save_path):
            latest = latest_checkpoint(save_path)
            if latest is None:
                raise errors.NotFoundError(None, None, f"No checkpoint found in directory "
                                           f"{save_path!r}.")
            save_path = latest
        return restore_into(self, save_path)

    def restore(self, save_path, options=None):
        """Restores the values of checkpoint `save_path` into the objects of this Checkpoint.

        Values are matched by attribute path. Those whose variables exist are checked first
        (shape and dtype) and only then assigned, so a failing restore changes nothing. Those
        whose objects do not exist yet are applied when the objects are created (a Keras
        layer's weights on its first call, an optimizer's slots on its first step).

        The returned status can assert how much matched: `assert_consumed()` (every saved
        value used and every variable restored), `assert_existing_objects_matched()` (every
        variable existing now was restored), `assert_nontrivial_match()`. If values stay unused
        when the status is dropped, a warning names them; `expect_partial()` silences it, for
        example when loading only a model out of a training checkpoint.

        Args:
            save_path: A prefix returned by `save` or `write`, a directory (its latest
                checkpoint is used), or None (nothing is restored; `assert_consumed()` on the
                status then fails).
            options: Unused; accepted for TF compatibility.

        Returns:
            A `CheckpointLoadStatus` (an `InitializationOnlyStatus` for None).

        Raises:
            NotFoundError: If no checkpoint file exists for `save_path`, or the directory has
                no recorded checkpoint.
            DataLossError: If a file is truncated, corrupt, or not a checkpoint (every value's
                checksum, offset, size, dtype and shape is checked before any is assigned).
            ValueError: If a saved value's shape or dtype differs from its variable's.
        """
        self.save_counter  # noqa: B018 (made now, as TF does, so it is restored too)
        return self.read(save_path, options)


def _bundle_value(var):
    value = backend.to_host(var._value)
    name = var.dtype.name
    if name == "string":
        flat = [v if isinstance(v, bytes) else str(v).encode("utf-8") for v in value.reshape(-1)]
        return tensor_bundle.BundleValue(flat, "string", shape=value.shape)
    return tensor_bundle.BundleValue(value, name)


def write_hdf5(checkpoint, file_prefix):
    """Write `checkpoint` in minitf's older HDF5 format ('<file_prefix>.h5'), which restores
    still read: every variable under its minitf key, with the object aliases."""
    file_prefix = os.fspath(file_prefix)
    aliases = {}
    variables = graph.saveable_variables(checkpoint, aliases)
    arrays = {key: backend.to_host(var._value) for key, var in variables.items()}
    attrs = {graph.OBJECT_GRAPH_KEY: json.dumps(graph.object_graph(checkpoint))}
    if aliases:
        attrs[ALIASES_ATTR] = json.dumps(aliases, sort_keys=True)
    h5format.write_arrays(h5format.data_path(file_prefix), arrays, attrs)
    return file_prefix
