"""The messages of TF's checkpoint files, encoded and decoded with `proto_wire`.

Field numbers are TF's (tensorflow/core/protobuf/tensor_bundle.proto,
trackable_object_graph.proto, framework/tensor_shape.proto, types.proto, versions.proto):

    BundleHeaderProto   num_shards=1 (int32), endianness=2 (enum), version=3 (VersionDef)
    VersionDef          producer=1, min_consumer=2, bad_consumers=3 (repeated int32)
    BundleEntryProto    dtype=1 (enum), shape=2 (TensorShapeProto), shard_id=3 (int32),
                        offset=4 (int64), size=5 (int64), crc32c=6 (fixed32), slices=7 (repeated)
    TensorShapeProto    dim=2 (repeated Dim: size=1 int64, name=2), unknown_rank=3 (bool)
    TrackableObjectGraph  nodes=1 (repeated TrackableObject)
    TrackableObject     children=1 (ObjectReference: node_id=1, local_name=2),
                        attributes=2 (SerializedTensor: name=1, full_name=2, checkpoint_key=3),
                        slot_variables=3 (SlotVariableReference: original_variable_node_id=1,
                        slot_name=2, slot_variable_node_id=3), registered_saver=4,
                        has_checkpoint_values=5 (BoolValue: value=1)

Encoding follows protobuf's own output byte for byte (fields in number order, proto3 defaults
left out, an entry's shape always present), so an index written here is the one TF writes for
the same tensors. Decoding checks wire types and ranges; unknown fields are skipped, as
protobuf does.
"""
from minitf.checkpoint.proto_wire import (FIXED32, LENGTH, VARINT, WireError, as_int32,
                                          field_bytes, field_fixed32, field_varint, fields,
                                          read_varint, signed)

__all__ = ["DTYPE_ENUMS", "ENUM_DTYPES", "BundleEntry", "ObjectNode", "encode_header",
           "decode_header", "encode_entry", "decode_entry", "encode_object_graph",
           "decode_object_graph"]

# types.proto DataType values, by minitf dtype name
DTYPE_ENUMS = {"float32": 1, "float64": 2, "int32": 3, "uint8": 4, "int16": 5, "int8": 6,
               "string": 7, "complex64": 8, "int64": 9, "bool": 10, "bfloat16": 14,
               "uint16": 17, "complex128": 18, "float16": 19, "resource": 20, "variant": 21,
               "uint32": 22, "uint64": 23}
ENUM_DTYPES = {v: k for k, v in DTYPE_ENUMS.items()}

_BUNDLE_VERSION = 1  # kTensorBundleVersion; TF's min consumer is 0


def encode_header(num_shards=1):
    """A BundleHeaderProto: `num_shards`, little-endian, version producer 1."""
    version = field_varint(1, _BUNDLE_VERSION)
    return field_varint(1, num_shards) + field_bytes(3, version)


def decode_header(buf):
    """{'num_shards', 'endianness', 'producer', 'min_consumer', 'bad_consumers'} of a
    BundleHeaderProto."""
    out = {"num_shards": 0, "endianness": 0, "producer": 0, "min_consumer": 0,
           "bad_consumers": []}
    for number, wire, value in fields(buf):
        if number == 1:
            out["num_shards"] = as_int32(_want(value, wire, VARINT, "num_shards"))
        elif number == 2:
            out["endianness"] = as_int32(_want(value, wire, VARINT, "endianness"))
        elif number == 3:
            start, end = _want(value, wire, LENGTH, "version")
            for n, w, v in fields(buf, start, end):
                if n == 1:
                    out["producer"] = as_int32(_want(v, w, VARINT, "producer"))
                elif n == 2:
                    out["min_consumer"] = as_int32(_want(v, w, VARINT, "min_consumer"))
                elif n == 3:
                    out["bad_consumers"].extend(_int32s(buf, n, w, v))
    return out


def _want(value, wire, expected, name):
    if wire != expected:
        raise WireError(f"field {name} has wire type {wire}, expected {expected}")
    return value


def _int32s(buf, number, wire, value):
    """A repeated int32 field: one varint, or a packed run of them."""
    if wire == VARINT:
        return [as_int32(value)]
    start, end = _want(value, wire, LENGTH, f"repeated field {number}")
    out = []
    pos = start
    while pos < end:
        v, pos = read_varint(buf, pos, end)
        out.append(as_int32(v))
    return out


def _encode_shape(shape):
    return b"".join(field_bytes(2, field_varint(1, d) if d else b"") for d in shape)


def _decode_shape(buf, start, end):
    dims, unknown_rank = [], False
    for number, wire, value in fields(buf, start, end):
        if number == 2:
            dim_start, dim_end = _want(value, wire, LENGTH, "dim")
            size = 0
            for n, w, v in fields(buf, dim_start, dim_end):
                if n == 1:
                    size = signed(_want(v, w, VARINT, "dim size"))
            dims.append(size)
        elif number == 3:
            unknown_rank = bool(_want(value, wire, VARINT, "unknown_rank"))
    return dims, unknown_rank


class BundleEntry:
    """One decoded BundleEntryProto: where a tensor's bytes are and what they hold."""

    __slots__ = ("dtype_enum", "shape", "unknown_rank", "shard_id", "offset", "size", "crc32c",
                 "sliced")

    def __init__(self):
        self.dtype_enum, self.shape, self.unknown_rank = 0, [], False
        self.shard_id = self.offset = self.size = 0
        self.crc32c = 0
        self.sliced = False


