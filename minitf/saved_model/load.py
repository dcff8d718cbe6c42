"""tf.saved_model.load: a SavedModel directory back as objects, variables and callable functions.

Works on SavedModels written by minitf and by TF 2 (tf.saved_model.save, Keras 3's
`model.export`). Everything is read and checked before any object is made: the proto (a
truncated or garbled file is DataLossError naming it), the object graph's references, every
function the objects use (each node's op type must be in the op table: an unknown one is
UnimplementedError naming the op and the function), and every variable's value in the bundle
(dtype and shape against the object graph). So a load either returns the whole tree or raises,
never half of it.
"""
import os
from collections import deque

from minitf.errors import errors
from minitf.checkpoint import object_graph as ckpt_graph, tensor_bundle
from minitf.checkpoint.restore import read_object_graph
from minitf.ops.creation import zeros
from minitf.saved_model import function_runtime
from minitf.saved_model.codec import WireError, decode
from minitf.saved_model.options import Asset, LoadOptions
from minitf.saved_model.restored import (RestoredConcreteFunction, RestoredFunction, SignatureMap,
                                         UserObject)
from minitf.saved_model.save import (ASSETS_DIRECTORY, SAVED_MODEL_FILENAME_PB,
                                     VARIABLES_DIRECTORY, VARIABLES_FILENAME)
from minitf.saved_model.structure import FullArgSpec, decode_structure
from minitf.saved_model.tensors import dtype_of, shape_of
from minitf.trackable import ListWrapper, wrap
from minitf.variable import Variable
from minitf.api_export import export

__all__ = ["load", "contains_saved_model"]

_MAX_FILE = 2 << 30     # protobuf's own limit on a message


@export("saved_model.contains_saved_model")
def contains_saved_model(export_dir):
    """Whether `export_dir` holds a SavedModel (a saved_model.pb or saved_model.pbtxt)."""
    export_dir = os.fspath(export_dir)
    return any(os.path.isfile(os.path.join(export_dir, name))
               for name in (SAVED_MODEL_FILENAME_PB, "saved_model.pbtxt"))


def _read_proto(path):
    try:
        size = os.path.getsize(path)
        if size > _MAX_FILE:
            raise errors.DataLossError(None, None, f"SavedModel {path!r} is {size} bytes, over "
                                       f"protobuf's 2 GiB limit on a message")
        with open(path, "rb") as f:
            data = f.read(_MAX_FILE + 1)
    except IsADirectoryError:
        raise errors.DataLossError(None, None, f"SavedModel {path!r} is a directory") from None
    try:
        return decode("SavedModel", data)
    except WireError as e:
        raise errors.DataLossError(None, None, f"SavedModel {path!r} is not a valid SavedModel "
                                   f"proto (truncated or corrupt): {e}") from None


def _meta_graph(saved_model, tags, path):
    graphs = list(saved_model.meta_graphs)
    if not graphs:
        raise errors.DataLossError(None, None, f"SavedModel {path!r} holds no MetaGraphDef")
    if tags is None:
        for mg in graphs:
            if mg.meta_info_def is not None and "serve" in mg.meta_info_def.tags:
                return mg
        if len(graphs) == 1:
            return graphs[0]
        raise RuntimeError(f"SavedModel {path!r} has {len(graphs)} MetaGraphs and none is tagged "
                           f"'serve'; pass tags= to choose one.")
    wanted = {tags} if isinstance(tags, str) else set(tags)
    for mg in graphs:
        if mg.meta_info_def is not None and set(mg.meta_info_def.tags) == wanted:
            return mg
    available = [sorted(mg.meta_info_def.tags) for mg in graphs if mg.meta_info_def is not None]
    raise RuntimeError(f"MetaGraphDef associated with tags {sorted(wanted)} could not be found in "
                       f"SavedModel, with available tags '{available}'. To inspect available "
                       f"tag-sets in the SavedModel, please use the SavedModel CLI: "
                       f"`saved_model_cli`.")


