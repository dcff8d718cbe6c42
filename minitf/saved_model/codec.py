"""Encoding and decoding the SavedModel's protocol buffers from their `schema`, on `proto_wire`.

A decoded message is a `Msg`: its fields as attributes, absent ones reading as protobuf's defaults
(0, '', b'', False, [] for repeated fields, {} for maps, None for an unset message), `has(name)`
telling a set field from a default one and `which(names)` the member of a oneof that is set.
`Msg(type_name, **fields)` builds one to encode; `encode(msg)` writes its fields in field-number
order (proto3: scalars at their default are left out unless they are a set oneof member;
repeated numeric fields packed), which is how protobuf serializes.

Decoding treats the bytes as hostile: wire types must match the schema, nesting is bounded, sizes
come from `proto_wire`'s checked reader; anything wrong raises `WireError` (a ValueError). Unknown
fields are skipped, as protobuf skips them.
"""
import struct

from minitf.checkpoint.proto_wire import (FIXED32, FIXED64, LENGTH, VARINT, WireError, as_int32,
                                          field_bytes, fields, read_varint, signed, varint)
from minitf.saved_model.schema import MESSAGES

__all__ = ["Msg", "encode", "decode", "WireError", "MAX_DEPTH"]

MAX_DEPTH = 64          # nesting of messages accepted when decoding
_DEFAULTS = {"string": "", "bytes": b"", "bool": False, "float": 0.0, "double": 0.0}
_PACKABLE = {"int32", "int64", "uint32", "uint64", "sint64", "bool", "enum", "float", "double",
             "fixed64"}


class Msg:
    """A protocol buffer message of type `_type` (a name in `schema.MESSAGES`)."""

    __slots__ = ("_type", "_values")

    def __init__(self, _type, **values):
        if _type not in MESSAGES:
            raise KeyError(f"unknown message type {_type!r}")
        object.__setattr__(self, "_type", _type)
        object.__setattr__(self, "_values", {})
        names = _names(_type)
        for name, value in values.items():
            if name not in names:
                raise AttributeError(f"{_type} has no field {name!r}")
            self._values[name] = value

    def __getattr__(self, name):
        values = object.__getattribute__(self, "_values")
        if name in values:
            return values[name]
        field = _names(object.__getattribute__(self, "_type")).get(name)
        if field is None:
            raise AttributeError(f"{self._type} has no field {name!r}")
        if field.kind == "map":
            values[name] = {}
            return values[name]
        if field.repeated:
            values[name] = []
            return values[name]
        if field.is_message:
            return None
        return _DEFAULTS.get(field.kind, 0)

    def __setattr__(self, name, value):
        if name not in _names(self._type):
            raise AttributeError(f"{self._type} has no field {name!r}")
        self._values[name] = value

    def has(self, name):
        """Whether field `name` was set (decoded, or assigned)."""
        return name in self._values

    def which(self, names):
        """The first of `names` (a oneof's members) that is set, or None."""
        return next((n for n in names if n in self._values), None)

    def __repr__(self):
        return f"Msg({self._type!r}, {self._values!r})"


_BY_NAME = {}


def _names(type_name):
    table = _BY_NAME.get(type_name)
    if table is None:
        table = _BY_NAME[type_name] = {f.name: f for f in MESSAGES[type_name].values()}
    return table


# -- encoding ---------------------------------------------------------------------------------
def _scalar_payload(kind, value):
    """(wire type, bytes) of one scalar value."""
    if kind in ("float",):
        return FIXED32, struct.pack("<f", value)
    if kind in ("double",):
        return FIXED64, struct.pack("<d", value)
    if kind == "fixed64":
        return FIXED64, struct.pack("<Q", value)
    if kind == "sint64":
        value = int(value)
        return VARINT, varint((value << 1) ^ (value >> 63))
    if kind in ("string", "bytes"):
        data = value.encode("utf-8") if isinstance(value, str) else bytes(value)
        return LENGTH, varint(len(data)) + data
    return VARINT, varint(int(value))


def _key(number, wire):
    return varint((number << 3) | wire)


def _encode_value(field, kind, value):
    if kind in MESSAGES:
        return field_bytes(field, encode(value))
    wire, payload = _scalar_payload(kind, value)
    return _key(field, wire) + payload


def _is_default(kind, value):
    if kind in ("string",):
        return value == ""
    if kind == "bytes":
        return value == b""
    return not value


