"""The SavedModel's proto codec, constants and structures, without TF."""
import collections

import numpy as np
import pytest

import minitf as tf
from minitf.saved_model import codec, structure, tensors
from minitf.saved_model.codec import Msg


def test_round_trip_keeps_every_kind_of_field():
    node = Msg("NodeDef", name="mul", op="Mul", input=["x", "y:z:0", "^c"], attr={
        "T": tensors.Attr.type(tf.float32).proto(),
        "strides": tensors.Attr.ints([1, 2, -3]).proto(),
        "b": tensors.Attr.bool(False).proto(),         # a set oneof member at its default
        "f": tensors.Attr.float(0.5).proto(),
        "s": tensors.Attr.str("SAME").proto()})
    back = codec.decode("NodeDef", codec.encode(node))
    assert back.name == "mul" and back.input == ["x", "y:z:0", "^c"]
    attrs = tensors.attr_values(back.attr)
    assert attrs == {"T": tf.float32, "strides": [1, 2, -3], "b": False, "f": 0.5, "s": b"SAME"}
    assert back.attr["b"].has("b") and not back.attr["b"].has("i")


def test_defaults_absent_fields_and_unknown_fields():
    msg = codec.decode("VersionDef", b"")
    assert msg.producer == 0 and msg.bad_consumers == [] and not msg.has("producer")
    # field 99 (unknown) is skipped, as protobuf skips it
    data = codec.encode(Msg("VersionDef", producer=7)) + b"\x98\x06\x01"
    assert codec.decode("VersionDef", data).producer == 7
    with pytest.raises(AttributeError):
        Msg("VersionDef", nonsense=1)


def test_packed_and_unpacked_repeated_scalars_decode_alike():
    packed = codec.encode(Msg("VersionDef", bad_consumers=[1, 300, -2]))
    unpacked = b"".join(b"\x18" + codec.encode(Msg("VersionDef", producer=v))[1:]
                        for v in (1, 300, -2))
    assert codec.decode("VersionDef", packed).bad_consumers == [1, 300, -2]
    assert codec.decode("VersionDef", unpacked).bad_consumers == [1, 300, -2]


def test_sint64_zigzag_and_maps():
    for value in (0, -1, 1, -(1 << 62), (1 << 62)):
        encoded = codec.encode(Msg("StructuredValue", int64_value=value))
        assert codec.decode("StructuredValue", encoded).int64_value == value
    assert codec.encode(Msg("StructuredValue", int64_value=-1)) == b"\x60\x01"   # zigzag 1
    ret = codec.decode("FunctionDef", codec.encode(Msg("FunctionDef", ret={"b": "x:0", "a": "y"})))
    assert ret.ret == {"a": "y", "b": "x:0"}


def test_malformed_bytes_raise_wire_error():
    good = codec.encode(Msg("NodeDef", name="n", op="Relu", input=["x"]))
    for bad in (good[:-1], good[:2], b"\x0a\xff\xff\xff\xff\x0f", b"\x0f", b"\x00\x01",
                b"\x0a\x02\xff\xfe"):
        with pytest.raises(codec.WireError):
            codec.decode("NodeDef", bad)
    with pytest.raises(codec.WireError, match="wire type"):
        codec.decode("NodeDef", b"\x08\x01")       # name sent as a varint


@pytest.mark.parametrize("value,dtype", [
    (np.arange(6, dtype="float32").reshape(2, 3), None), (np.array(3.5), tf.float64),
    (np.array([1, -2], "int64"), None), (np.array([True, False]), None),
    (np.array([0.5, -2.0], "float16"), None), (np.array([[1, 2]], "uint8"), None),
    (np.array([1 + 2j], "complex64"), None), ([b"a", b"bc"], tf.string),
    (np.array([1.5, -3.25], "float32"), tf.bfloat16)])
def test_tensor_protos_round_trip(value, dtype):
    proto = tensors.tensor_proto(value, dtype)
    array, got_dtype = tensors.array_of(codec.decode("TensorProto", codec.encode(proto)))
    if dtype is not None:
        assert got_dtype == dtype
    if got_dtype == tf.string:
        assert list(array) == [b"a", b"bc"]
    else:
        np.testing.assert_array_equal(array, np.asarray(value))


def test_tensor_proto_short_forms_and_refusals():
    # TF writes a zeros constant as one value: it fills the shape
    short = Msg("TensorProto", dtype=1, float_val=[0.25], tensor_shape=tensors.shape_proto([2, 2]))
    np.testing.assert_array_equal(tensors.array_of(short)[0], np.full((2, 2), 0.25, "float32"))
    half = Msg("TensorProto", dtype=19, half_val=[0x3C00], tensor_shape=tensors.shape_proto([]))
    assert tensors.array_of(half)[0] == np.float16(1.0)
    for bad in (Msg("TensorProto", dtype=1, tensor_content=b"\x00" * 5,
                    tensor_shape=tensors.shape_proto([2])),
                Msg("TensorProto", dtype=1, float_val=[1., 2., 3.],
                    tensor_shape=tensors.shape_proto([2])),
                Msg("TensorProto", dtype=1, tensor_shape=tensors.shape_proto([None])),
                Msg("TensorProto", dtype=77, tensor_shape=tensors.shape_proto([]))):
        with pytest.raises(codec.WireError):
            tensors.array_of(bad)


def test_shapes():
    for shape in (None, [], [None, 3], [2, 0, 5]):
        back = tensors.shape_of(codec.decode("TensorShapeProto",
                                             codec.encode(tensors.shape_proto(shape))))
        assert back.as_list() == shape if shape is not None else back.rank is None


def test_structures_round_trip():
    Point = collections.namedtuple("Point", ["x", "y"])
    value = ((tf.TensorSpec([None, 3], tf.float32, "x"), 1, 2.5, "s", True, None,
              [tf.float64, tf.TensorShape([2, None])]), {"k": Point(1, [2])})
    back = structure.decode_structure(codec.decode(
        "StructuredValue", codec.encode(structure.encode_structure(value))))
    assert back[0][0] == tf.TensorSpec([None, 3], tf.float32, "x") and back[0][0].name == "x"
    assert back[0][1:6] == (1, 2.5, "s", True, None)
    assert back[0][6][0] == tf.float64 and back[0][6][1].as_list() == [2, None]
    assert back[1]["k"].x == 1 and back[1]["k"].y == [2] and type(back[1]["k"]).__name__ == "Point"
    with pytest.raises(TypeError, match="string keys"):
        structure.encode_structure({1: 2})
    with pytest.raises(TypeError, match="Could not encode"):
        structure.encode_structure(object())


def test_fullargspec_reads_through_decorators():
    spec = structure.fullargspec_value(tf.maximum, False)
    assert spec.args == ["x", "y", "name"] and spec.defaults == (None,)

    def f(self, a, b=2, *rest, c, d=4, **kw):
        return a
    spec = structure.fullargspec_value(f, True)
    assert spec == structure.FullArgSpec(["a", "b"], "rest", "kw", (2,), ["c", "d"], {"d": 4}, {})