class _Plan:
    """The checked contents of a MetaGraph's object graph, before any object exists."""

    def __init__(self, meta, export_dir, path):
        graph = meta.object_graph_def
        if graph is None or not graph.nodes:
            raise errors.UnimplementedError(
                None, None, f"SavedModel {path!r} has no object graph (a TF 1 SavedModel); "
                            f"minitf loads TF 2 SavedModels only")
        self.nodes = graph.nodes
        self.concrete = graph.concrete_functions
        library = meta.graph_def.library if meta.graph_def is not None else None
        self.library = function_runtime.Library(
            library.function if library is not None else [], path,
            library.registered_gradients if library is not None else [])
        self.assets = list(meta.asset_file_def)
        self.export_dir = export_dir
        count = len(self.nodes)
        self.kinds = []
        for i, node in enumerate(self.nodes):
            for ref in list(node.children) + list(node.dependencies):
                if not 0 <= ref.node_id < count:
                    raise WireError(f"object {i} refers to object {ref.node_id}, outside the "
                                    f"graph's {count}")
            self.kinds.append(node.which(("user_object", "asset", "function", "variable",
                                          "bare_concrete_function", "constant", "resource",
                                          "captured_tensor")))
        used = []
        for i, node in enumerate(self.nodes):
            kind = self.kinds[i]
            if kind == "function":
                used += list(node.function.concrete_functions)
            elif kind == "bare_concrete_function":
                used.append(node.bare_concrete_function.concrete_function_name)
            elif kind == "asset" and not 0 <= node.asset.asset_file_def_index < len(self.assets):
                raise WireError(f"asset object {i} names asset file "
                                f"{node.asset.asset_file_def_index}, which does not exist")
            elif kind in ("constant", "resource", "captured_tensor"):
                raise errors.UnimplementedError(
                    None, None, f"SavedModel {path!r}: object {i} is a {kind}, which minitf's "
                                f"loader does not restore")
        for name in used:
            if name not in self.concrete or name not in self.library:
                raise WireError(f"the object graph uses function {name!r}, which the SavedModel "
                                f"does not define")
            for node_id in self.concrete[name].bound_inputs:
                if not 0 <= node_id < count or self.kinds[node_id] != "variable":
                    raise errors.UnimplementedError(
                        None, None, f"SavedModel {path!r}: function {name!r} captures object "
                                    f"{node_id}, which is not a variable (minitf's loader "
                                    f"restores functions capturing variables only)")
        self.library.check(sorted(set(used)))
        self.argspecs = {i: _argspec(n.function.function_spec, i) for i, n in enumerate(self.nodes)
                         if self.kinds[i] == "function"}
        self.signatures = {}
        for name in set(used):
            inputs = decode_structure(self.concrete[name].canonicalized_input_signature)
            if not (isinstance(inputs, tuple) and len(inputs) == 2 and
                    isinstance(inputs[0], (tuple, list)) and isinstance(inputs[1], dict)):
                raise WireError(f"function {name!r} has the input signature {inputs!r}, not "
                                f"(args, kwargs)")
            self.signatures[name] = (inputs, decode_structure(self.concrete[name].output_signature))
        self.variable_specs = {i: (dtype_of(n.variable.dtype, f"variable {i}'s dtype"),
                                   shape_of(n.variable.shape))
                               for i, n in enumerate(self.nodes) if self.kinds[i] == "variable"}


def _argspec(spec, node_id):
    """(FullArgSpec or None, input signature) of a SavedFunction's spec (WireError when it is
    not one TF writes)."""
    if spec is None:
        return None, None
    argspec = decode_structure(spec.fullargspec)
    signature = decode_structure(spec.input_signature)
    if argspec is None:
        return None, signature
    names = lambda v: isinstance(v, list) and all(isinstance(a, str) for a in v)  # noqa: E731
    if not (isinstance(argspec, FullArgSpec) and names(argspec.args) and names(argspec.kwonlyargs)
            and isinstance(argspec.defaults, (tuple, list, type(None)))
            and isinstance(argspec.kwonlydefaults, (dict, type(None)))
            and all(isinstance(v, (str, type(None))) for v in (argspec.varargs, argspec.varkw))):
        raise WireError(f"function object {node_id} has a malformed argument spec {argspec!r}")
    if spec.is_method and argspec.args:
        argspec = argspec._replace(args=argspec.args[1:])
    if argspec.defaults and len(argspec.defaults) > len(argspec.args):
        raise WireError(f"function object {node_id} has more defaults than arguments")
    return argspec, signature


