"""tf.saved_model.save: an object, its variables and its traced functions in TF's SavedModel format.

The directory holds what TF 2.21 writes:

    saved_model.pb         a SavedModel proto: one MetaGraphDef tagged 'serve' holding the
                           GraphDef (every traced function as a FunctionDef, variable handles,
                           signature calls, the saver), the SignatureDefs, the SaverDef and the
                           SavedObjectGraph (the objects, variables and functions, by node id)
    variables/variables.index, variables.data-00000-of-00001
                           the variables as a tensor bundle, keyed as tf.train.Checkpoint keys
                           them, with the checkpoint's object graph (node ids equal to the
                           SavedObjectGraph's)
    assets/                files of tf.saved_model.Asset objects
    fingerprint.pb         hashes identifying the files

Objects are walked as checkpoints walk them (`minitf.checkpoint.object_graph`); each object's
tf.functions are saved with every trace they hold (a function with an input_signature is traced
if it was not), and the signatures get TF's wrappers (`signatures.py`). Every file is written
through a temporary file and renamed, saved_model.pb last, so a failed save leaves no
saved_model.pb that names missing variables.
"""
import hashlib
import inspect
import os
import shutil
import uuid

from minitf import backend
from minitf.checkpoint import object_graph, protos, tensor_bundle
from minitf.checkpoint.graph import OBJECT_GRAPH_KEY
from minitf.checkpoint.h5format import atomic_replace
from minitf.graph.concrete_function import ConcreteFunction
from minitf.recording import active_graph
from minitf.saved_model import keras_signature, signatures as sigs
from minitf.saved_model.codec import Msg, encode
from minitf.saved_model.export_graph import export_concrete
from minitf.saved_model.graph_def import TopGraph
from minitf.saved_model.options import Asset, SaveOptions
from minitf.saved_model.structure import encode_structure, fullargspec_value
from minitf.saved_model.tensors import dtype_enum, shape_proto
from minitf.tensor import Tensor
from minitf.tensor_spec import TensorSpec
from minitf.trackable import ListWrapper, Trackable
from minitf.variable import Variable
from minitf.version.version import VERSION
from minitf.api_export import export

__all__ = ["save", "SAVED_MODEL_FILENAME_PB", "VARIABLES_DIRECTORY", "VARIABLES_FILENAME",
           "ASSETS_DIRECTORY", "FINGERPRINT_FILENAME"]

SAVED_MODEL_FILENAME_PB = "saved_model.pb"
VARIABLES_DIRECTORY = "variables"
VARIABLES_FILENAME = "variables"
ASSETS_DIRECTORY = "assets"
FINGERPRINT_FILENAME = "fingerprint.pb"
TF_VERSION = "2.21.0"   # the TF release whose SavedModel layout this writes


def _version():
    return Msg("VersionDef", producer=1, min_consumer=1)


def _user_object(identifier):
    return Msg("SavedObject", user_object=Msg("SavedUserObject", identifier=identifier,
                                              version=_version()))


# A Keras model's compiled steps: execution machinery, not part of what is saved (Keras 3 hides
# them from SavedModels the same way).
_EXECUTION_FUNCTIONS = ("train_function", "test_function", "predict_function")


def _functions_of(obj):
    """[(attribute name, tf.function or ConcreteFunction)] of `obj`, sorted by name."""
    found = {}
    for name, attr in inspect.getmembers_static(type(obj)):
        if sigs._is_function(attr) and not isinstance(attr, type):
            found[name] = getattr(obj, name)
    for name, value in vars(obj).items():
        if name.startswith("_tf_function_") or name in _EXECUTION_FUNCTIONS:
            continue
        if sigs._is_function(value) or isinstance(value, ConcreteFunction):
            found[name] = value
    return sorted(found.items())


def _kind_of_junction(children):
    if all(name.isdigit() for name, _ in children):
        return "trackable_list_wrapper"
    return "trackable_dict_wrapper"


