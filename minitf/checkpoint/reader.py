"""Reading checkpoints without an object graph: tf.train.list_variables / load_checkpoint.

Both formats are read: TF's tensor bundle ('<prefix>.index', TF's own checkpoints and minitf's)
and minitf's older HDF5 files ('<prefix>.h5'). Shapes and dtypes come from what the file
declares, so listing a checkpoint reads no data. `get_tensor` reads one value with every check
of `tensor_bundle` / `safe_h5` (offsets, sizes, checksums). The object graph is listed as TF
lists it: key '_CHECKPOINTABLE_OBJECT_GRAPH', shape [], dtype string; its value is the
serialized TrackableObjectGraph proto (in an older HDF5 file, the graph as JSON bytes).
"""
import os

import numpy as np

from minitf.dtypes import dtypes
from minitf.errors import errors
from minitf.checkpoint import h5format, tensor_bundle
from minitf.checkpoint.graph import OBJECT_GRAPH_KEY
from minitf.checkpoint.manager import latest_checkpoint
from minitf.api_export import export

__all__ = ["CheckpointReader", "load_checkpoint", "list_variables", "load_variable"]


def _resolve(ckpt_dir_or_file):
    """The checkpoint prefix (TF format) or HDF5 file path for a prefix or a directory."""
    path = os.fspath(ckpt_dir_or_file)
    if os.path.isdir(path):
        latest = latest_checkpoint(path)
        if latest is None:
            raise errors.NotFoundError(None, None, f"No checkpoint found in directory {path!r}.")
        path = latest
    if tensor_bundle.is_bundle(path):
        return path
    if path.endswith(tensor_bundle.INDEX_SUFFIX) and tensor_bundle.is_bundle(
            path[:-len(tensor_bundle.INDEX_SUFFIX)]):
        return path[:-len(tensor_bundle.INDEX_SUFFIX)]
    for candidate in (h5format.data_path(path), path):
        if os.path.isfile(candidate) and candidate.endswith(h5format.SUFFIX):
            return candidate
    raise errors.NotFoundError(None, None, f"Unsuccessful TensorSliceReader constructor: Failed "
                               f"to find any matching files for {path!r} (looked for "
                               f"{tensor_bundle.index_path(path)!r} and "
                               f"{h5format.data_path(path)!r}).")


class CheckpointReader:
    """The values stored in one checkpoint, by key (TF's `CheckpointReader`)."""

    def __init__(self, path):
        self._path = path
        self._bundle = not path.endswith(h5format.SUFFIX)
        if self._bundle:
            with tensor_bundle.BundleReader(path) as store:
                self._declared = {k: (e.shape, e.dtype_name) for k, e in store.entries.items()}
            self._graph = None
            return
        with h5format.open_checkpoint(path) as store:  # validated; nothing read yet
            self._declared = {k: (e.shape, e.dtype.name) for k, e in store.entries.items()}
            self._graph = h5format.text_attrs(store).get(OBJECT_GRAPH_KEY)
        if self._graph is not None:
            self._declared[OBJECT_GRAPH_KEY] = ((), "string")

    def _missing(self, name, still=""):
        return errors.NotFoundError(None, None, f"Key {name} not found in checkpoint "
                                    f"{self._path!r}{still}.")

    def get_tensor(self, name):
        """The stored value of key `name` as numpy (a string scalar as bytes); NotFoundError
        if absent, DataLossError if its data is damaged."""
        if name not in self._declared:
            raise self._missing(name)
        if self._bundle:
            with tensor_bundle.BundleReader(self._path) as store:  # checked again: files change
                entry = store.entries.get(name)
                if entry is None:
                    raise self._missing(name, " (no longer)")
                if entry.dtype_name == "string":
                    values = store.read_strings(entry)
                    if entry.shape == ():
                        return values[0]
                    out = np.empty(len(values), dtype=object)
                    out[:] = values
                    return out.reshape(entry.shape)
                if not entry.numeric:
                    raise errors.UnimplementedError(
                        None, None, f"Key {name} of checkpoint {self._path!r} holds a "
                        f"{entry.dtype_name} tensor (such as a dataset iterator's state), which "
                        "minitf cannot read.")
                return store.read(entry)
        if name == OBJECT_GRAPH_KEY and self._graph is not None:
            return self._graph.encode("utf-8")
        with h5format.open_checkpoint(self._path) as store:
            entry = store.entries.get(name)
            if entry is None:
                raise self._missing(name, " (no longer)")
            return store.read(entry)

    def has_tensor(self, name):
        """Whether key `name` is stored."""
        return name in self._declared

    def get_variable_to_shape_map(self):
        """{key: shape list}."""
        return {k: list(shape) for k, (shape, _) in self._declared.items()}

    def get_variable_to_dtype_map(self):
        """{key: minitf dtype}."""
        return {k: dtypes.as_dtype(dtype) for k, (_, dtype) in self._declared.items()}


@export("checkpoint.load_checkpoint", "train.load_checkpoint")
def load_checkpoint(ckpt_dir_or_file):
    """A CheckpointReader for a checkpoint prefix or a directory's latest checkpoint."""
    return CheckpointReader(_resolve(ckpt_dir_or_file))


@export("checkpoint.list_variables", "train.list_variables")
def list_variables(ckpt_dir_or_file):
    """Sorted (key, shape) pairs of a checkpoint."""
    reader = load_checkpoint(ckpt_dir_or_file)
    return sorted((k, s) for k, s in reader.get_variable_to_shape_map().items())


@export("checkpoint.load_variable", "train.load_variable")
def load_variable(ckpt_dir_or_file, name):
    """The numpy value stored under key `name` (a trailing ':0' is dropped, as TF does)."""
    if name.endswith(":0"):
        name = name[:-2]
    return load_checkpoint(ckpt_dir_or_file).get_tensor(name)
