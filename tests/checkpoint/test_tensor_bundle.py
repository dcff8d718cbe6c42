"""TF's tensor bundle written and read by minitf: the protobuf wire codec (cross-checked with the
protobuf library built from TF's .proto field numbers), the SSTable of the '.index' file, and the
bundle's values of every dtype."""
import os

import numpy as np
import pytest

import minitf as tf
from minitf.checkpoint import proto_wire, protos, sstable, tensor_bundle
from minitf.ops.crc32c import crc32c

descriptor_pb2 = pytest.importorskip("google.protobuf.descriptor_pb2")
from google.protobuf import message_factory  # noqa: E402  (after importorskip)

_T = descriptor_pb2.FieldDescriptorProto
_FIELDS = {  # message: [(name, number, type, label, message type)], from TF's .proto files
    "Dim": [("size", 1, _T.TYPE_INT64, 1, None), ("name", 2, _T.TYPE_STRING, 1, None)],
    "TensorShapeProto": [("dim", 2, _T.TYPE_MESSAGE, 3, "Dim"), ("unknown_rank", 3, _T.TYPE_BOOL, 1, None)],
    "VersionDef": [("producer", 1, _T.TYPE_INT32, 1, None), ("min_consumer", 2, _T.TYPE_INT32, 1, None),
                   ("bad_consumers", 3, _T.TYPE_INT32, 3, None)],
    "BundleHeaderProto": [("num_shards", 1, _T.TYPE_INT32, 1, None), ("endianness", 2, _T.TYPE_INT32, 1, None),
                          ("version", 3, _T.TYPE_MESSAGE, 1, "VersionDef")],
    "BundleEntryProto": [("dtype", 1, _T.TYPE_INT32, 1, None), ("shape", 2, _T.TYPE_MESSAGE, 1, "TensorShapeProto"),
                         ("shard_id", 3, _T.TYPE_INT32, 1, None), ("offset", 4, _T.TYPE_INT64, 1, None),
                         ("size", 5, _T.TYPE_INT64, 1, None), ("crc32c", 6, _T.TYPE_FIXED32, 1, None)],
    "ObjectReference": [("node_id", 1, _T.TYPE_INT32, 1, None), ("local_name", 2, _T.TYPE_STRING, 1, None)],
    "SerializedTensor": [("name", 1, _T.TYPE_STRING, 1, None), ("full_name", 2, _T.TYPE_STRING, 1, None),
                         ("checkpoint_key", 3, _T.TYPE_STRING, 1, None)],
    "SlotVariableReference": [("original_variable_node_id", 1, _T.TYPE_INT32, 1, None),
                              ("slot_name", 2, _T.TYPE_STRING, 1, None),
                              ("slot_variable_node_id", 3, _T.TYPE_INT32, 1, None)],
    "BoolValue": [("value", 1, _T.TYPE_BOOL, 1, None)],
    "TrackableObject": [("children", 1, _T.TYPE_MESSAGE, 3, "ObjectReference"),
                        ("attributes", 2, _T.TYPE_MESSAGE, 3, "SerializedTensor"),
                        ("slot_variables", 3, _T.TYPE_MESSAGE, 3, "SlotVariableReference"),
                        ("has_checkpoint_values", 5, _T.TYPE_MESSAGE, 1, "BoolValue")],
    "TrackableObjectGraph": [("nodes", 1, _T.TYPE_MESSAGE, 3, "TrackableObject")],
}


@pytest.fixture(scope="module")
def pb():
    """{message name: protobuf class} built from `_FIELDS` (proto3, like TF's files)."""
    from google.protobuf import descriptor_pool
    fd = descriptor_pb2.FileDescriptorProto(name="minitf_ckpt_test.proto", package="t", syntax="proto3")
    for name, fields in _FIELDS.items():
        msg = fd.message_type.add(name=name)
        for fname, number, ftype, label, type_name in fields:
            f = msg.field.add(name=fname, number=number, type=ftype, label=label)
            if type_name:
                f.type_name = ".t." + type_name
            if label == 3 and ftype != _T.TYPE_MESSAGE:
                f.options.packed = True
    pool = descriptor_pool.DescriptorPool()
    pool.Add(fd)
    return {name: message_factory.GetMessageClass(pool.FindMessageTypeByName("t." + name))
            for name in _FIELDS}