def encode(msg):
    """The wire bytes of `msg` (a Msg)."""
    schema = MESSAGES[msg._type]
    out = []
    for number in sorted(schema):
        field = schema[number]
        if field.name not in msg._values:
            continue
        value = msg._values[field.name]
        if field.kind == "map":
            for key in sorted(value):
                entry = (_encode_value(1, field.key_kind, key)
                         + _encode_value(2, field.value_kind, value[key]))
                out.append(field_bytes(number, entry))
        elif field.repeated:
            if not value:
                continue
            if field.kind in _PACKABLE:
                packed = b"".join(_scalar_payload(field.kind, v)[1] for v in value)
                out.append(field_bytes(number, packed))
            else:
                out.extend(_encode_value(number, field.kind, v) for v in value)
        elif field.kind in MESSAGES:
            if value is not None:
                out.append(field_bytes(number, encode(value)))
        elif field.oneof or not _is_default(field.kind, value):
            out.append(_encode_value(number, field.kind, value))
    return b"".join(out)


# -- decoding ---------------------------------------------------------------------------------
_FIXED = {"float": (FIXED32, "<f"), "double": (FIXED64, "<d"), "fixed64": (FIXED64, "<Q")}


def _scalar(kind, wire, value, buf, name):
    if kind in _FIXED:
        want, fmt = _FIXED[kind]
        if wire != want:
            raise WireError(f"field {name} has wire type {wire}, expected {want}")
        size = 4 if want == FIXED32 else 8
        raw = value.to_bytes(size, "little")
        return struct.unpack(fmt, raw)[0]
    if kind in ("string", "bytes"):
        if wire != LENGTH:
            raise WireError(f"field {name} has wire type {wire}, expected {LENGTH}")
        data = bytes(buf[value[0]:value[1]])
        if kind == "bytes":
            return data
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError:
            raise WireError(f"field {name} is not UTF-8") from None
    if wire != VARINT:
        raise WireError(f"field {name} has wire type {wire}, expected {VARINT}")
    if kind == "bool":
        return bool(value)
    if kind in ("int32", "enum"):
        return as_int32(value)
    if kind == "int64":
        return signed(value)
    if kind == "sint64":
        return (value >> 1) ^ -(value & 1)
    if kind == "uint32" and value >= 1 << 32:
        raise WireError(f"field {name} holds {value}, more than 32 bits")
    return value


def _packed(kind, buf, start, end, name):
    out = []
    if kind in _FIXED:
        wire, fmt = _FIXED[kind]
        size = 4 if wire == FIXED32 else 8
        if (end - start) % size:
            raise WireError(f"packed field {name} is not a whole number of values")
        return [struct.unpack_from(fmt, buf, p)[0] for p in range(start, end, size)]
    pos = start
    while pos < end:
        value, pos = read_varint(buf, pos, end)
        out.append(_scalar(kind, VARINT, value, buf, name))
    return out


def _decode_value(kind, wire, value, buf, name, depth):
    if kind in MESSAGES:
        if wire != LENGTH:
            raise WireError(f"field {name} has wire type {wire}, expected {LENGTH}")
        return _decode(kind, buf, value[0], value[1], depth + 1)
    return _scalar(kind, wire, value, buf, name)


def _decode(type_name, buf, start, end, depth):
    if depth > MAX_DEPTH:
        raise WireError(f"messages nested deeper than {MAX_DEPTH}")
    schema = MESSAGES[type_name]
    msg = Msg(type_name)
    values = msg._values
    for number, wire, value in fields(buf, start, end):
        field = schema.get(number)
        if field is None:
            continue
        name = f"{type_name}.{field.name}"
        if field.kind == "map":
            if wire != LENGTH:
                raise WireError(f"field {name} has wire type {wire}, expected {LENGTH}")
            key = _DEFAULTS.get(field.key_kind, 0)
            item = None
            for n, w, v in fields(buf, value[0], value[1]):
                if n == 1:
                    key = _decode_value(field.key_kind, w, v, buf, name + ".key", depth)
                elif n == 2:
                    item = _decode_value(field.value_kind, w, v, buf, name + ".value", depth)
            if item is None:
                item = Msg(field.value_kind) if field.value_kind in MESSAGES else \
                    _DEFAULTS.get(field.value_kind, 0)
            values.setdefault(field.name, {})[key] = item
        elif field.repeated:
            items = values.setdefault(field.name, [])
            if wire == LENGTH and field.kind in _PACKABLE:
                items.extend(_packed(field.kind, buf, value[0], value[1], name))
            else:
                items.append(_decode_value(field.kind, wire, value, buf, name, depth))
        else:
            if field.oneof:  # a later member of the same oneof replaces the earlier one
                for other in schema.values():
                    if other.oneof and other.name in values:
                        del values[other.name]
            values[field.name] = _decode_value(field.kind, wire, value, buf, name, depth)
    return msg


def decode(type_name, data):
    """The Msg of type `type_name` encoded in `data` (bytes). WireError if malformed."""
    buf = memoryview(data) if not isinstance(data, (bytes, bytearray)) else data
    return _decode(type_name, buf, 0, len(buf), 0)
