"""The protocol buffer messages of a SavedModel: names, field numbers and types, as TF declares them.

Field numbers are TF's (tensorflow/core/protobuf/saved_model.proto, meta_graph.proto,
saved_object_graph.proto, struct.proto, saver.proto, fingerprint.proto, trackable_object_graph.proto;
tensorflow/core/framework/graph.proto, node_def.proto, attr_value.proto, function.proto,
op_def.proto, tensor.proto, tensor_shape.proto, versions.proto, resource_handle.proto). A test in
tests/parity compares every message here with TF's own descriptors.

Each message is one line of `number name type` entries separated by ';'. A type is a scalar
(int32, int64, uint32, uint64, sint64, bool, enum, float, double, string, bytes, fixed64), a
message name, `map<K,V>` (a repeated entry message with key 1 and value 2), with a leading `*` for
a repeated field; a trailing `|` marks a member of a oneof (written even when it holds the
default, as protobuf does for a set oneof). Messages TF defines that minitf never reads or writes
(GraphDebugInfo, Any's payloads, FullTypeDef details) are left out: their fields are skipped on
reading, as protobuf skips unknown fields.
"""

__all__ = ["MESSAGES", "Field", "SCALARS"]

SCALARS = {"int32", "int64", "uint32", "uint64", "sint64", "bool", "enum", "float", "double",
           "string", "bytes", "fixed64"}