def _paths(children_of, count):
    """{node id: first path of child names from node 0}, breadth first."""
    paths, queue = {0: ()}, deque([0])
    while queue:
        i = queue.popleft()
        for name, child in children_of(i):
            if child not in paths and 0 <= child < count:
                paths[child] = paths[i] + (name,)
                queue.append(child)
    return paths


def _read_variables(plan, prefix, options):
    """{variable node id: numpy value} from the bundle `prefix`."""
    if not plan.variable_specs or options.experimental_skip_checkpoint:
        return {}
    with tensor_bundle.BundleReader(prefix, kind="SavedModel variables") as store:
        ckpt_nodes = read_object_graph(store)
        keys = {}
        if ckpt_nodes is not None:
            by_path = {p: i for i, p in _paths(lambda i: ckpt_nodes[i].children,
                                               len(ckpt_nodes)).items()}
            saved_paths = _paths(lambda i: [(c.local_name, c.node_id) for c in plan.nodes[i].children],
                                 len(plan.nodes))
            for node_id in plan.variable_specs:
                ckpt_id = by_path.get(saved_paths.get(node_id))
                if ckpt_id is None and node_id < len(ckpt_nodes):
                    ckpt_id = node_id
                if ckpt_id is not None:
                    for name, _, key in ckpt_nodes[ckpt_id].attributes:
                        if name == ckpt_graph.VALUE_ATTRIBUTE:
                            keys[node_id] = key
        values = {}
        for node_id, (dtype, shape) in plan.variable_specs.items():
            entry = store.entries.get(keys.get(node_id, ""))
            if entry is None:
                if options.allow_partial_checkpoint:
                    continue
                raise errors.NotFoundError(None, None, f"SavedModel variables {prefix!r}: no value "
                                           f"for the variable {plan.nodes[node_id].variable.name!r} "
                                           f"(object {node_id})")
            if entry.dtype_name != dtype.name:
                raise store.refuse(entry.path, f"holds {entry.dtype_name}, but the object graph "
                                   f"declares the variable {dtype.name}")
            if not shape.is_compatible_with(entry.shape):
                raise store.refuse(entry.path, f"has shape {list(entry.shape)}, but the object "
                                   f"graph declares the variable {shape}")
            values[node_id] = store.read(entry) if entry.numeric else store.read_strings(entry)
        return values


def _make_objects(plan, values):
    objects = [None] * len(plan.nodes)
    for i, node in enumerate(plan.nodes):
        kind = plan.kinds[i]
        if kind == "variable":
            v = node.variable
            dtype, shape = plan.variable_specs[i]
            initial = values.get(i)
            if initial is None:
                initial = zeros([d or 0 for d in shape.as_list()] if shape.rank is not None else [],
                                dtype)
            objects[i] = Variable(initial, trainable=v.trainable, name=v.name or None,
                                  dtype=dtype)
        elif kind == "asset":
            filename = plan.assets[node.asset.asset_file_def_index].filename
            objects[i] = Asset(os.path.join(plan.export_dir, ASSETS_DIRECTORY, filename))
        elif kind == "user_object":
            identifier = node.user_object.identifier
            if identifier == "trackable_list_wrapper":
                objects[i] = ListWrapper()
            elif identifier in ("trackable_dict_wrapper", "trackable_tuple_wrapper"):
                objects[i] = wrap({})
            elif identifier == "signature_map":
                objects[i] = SignatureMap()
            else:
                objects[i] = UserObject()
    concretes = {}

    def concrete(name, keywords=None, positional=None):
        key = (name, tuple(keywords) if keywords is not None else None)
        if key not in concretes:
            proto = plan.concrete[name]
            inputs, outputs = plan.signatures[name]
            concretes[key] = RestoredConcreteFunction(
                name, plan.library.function(name), [objects[b] for b in proto.bound_inputs],
                inputs, outputs, keywords, positional)
        return concretes[key]
    for i, node in enumerate(plan.nodes):
        kind = plan.kinds[i]
        if kind == "bare_concrete_function":
            bare = node.bare_concrete_function
            objects[i] = concrete(bare.concrete_function_name, list(bare.argument_keywords),
                                  bare.allowed_positional_arguments)
        elif kind == "function":
            fn = node.function
            argspec, signature = plan.argspecs[i]
            objects[i] = RestoredFunction(_function_name(plan, i),
                                          [concrete(n) for n in fn.concrete_functions],
                                          argspec, signature)
    return objects


