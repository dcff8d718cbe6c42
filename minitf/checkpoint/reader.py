"""Reading checkpoints without an object graph: tf.train.list_variables / load_checkpoint.

Shapes and dtypes come from what the file declares, so listing a checkpoint reads no data.
`get_tensor` reads one value through `safe_h5`, within the read budget the file's size sets.
A checkpoint written by `tf.train.Checkpoint` also holds its object graph, listed as TF lists it:
key '_CHECKPOINTABLE_OBJECT_GRAPH', shape [], dtype string (its value is the graph as JSON bytes,
where TF has a serialized proto).
"""
import os

from minitf import dtypes, errors
from minitf.checkpoint import h5format
from minitf.checkpoint.graph import OBJECT_GRAPH_KEY
from minitf.checkpoint.manager import latest_checkpoint

__all__ = ["CheckpointReader", "load_checkpoint", "list_variables", "load_variable"]


def _resolve(ckpt_dir_or_file):
    path = os.fspath(ckpt_dir_or_file)
    if os.path.isdir(path):
        latest = latest_checkpoint(path)
        if latest is None:
            raise errors.NotFoundError(None, None, f"No checkpoint found in directory {path!r}.")
        path = latest
    return h5format.find_data_path(path)


class CheckpointReader:
    """The values stored in one checkpoint file, by key."""

    def __init__(self, path):
        self._path = path
        with h5format.open_checkpoint(path) as store:  # validated; nothing read yet
            self._declared = {k: (e.shape, e.dtype) for k, e in store.entries.items()}
            self._graph = h5format.text_attrs(store).get(OBJECT_GRAPH_KEY)
        if self._graph is not None:
            self._declared[OBJECT_GRAPH_KEY] = ((), dtypes.string)

    def get_tensor(self, name):
        """The stored numpy value of key `name` (NotFoundError if absent)."""
        if name not in self._declared:
            raise errors.NotFoundError(None, None, f"Key {name} not found in checkpoint "
                                       f"{self._path!r}.")
        if name == OBJECT_GRAPH_KEY and self._graph is not None:
            return self._graph.encode("utf-8")
        with h5format.open_checkpoint(self._path) as store:  # checked again: it may have changed
            entry = store.entries.get(name)
            if entry is None:
                raise errors.NotFoundError(None, None, f"Key {name} is no longer in checkpoint "
                                           f"{self._path!r}.")
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


def load_checkpoint(ckpt_dir_or_file):
    """A CheckpointReader for a checkpoint prefix or a directory's latest checkpoint."""
    return CheckpointReader(_resolve(ckpt_dir_or_file))


def list_variables(ckpt_dir_or_file):
    """Sorted (key, shape) pairs of a checkpoint."""
    reader = load_checkpoint(ckpt_dir_or_file)
    return sorted((k, s) for k, s in reader.get_variable_to_shape_map().items())


def load_variable(ckpt_dir_or_file, name):
    """The numpy value stored under key `name`."""
    return load_checkpoint(ckpt_dir_or_file).get_tensor(name)
