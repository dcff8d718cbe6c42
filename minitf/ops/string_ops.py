"""tf.strings on tf.string tensors (object arrays of bytes): lengths, case, joins, regular
expressions, numbers to and from text, substrings.

Elementwise functions broadcast like numpy and keep the input's shape; given a RaggedTensor they
map its flat values (minitf.dispatch). The functions that split strings into RaggedTensors are
in minitf.ragged.string_ops.
"""
import re

import numpy as np

from minitf import dispatch
from minitf.dtypes import dtypes
from minitf.errors import errors
from minitf.convert import convert_to_tensor
from minitf.ops._core import Tensor, as_tensor
from minitf.api_export import export

_length = len  # `substr` takes an argument named `len`, as in TF

__all__ = ["length", "lower", "upper", "join", "reduce_join", "regex_replace", "regex_full_match",
           "to_number", "as_string", "substr", "strip"]


def string_array(value, op):
    """The object array of bytes of a string tensor (Python strings are UTF-8 encoded)."""
    t = as_tensor(value) if not isinstance(value, (str, bytes)) else convert_to_tensor(value)
    if t.dtype != dtypes.string:
        raise errors.invalid_argument(op, f"expected a string tensor, got {t.dtype.name}; format numbers "
                                          f"with tf.strings.as_string")
    return np.asarray(t._value, dtype=object)


def _map(fn, arr, out_dtype=object):
    out = np.empty(arr.shape, dtype=out_dtype)
    flat, src = out.reshape(-1), arr.reshape(-1)
    for i, v in enumerate(src):
        flat[i] = fn(v)
    return out


def _text(arr):
    """A string tensor from an object array of bytes."""
    return Tensor(arr)


@export("strings.length")
@dispatch.add_dispatch_support(elementwise="unary")
def length(input, unit="BYTE", name=None):  # noqa: A002
    """The length of each string in bytes (unit 'BYTE') or Unicode characters ('UTF8_CHAR'), int32."""
    if unit not in ("BYTE", "UTF8_CHAR"):
        raise ValueError(f"unit must be 'BYTE' or 'UTF8_CHAR', got {unit!r}")
    arr = string_array(input, "StringLength")
    count = len if unit == "BYTE" else (lambda b: len(b.decode("utf-8", errors="replace")))
    return Tensor(_map(count, arr, np.int32))


@export("strings.lower")
@dispatch.add_dispatch_support(elementwise="unary")
def lower(input, encoding="", name=None):  # noqa: A002
    """Each string in lower case: ASCII letters only, or all of Unicode with encoding='utf-8'."""
    arr = string_array(input, "StringLower")
    if encoding:
        return _text(_map(lambda b: b.decode("utf-8").lower().encode("utf-8"), arr))
    return _text(_map(lambda b: b.lower(), arr))  # bytes.lower changes ASCII letters only


@export("strings.upper")
@dispatch.add_dispatch_support(elementwise="unary")
def upper(input, encoding="", name=None):  # noqa: A002
    """Each string in upper case: ASCII letters only, or all of Unicode with encoding='utf-8'."""
    arr = string_array(input, "StringUpper")
    if encoding:
        return _text(_map(lambda b: b.decode("utf-8").upper().encode("utf-8"), arr))
    return _text(_map(lambda b: b.upper(), arr))


@export("strings.strip")
@dispatch.add_dispatch_support(elementwise="unary")
def strip(input, name=None):  # noqa: A002
    """Each string without leading and trailing whitespace."""
    return _text(_map(lambda b: b.strip(), string_array(input, "StringStrip")))


@export("strings.join")
@dispatch.add_dispatch_support(elementwise="list")
def join(inputs, separator="", name=None):
    """The strings of `inputs` (a list of string tensors, broadcast together) joined elementwise."""
    arrays = np.broadcast_arrays(*[string_array(x, "StringJoin") for x in inputs])
    sep = separator.encode("utf-8") if isinstance(separator, str) else separator
    out = np.empty(arrays[0].shape, dtype=object)
    flat = out.reshape(-1)
    for i, parts in enumerate(zip(*[a.reshape(-1) for a in arrays])):
        flat[i] = sep.join(parts)
    return _text(out)