def _function_name(plan, node_id):
    for node in plan.nodes:
        for ref in node.children:
            if ref.node_id == node_id:
                return ref.local_name
    return "function"


def _attach(plan, objects):
    for i, node in enumerate(plan.nodes):
        obj = objects[i]
        children = [(c.local_name, objects[c.node_id]) for c in node.children]
        if isinstance(obj, ListWrapper):
            items = sorted((int(n), c) for n, c in children if n.isdigit())
            list.extend(obj, [c for _, c in items])
        elif isinstance(obj, SignatureMap):
            obj._signatures.update((n, c) for n, c in children)
        elif isinstance(obj, dict):
            dict.update(obj, children)
        elif isinstance(obj, UserObject):
            for name, child in children:
                obj._add_child(name, child)
    for obj in objects:
        if isinstance(obj, UserObject) and "signatures" not in obj.__dict__:
            object.__setattr__(obj, "signatures", SignatureMap())


@export("saved_model.load")
def load(export_dir, tags=None, options=None):
    """Loads a SavedModel from `export_dir`: the saved object (a tf.Module, a Keras model's
    SavedModel, an ExportArchive) with its variables, functions and `.signatures`.

    Args:
      export_dir: the SavedModel's directory.
      tags: the tag set of the MetaGraph to load (a string or a list); by default the one
        tagged 'serve'.
      options: a tf.saved_model.LoadOptions.

    Returns:
      The root object: its children as attributes, tf.functions as callables dispatching to
      their saved traces, `signatures` a mapping of the serving functions.

    Raises:
      OSError: there is no saved_model.pb in `export_dir`.
      errors.DataLossError: a file is truncated or corrupt (named in the message).
      errors.UnimplementedError: a function uses a TF op minitf does not implement (named with
        the function), or the SavedModel is a TF 1 one.
      RuntimeError: no MetaGraph has `tags`.
    """
    export_dir = os.fspath(export_dir)
    options = options or LoadOptions()
    path = os.path.join(export_dir, SAVED_MODEL_FILENAME_PB)
    if not os.path.exists(path):
        raise OSError(f"SavedModel file does not exist at: {export_dir}{os.sep}"
                      f"{{saved_model.pbtxt|saved_model.pb}}")
    saved_model = _read_proto(path)
    meta = _meta_graph(saved_model, tags, path)
    try:
        plan = _Plan(meta, export_dir, path)
    except WireError as e:
        raise errors.DataLossError(None, None, f"SavedModel {path!r} is malformed: {e}") from None
    prefix = os.path.join(export_dir, VARIABLES_DIRECTORY, VARIABLES_FILENAME)
    values = _read_variables(plan, prefix, options)
    objects = _make_objects(plan, values)
    _attach(plan, objects)
    root = objects[0]
    if isinstance(root, UserObject):
        info = meta.meta_info_def
        object.__setattr__(root, "tensorflow_version", info.tensorflow_version if info else "")
        object.__setattr__(root, "tensorflow_git_version",
                           info.tensorflow_git_version if info else "")
    return root