_TEXT = {
    # saved_model.proto, meta_graph.proto, saver.proto
    "SavedModel": "1 saved_model_schema_version int64; 2 meta_graphs *MetaGraphDef",
    "MetaGraphDef": "1 meta_info_def MetaInfoDef; 2 graph_def GraphDef; 3 saver_def SaverDef; "
                    "4 collection_def map<string,CollectionDef>; "
                    "5 signature_def map<string,SignatureDef>; 6 asset_file_def *AssetFileDef; "
                    "7 object_graph_def SavedObjectGraph",
    "MetaInfoDef": "1 meta_graph_version string; 2 stripped_op_list OpList; 4 tags *string; "
                   "5 tensorflow_version string; 6 tensorflow_git_version string; "
                   "7 stripped_default_attrs bool; 8 function_aliases map<string,string>",
    "OpList": "1 op *OpDef",
    "SaverDef": "1 filename_tensor_name string; 2 save_tensor_name string; 3 restore_op_name string; "
                "4 max_to_keep int32; 5 sharded bool; 6 keep_checkpoint_every_n_hours float; "
                "7 version enum",
    "CollectionDef": "1 node_list NodeList|; 2 bytes_list BytesList|",
    "NodeList": "1 value *string",
    "BytesList": "1 value *bytes",
    "SignatureDef": "1 inputs map<string,TensorInfo>; 2 outputs map<string,TensorInfo>; "
                    "3 method_name string",
    "TensorInfo": "1 name string|; 2 dtype enum; 3 tensor_shape TensorShapeProto",
    "AssetFileDef": "1 tensor_info TensorInfo; 2 filename string",
    # graph.proto, node_def.proto, function.proto, op_def.proto, versions.proto
    "GraphDef": "1 node *NodeDef; 2 library FunctionDefLibrary; 3 version int32; 4 versions VersionDef",
    "VersionDef": "1 producer int32; 2 min_consumer int32; 3 bad_consumers *int32",
    "NodeDef": "1 name string; 2 op string; 3 input *string; 4 device string; "
               "5 attr map<string,AttrValue>",
    "FunctionDefLibrary": "1 function *FunctionDef; 2 gradient *GradientDef; "
                          "3 registered_gradients *RegisteredGradient",
    "GradientDef": "1 function_name string; 2 gradient_func string",
    "RegisteredGradient": "1 gradient_func string; 2 registered_op_type string",
    "FunctionDef": "1 signature OpDef; 3 node_def *NodeDef; 4 ret map<string,string>; "
                   "5 attr map<string,AttrValue>; 6 control_ret map<string,string>; "
                   "7 arg_attr map<uint32,ArgAttrs>; 8 resource_arg_unique_id map<uint32,uint32>",
    "ArgAttrs": "1 attr map<string,AttrValue>",
    "OpDef": "1 name string; 2 input_arg *ArgDef; 3 output_arg *ArgDef; 4 attr *AttrDef; "
             "5 summary string; 6 description string; 16 is_aggregate bool; "
             "17 is_stateful bool; 18 is_commutative bool; 19 allows_uninitialized_input bool; "
             "20 control_output *string; 21 is_distributed_communication bool",
    "ArgDef": "1 name string; 2 description string; 3 type enum; 4 type_attr string; "
              "5 number_attr string; 6 type_list_attr string; 7 handle_data *DtypeAndShape; "
              "16 is_ref bool",
    "AttrDef": "1 name string; 2 type string; 3 default_value AttrValue; 4 description string; "
               "5 has_minimum bool; 6 minimum int64; 7 allowed_values AttrValue",
    "DtypeAndShape": "1 dtype enum; 2 shape TensorShapeProto",
    # attr_value.proto, tensor.proto, tensor_shape.proto
    "AttrValue": "1 list ListValue|; 2 s bytes|; 3 i int64|; 4 f float|; 5 b bool|; 6 type enum|; "
                 "7 shape TensorShapeProto|; 8 tensor TensorProto|; 9 placeholder string|; "
                 "10 func NameAttrList|",
    "ListValue": "2 s *bytes; 3 i *int64; 4 f *float; 5 b *bool; 6 type *enum; "
                 "7 shape *TensorShapeProto; 8 tensor *TensorProto; 9 func *NameAttrList",
    "NameAttrList": "1 name string; 2 attr map<string,AttrValue>",
    "TensorProto": "1 dtype enum; 2 tensor_shape TensorShapeProto; 3 version_number int32; "
                   "4 tensor_content bytes; 5 float_val *float; 6 double_val *double; "
                   "7 int_val *int32; 8 string_val *bytes; 9 scomplex_val *float; "
                   "10 int64_val *int64; 11 bool_val *bool; 12 dcomplex_val *double; "
                   "13 half_val *int32; 16 uint32_val *uint32; 17 uint64_val *uint64",
    "TensorShapeProto": "2 dim *Dim; 3 unknown_rank bool",
    "Dim": "1 size int64; 2 name string",
    # saved_object_graph.proto, trackable_object_graph.proto
    "SavedObjectGraph": "1 nodes *SavedObject; 2 concrete_functions map<string,SavedConcreteFunction>",
    "SavedObject": "1 children *ObjectReference; 3 slot_variables *SlotVariableReference; "
                   "4 user_object SavedUserObject|; 5 asset SavedAsset|; 6 function SavedFunction|; "
                   "7 variable SavedVariable|; 8 bare_concrete_function SavedBareConcreteFunction|; "
                   "9 constant SavedConstant|; 10 resource SavedResource|; "
                   "12 captured_tensor CapturedTensor|; 13 registered_name string; "
                   "15 dependencies *ObjectReference; 16 registered_saver string",
    "ObjectReference": "1 node_id int32; 2 local_name string",
    "SlotVariableReference": "1 original_variable_node_id int32; 2 slot_name string; "
                             "3 slot_variable_node_id int32",
    "SavedUserObject": "1 identifier string; 2 version VersionDef; 3 metadata string",
    "SavedAsset": "1 asset_file_def_index int32",
    "SavedFunction": "1 concrete_functions *string; 2 function_spec FunctionSpec",
    "SavedConcreteFunction": "2 bound_inputs *int32; 3 canonicalized_input_signature StructuredValue; "
                             "4 output_signature StructuredValue",
    "SavedBareConcreteFunction": "1 concrete_function_name string; 2 argument_keywords *string; "
                                 "3 allowed_positional_arguments int64; 4 function_spec FunctionSpec",
    "SavedConstant": "1 operation string",
    "SavedVariable": "1 dtype enum; 2 shape TensorShapeProto; 3 trainable bool; "
                     "4 synchronization enum; 5 aggregation enum; 6 name string; 7 device string",
    "FunctionSpec": "1 fullargspec StructuredValue; 2 is_method bool; 5 input_signature StructuredValue; "
                    "6 jit_compile enum",
    "SavedResource": "1 device string",
    "CapturedTensor": "1 name string; 2 concrete_function string",
    # struct.proto
    "StructuredValue": "1 none_value NoneValue|; 11 float64_value double|; 12 int64_value sint64|; "
                       "13 string_value string|; 14 bool_value bool|; "
                       "31 tensor_shape_value TensorShapeProto|; 32 tensor_dtype_value enum|; "
                       "33 tensor_spec_value TensorSpecProto|; 34 type_spec_value TypeSpecProto|; "
                       "51 list_value ListValueS|; 52 tuple_value TupleValue|; "
                       "53 dict_value DictValue|; 54 named_tuple_value NamedTupleValue|",
    "NoneValue": "",
    "ListValueS": "1 values *StructuredValue",
    "TupleValue": "1 values *StructuredValue",
    "DictValue": "1 fields map<string,StructuredValue>",
    "PairValue": "1 key string; 2 value StructuredValue",
    "NamedTupleValue": "1 name string; 2 values *PairValue",
    "TensorSpecProto": "1 name string; 2 shape TensorShapeProto; 3 dtype enum",
    "TypeSpecProto": "1 type_spec_class enum; 2 type_state StructuredValue; "
                     "3 type_spec_class_name string; 4 num_flat_components int32",
    # fingerprint.proto
    "FingerprintDef": "1 saved_model_checksum uint64; 2 graph_def_program_hash uint64; "
                      "3 signature_def_hash uint64; 4 saved_object_graph_hash uint64; "
                      "5 checkpoint_hash uint64; 6 version VersionDef; 7 uuid string",
}

