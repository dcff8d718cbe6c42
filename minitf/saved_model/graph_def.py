"""The top-level GraphDef of a SavedModel: what TF 1 loaders and TF Serving run.

TF 2 loads a SavedModel through its object graph, but TF Serving, `saved_model_cli` and
`tf.compat.v1.saved_model.load` import the MetaGraph's GraphDef and run it in a session: a
`VarHandleOp` per variable, a `Placeholder` per signature input feeding a
`StatefulPartitionedCall` of the signature's function (whose outputs the SignatureDef names),
and the saver: `saver_filename` feeding the calls of `_traced_save` (SaveV2 of every variable)
and `_traced_restore` (RestoreV2 then AssignVariableOp), named by the SaverDef. This module
writes those nodes and the two saver functions, as TF 2.21 lays them out.
"""
from minitf.dtypes import dtypes
from minitf.saved_model.codec import Msg
from minitf.saved_model.export_graph import FunctionBuilder
from minitf.saved_model.tensors import Attr

__all__ = ["TopGraph"]

# What TF 2.21 records as the producer of its graphs, and the oldest consumer that reads them.
GRAPH_PRODUCER, GRAPH_MIN_CONSUMER = 2474, 12
_CPU = "/device:CPU:0"


class TopGraph:
    """Builds the top-level GraphDef: variable handles, signature calls, the saver."""

    def __init__(self):
        self.b = FunctionBuilder("")
        self.handles = {}   # variable id -> VarHandleOp node name

    def variable_handles(self, variables):
        """A VarHandleOp (and its read) per variable, named after the variable."""
        for v in variables:
            if v._id in self.handles:
                continue
            base = (getattr(v, "path", None) or v.name).split(":")[0]
            name = self.b.unique(base)   # also the resource's shared name: one per variable
            self.b.nodes.append(Msg("NodeDef", name=name, op="VarHandleOp", attr={
                "shared_name": Attr.str(name).proto(), "dtype": Attr.type(v.dtype).proto(),
                "shape": Attr.shape(v.shape).proto(), "debug_name": Attr.str(base + "/").proto()}))
            self.b.node("ReadVariableOp", f"{name}/Read/ReadVariableOp", [name],
                        {"dtype": Attr.type(v.dtype)})
            self.handles[v._id] = name

    def signature_call(self, key, inputs, function_name, variables, output_dtypes):
        """Placeholders for signature `key`'s inputs [(name, dtype, shape)] and the call of its
        function; returns ({input name: tensor name}, [output tensor names])."""
        feeds, refs = {}, []
        for name, dtype, shape in inputs:
            node = self.b.node("Placeholder", f"{key}_{name}", [],
                               {"dtype": Attr.type(dtype), "shape": Attr.shape(shape)})
            feeds[name] = f"{node}:0"
            refs.append(node)
        call = self._call(function_name, refs, [dtypes.as_dtype(d) for _, d, _ in inputs],
                          variables, output_dtypes)
        return feeds, [f"{call}:{i}" for i in range(len(output_dtypes))]

    def _call(self, function_name, refs, in_dtypes, variables, output_dtypes):
        inputs = refs + [self.handles[v._id] for v in variables]
        types = list(in_dtypes) + [dtypes.resource] * len(variables)
        return self.b.node("StatefulPartitionedCall", "StatefulPartitionedCall", inputs, {
            "f": Attr.func(function_name), "Tin": Attr.types(types),
            "Tout": Attr.types(output_dtypes)})

    def saver(self, keyed_variables, object_graph_bytes, save_name, restore_name):
        """The saver: ([save FunctionDef, restore FunctionDef], SaverDef).

        `keyed_variables` is [(checkpoint key, Variable)] in key order; the object graph is
        saved under '_CHECKPOINTABLE_OBJECT_GRAPH' beside them.
        """
        self.variable_handles([v for _, v in keyed_variables])
        variables = [v for _, v in keyed_variables]
        graph_const = self.b.node("Const", "Const", [], {
            "value": Attr.tensor(object_graph_bytes, dtypes.string), "dtype": Attr.type(dtypes.string)})
        filename = self.b.node("Placeholder", "saver_filename", [], {
            "dtype": Attr.type(dtypes.string), "shape": Attr.shape([])})
        save_fn = _save_function(save_name, keyed_variables)
        restore_fn = _restore_function(restore_name, keyed_variables)
        handles = [self.handles[v._id] for v in variables]
        save_call = self.b.node("StatefulPartitionedCall", "StatefulPartitionedCall", [
            filename] + handles + [graph_const], {
            "f": Attr.func(save_name), "Tout": Attr.types([dtypes.string]),
            "Tin": Attr.types([dtypes.string] + [dtypes.resource] * len(handles) + [dtypes.string])})
        restore_call = self.b.node("StatefulPartitionedCall", "StatefulPartitionedCall", [
            filename] + handles, {
            "f": Attr.func(restore_name), "Tout": Attr.types([dtypes.string]),
            "Tin": Attr.types([dtypes.string] + [dtypes.resource] * len(handles))})
        saver_def = Msg("SaverDef", filename_tensor_name=f"{filename}:0",
                        save_tensor_name=f"{save_call}:0", restore_op_name=restore_call,
                        version=2)
        return [save_fn, restore_fn], saver_def

    def graph_def(self, library, gradients=()):
        """The GraphDef: these nodes, a NoOp (the init op), the function `library` and the
        custom `gradients` [(gradient function name, op type)] registered in it."""
        self.b.node("NoOp", "NoOp", [])
        registered = [Msg("RegisteredGradient", gradient_func=f, registered_op_type=t)
                      for f, t in gradients]
        return Msg("GraphDef", node=self.b.nodes, library=Msg(
            "FunctionDefLibrary", function=library, registered_gradients=registered),
                   versions=Msg("VersionDef", producer=GRAPH_PRODUCER,
                                min_consumer=GRAPH_MIN_CONSUMER))


