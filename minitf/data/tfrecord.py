"""tf.data.TFRecordDataset: the records of TFRecord files, one 0-d tf.string element each.

The framing, checksums and compression are handled by `minitf.ops.tfrecord_io` (no protobuf
needed: records are opaque bytes here; `tf.io.parse_single_example` decodes tf.train.Example
records).
"""
import os

import numpy as np

from minitf.dtypes import dtypes
from minitf.data.dataset import Dataset
from minitf.data.pipeline import Node
from minitf.function import TensorSpec
from minitf.ops.tfrecord_io import compression_of, read_records
from minitf.tensor import Tensor
from minitf.api_export import export

__all__ = ["TFRecordDataset"]


def _paths(filenames):
    """A list of path strings from a path, bytes, a list of them or a string tensor."""
    value = getattr(filenames, "numpy", lambda: filenames)()
    if isinstance(value, (str, bytes, os.PathLike)):
        value = [value]
    value = getattr(value, "tolist", lambda: value)()
    if not isinstance(value, (list, tuple)) or not value:
        raise TypeError(f"TFRecordDataset: `filenames` must be a path, a non-empty list of paths, a "
                        f"string tensor or a dataset of paths, got {filenames!r}.")
    bad = [v for v in value if not isinstance(v, (str, bytes, os.PathLike))]
    if bad:
        raise TypeError(f"TFRecordDataset: The `filenames` argument must contain `tf.string` elements, "
                        f"got {bad[0]!r} of type {type(bad[0]).__name__}.")
    return [os.fsdecode(v) for v in value]


class TFRecordNode(Node):
    """The records of each file; with `parallel` > 1, files are read `parallel` at a time and
    their records interleaved one by one, in TF's deterministic order."""

    def __init__(self, filenames, compression, buffer_size, parallel):
        inputs = (filenames._node,) if isinstance(filenames, Dataset) else ()
        super().__init__(inputs)
        self._paths = None if inputs else _paths(filenames)
        self._compression = compression
        self._buffer_size = buffer_size
        self._parallel = parallel

    def _path_stream(self, ctx):
        if self._paths is not None:
            yield from self._paths
            return
        for element in self._inputs[0]._generate(ctx):
            yield os.fsdecode(element.numpy())

    def _records(self, path):
        for record in read_records(path, self._compression, self._buffer_size):
            yield Tensor(np.array(record, dtype=object))  # a 0-d string tensor, without convert's checks

    def _generate(self, ctx):
        paths = self._path_stream(ctx)
        if self._parallel <= 1:
            for path in paths:
                yield from self._records(path)
            return
        # interleave(cycle_length=parallel, block_length=1) as TF runs it: a slot is opened on
        # the visit that finds it empty, and a slot that runs dry passes the turn to the next one
        slots, index, done = [None] * self._parallel, 0, False
        while not done or any(slot is not None for slot in slots):
            if slots[index] is None and not done:
                path = next(paths, None)
                if path is None:
                    done = True
                else:
                    slots[index] = self._records(path)
            if slots[index] is not None:
                try:
                    yield next(slots[index])
                except StopIteration:
                    slots[index] = None
            index = (index + 1) % self._parallel

    def _compute_spec(self):
        return TensorSpec([], dtypes.string)


@export("data.TFRecordDataset")
class TFRecordDataset(Dataset):
    """A dataset of the records of TFRecord files, each a 0-d tf.string tensor (usually a
    serialized tf.train.Example; decode it with `tf.io.parse_single_example`).

    Args:
      filenames: a path, a list of paths, a string tensor or a dataset of paths.
      compression_type: None or '' (plain), 'GZIP' or 'ZLIB'.
      buffer_size: the read buffer in bytes (None: Python's default).
      num_parallel_reads: read this many files at a time, interleaving their records one by one
        (None or 1: file after file).
      name: unused; accepted for TF compatibility.

    Raises:
      TypeError: `filenames` is not a path, a list of paths or a string tensor.
      ValueError: an unknown `compression_type`.
      NotFoundError: (while iterating) a file does not exist.
      DataLossError: (while iterating) a corrupted or truncated record, named by file and offset.
    """

    def __init__(self, filenames, compression_type=None, buffer_size=None, num_parallel_reads=None, name=None):
        compression = compression_of(compression_type, "TFRecordDataset")
        parallel = 1 if num_parallel_reads in (None, 0) else int(num_parallel_reads)
        if parallel < 0:  # AUTOTUNE
            parallel = os.cpu_count() or 1
        super().__init__(TFRecordNode(filenames, compression, buffer_size, parallel))
