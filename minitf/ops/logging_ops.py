"""tf.print: TF's text form of tensors (numpy-like brackets, `...` summaries) written to a stream,
a file or the logging module."""
import logging
import os
import pprint
import random
import sys

import numpy as np

from minitf import dispatch
from minitf.nest import nest
from minitf.ops._core import Tensor, Variable
from minitf.api_export import export

__all__ = ["print"]

_LOG_LEVELS = {logging.INFO: "info", logging.WARNING: "warning", logging.ERROR: "error",
               logging.info: "info", logging.warning: "warning", logging.warn: "warning",
               logging.error: "error"}


def _is_tensor(x):
    return isinstance(x, (Tensor, Variable))


def _float_text(v, narrow):
    """TF's shortest-that-round-trips text: %.6g (float) or %.15g (double), else 9 / 17 digits."""
    if np.isnan(v):
        return "nan"
    if np.isinf(v):
        return "inf" if v > 0 else "-inf"
    kind, short, full = (np.float32, 6, 9) if narrow else (np.float64, 15, 17)
    text = "%.*g" % (short, float(v))
    if kind(float(text)) != kind(v):
        text = "%.*g" % (full, float(v))
    return text


def _escape(raw):
    """C-style escapes for a string element, keeping UTF-8 bytes as they are (TF's
    Utf8SafeCEscape)."""
    special = {10: "\\n", 13: "\\r", 9: "\\t", 34: '\\"', 39: "\\'", 92: "\\\\"}
    out = []
    for b in raw:
        if b in special:
            out.append(special[b])
        elif b < 0x20 or b == 0x7F:
            out.append("\\%03o" % b)
        else:
            out.append(chr(b))
    # bytes >= 0x80 were appended one per char: rebuild them as UTF-8 where they decode
    return "".join(out).encode("latin-1").decode("utf-8", errors="replace")


def _element_text(v, dtype_name):
    if dtype_name == "bool":
        return "1" if v else "0"
    if dtype_name == "string":
        return '"' + _escape(v if isinstance(v, bytes) else str(v).encode()) + '"'
    if dtype_name in ("float16", "bfloat16", "float32"):
        return _float_text(np.float32(v), True)
    if dtype_name == "float64":
        return _float_text(np.float64(v), False)
    if dtype_name.startswith("complex"):
        return "?"  # TF's print_v2 has no text form for complex entries
    return str(int(v))


def _dim_spacing(dim, ndim):
    """Between two entries of dimension `dim`: a space in the last one, else newlines (one per
    inner dimension) and an indent (TF's PrintDimSpacing)."""
    if dim == ndim - 1:
        return " "
    return "\n" * (ndim - dim - 1) + " " * (dim + 1)


def _summarize_nd(values, dim, ends, out):
    """TF's PrintOneDimV2: `ends` entries at each end of every dimension, `...` between."""
    if dim == len(values.shape):
        out.append(values.item_text())
        return
    ndim = len(values.shape)
    count = values.shape[dim]
    out.append("[")
    for i in range(min(ends, count)):
        if i > 0:
            out.append(_dim_spacing(dim, ndim))
        _summarize_nd(values.at(dim, i), dim + 1, ends, out)
    if count > 2 * ends:
        out.append(_dim_spacing(dim, ndim))
        out.append("...")
    for i in range(max(ends, count - ends), count):
        out.append(_dim_spacing(dim, ndim))
        _summarize_nd(values.at(dim, i), dim + 1, ends, out)
    out.append("]")


class _Cursor:
    """A view into the array for _summarize_nd: the fixed leading indices so far."""

    def __init__(self, array, dtype_name, prefix=()):
        self.array, self.dtype_name, self.prefix = array, dtype_name, prefix
        self.shape = array.shape

    def at(self, dim, i):
        return _Cursor(self.array, self.dtype_name, self.prefix + (i,))

    def item_text(self):
        return _element_text(self.array[self.prefix], self.dtype_name)


def _tensor_text(t, summarize):
    """How TF's string_format writes one tensor (Tensor::SummarizeValue with print_v2)."""
    array = np.asarray(t.numpy())
    dtype_name = t.dtype.name
    size = array.size
    limit = size if summarize < 0 else min(summarize, size)
    if array.ndim == 0:
        return (_element_text(array[()], dtype_name) if limit > 0 else "") + ("..." if size > limit else "")
    out = []
    _summarize_nd(_Cursor(array, dtype_name), 0, limit, out)
    return "".join(out)