def _names_and_slices(b, keys, prefix):
    names = b.node("Const", f"{prefix}/tensor_names", [], {
        "value": Attr.tensor(keys, dtypes.string), "dtype": Attr.type(dtypes.string)})
    slices = b.node("Const", f"{prefix}/shape_and_slices", [], {
        "value": Attr.tensor([""] * len(keys), dtypes.string), "dtype": Attr.type(dtypes.string)})
    return f"{names}:output:0", f"{slices}:output:0"


def _save_function(name, keyed_variables):
    """`_traced_save(file_prefix, handles..., object_graph)`: SaveV2 of every variable."""
    b = FunctionBuilder(name)
    prefix = b.add_input("file_prefix", dtypes.string)
    reads = []
    for key, v in keyed_variables:
        handle = b.add_input(f"read_{key}", dtypes.resource, user_name=v.name.split(":")[0],
                             handle=v)
        read = b.node("ReadVariableOp", f"Read/ReadVariableOp", [handle], {"dtype": Attr.type(v.dtype)})
        reads.append(f"{read}:value:0")
    graph = b.add_input("savev2_const", dtypes.string)
    keys = [k for k, _ in keyed_variables] + ["_CHECKPOINTABLE_OBJECT_GRAPH"]
    names, slices = _names_and_slices(b, keys, "SaveV2")
    save = b.node("SaveV2", "SaveV2", [prefix, names, slices] + reads + [graph], {
        "dtypes": Attr.types([v.dtype for _, v in keyed_variables] + [dtypes.string])})
    b.stateful_node(save)
    return b.finish([(prefix, dtypes.string)])


def _restore_function(name, keyed_variables):
    """`_traced_restore(file_prefix, handles...)`: RestoreV2, then AssignVariableOp each."""
    b = FunctionBuilder(name)
    prefix = b.add_input("file_prefix", dtypes.string)
    handles = [b.add_input(f"assignvariableop_{k}", dtypes.resource, user_name=v.name.split(":")[0],
                           handle=v) for k, v in keyed_variables]
    keys = [k for k, _ in keyed_variables]
    if keys:
        names, slices = _names_and_slices(b, keys, "RestoreV2")
        restore = b.node("RestoreV2", "RestoreV2", [prefix, names, slices], {
            "dtypes": Attr.types([v.dtype for _, v in keyed_variables])})
        for i, ((_, v), handle) in enumerate(zip(keyed_variables, handles)):
            value = b.node("Identity", "Identity", [f"{restore}:tensors:{i}"],
                           {"T": Attr.type(v.dtype)})
            assign = b.node("AssignVariableOp", "AssignVariableOp", [handle, f"{value}:output:0"],
                            {"dtype": Attr.type(v.dtype)})
            b.stateful_node(assign)
    return b.finish([(prefix, dtypes.string)])
