"""The protobuf messages of a TensorBoard event file, built at run time.

An event file holds `tensorflow.Event` records; a summary event carries a `tensorflow.Summary`
whose values are `TensorProto`s tagged with `SummaryMetadata` (the plugin that draws them).
The classes come from a FileDescriptorProto that spells out the fields TF 2 writes (from
tensorflow/core/util/event.proto, core/framework/summary.proto, tensor.proto and
tensor_shape.proto: same names and field numbers, so the bytes are TF's), in a private
DescriptorPool so that TF or TensorBoard imported in the same process, which register the
same full names in the default pool, do not clash. Fields TF 2's tf.summary never writes (the
TF 1 image/histogram/audio values, graphs, session logs) are left out; protobuf keeps them as
unknown fields when a record is re-read.

`protobuf` is an optional dependency (the `tensorboard` extra): importing minitf never needs
it, the first summary written without it raises ImportError saying how to install it.
"""
__all__ = ["messages", "DTYPE_ENUM", "PLUGIN_NAMES"]

# tensorflow.DataType numbers of the dtypes a summary tensor may have
DTYPE_ENUM = {"float16": 19, "bfloat16": 14, "float32": 1, "float64": 2, "int8": 6, "int16": 5,
              "int32": 3, "int64": 9, "uint8": 4, "uint16": 17, "uint32": 22, "uint64": 23,
              "bool": 10, "complex64": 8, "complex128": 18, "string": 7}
PLUGIN_NAMES = {"scalar": "scalars", "histogram": "histograms", "image": "images", "text": "text"}

# field types: 1 double, 2 float, 3 int64, 5 int32, 8 bool, 9 string, 11 message, 12 bytes;
# labels: 1 optional, 3 repeated. (message, [(field, number, type, label, message type, oneof)])
_MESSAGES = [
    ("TensorShapeProto", [("dim", 2, 11, 3, ".tensorflow.TensorShapeProto.Dim", None),
                          ("unknown_rank", 3, 8, 1, None, None)]),
    ("TensorProto", [("dtype", 1, 5, 1, None, None),
                     ("tensor_shape", 2, 11, 1, ".tensorflow.TensorShapeProto", None),
                     ("version_number", 3, 5, 1, None, None),
                     ("tensor_content", 4, 12, 1, None, None),
                     ("float_val", 5, 2, 3, None, None),
                     ("double_val", 6, 1, 3, None, None),
                     ("int_val", 7, 5, 3, None, None),
                     ("string_val", 8, 12, 3, None, None),
                     ("int64_val", 10, 3, 3, None, None),
                     ("bool_val", 11, 8, 3, None, None)]),
    ("SummaryMetadata", [("plugin_data", 1, 11, 1, ".tensorflow.SummaryMetadata.PluginData", None),
                         ("display_name", 2, 9, 1, None, None),
                         ("summary_description", 3, 9, 1, None, None),
                         ("data_class", 4, 5, 1, None, None)]),
    ("Summary", [("value", 1, 11, 3, ".tensorflow.Summary.Value", None)]),
    ("SourceMetadata", [("writer", 1, 9, 1, None, None)]),
    ("NodeDef", [("name", 1, 9, 1, None, None), ("op", 2, 9, 1, None, None),
                 ("input", 3, 9, 3, None, None), ("device", 4, 9, 1, None, None)]),
    ("VersionDef", [("producer", 1, 5, 1, None, None), ("min_consumer", 2, 5, 1, None, None)]),
    ("GraphDef", [("node", 1, 11, 3, ".tensorflow.NodeDef", None),
                  ("versions", 4, 11, 1, ".tensorflow.VersionDef", None)]),
    ("Event", [("wall_time", 1, 1, 1, None, None),
               ("step", 2, 3, 1, None, None),
               ("file_version", 3, 9, 1, None, 0),
               ("graph_def", 4, 12, 1, None, 0),
               ("summary", 5, 11, 1, ".tensorflow.Summary", 0),
               ("meta_graph_def", 9, 12, 1, None, 0),
               ("source_metadata", 10, 11, 1, ".tensorflow.SourceMetadata", None)]),
]
_NESTED = {
    "TensorShapeProto": ("Dim", [("size", 1, 3, 1, None, None), ("name", 2, 9, 1, None, None)]),
    "SummaryMetadata": ("PluginData", [("plugin_name", 1, 9, 1, None, None),
                                       ("content", 2, 12, 1, None, None)]),
    "Summary": ("Value", [("node_name", 7, 9, 1, None, None), ("tag", 1, 9, 1, None, None),
                          ("metadata", 9, 11, 1, ".tensorflow.SummaryMetadata", None),
                          ("simple_value", 2, 2, 1, None, 0),
                          ("tensor", 8, 11, 1, ".tensorflow.TensorProto", 0)]),
}
_ONEOFS = {"Event": "what", "Summary.Value": "value"}
_PACKED = {"float_val", "double_val", "int_val", "int64_val", "bool_val"}

_CLASSES = {}


def _require_protobuf():
    try:
        from google.protobuf import (descriptor_pb2, descriptor_pool,  # lazy: optional dependency
                                     message_factory)
    except ImportError:
        raise ImportError("tf.summary and the TensorBoard callback write protobuf records and need "
                          "the protobuf package: pip install 'minitf[tensorboard]' "
                          "(or pip install protobuf)") from None
    return descriptor_pb2, descriptor_pool, message_factory


def _add_fields(message, fields, oneof_name):
    if oneof_name is not None:
        message.oneof_decl.add(name=oneof_name)
    for name, number, type_, label, type_name, oneof in fields:
        field = message.field.add(name=name, number=number, type=type_, label=label, json_name=name)
        if type_name:
            field.type_name = type_name
        if name in _PACKED:
            field.options.packed = True
        if oneof is not None:
            field.oneof_index = oneof


def _build():
    descriptor_pb2, descriptor_pool, message_factory = _require_protobuf()
    file_proto = descriptor_pb2.FileDescriptorProto(
        name="minitf/tensorflow_event.proto", package="tensorflow", syntax="proto3")
    for name, fields in _MESSAGES:
        message = file_proto.message_type.add(name=name)
        if name in _NESTED:
            nested_name, nested_fields = _NESTED[name]
            nested = message.nested_type.add(name=nested_name)
            _add_fields(nested, nested_fields, _ONEOFS.get(f"{name}.{nested_name}"))
        _add_fields(message, fields, _ONEOFS.get(name))
    pool = descriptor_pool.DescriptorPool()
    pool.Add(file_proto)
    for name, _ in _MESSAGES:
        _CLASSES[name] = message_factory.GetMessageClass(pool.FindMessageTypeByName(f"tensorflow.{name}"))


def messages():
    """{name: protobuf message class} for Event, Summary, SummaryMetadata, TensorProto, ...

    Raises:
      ImportError: the protobuf package is not installed.
    """
    if not _CLASSES:
        _build()
    return _CLASSES
