"""tf.io.decode_raw (bytes reinterpreted as numbers) and tf.io.encode_base64/decode_base64
(web-safe base64), on string tensors. String tensors live on the host, and so do the results,
as TF runs these kernels on the CPU; none is differentiable."""
import base64

import numpy as np

from minitf import dispatch
from minitf.dtypes import dtypes
from minitf.errors import errors
from minitf.convert import convert_to_tensor
from minitf.ops._core import Tensor
from minitf.api_export import export

__all__ = ["decode_raw", "encode_base64", "decode_base64"]

_DECODE_RAW_TYPES = ("float16", "float32", "float64", "int32", "uint16", "uint8", "int16", "int8",
                     "int64", "complex64", "complex128", "bool", "bfloat16")
_PADDED_TYPES = ("float16", "float32", "float64", "int32", "uint16", "uint8", "int16", "int8", "int64",
                 "bfloat16")


def strings(value, op_name, what="input"):
    """A string tensor's elements as a numpy object array of bytes."""
    try:
        t = convert_to_tensor(value, dtype=dtypes.string) if not hasattr(value, "_value") \
            else convert_to_tensor(value)
    except (TypeError, ValueError):
        raise TypeError(f"Cannot convert {value!r} to EagerTensor of dtype string ({op_name} takes "
                        f"bytes)") from None
    if t.dtype != dtypes.string:
        raise errors.invalid_argument(
            op_name, f"cannot compute {op_name} as input #0(zero-based) was expected to be a string "
                     f"tensor but is a {t.dtype.name} tensor; pass bytes")
    raw = np.asarray(t.numpy(), dtype=object)
    return np.vectorize(lambda s: s if isinstance(s, bytes) else str(s).encode(), otypes=[object])(raw) \
        if raw.size else raw


def _element_dtype(name, little_endian):
    """The numpy dtype that reads one element from bytes in the given byte order."""
    order = "<" if little_endian else ">"
    if name == "bfloat16":
        return np.dtype(order + "u2")
    if name == "bool":
        return np.dtype("u1")
    return np.dtype(dtypes.as_dtype(name).as_numpy_dtype).newbyteorder(order)


def _finish(values, name):
    """Read elements as TF's out_type: bools are non-zero bytes, bfloat16 widens to float32
    (minitf stores bfloat16 in float32)."""
    if name == "bool":
        return values != 0
    if name == "bfloat16":
        return (values.astype(np.uint32) << 16).view(np.float32)
    return values.astype(values.dtype.newbyteorder("="))


@export("io.decode_raw")
@dispatch.add_dispatch_support
def decode_raw(input_bytes, out_type, little_endian=True, fixed_length=None, name=None):
    """The bytes of each string read as a vector of `out_type` numbers.

    Args:
      input_bytes: a string tensor (bytes) of any shape.
      out_type: one of float16/32/64, bfloat16, int8/16/32/64, uint8/16, complex64/128, bool.
      little_endian: the byte order of multi-byte elements (complex: of each component).
      fixed_length: when given, each string is cut or zero-padded to this many bytes (TF's
        DecodePaddedRaw), so strings of different lengths can be decoded together.
      name: ignored.

    Returns:
      A tensor of shape input_bytes.shape + [bytes per string / element size]. bool reads one
      byte per element (non-zero is True); bfloat16 comes back as float32 values.

    Raises:
      NotFoundError: float16 with fixed_length (TF registers no CPU kernel for it).
      InvalidArgumentError: an out_type TF has no kernel for (with fixed_length: no bool or
        complex), strings of different lengths (without
        fixed_length), a length that is not a multiple of the element size, a fixed_length that is
        not a positive multiple of it, or a non-string input.
    """
    out = dtypes.as_dtype(out_type)
    op = "DecodeRaw" if fixed_length is None else "DecodePaddedRaw"
    allowed = _DECODE_RAW_TYPES if fixed_length is None else _PADDED_TYPES
    if out.name not in allowed:
        raise errors.invalid_argument(
            op, f"Value for attr 'out_type' of {out.name} is not in the list of allowed values: "
                f"{', '.join(allowed)}; decode to one of them and cast")
    if fixed_length is not None and out.name == "float16":
        raise errors.NotFoundError(None, None, f"Could not find device for node: {op}[out_type=half]: TF has "
                                               f"no CPU kernel for fixed_length with float16; decode uint16 "
                                               f"and bitcast, or drop fixed_length")
    data = strings(input_bytes, op)
    elem = _element_dtype(out.name, little_endian)
    size = elem.itemsize
    flat = data.reshape(-1)
    if fixed_length is not None:
        fixed = int(fixed_length)
        if fixed <= 0:
            raise errors.invalid_argument(op, f"fixed_length ({fixed}) must be greater than zero.")
        if fixed % size:
            raise errors.invalid_argument(
                op, f"fixed_length ({fixed}) must be a multiple of the size of out_type ({size})")
        flat = [s[:fixed] + b"\0" * max(0, fixed - len(s)) for s in flat]
        length = fixed
    else:
        length = len(flat[0]) if len(flat) else 0
        for i, s in enumerate(flat):
            if len(s) != length:
                raise errors.invalid_argument(
                    op, f"DecodeRaw requires input strings to all be the same size, but element {i} has "
                        f"size {len(s)} != {length}; pass fixed_length to pad or cut them")
        if length % size:
            raise errors.invalid_argument(
                op, f"Input to DecodeRaw has length {length} that is not a multiple of {size}, the size "
                    f"of {out.name}")
    count = length // size
    values = np.frombuffer(b"".join(flat), dtype=elem) if count and len(flat) else np.zeros(0, elem)
    values = _finish(values, out.name).reshape(data.shape + (count,))
    return Tensor(np.ascontiguousarray(values))