class _Saver:
    """Everything one `save` call writes, gathered before anything is written."""

    def __init__(self, root, signatures, options):
        self.root, self.options = root, options
        self.objects = []
        self.ckpt_nodes, self.values = object_graph.build(root, self.objects)
        self.nodes, self.var_nodes = [], {}
        self.concretes = {}          # concrete function name -> (ConcreteFunction, exported)
        self.library = []
        self.gradients = []          # custom gradients: (function name, op type, signature)
        self.functions_of_node = {}
        self.assets = []
        self._make_object_nodes()
        self._add_functions()
        self.signatures = self._signatures(signatures)

    # -- objects and variables ------------------------------------------------------------------
    def _make_object_nodes(self):
        by_key = dict(self.values)
        for i, ckpt in enumerate(self.ckpt_nodes):
            obj = self.objects[i] if i < len(self.objects) else None
            if obj is None or isinstance(obj, Variable):
                var = obj if obj is not None else by_key[ckpt.attributes[0][2]]
                node = Msg("SavedObject", variable=Msg(
                    "SavedVariable", dtype=dtype_enum(var.dtype), shape=shape_proto(var.shape),
                    trainable=bool(var.trainable), name=var.name.split(":")[0]))
                self.var_nodes[var._id] = i
            elif isinstance(obj, Asset):
                node = Msg("SavedObject", asset=Msg("SavedAsset",
                                                    asset_file_def_index=len(self.assets)))
                self.assets.append(obj)
            elif isinstance(obj, ListWrapper):
                node = _user_object("trackable_list_wrapper")
            elif isinstance(obj, Trackable):
                wrapper = type(obj).__name__
                node = _user_object({"_DictWrapper": "trackable_dict_wrapper",
                                     "_TupleWrapper": "trackable_tuple_wrapper"}.get(
                    wrapper, getattr(obj, "_saved_model_identifier", "_generic_user_object")))
                node._values["user_object"].metadata = getattr(obj, "_saved_model_metadata", "")
            else:
                node = _user_object(_kind_of_junction(ckpt.children))
            node.children = [Msg("ObjectReference", node_id=c, local_name=n) for n, c in ckpt.children]
            self.nodes.append(node)

    def _new_node(self, msg, parent, name):
        self.nodes.append(msg)
        self.nodes[parent].children.append(Msg("ObjectReference", node_id=len(self.nodes) - 1,
                                               local_name=name))
        return len(self.nodes) - 1

    # -- functions -------------------------------------------------------------------------------
    def _export(self, concrete):
        if concrete.name not in self.concretes:
            exported = export_concrete(concrete)
            for v in exported.variables:
                if v._id not in self.var_nodes:
                    raise AssertionError(
                        f"Tried to export a function which references an 'untracked' resource. "
                        f"TensorFlow objects (e.g. tf.Variable) captured by functions must be "
                        f"'tracked' by assigning them to an attribute of a tracked object or "
                        f"assigned to an attribute of the main object directly. See the "
                        f"information below:\n\tFunction name = {concrete.name}\n\tCaptured "
                        f"Tensor = {v!r}")
            self.concretes[concrete.name] = (concrete, exported)
            self.library.append(exported.fdef)
            self.library.extend(exported.functions)
            self.gradients.extend(exported.gradients)
        return self.concretes[concrete.name][1]

    def _bare_node(self, concrete, parent, name, keywords=None, positional=None, argspec=None):
        """A bare concrete function node for `concrete` under node `parent`."""
        if keywords is None:
            keywords = [p.op.name for p in concrete.graph.inputs]
        spec = Msg("FunctionSpec", fullargspec=encode_structure(
            argspec or fullargspec_value(None, False)), input_signature=encode_structure(None))
        return self._new_node(Msg("SavedObject", bare_concrete_function=Msg(
            "SavedBareConcreteFunction", concrete_function_name=concrete.name,
            argument_keywords=keywords,
            allowed_positional_arguments=len(keywords) if positional is None else positional,
            function_spec=spec)), parent, name)

    def _add_functions(self):
        count = len(self.nodes)
        for i in range(count):
            obj = self.objects[i] if i < len(self.objects) else None
            if not isinstance(obj, Trackable) or isinstance(obj, Variable):
                continue
            for name, fn in _functions_of(obj):
                if isinstance(fn, ConcreteFunction):
                    self._export(fn)
                    self._bare_node(fn, i, name)
                    continue
                if fn.input_signature is not None and not fn._list_all_concrete_functions():
                    fn.get_concrete_function()
                traces = fn._list_all_concrete_functions()
                for c in traces:
                    self._export(c)
                python_fn = fn.python_function
                spec = Msg("FunctionSpec", fullargspec=encode_structure(
                    fullargspec_value(python_fn, inspect.ismethod(python_fn))),
                    input_signature=encode_structure(
                        None if fn.input_signature is None else tuple(fn.input_signature)))
                node = self._new_node(Msg("SavedObject", function=Msg(
                    "SavedFunction", concrete_functions=[c.name for c in traces],
                    function_spec=spec)), i, name)
                self.functions_of_node[node] = fn
                argspec = fullargspec_value(python_fn, inspect.ismethod(python_fn))
                for k, c in enumerate(traces):
                    self._bare_node(c, node, f"trace_{k}", argspec=argspec)

    # -- signatures ------------------------------------------------------------------------------
    def _signatures(self, signatures):
        if signatures is None:
            root_functions = _functions_of(self.root)
            found = sigs.find_function_to_export(root_functions)
            if found is None:
                found = keras_signature.default_signature(self.root)
            signatures = found
        canonical = sigs.canonicalize_signatures(signatures)
        sig_map = self._new_node(_user_object("signature_map"), 0, "signatures")
        out = {}
        for key, (concrete, names) in canonical.items():
            exported = self._export(concrete)
            name = f"__inference_signature_wrapper_{key}_{concrete.name.rsplit('_', 1)[-1]}"
            fdef, inputs, out_specs, out_dtypes = sigs.build_wrapper(name, key, concrete, exported,
                                                                     names)
            self.library.append(fdef)
            keywords = [k for k, _ in sorted(inputs)]
            wrapper = _Wrapper(name, keywords, {k: s for k, s in inputs}, out_specs,
                               exported.variables)
            self.concretes[name] = (wrapper, exported)
            argspec = fullargspec_value(None, False)._replace(kwonlyargs=keywords)
            self._bare_node(wrapper, sig_map, key, keywords, 1 if len(keywords) == 1 else 0,
                            argspec)
            out[key] = (wrapper, inputs, out_dtypes)
        return out

    # -- the protos ----------------------------------------------------------------------------
    def _concrete_protos(self):
        out = {}
        for name, (concrete, exported) in self.concretes.items():
            bound = [self.var_nodes[v._id] for v in exported.variables]
            if isinstance(concrete, _Wrapper):
                inputs = ((), dict(sorted(concrete.inputs.items())))
                outputs = concrete.outputs
            else:
                inputs = concrete.structured_input_signature
                outputs = _output_specs(concrete.structured_outputs)
            out[name] = Msg("SavedConcreteFunction", bound_inputs=bound,
                            canonicalized_input_signature=encode_structure(inputs),
                            output_signature=encode_structure(outputs))
        for name, _, (inputs, outputs) in self.gradients:
            out[name] = Msg("SavedConcreteFunction", bound_inputs=[],
                            canonicalized_input_signature=encode_structure(inputs),
                            output_signature=encode_structure(outputs))
        return out

    def meta_graph(self, ckpt_bytes):
        """The MetaGraphDef."""
        top = TopGraph()
        variables = [self.objects[i] if i < len(self.objects) and isinstance(self.objects[i], Variable)
                     else None for i in range(len(self.ckpt_nodes))]
        keyed = sorted(self.values.items())
        top.variable_handles([v for v in variables if v is not None] + [v for _, v in keyed])
        signature_defs = {}
        for key, (wrapper, inputs, out_dtypes) in self.signatures.items():
            feeds, results = top.signature_call(
                key, [(k, s.dtype, s.shape) for k, s in sorted(inputs)], wrapper.name,
                wrapper.variables, out_dtypes)
            signature_defs[key] = Msg("SignatureDef", method_name="tensorflow/serving/predict",
                                      inputs={k: _tensor_info(feeds[k], s) for k, s in inputs},
                                      outputs={k: _tensor_info(r, s) for (k, s), r in
                                               zip(sorted(wrapper.outputs.items()), results)})
        signature_defs["__saved_model_init_op"] = Msg("SignatureDef", outputs={
            "__saved_model_init_op": Msg("TensorInfo", name="NoOp",
                                         tensor_shape=Msg("TensorShapeProto", unknown_rank=True))})
        suffix = len(self.library)
        saver_fns, saver_def = top.saver(keyed, ckpt_bytes, f"__inference__traced_save_{suffix}",
                                         f"__inference__traced_restore_{suffix + 1}")
        graph_def = top.graph_def(self.library + saver_fns,
                                  [(name, op_type) for name, op_type, _ in self.gradients])
        tags = ["serve"] + list(getattr(self.options, "extra_tags", None) or [])
        info = Msg("MetaInfoDef", tags=tags, tensorflow_version=TF_VERSION,
                   tensorflow_git_version=f"minitf-{VERSION}", stripped_default_attrs=True)
        return Msg("MetaGraphDef", meta_info_def=info, graph_def=graph_def, saver_def=saver_def,
                   collection_def={"saved_model_main_op": Msg("CollectionDef", node_list=Msg(
                       "NodeList", value=["NoOp"]))},
                   signature_def=signature_defs, asset_file_def=[
                       Msg("AssetFileDef", filename=os.path.basename(a._path), tensor_info=Msg(
                           "TensorInfo", name=f"asset_path_initializer_{i}:0", dtype=7))
                       for i, a in enumerate(self.assets)],
                   object_graph_def=Msg("SavedObjectGraph", nodes=self.nodes,
                                        concrete_functions=self._concrete_protos()))

    def checkpoint_graph(self):
        """The checkpoint's object graph: the SavedObjectGraph's nodes and children, with the
        variables' keys."""
        nodes = []
        for i, node in enumerate(self.nodes):
            ckpt = self.ckpt_nodes[i] if i < len(self.ckpt_nodes) else protos.ObjectNode()
            children = [(c.local_name, c.node_id) for c in node.children]
            nodes.append(protos.ObjectNode(children, list(ckpt.attributes), list(ckpt.slots),
                                           bool(ckpt.has_values)))
        return protos.encode_object_graph(nodes)