def test_header_and_entries_are_what_protobuf_writes(pb):
    header = pb["BundleHeaderProto"](num_shards=1)
    header.version.producer = 1
    assert protos.encode_header(1) == header.SerializeToString()
    for shape, offset, size, crc, shard in [((), 0, 8, 0xDEADBEEF, 0), ((3, 0, 7), 123456789012, 0, 0, 2),
                                            ((1, 5), 4, 20, 1, 0)]:
        entry = pb["BundleEntryProto"](dtype=1, shard_id=shard, offset=offset, size=size, crc32c=crc)
        entry.shape.SetInParent()
        for d in shape:
            entry.shape.dim.add(size=d)
        ours = protos.encode_entry(1, shape, shard, offset, size, crc)
        assert ours == entry.SerializeToString()
        back = protos.decode_entry(ours)
        assert (back.shape, back.offset, back.size, back.crc32c, back.shard_id) == \
            (list(shape), offset, size, crc, shard)


def test_object_graph_round_trips_through_protobuf(pb):
    nodes = [protos.ObjectNode([("model", 1), ("back", 0)], has_values=True),
             protos.ObjectNode([("é/x", 2)], [("VARIABLE_VALUE", "m/w", "model/w/.ATTRIBUTES/VARIABLE_VALUE")],
                               [(2, "m", 3)], True),
             protos.ObjectNode(has_values=False), protos.ObjectNode()]
    ours = protos.encode_object_graph(nodes)
    graph = pb["TrackableObjectGraph"]()
    graph.ParseFromString(ours)
    assert graph.SerializeToString() == ours
    assert graph.nodes[1].children[0].local_name == "é/x" and graph.nodes[0].children[1].node_id == 0
    assert graph.nodes[1].slot_variables[0].slot_variable_node_id == 3
    back = protos.decode_object_graph(ours, 10)
    assert [n.children for n in back] == [n.children for n in nodes]
    assert [n.has_values for n in back] == [True, True, False, None]


def test_wire_decoder_refuses_malformed_messages():
    bad = [b"\x08", b"\x0a\x05ab", b"\x08" + b"\xff" * 11, b"\x00\x01", b"\x0b\x01",
           b"\x0d\x01\x02", b"\x09" + b"\x00" * 7]
    for data in bad:
        with pytest.raises(proto_wire.WireError):
            list(proto_wire.fields(data))
    with pytest.raises(proto_wire.WireError):
        protos.decode_entry(b"\x0a\x00")  # dtype sent as bytes
    with pytest.raises(proto_wire.WireError, match="outside"):
        protos.decode_object_graph(protos.encode_object_graph([protos.ObjectNode([("a", 7)])]), 10)
    with pytest.raises(proto_wire.WireError, match="more than"):
        protos.decode_object_graph(protos.encode_object_graph([protos.ObjectNode()] * 5), 4)
    assert proto_wire.as_int32(proto_wire.read_varint(proto_wire.varint(-5), 0, 10)[0]) == -5


def test_table_layout_blocks_restarts_and_separators():
    items = [(f"key{i:06d}".encode() + b"x" * 40, bytes([i % 256]) * (i % 7)) for i in range(3000)]
    data = sstable.build_table(items, block_size=4096)
    assert sstable.read_table(data, 10**6) == items
    assert sstable.read_table(sstable.build_table([]), 10) == []
    assert sstable._shortest_separator(b"abcd", b"abzz") == b"abd"
    assert sstable._shortest_separator(b"abc", b"abcd") == b"abc"
    assert sstable._short_successor(b"\xff\xffa") == b"\xff\xffb"
    with pytest.raises(sstable.TableError, match="more than"):
        sstable.read_table(data, 100)