# TF's full names of the messages above whose short name here differs (for the descriptor test).
TF_NAMES = {"MetaInfoDef": "MetaGraphDef.MetaInfoDef", "NodeList": "CollectionDef.NodeList",
            "BytesList": "CollectionDef.BytesList", "ArgAttrs": "FunctionDef.ArgAttrs",
            "ArgDef": "OpDef.ArgDef", "AttrDef": "OpDef.AttrDef",
            "DtypeAndShape": "ResourceHandleProto.DtypeAndShape", "ListValue": "AttrValue.ListValue",
            "Dim": "TensorShapeProto.Dim",
            "ObjectReference": "TrackableObjectGraph.TrackableObject.ObjectReference",
            "SlotVariableReference": "TrackableObjectGraph.TrackableObject.SlotVariableReference",
            "ListValueS": "ListValue"}


class Field:
    """One field of a message: its number, name, type, and whether it repeats or is a oneof."""

    __slots__ = ("number", "name", "kind", "repeated", "oneof", "key_kind", "value_kind")

    def __init__(self, number, name, kind, repeated=False, oneof=False):
        self.number, self.name, self.kind = number, name, kind
        self.repeated, self.oneof = repeated, oneof
        self.key_kind = self.value_kind = None
        if kind.startswith("map<"):
            self.key_kind, self.value_kind = kind[4:-1].split(",")
            self.kind, self.repeated = "map", True

    @property
    def is_message(self):
        """Whether values of this field are messages (maps: whether the values are)."""
        kind = self.value_kind if self.kind == "map" else self.kind
        return kind not in SCALARS


def _parse(text):
    fields = {}
    for part in filter(None, (p.strip() for p in text.split(";"))):
        number, name, kind = part.split()
        repeated, oneof = kind.startswith("*"), kind.endswith("|")
        fields[int(number)] = Field(int(number), name, kind.strip("*|"), repeated, oneof)
    return fields


MESSAGES = {name: _parse(text) for name, text in _TEXT.items()}