def _placeholder(text):
    """A placeholder that does not occur in `text`, chosen as TF chooses it."""
    placeholder = "{}"
    rng = random.Random(5)
    while placeholder in text:
        placeholder += str(rng.randint(0, 9))
    return placeholder


def _output_target(output_stream):
    """The stream, file path or logging level `output_stream` names; ValueError (TF's message)
    for anything else."""
    if isinstance(output_stream, str) and output_stream.startswith("file://"):
        return ("file", output_stream[len("file://"):])
    if output_stream is sys.stdout or output_stream is sys.stderr:
        return ("stream", output_stream)
    try:
        level = _LOG_LEVELS.get(output_stream)
    except TypeError:  # an unhashable value
        level = None
    if level is not None:
        return ("log", level)
    raise ValueError("Unsupported output stream, logging level, or file." + str(output_stream)
                     + ". Supported streams are sys.stdout, sys.stderr, tf.logging.info, "
                     "tf.logging.warning, tf.logging.error. File needs to be in the form of "
                     "'file://<filepath>'.")


def _format(inputs, summarize, sep):
    """The text tf.print writes (before `end`): each input as pprint shows it, tensors in TF's
    summary form, top-level Python strings as they are."""
    if len(inputs) == 1 and _is_tensor(inputs[0]) and inputs[0].shape.rank == 0 \
            and inputs[0].dtype.name == "string":
        value = inputs[0].numpy()
        return value.decode("utf-8", errors="replace") if isinstance(value, bytes) else str(value)
    tensor_free = nest.map_structure(lambda x: "" if _is_tensor(x) else x, list(inputs))
    placeholder = _placeholder(" ".join(pprint.pformat(x) for x in tensor_free))
    templates, tensors = [], []
    for input_ in inputs:
        marks = []
        for x in nest.flatten(input_):
            if _is_tensor(x):
                tensors.append(x)
                marks.append(placeholder)
            else:
                marks.append(x)
        templates.append(input_ if isinstance(input_, str)
                         else pprint.pformat(nest.pack_sequence_as(input_, marks)))
    template = sep.join(templates).replace("'" + placeholder + "'", placeholder)
    summarize = 3 if summarize is None else int(summarize)
    pieces = template.split(placeholder)
    out = [pieces[0]]
    for tensor, piece in zip(tensors, pieces[1:]):
        out.append(_tensor_text(tensor, summarize))
        out.append(piece)
    return "".join(out)


@export("print")
@dispatch.stateful_op(abstract=dispatch.returns_none)
def print(*inputs, **kwargs):  # noqa: A001 (TF's name)
    """Print tensors and Python values, as TF writes them.

    Tensors appear as TF shows them (`[1 2 3]`, floats as the shortest text that reads back,
    strings quoted, bools as 1/0), with only `summarize` entries kept at each end of every
    dimension and `...` between; nested lists, tuples and dicts are written as pprint writes
    them with their tensors so formatted. A Python string is written as it is.

    Args:
      *inputs: the values to print, joined by `sep`.
      output_stream: sys.stdout, sys.stderr (the default), a logging level or logging function
        (logging.info, logging.WARNING, ...), or "file://<path>" to append to a file.
      summarize: entries kept at each end of each dimension (default 3); -1 keeps all.
      sep: the text between inputs (default " ").
      end: the text after the last input (default os.linesep).
      name: ignored (TF's op name).

    Raises:
      ValueError: an unsupported `output_stream` or an unknown keyword argument.
    """
    output_stream = kwargs.pop("output_stream", sys.stderr)
    kwargs.pop("name", None)
    summarize = kwargs.pop("summarize", 3)
    sep = kwargs.pop("sep", " ")
    end = kwargs.pop("end", os.linesep)
    if kwargs:
        raise ValueError("Unrecognized keyword arguments for tf.print: %s" % kwargs)
    kind, target = _output_target(output_stream)
    text = _format(inputs, summarize, sep)
    if kind == "stream":
        target.write(text + end)
        target.flush()
    elif kind == "file":
        with open(target, "a", encoding="utf-8") as f:
            f.write(text + end)
    else:
        getattr(logging.getLogger("minitf"), target)(text + end)