def _corruptions(data):
    """(what, bytes) variants of a good table."""
    n = len(data)
    yield "truncated footer", data[:40]
    yield "truncated", data[:n // 2] + data[-48:]
    yield "bad magic", data[:-1] + bytes([data[-1] ^ 1])
    for i in range(0, n - 48, max(1, (n - 48) // 40)):
        yield f"flip at {i}", data[:i] + bytes([data[i] ^ 0x10]) + data[i + 1:]
    yield "handle past end", data[:-48] + proto_wire.varint(n) + proto_wire.varint(10) + \
        proto_wire.varint(0) + proto_wire.varint(3) + b"\0" * 32 + data[-8:]


def test_table_reader_refuses_damaged_tables():
    items = [(f"k{i:04d}".encode(), b"v" * (i % 30)) for i in range(400)]
    data = sstable.build_table(items, block_size=1024)
    tried = 0
    for what, bad in _corruptions(data):
        tried += 1
        with pytest.raises(sstable.TableError):
            sstable.read_table(bad, 10**6)
    assert tried > 40


def test_snappy_block_is_refused_by_name():
    data = bytearray(sstable.build_table([(b"a", b"b")]))
    size = 5 + 4 + 4  # the entry, one restart offset, the restart count
    data[size] = 1  # compression type: snappy, with a checksum to match, as a real one has
    data[size + 1:size + 5] = sstable._mask(crc32c(bytes(data[:size + 1]))).to_bytes(4, "little")
    with pytest.raises(sstable.TableError, match="snappy"):
        sstable.read_table(bytes(data), 10)


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "int8", "int16", "int32",
                                   "int64", "uint8", "uint16", "uint32", "uint64", "bool", "complex64",
                                   "complex128"])
def test_every_dtype_round_trips_through_a_checkpoint(dtype, tmp_path):
    rng = np.random.default_rng(0)
    if dtype == "bool":
        value = rng.uniform(size=(3, 4)) > 0.5
    elif dtype.startswith("complex"):
        value = (rng.normal(size=(3, 4)) + 1j * rng.normal(size=(3, 4))).astype(dtype)
    elif "int" in dtype:
        info = np.iinfo(dtype)
        value = np.array([[info.min, info.max, 0, 1]] * 3, dtype=dtype)
    else:
        value = np.array([[np.inf, -np.inf, 0.0, -0.0]] + [rng.normal(size=4)] * 2, dtype=dtype)
    v = tf.Variable(value, dtype=getattr(tf, dtype))
    path = tf.train.Checkpoint(v=v).write(str(tmp_path / "c"))
    w = tf.Variable(np.zeros_like(value), dtype=getattr(tf, dtype))
    tf.train.Checkpoint(v=w).read(path).assert_consumed()
    assert w.numpy().tobytes() == v.numpy().tobytes()
    reader = tf.train.load_checkpoint(path)
    assert reader.get_variable_to_dtype_map()["v/.ATTRIBUTES/VARIABLE_VALUE"] == getattr(tf, dtype)


def test_bfloat16_values_are_two_bytes_each_and_keep_their_dtype(tmp_path):
    # minitf holds bfloat16 values in float32 arrays; the file holds TF's 2-byte bfloat16
    value = np.random.default_rng(0).normal(size=(3, 4)).astype(np.float32)
    value = (value.view(np.uint32) & np.uint32(0xFFFF0000)).view(np.float32)  # exact in bf16
    key = "h/.ATTRIBUTES/VARIABLE_VALUE"  # no object graph: restores match keys, as in HDF5 files
    prefix = tensor_bundle.write_bundle(str(tmp_path / "b"), {
        key: tensor_bundle.BundleValue(value, "bfloat16")})
    with tensor_bundle.BundleReader(prefix) as reader:
        entry = reader.entries[key]
        assert (entry.dtype_name, entry.size) == ("bfloat16", 24)
        assert reader.read(entry).tobytes() == value.tobytes()
    assert tf.train.load_checkpoint(prefix).get_variable_to_dtype_map()[key] == tf.bfloat16
    with pytest.raises(ValueError, match="bfloat16.*float32"):  # not silently widened
        tf.train.Checkpoint(h=tf.Variable(np.zeros((3, 4), np.float32))).read(prefix)


def test_string_tensors_and_empty_tensors(tmp_path):
    prefix = str(tmp_path / "s")
    tensor_bundle.write_bundle(prefix, {
        "words": tensor_bundle.BundleValue([b"", b"a", b"\x00" * 300], "string", shape=(3,)),
        "none": tensor_bundle.BundleValue([], "string", shape=(0, 2)),
        "empty": tensor_bundle.BundleValue(np.zeros((0, 4), np.float32), "float32")})
    with tensor_bundle.BundleReader(prefix) as reader:
        assert reader.read_strings(reader.entries["words"]) == [b"", b"a", b"\x00" * 300]
        assert reader.read_strings(reader.entries["none"]) == []
        assert reader.read(reader.entries["empty"]).shape == (0, 4)
    words = tf.train.load_variable(prefix, "words")
    assert list(words) == [b"", b"a", b"\x00" * 300]
    assert sorted(os.listdir(tmp_path)) == ["s.data-00000-of-00001", "s.index"]


def test_slots_follow_their_variables_not_the_optimizers_build_order(tmp_path):
    def make():
        model = tf.keras.Sequential([tf.keras.Input((4,)), tf.keras.layers.Dense(4), tf.keras.layers.Dense(4)])
        return model, tf.keras.optimizers.Adam(0.1)
    model, opt = make()
    x = np.random.default_rng(0).normal(size=(3, 4)).astype(np.float32)
    for _ in range(2):
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(model(x) ** 2)
        opt.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))
    path = tf.train.Checkpoint(model=model, optimizer=opt).write(str(tmp_path / "c"))
    model2, opt2 = make()
    opt2.build(list(reversed(model2.trainable_variables)))  # same shapes, another order
    tf.train.Checkpoint(model=model2, optimizer=opt2).read(path).assert_consumed()
    for a, b in zip(model.trainable_variables, model2.trainable_variables):
        for slot in ("m", "v"):
            assert opt.get_slot(a, slot).numpy().tobytes() == opt2.get_slot(b, slot).numpy().tobytes()
