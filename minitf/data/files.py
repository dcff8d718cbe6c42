"""tf.data's file sources: TextLineDataset, one string element per line of one or more text files
(plain, GZIP or ZLIB compressed)."""
import gzip
import os
import zlib

from minitf.dtypes import dtypes
from minitf.errors import errors
from minitf.convert import convert_to_tensor
from minitf.data.dataset import Dataset
from minitf.data.pipeline import Node
from minitf.function import TensorSpec
from minitf.api_export import export

__all__ = ["TextLineDataset"]

_COMPRESSIONS = ("", "GZIP", "ZLIB")


def _filenames(filenames):
    """A list of path strings from a string, bytes, a list of them or a string tensor."""
    value = getattr(filenames, "numpy", lambda: filenames)()
    if isinstance(value, (str, bytes, os.PathLike)):
        value = [value]
    names = [os.fsdecode(v) for v in getattr(value, "tolist", lambda: value)()]
    if not names:
        raise ValueError("TextLineDataset: `filenames` must name at least one file")
    return names


def _zlib_lines(path):
    with open(path, "rb") as f:
        data = zlib.decompress(f.read())
    return data.splitlines(keepends=True)


class TextLineNode(Node):
    """The lines of each file in turn, without their line ending ('\\n' or '\\r\\n')."""

    def __init__(self, filenames, compression_type):
        super().__init__()
        self._paths = _filenames(filenames)
        compression = (compression_type or "").upper()
        if compression not in _COMPRESSIONS:
            raise errors.invalid_argument("TextLineDataset", f"Unsupported compression_type: {compression_type!r}; "
                                                             f"use None, '', 'GZIP' or 'ZLIB'")
        self._compression = compression

    def _lines(self, path):
        try:
            if self._compression == "ZLIB":
                yield from _zlib_lines(path)
                return
            opener = gzip.open if self._compression == "GZIP" else open
            with opener(path, "rb") as f:
                yield from f
        except FileNotFoundError:
            raise errors.NotFoundError(None, None, f"{path}; No such file or directory") from None

    def _generate(self, ctx):
        for path in self._paths:
            for line in self._lines(path):
                if line.endswith(b"\n"):
                    line = line[:-1]
                    if line.endswith(b"\r"):
                        line = line[:-1]
                yield convert_to_tensor(line)

    def _compute_spec(self):
        return TensorSpec([], dtypes.string)


@export("data.TextLineDataset")
class TextLineDataset(Dataset):
    """A dataset of the lines of `filenames` (a path, a list of paths or a string tensor), each a
    0-d tf.string tensor without its line ending, file after file.

    Args:
      filenames: the text files to read, in order.
      compression_type: None or '' (plain), 'GZIP' or 'ZLIB'.
      buffer_size, num_parallel_reads, name: accepted for TF compatibility; files are read in
        order, one at a time.

    Raises:
      NotFoundError: (while iterating) a file does not exist.
    """

    def __init__(self, filenames, compression_type=None, buffer_size=None, num_parallel_reads=None, name=None):
        super().__init__(TextLineNode(filenames, compression_type))