class _Wrapper:
    """A signature wrapper function as save records it: its name, keyword inputs, outputs and
    the variables it passes on."""

    def __init__(self, name, keywords, inputs, outputs, variables):
        self.name, self.keywords, self.inputs = name, keywords, inputs
        self.outputs, self.variables = outputs, variables
        self._parameters = []


def _output_specs(structure):
    """`structure` with each tensor replaced by its TensorSpec (the output signature)."""
    if isinstance(structure, dict):
        return {k: _output_specs(v) for k, v in structure.items()}
    if isinstance(structure, (list, tuple)):
        items = [_output_specs(v) for v in structure]
        return type(structure)(*items) if hasattr(type(structure), "_fields") else type(structure)(items)
    if isinstance(structure, Tensor):
        return TensorSpec(structure.shape, structure.dtype)
    if hasattr(getattr(structure, "_type_spec", None), "_to_components"):  # a RaggedTensor
        return structure._type_spec
    return structure


def _tensor_info(name, spec):
    return Msg("TensorInfo", name=name, dtype=dtype_enum(spec.dtype), tensor_shape=shape_proto(spec.shape))


def _bundle_values(values):
    out = {}
    for key, var in values.items():
        host = backend.to_host(var._value)
        if var.dtype.name == "string":
            flat = [v if isinstance(v, bytes) else str(v).encode("utf-8") for v in host.reshape(-1)]
            out[key] = tensor_bundle.BundleValue(flat, "string", shape=host.shape)
        else:
            out[key] = tensor_bundle.BundleValue(host, var.dtype.name)
    return out


