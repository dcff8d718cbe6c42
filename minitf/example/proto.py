"""tf.train.Example and its parts (Features, Feature, BytesList, FloatList, Int64List,
FeatureList, FeatureLists, SequenceExample) as real protobuf messages.

The classes are built at run time from a FileDescriptorProto that spells out TF's
tensorflow/core/example/{feature,example}.proto, so there is no protoc step and no generated
file to keep in sync; the wire format is protobuf's own, hence byte-compatible with TF. The
descriptors live in a private DescriptorPool: TF itself may be imported in the same process
(the parity tests do) and registers the same full names ("tensorflow.Example") in the default
pool.

`protobuf` is an optional dependency (the `tfrecord` extra). Importing minitf never needs it;
the first use of one of these names without it raises ImportError saying how to install it.
"""
__all__ = ["MESSAGE_NAMES", "message_class", "require_protobuf"]

MESSAGE_NAMES = ("BytesList", "FloatList", "Int64List", "Feature", "Features", "FeatureList",
                 "FeatureLists", "Example", "SequenceExample")

_CLASSES = {}

# (message, [(field, number, type, label, message type or None, packed, oneof)], map entries)
# types: 9 string, 12 bytes, 2 float, 3 int64, 11 message; labels: 1 optional, 3 repeated
_MESSAGES = [
    ("BytesList", [("value", 1, 12, 3, None, False, None)]),
    ("FloatList", [("value", 1, 2, 3, None, True, None)]),
    ("Int64List", [("value", 1, 3, 3, None, True, None)]),
    ("Feature", [("bytes_list", 1, 11, 1, ".tensorflow.BytesList", False, 0),
                 ("float_list", 2, 11, 1, ".tensorflow.FloatList", False, 0),
                 ("int64_list", 3, 11, 1, ".tensorflow.Int64List", False, 0)]),
    ("Features", [("feature", 1, 11, 3, ".tensorflow.Features.FeatureEntry", False, None)]),
    ("FeatureList", [("feature", 1, 11, 3, ".tensorflow.Feature", False, None)]),
    ("FeatureLists", [("feature_list", 1, 11, 3, ".tensorflow.FeatureLists.FeatureListEntry", False, None)]),
    ("Example", [("features", 1, 11, 1, ".tensorflow.Features", False, None)]),
    ("SequenceExample", [("context", 1, 11, 1, ".tensorflow.Features", False, None),
                         ("feature_lists", 2, 11, 1, ".tensorflow.FeatureLists", False, None)]),
]
_MAP_ENTRIES = {"Features": ("FeatureEntry", ".tensorflow.Feature"),
                "FeatureLists": ("FeatureListEntry", ".tensorflow.FeatureList")}


def require_protobuf(what):
    """The `google.protobuf` modules needed here; ImportError naming the extra without them."""
    try:
        from google.protobuf import (descriptor_pb2, descriptor_pool,  # lazy: optional dependency
                                     message_factory)
    except ImportError:
        raise ImportError(f"{what} needs the protobuf package: pip install protobuf "
                          f"(or pip install 'minitf[tfrecord]')") from None
    return descriptor_pb2, descriptor_pool, message_factory


def _add_field(message, name, number, type_, label, type_name, packed, oneof):
    field = message.field.add(name=name, number=number, type=type_, label=label, json_name=name)
    if type_name:
        field.type_name = type_name
    if packed:
        field.options.packed = True
    if oneof is not None:
        field.oneof_index = oneof


def _build():
    descriptor_pb2, descriptor_pool, message_factory = require_protobuf("tf.train.Example")
    file_proto = descriptor_pb2.FileDescriptorProto(
        name="minitf/tensorflow_example.proto", package="tensorflow", syntax="proto3")
    for name, fields in _MESSAGES:
        message = file_proto.message_type.add(name=name)
        if name == "Feature":
            message.oneof_decl.add(name="kind")
        if name in _MAP_ENTRIES:
            entry_name, value_type = _MAP_ENTRIES[name]
            entry = message.nested_type.add(name=entry_name)
            entry.options.map_entry = True
            _add_field(entry, "key", 1, 9, 1, None, False, None)
            _add_field(entry, "value", 2, 11, 1, value_type, False, None)
        for field in fields:
            _add_field(message, *field)
    pool = descriptor_pool.DescriptorPool()
    pool.Add(file_proto)
    for name in MESSAGE_NAMES:
        cls = message_factory.GetMessageClass(pool.FindMessageTypeByName(f"tensorflow.{name}"))
        _CLASSES[name] = cls


def message_class(name):
    """The protobuf message class tf.train.<name> (built on first use).

    Raises:
      ImportError: the protobuf package is not installed.
    """
    if not _CLASSES:
        _build()
    return _CLASSES[name]