@export("io.encode_base64")
@dispatch.add_dispatch_support
def encode_base64(input, pad=False, name=None):  # noqa: A002 (TF's argument name)
    """Each string encoded as web-safe base64 ('-' and '_' for '+' and '/'); '=' padding only
    with pad=True."""
    data = strings(input, "EncodeBase64")
    enc = [base64.urlsafe_b64encode(s) for s in data.reshape(-1)]
    if not pad:
        enc = [e.rstrip(b"=") for e in enc]
    out = np.empty(len(enc), dtype=object)
    out[:] = enc
    return Tensor(out.reshape(data.shape))


_ALPHABET = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
_VALUE = {c: i for i, c in enumerate(_ALPHABET)}


def _group(chars, s):
    """Three bytes from four web-safe base64 characters."""
    try:
        v = (_VALUE[chars[0]] << 18) | (_VALUE[chars[1]] << 12) | (_VALUE[chars[2]] << 6) | _VALUE[chars[3]]
    except KeyError:
        raise errors.invalid_argument("DecodeBase64", f"Invalid character found in base64: {s[:40]!r} "
                                                      f"(the web-safe alphabet uses '-' and '_'; '=' may only "
                                                      f"pad the last group of four)") from None
    return v.to_bytes(3, "big")


def _decode_one(s):
    """TF's decoder: groups of four, '=' padding only inside a final group of exactly four."""
    n, i = len(s), 0
    out = bytearray()
    while n - i > 4:
        out += _group(s[i:i + 4], s)
        i += 4
    end = n
    if n - i == 4:
        if s[i + 2] == 61 and s[i + 3] == 61:  # "=="
            end -= 2
        elif s[i + 3] == 61:
            end -= 1
    remain = end - i
    if remain == 1:
        raise errors.invalid_argument("DecodeBase64", f"Base64 string length cannot be 1 modulo 4: {s[:40]!r}")
    if remain:
        out += _group(s[i:end] + b"A" * (4 - remain), s)[:remain - 1]
    return bytes(out)


@export("io.decode_base64")
@dispatch.add_dispatch_support
def decode_base64(input, name=None):  # noqa: A002
    """Each web-safe base64 string decoded ('=' padding optional, allowed only to complete a last
    group of four characters, as TF's decoder).

    Raises:
      InvalidArgumentError: a character outside the web-safe alphabet (or misplaced '='), or a
        length that is 1 modulo 4.
    """
    data = strings(input, "DecodeBase64")
    out = np.empty(data.size, dtype=object)
    out[:] = [_decode_one(s) for s in data.reshape(-1)]
    return Tensor(out.reshape(data.shape))