def encode_entry(dtype_enum, shape, shard_id, offset, size, crc32c):
    """A BundleEntryProto, as protobuf serializes it (shape always present)."""
    out = field_varint(1, dtype_enum) + field_bytes(2, _encode_shape(shape))
    if shard_id:
        out += field_varint(3, shard_id)
    if offset:
        out += field_varint(4, offset)
    if size:
        out += field_varint(5, size)
    if crc32c:
        out += field_fixed32(6, crc32c)
    return out


def decode_entry(buf):
    """The BundleEntry encoded in `buf` (WireError if malformed)."""
    entry = BundleEntry()
    for number, wire, value in fields(buf):
        if number == 1:
            entry.dtype_enum = as_int32(_want(value, wire, VARINT, "dtype"))
        elif number == 2:
            start, end = _want(value, wire, LENGTH, "shape")
            entry.shape, entry.unknown_rank = _decode_shape(buf, start, end)
        elif number == 3:
            entry.shard_id = as_int32(_want(value, wire, VARINT, "shard_id"))
        elif number == 4:
            entry.offset = signed(_want(value, wire, VARINT, "offset"))
        elif number == 5:
            entry.size = signed(_want(value, wire, VARINT, "size"))
        elif number == 6:
            entry.crc32c = _want(value, wire, FIXED32, "crc32c")
        elif number == 7:
            _want(value, wire, LENGTH, "slices")
            entry.sliced = True
    return entry


class ObjectNode:
    """One node of a TrackableObjectGraph.

    `children`: [(local name, node id)]; `attributes`: [(name, full name, checkpoint key)];
    `slots`: [(original variable node id, slot name, slot variable node id)];
    `has_values`: the has_checkpoint_values flag (None when absent).
    """

    __slots__ = ("children", "attributes", "slots", "has_values")

    def __init__(self, children=None, attributes=None, slots=None, has_values=None):
        self.children = children if children is not None else []
        self.attributes = attributes if attributes is not None else []
        self.slots = slots if slots is not None else []
        self.has_values = has_values


def encode_object_graph(nodes):
    """A serialized TrackableObjectGraph of `nodes` (ObjectNode list, node 0 the root)."""
    out = []
    for node in nodes:
        body = []
        for name, node_id in node.children:
            body.append(field_bytes(1, (field_varint(1, node_id) if node_id else b"")
                                    + field_bytes(2, name)))
        for name, full_name, key in node.attributes:
            body.append(field_bytes(2, _nonempty(1, name) + _nonempty(2, full_name)
                                    + _nonempty(3, key)))
        for original, slot_name, slot in node.slots:
            body.append(field_bytes(3, (field_varint(1, original) if original else b"")
                                    + _nonempty(2, slot_name)
                                    + (field_varint(3, slot) if slot else b"")))
        if node.has_values is not None:
            body.append(field_bytes(5, field_varint(1, 1) if node.has_values else b""))
        out.append(field_bytes(1, b"".join(body)))
    return b"".join(out)


def _nonempty(number, text):
    return field_bytes(number, text) if text else b""


def _text(buf, value, wire, name):
    start, end = _want(value, wire, LENGTH, name)
    try:
        return bytes(buf[start:end]).decode("utf-8")
    except UnicodeDecodeError:
        raise WireError(f"field {name} is not UTF-8") from None


def decode_object_graph(buf, max_nodes):
    """The ObjectNode list of a serialized TrackableObjectGraph. Node ids are checked to be
    in range; more than `max_nodes` nodes is refused (WireError)."""
    nodes = []
    for number, wire, value in fields(buf):
        if number != 1:
            continue
        if len(nodes) >= max_nodes:
            raise WireError(f"more than {max_nodes} nodes")
        start, end = _want(value, wire, LENGTH, "nodes")
        nodes.append(_decode_node(buf, start, end))
    for i, node in enumerate(nodes):
        ids = [c for _, c in node.children] + [s for o, _, s in node.slots] + \
              [o for o, _, _ in node.slots]
        if any(not 0 <= c < len(nodes) for c in ids):
            raise WireError(f"node {i} refers to a node outside the graph's {len(nodes)}")
    return nodes


def _decode_node(buf, start, end):
    node = ObjectNode()
    for number, wire, value in fields(buf, start, end):
        if number == 1:
            s, e = _want(value, wire, LENGTH, "children")
            node_id, name = 0, ""
            for n, w, v in fields(buf, s, e):
                if n == 1:
                    node_id = as_int32(_want(v, w, VARINT, "node_id"))
                elif n == 2:
                    name = _text(buf, v, w, "local_name")
            node.children.append((name, node_id))
        elif number == 2:
            s, e = _want(value, wire, LENGTH, "attributes")
            attr = ["", "", ""]
            for n, w, v in fields(buf, s, e):
                if 1 <= n <= 3:
                    attr[n - 1] = _text(buf, v, w, "attribute")
            node.attributes.append(tuple(attr))
        elif number == 3:
            s, e = _want(value, wire, LENGTH, "slot_variables")
            slot = [0, "", 0]
            for n, w, v in fields(buf, s, e):
                if n in (1, 3):
                    slot[n - 1] = as_int32(_want(v, w, VARINT, "slot node id"))
                elif n == 2:
                    slot[1] = _text(buf, v, w, "slot_name")
            node.slots.append(tuple(slot))
        elif number == 5:
            s, e = _want(value, wire, LENGTH, "has_checkpoint_values")
            node.has_values = False
            for n, w, v in fields(buf, s, e):
                if n == 1:
                    node.has_values = bool(_want(v, w, VARINT, "value"))
    return node
