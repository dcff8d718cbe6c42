"""The protocol buffer wire format, written by hand for the few messages checkpoints need.

protobuf is not a run-time dependency of minitf, and a checkpoint's protos are small: the
bundle header and entries of the `.index` table and the object graph. A message is a sequence
of fields, each a key (field number << 3 | wire type) followed by a varint, 8 or 4
little-endian bytes, or a varint length and that many bytes (strings, bytes, nested messages).

Decoding treats the bytes as hostile: every varint is at most 10 bytes, every length is checked
against the end of its enclosing message, and a truncated or malformed message raises
`WireError` (a ValueError); callers turn it into DataLossError naming the file.
"""
import struct

__all__ = ["WireError", "VARINT", "FIXED64", "LENGTH", "FIXED32", "varint", "field_varint",
           "field_bytes", "field_fixed32", "field_double", "read_varint", "fields", "signed",
           "as_int32"]

VARINT, FIXED64, LENGTH, FIXED32 = 0, 1, 2, 5
_U64 = 1 << 64


class WireError(ValueError):
    """Bytes that are not a well-formed protocol buffer message."""


def varint(value):
    """The varint encoding of the integer `value` (a negative one as its 64-bit two's
    complement, 10 bytes, as protobuf encodes negative int32/int64 fields)."""
    if value < 0:
        value += _U64
    out = bytearray()
    while value > 0x7F:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def _key(field, wire):
    return varint((field << 3) | wire)


def field_varint(field, value):
    """Field `field` holding the integer (or bool, or enum) `value`."""
    return _key(field, VARINT) + varint(int(value))


def field_bytes(field, data):
    """Field `field` holding `data` (str, encoded UTF-8; bytes; or a serialized message)."""
    if isinstance(data, str):
        data = data.encode("utf-8")
    return _key(field, LENGTH) + varint(len(data)) + data


def field_fixed32(field, value):
    """Field `field` holding the unsigned 32-bit `value` (little-endian, 4 bytes)."""
    return _key(field, FIXED32) + struct.pack("<I", value)


def field_double(field, value):
    """Field `field` holding the float `value` as an IEEE double."""
    return _key(field, FIXED64) + struct.pack("<d", value)


def read_varint(buf, pos, end):
    """(value, next position) of the varint at `pos` of `buf`, which must end before `end`."""
    result = shift = 0
    for i in range(10):
        if pos >= end:
            raise WireError("truncated varint")
        byte = buf[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        if byte < 0x80:
            if result >= _U64:
                raise WireError("varint exceeds 64 bits")
            return result, pos
        shift += 7
    raise WireError("varint longer than 10 bytes")


def fields(buf, start=0, end=None):
    """Yield (field number, wire type, value) for each field of the message in
    `buf[start:end]`: an int for VARINT, FIXED32 and FIXED64, a (start, end) pair into `buf`
    for LENGTH. Raises WireError for anything malformed (groups included)."""
    end = len(buf) if end is None else end
    if not 0 <= start <= end <= len(buf):
        raise WireError("message bounds outside the buffer")
    pos = start
    while pos < end:
        key, pos = read_varint(buf, pos, end)
        number, wire = key >> 3, key & 7
        if number == 0:
            raise WireError("field number 0")
        if wire == VARINT:
            value, pos = read_varint(buf, pos, end)
        elif wire == FIXED64:
            if pos + 8 > end:
                raise WireError("truncated fixed64")
            value = struct.unpack_from("<Q", buf, pos)[0]
            pos += 8
        elif wire == FIXED32:
            if pos + 4 > end:
                raise WireError("truncated fixed32")
            value = struct.unpack_from("<I", buf, pos)[0]
            pos += 4
        elif wire == LENGTH:
            length, pos = read_varint(buf, pos, end)
            if length > end - pos:
                raise WireError(f"length {length} runs past the end of the message")
            value = (pos, pos + length)
            pos += length
        else:
            raise WireError(f"unsupported wire type {wire} (field {number})")
        yield number, wire, value


def signed(value):
    """A decoded varint as the signed 64-bit integer it encodes (int64 fields)."""
    return value - _U64 if value >= 1 << 63 else value


def as_int32(value):
    """A decoded varint as a signed 32-bit integer (int32 fields; WireError out of range)."""
    value = signed(value)
    if not -(1 << 31) <= value < 1 << 31:
        raise WireError(f"int32 field holds {value}")
    return value