@export("strings.reduce_join")
@dispatch.add_dispatch_support
def reduce_join(inputs, axis=None, keepdims=False, separator="", name=None):
    """The strings joined along `axis` (all axes when None) with `separator`."""
    arr = string_array(inputs, "ReduceJoin")
    sep = separator.encode("utf-8") if isinstance(separator, str) else separator
    axes = tuple(range(arr.ndim)) if axis is None else tuple(
        a % arr.ndim for a in (axis if isinstance(axis, (list, tuple)) else [axis]))
    moved = np.moveaxis(arr, axes, tuple(range(arr.ndim - len(axes), arr.ndim)))
    rest = moved.shape[:arr.ndim - len(axes)]
    flat = moved.reshape(rest + (-1,))
    out = np.empty(rest, dtype=object)
    for idx in np.ndindex(*rest):
        out[idx] = sep.join(flat[idx])
    if keepdims:
        out = np.expand_dims(out, axes)
    return _text(out)


@export("strings.regex_replace")
@dispatch.add_dispatch_support(elementwise="unary")
def regex_replace(input, pattern, rewrite, replace_global=True, name=None):  # noqa: A002
    """Each string with the matches of regular expression `pattern` replaced by `rewrite` (all
    of them, or the first with replace_global=False); `\\1` in `rewrite` is the first group."""
    regex = re.compile(pattern.encode("utf-8") if isinstance(pattern, str) else pattern)
    repl = rewrite.encode("utf-8") if isinstance(rewrite, str) else rewrite
    count = 0 if replace_global else 1
    return _text(_map(lambda b: regex.sub(repl, b, count=count), string_array(input, "StaticRegexReplace")))


@export("strings.regex_full_match")
@dispatch.add_dispatch_support(elementwise="unary")
def regex_full_match(input, pattern, name=None):  # noqa: A002
    """Whether each whole string matches regular expression `pattern` (bool)."""
    regex = re.compile(pattern.encode("utf-8") if isinstance(pattern, str) else pattern)
    return Tensor(_map(lambda b: regex.fullmatch(b) is not None, string_array(input, "RegexFullMatch"), bool))


@export("strings.to_number")
@dispatch.add_dispatch_support(elementwise="unary")
def to_number(string_tensor, out_type=dtypes.float32, name=None):
    """Each string parsed as a number of `out_type` (float32 by default).

    Raises:
      InvalidArgumentError: a string that is not a number of that type.
    """
    dtype = dtypes.as_dtype(out_type)
    arr = string_array(string_tensor, "StringToNumber")

    def parse(b):
        text = b.decode("utf-8", errors="replace").strip()
        try:
            return int(text) if dtype.is_integer else float(text)
        except ValueError:
            raise errors.invalid_argument("StringToNumber", f"StringToNumberOp could not correctly convert "
                                                            f"string: {text}") from None
    values = _map(parse, arr)
    return Tensor(values.astype(dtype._np))


@export("strings.as_string")
@dispatch.add_dispatch_support(elementwise="unary")
def as_string(input, precision=-1, scientific=False, shortest=False, width=-1, fill="", name=None):  # noqa: A002
    """Each number (or bool) as text: floats with 6 decimals by default, as TF (printf rules)."""
    t = as_tensor(input)
    values = np.asarray(t.numpy())
    if t.dtype.is_floating or t.dtype.is_complex:
        spec = "e" if scientific else ("g" if shortest else "f")
        prec = "" if precision < 0 else f".{precision}"
        fmt = f"%{fill if fill else ''}{width if width >= 0 else ''}{prec}{spec}"
    elif t.dtype == dtypes.bool:
        return _text(_map(lambda v: b"true" if v else b"false", values))
    else:
        fmt = f"%{fill if fill else ''}{width if width >= 0 else ''}d"
    return _text(_map(lambda v: (fmt % v).encode("ascii"), values))


@export("strings.substr")
@dispatch.add_dispatch_support(elementwise="unary")
def substr(input, pos, len, unit="BYTE", name=None):  # noqa: A002
    """The substring of each string from `pos`, `len` long (bytes, or Unicode characters with
    unit='UTF8_CHAR').

    Raises:
      InvalidArgumentError: `pos` past the end of a string.
    """
    arr = string_array(input, "Substr")

    def cut(b):
        s = b if unit == "BYTE" else b.decode("utf-8")
        start = pos if pos >= 0 else _length(s) + pos
        if not 0 <= start <= _length(s):
            raise errors.invalid_argument("Substr", f"pos {pos} out of range for string {b!r}; pos must be "
                                                    f"within the string")
        piece = s[start:start + len]
        return piece if unit == "BYTE" else piece.encode("utf-8")
    return _text(_map(cut, arr))