def _hash64(data):
    return int.from_bytes(hashlib.blake2b(data, digest_size=8).digest(), "little")


def _write_bytes(path, data):
    def write(tmp):
        with open(tmp, "wb") as f:
            f.write(data)
    atomic_replace(write, path, size_hint=len(data))


@export("saved_model.save")
def save(obj, export_dir, signatures=None, options=None):
    """Writes `obj` (a tf.Module, Keras model or other trackable) as a SavedModel in `export_dir`.

    Args:
      obj: the object to save: its variables, its tracked children and their tf.functions
        (every trace each holds; one with an input_signature is traced if it was not).
      export_dir: the directory to write (created if needed).
      signatures: a tf.function with an input_signature, a concrete function, or a dict of them
        by signature key; None takes the object's only servable tf.function (or a Keras model's
        call on its inputs) as 'serving_default', if there is one.
      options: a tf.saved_model.SaveOptions.

    Raises:
      ValueError: `obj` is not trackable, or a signature is not a function of tensors that
        returns tensors.
      errors.UnimplementedError: a traced function holds a node minitf cannot write as a TF op
        (the message names the node, its type and the function).
      AssertionError: a function uses a variable no object of the saved tree holds.
    """
    if active_graph() is not None:
        raise AssertionError("tf.saved_model.save is not supported inside a traced @tf.function. "
                             "Move the call to the outer eagerly-executed context.")
    if not isinstance(obj, Trackable):
        raise ValueError(f"Expected an object of type `Trackable`, such as `tf.Module` or a "
                         f"subclass of the `Trackable` class, for export. Got {obj} with type "
                         f"{type(obj)}.")
    options = options or SaveOptions()
    export_dir = os.fspath(export_dir)
    saver = _Saver(obj, signatures, options)
    ckpt_bytes = saver.checkpoint_graph()
    meta_graph = saver.meta_graph(ckpt_bytes)
    saved_model = encode(Msg("SavedModel", saved_model_schema_version=1, meta_graphs=[meta_graph]))
    values = _bundle_values(saver.values)
    values[OBJECT_GRAPH_KEY] = tensor_bundle.BundleValue([ckpt_bytes], "string", shape=())
    os.makedirs(os.path.join(export_dir, VARIABLES_DIRECTORY), exist_ok=True)
    os.makedirs(os.path.join(export_dir, ASSETS_DIRECTORY), exist_ok=True)
    for asset in saver.assets:
        target = os.path.join(export_dir, ASSETS_DIRECTORY, os.path.basename(asset._path))
        if os.path.abspath(asset._path) != os.path.abspath(target):
            shutil.copyfile(asset._path, target)
    prefix = os.path.join(export_dir, VARIABLES_DIRECTORY, VARIABLES_FILENAME)
    tensor_bundle.write_bundle(prefix, values)
    with open(tensor_bundle.index_path(prefix), "rb") as f:
        index = f.read()
    graph_bytes = encode(meta_graph.graph_def)
    fingerprint = Msg("FingerprintDef", saved_model_checksum=_hash64(saved_model),
                      graph_def_program_hash=_hash64(graph_bytes),
                      signature_def_hash=_hash64(repr(sorted(meta_graph.signature_def)).encode()),
                      saved_object_graph_hash=_hash64(encode(meta_graph.object_graph_def)),
                      checkpoint_hash=_hash64(index), version=Msg("VersionDef", producer=2),
                      uuid=str(uuid.uuid4()))
    _write_bytes(os.path.join(export_dir, SAVED_MODEL_FILENAME_PB), saved_model)
    _write_bytes(os.path.join(export_dir, FINGERPRINT_FILENAME), encode(fingerprint))

