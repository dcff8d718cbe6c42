"""The tf.strings functions that split strings into pieces: split, bytes_split, unicode_split,
unicode_decode. One string gives a 1-D tensor, a batch a RaggedTensor with one more (ragged)
dimension, as in TF (whose ragged_string_ops holds the same functions).
"""
import numpy as np

from minitf import dispatch
from minitf.ops._core import Tensor
from minitf.ops.string_ops import string_array
from minitf.ragged.ragged_tensor import RaggedTensor
from minitf.api_export import export

__all__ = ["split", "bytes_split", "unicode_split", "unicode_decode"]


def _batched(arr, pieces, dtype):
    """The per-string results `pieces` as a 1-D tensor (one string) or a RaggedTensor (a batch)."""
    flat = [p for piece in pieces for p in piece]
    values = np.empty(len(flat), dtype=object) if dtype is object else np.asarray(flat, dtype=dtype)
    if dtype is object:
        values[:] = flat
    values = Tensor(values.reshape(-1))
    if arr.ndim == 0:
        return values
    rt = RaggedTensor.from_row_lengths(values, [len(p) for p in pieces], validate=False)
    for size in reversed(arr.shape[1:]):  # the batch's own inner dimensions stay uniform
        rt = RaggedTensor.from_uniform_row_length(rt, size)
    return rt


@export("strings.split")
@dispatch.add_dispatch_support(elementwise="unary")
def split(input, sep=None, maxsplit=-1, name=None):  # noqa: A002
    """The pieces of each string split on `sep` (runs of whitespace when None): a 1-D tensor for
    one string, a RaggedTensor (one more, ragged, dimension) for a batch."""
    arr = string_array(input, "StringSplit")
    d = sep.encode("utf-8") if isinstance(sep, str) else sep
    pieces = [s.split(d, maxsplit) if d is not None else s.split(None, maxsplit) for s in arr.reshape(-1)]
    return _batched(arr, pieces, object)


@export("strings.unicode_decode")
@dispatch.add_dispatch_support(elementwise="unary")
def unicode_decode(input, input_encoding, errors="replace", replacement_char=65533,  # noqa: A002
                   replace_control_characters=False, name=None):
    """The Unicode code points (int32) of each string in `input_encoding` ('UTF-8', 'UTF-16-BE',
    ...): a 1-D tensor for one string, a RaggedTensor for a batch."""
    arr = string_array(input, "UnicodeDecode")
    policy = {"replace": "replace", "ignore": "ignore", "strict": "strict"}[errors]
    pieces = []
    for s in arr.reshape(-1):
        points = [ord(c) for c in s.decode(input_encoding.lower(), errors=policy)]
        if errors == "replace" and replacement_char != 65533:
            points = [replacement_char if p == 0xFFFD else p for p in points]
        pieces.append(points)
    return _batched(arr, pieces, np.int32)


@export("strings.bytes_split")
@dispatch.add_dispatch_support(elementwise="unary")
def bytes_split(input, name=None):  # noqa: A002
    """Each string's bytes as one-byte strings: a 1-D tensor for one string, a RaggedTensor for a
    batch."""
    arr = string_array(input, "StringSplit")
    return _batched(arr, [[s[i:i + 1] for i in range(len(s))] for s in arr.reshape(-1)], object)


@export("strings.unicode_split")
@dispatch.add_dispatch_support(elementwise="unary")
def unicode_split(input, input_encoding, errors="replace", replacement_char=65533, name=None):  # noqa: A002
    """Each string's characters, each encoded back in `input_encoding`: a 1-D tensor for one
    string, a RaggedTensor for a batch (undecodable bytes become `replacement_char`)."""
    arr = string_array(input, "UnicodeDecode")
    policy = {"replace": "replace", "ignore": "ignore", "strict": "strict"}[errors]
    encoding = input_encoding.lower()
    pieces = []
    for s in arr.reshape(-1):
        chars = s.decode(encoding, errors=policy)
        if errors == "replace" and replacement_char != 65533:
            chars = chars.replace("\ufffd", chr(replacement_char))
        pieces.append([c.encode(encoding) for c in chars])
    return _batched(arr, pieces, object)
