"""A traced minitf graph written as TF's FunctionDef.

Each node of a ConcreteFunction's FuncGraph is a recorded call of a minitf function; its exporter
(`op_table.exporter_for`) emits the TF nodes computing the same thing, with TF's op types and
attributes. The function's tensor arguments become its first input arguments; every variable the
graph reads or writes becomes a resource input after them (TF's captured variables: the caller
passes the handles), read with `ReadVariableOp` and written with `AssignVariableOp`. Constants
the trace captured are inlined as `Const` nodes. Stateful nodes touching one variable are chained
with control edges in program order, and the outputs wait for every stateful node (TF's automatic
control dependencies), so TF's executor runs them in the order minitf did.
"""
import inspect
import itertools
import re

import numpy as np

from minitf import backend
from minitf.dtypes import dtypes
from minitf.errors import errors
from minitf.nest import nest
from minitf.graph.structure import is_composite
from minitf.graph.interpreter import needed_operations
from minitf.saved_model import op_table
from minitf.saved_model.codec import Msg
from minitf.saved_model.tensors import Attr, dtype_enum, shape_proto
from minitf.symbolic_tensor import SymbolicTensor
from minitf.tensor import Tensor
from minitf.tensor_shape import TensorShape
from minitf.variable import Variable

__all__ = ["FunctionBuilder", "export_concrete", "sanitize", "ExportedFunction"]

_SIGNATURES = {}
_sub_ids = itertools.count(1)


def sanitize(name):
    """`name` as a TF argument name: lower case letters, digits and '_', starting with a letter."""
    name = re.sub(r"[^a-z0-9_]", "_", name.lower())
    return name if name[:1].isalpha() else "arg_" + name


class ExportedFunction:
    """A FunctionDef made from a graph, and what a caller needs to call it: the variables whose
    handles follow the tensor arguments, in order, and the output dtypes; `functions` are the
    FunctionDefs its control-flow nodes call (branches, loop conditions and bodies)."""

    def __init__(self, fdef, variables, output_dtypes, functions=(), gradients=()):
        self.fdef, self.variables, self.output_dtypes = fdef, variables, output_dtypes
        self.functions = list(functions)
        self.gradients = list(gradients)    # [(function name, op type, signature)]

    @property
    def name(self):
        """The function's name in the library."""
        return self.fdef.signature.name


class FunctionBuilder:
    """Collects the arguments, nodes and results of one FunctionDef."""

    def __init__(self, name):
        self.name = name
        self.nodes, self.input_args, self.output_args = [], [], []
        self.arg_attrs, self.ret, self.control_ret = {}, {}, {}
        self.refs = {}                     # graph value id -> tensor reference
        self.variables, self._resources = [], {}
        self._taken = set()
        self._last_touch = {}              # variable id -> last stateful node on it
        self.stateful = []
        self.functions = []                # FunctionDefs of sub-graphs (branches, loop bodies)
        self.gradients = []                # custom gradients: (name, op type, signature)

    def unique(self, name):
        """`name`, or `name_1`, ... when taken by a node or argument of this function."""
        base = re.sub(r"[^A-Za-z0-9_./-]", "_", name) or "node"
        if not (base[0].isalnum() or base[0] == "."):   # TF: [A-Za-z0-9.][A-Za-z0-9_.\-/]*
            base = "n" + base
        candidate, i = base, 1
        while candidate in self._taken or candidate.lower() in self._taken:
            candidate = f"{base}_{i}"
            i += 1
        self._taken.add(candidate)
        return candidate

    def add_input(self, name, dtype, shape=None, user_name=None, handle=None):
        """A new input argument; returns its reference (its name)."""
        arg = sanitize(name)
        arg = self.unique(arg)
        fields = {"name": arg, "type": dtype_enum(dtype)}
        if handle is not None:
            fields["handle_data"] = [Msg("DtypeAndShape", dtype=dtype_enum(handle.dtype),
                                         shape=shape_proto(handle.shape))]
        self.input_args.append(Msg("ArgDef", **fields))
        attrs = {"_user_specified_name": Attr.str(user_name or name).proto()}
        if shape is not None:
            attrs["_output_shapes"] = Attr.shapes([shape]).proto()
        self.arg_attrs[len(self.input_args) - 1] = Msg("ArgAttrs", attr=attrs)
        return arg

    def resource(self, variable):
        """The resource argument holding `variable`'s handle (added on first use)."""
        arg = self._resources.get(variable._id)
        if arg is None:
            base = (getattr(variable, "path", None) or variable.name).split(":")[0]
            arg = self.add_input(f"{base}_resource", dtypes.resource, TensorShape([]),
                                 user_name="resource", handle=variable)
            self._resources[variable._id] = arg
            self.variables.append(variable)
        return arg

    def node(self, op_type, name, inputs, attrs=None, control=()):
        """Add a NodeDef; returns its unique name."""
        name = self.unique(name)
        attr = {k: v.proto() for k, v in (attrs or {}).items()}
        self.nodes.append(Msg("NodeDef", name=name, op=op_type,
                              input=list(inputs) + [f"^{c}" for c in control], attr=attr))
        return name

    def waits(self, variables):
        """The control inputs a stateful node on `variables` must wait for: the previous
        stateful node on each of them."""
        out = []
        for v in variables:
            last = self._last_touch.get(v._id)
            if last is not None and last not in out:
                out.append(last)
        return out

    def stateful_node(self, node_name, variables=()):
        """Record that stateful node `node_name` ran on `variables` (the next one on them waits
        for it, and the function's results wait for every stateful node)."""
        self.stateful.append(node_name)
        for v in variables:
            self._last_touch[v._id] = node_name

    def finish(self, outputs, output_names=None):
        """Make `outputs` (tensor references with their dtypes) the results; returns the
        FunctionDef."""
        control = []
        if self.stateful:
            noop = self.node("NoOp", "NoOp", [], control=self.stateful)
            control = [noop]
        nodes = []
        for ref, dtype in outputs:
            nodes.append(self.node("Identity", "Identity", [ref], {"T": Attr.type(dtype)},
                                   control=control))
        for i, ((ref, dtype), node) in enumerate(zip(outputs, nodes)):
            # an output argument may not share a node's or an input's name
            arg = self.unique(sanitize((output_names[i] if output_names else None) or
                                       ("identity" if i == 0 else f"identity_{i}")))
            self.output_args.append(Msg("ArgDef", name=arg, type=dtype_enum(dtype)))
            self.ret[arg] = f"{node}:output:0"
        for name in self.stateful:
            self.control_ret[name] = name
        signature = Msg("OpDef", name=self.name, input_arg=self.input_args,
                        output_arg=self.output_args, is_stateful=bool(self.stateful),
                        control_output=sorted(self.stateful))
        return Msg("FunctionDef", signature=signature, node_def=self.nodes, ret=self.ret,
                   arg_attr=self.arg_attrs, control_ret=self.control_ret)


def _bound_arguments(fn, template):
    args, kwargs = template.rebuild(template.leaves)
    sig = _SIGNATURES.get(fn)
    if sig is None:
        try:
            sig = inspect.signature(fn)
        except (TypeError, ValueError):
            sig = False
        _SIGNATURES[fn] = sig
    if sig is False:
        return {f"arg{i}": a for i, a in enumerate(args)} | kwargs
    bound = sig.bind(*args, **kwargs)
    bound.apply_defaults()
    return dict(bound.arguments)


def _host(value):
    return backend.to_host(value._value) if isinstance(value, Tensor) else value


def constant_dtype(value):
    """The dtype TF converts a Python or numpy constant to (floats float32, ints int32)."""
    if isinstance(value, (Tensor, Variable)):
        return value.dtype
    if isinstance(value, np.ndarray) or isinstance(value, np.generic):
        return dtypes.string if value.dtype.kind in "OUS" else dtypes.as_dtype(value.dtype.name)
    flat = np.asarray(value, dtype=object).reshape(-1)
    if any(isinstance(v, (str, bytes)) for v in flat):
        return dtypes.string
    if all(isinstance(v, (bool, np.bool_)) for v in flat) and flat.size:
        return dtypes.bool
    if all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in flat):
        return dtypes.int32
    return dtypes.float32


class Emitter:
    """What an exporter rule writes with, for one graph node `op` of function `function_name`."""

    def __init__(self, builder, op, function_name):
        self.b, self.op, self.function_name = builder, op, function_name

    def dtype(self, value):
        """The dtype `value` has, or would have as a constant."""
        return constant_dtype(value)

    def symbolic(self, value):
        """Whether `value` is a graph value (its number is known only when the function runs)."""
        return isinstance(value, SymbolicTensor)

    def const(self, value, dtype=None, suffix="Const"):
        """A Const node holding `value` (of `dtype`); returns its reference."""
        dtype = dtypes.as_dtype(dtype) if dtype is not None else constant_dtype(value)
        array = _host(value)
        if dtype.name != "string":
            array = np.asarray(array).astype(dtype._np)
        name = self.b.node("Const", f"{self.op.name}/{suffix}", [],
                           {"value": Attr.tensor(array, dtype), "dtype": Attr.type(dtype)})
        return f"{name}:output:0"

    def ref(self, value, dtype=None, suffix="Const"):
        """The reference of `value` as an input of dtype `dtype` (a constant becomes a Const
        node; a graph value of another dtype is cast, as TF converts operands)."""
        if isinstance(value, SymbolicTensor):
            ref = self.b.refs.get(value._id)
            if ref is None:
                raise self.error(f"its input {value.name!r} comes from outside the function")
            if dtype is not None and dtypes.as_dtype(dtype) != value.dtype:
                name = self.b.node("Cast", f"{self.op.name}/Cast", [ref],
                                   {"SrcT": Attr.type(value.dtype), "DstT": Attr.type(dtype)})
                return f"{name}:y:0"
            return ref
        if isinstance(value, Variable):
            raise self.error("a variable is used where a tensor is expected")
        return self.const(value, dtype, suffix)

    def node(self, op_type, inputs, attrs=None, suffix=None, n_out=1, variables=(), counts=None):
        """Add a node of TF type `op_type`; returns the references of its `n_out` outputs
        (a list), or its name when it has none."""
        tf_op = op_table.TABLE[op_type]
        name = self.op.name if suffix is None else f"{self.op.name}/{suffix}"
        control = self.b.waits(variables) if tf_op.stateful else []
        node_name = self.b.node(op_type, name, inputs, attrs, control=control)
        if tf_op.stateful:
            self.b.stateful_node(node_name, variables)
        if n_out == 0:
            return node_name
        return [f"{node_name}:{op_table.output_ref(tf_op, i, counts or [n_out])}"
                for i in range(n_out)]

    def resource(self, variable):
        """The reference of `variable`'s handle (a resource argument of the function)."""
        return self.b.resource(variable)

    def add_function(self, exported, gradient_op_type=None, signature=None):
        """Keep the FunctionDef of a sub-graph (and those it calls) with this function's; with
        `gradient_op_type`, it is the gradient registered for that custom gradient, and
        `signature` its (input structure, output structure) for the object graph."""
        self.b.functions.extend([exported.fdef] + exported.functions)
        self.b.gradients.extend(exported.gradients)
        if gradient_op_type is not None:
            self.b.gradients.append((exported.name, gradient_op_type, signature))

    def sub_function_name(self, suffix):
        """A name for a sub-graph function of this node, unique in the SavedModel, of TF's
        form `__inference_<name>_<number>` (TF's loader parses it)."""
        base = re.sub(r"[^A-Za-z0-9_]", "_", f"{self.op.name}_{suffix}")
        return f"__inference_{base}_{next(_sub_ids)}"

    def error(self, what):
        """UnimplementedError naming this node, its function and `what` is wrong."""
        return errors.UnimplementedError(
            None, None, f"Cannot export node {self.op.name!r} (type {self.op.type}, minitf "
                        f"function {op_table.fn_key(self.op._fn, self.op.type)}) of function "
                        f"{self.function_name!r} to a SavedModel: {what}.")


def export_node(builder, op, function_name):
    """Write the TF nodes of graph node `op`; map its outputs to their references."""
    if op._fn is None and op.type == "Identity":   # an output of the function
        src = op._template.leaves[0]
        builder.refs[op.outputs[0]._id] = Emitter(builder, op, function_name).ref(src)
        return
    found = op_table.exporter_for(op)
    emitter = Emitter(builder, op, function_name)
    if found is None:
        raise errors.UnimplementedError(
            None, None, f"Cannot export node {op.name!r} of function {function_name!r} to a "
                        f"SavedModel: minitf has no TF op for its type {op.type!r} (minitf "
                        f"function {op_table.fn_key(op._fn, op.type)}). Supported: "
                        f"minitf.saved_model.exportable_functions().")
    rule, _ = found
    bound = _bound_arguments(op._fn, op._template)
    if any(is_composite(v) for v in nest.flatten(list(bound.values()))):
        # a whole ragged op recorded as one node (minitf.ragged.ragged_graph)
        raise emitter.error("it takes a RaggedTensor, and minitf exports ragged ops only where they "
                            "work on the flat values (elementwise math, x.flat_values); reduce or "
                            "densify its flat_values with dense ops instead")
    refs = rule(emitter, bound, op)
    if isinstance(refs, str):
        refs = [refs]
    refs = list(refs or [])
    outputs = [t for t in op.outputs if isinstance(t, SymbolicTensor)]
    if len(refs) < len(outputs):
        raise emitter.error(f"its exporter gave {len(refs)} outputs for {len(outputs)}")
    for tensor, ref in zip(outputs, refs):
        builder.refs[tensor._id] = ref


def export_concrete(concrete, name=None):
    """The ExportedFunction of a ConcreteFunction (its graph as one FunctionDef).

    Raises errors.UnimplementedError naming the node, its type and the function for a node no
    exporter maps, and for a graph taking a variable as an argument.
    """
    graph = concrete.graph
    name = name or concrete.name
    if any(v is not None for v in graph.variable_arguments):
        raise errors.UnimplementedError(
            None, None, f"Cannot export function {name!r}: it was traced with a tf.Variable as an "
                        f"argument; SavedModels keep functions of tensors (capture the variable "
                        f"instead of passing it).")
    builder = FunctionBuilder(name)
    for placeholder in graph.inputs:
        if not isinstance(placeholder, SymbolicTensor):
            raise errors.UnimplementedError(None, None, f"Cannot export function {name!r}: it "
                                            f"takes a {type(placeholder).__name__} argument.")
        builder.refs[placeholder._id] = builder.add_input(
            placeholder.op.name, placeholder.dtype, placeholder.shape)
    for op in needed_operations(graph):
        export_node(builder, op, name)
    emitter = None
    outputs = []
    for value in graph.outputs:
        if value is None or not isinstance(value, Tensor):
            continue
        if isinstance(value, SymbolicTensor):
            outputs.append((builder.refs[value._id], value.dtype))
        else:
            if emitter is None:
                emitter = Emitter(builder, _ConstantOutputs(), name)
            outputs.append((emitter.const(value), value.dtype))
    fdef = builder.finish(outputs)
    fdef.attr = {"_input_shapes": Attr.shapes(
        [p.shape for p in graph.inputs] + [TensorShape([])] * len(builder.variables)).proto()}
    return ExportedFunction(fdef, builder.variables, [d for _, d in outputs], builder.functions,
                            builder.gradients)


def export_subgraph(graph, name, args, variables, positions, extra=None):
    """A branch or loop part `graph` as a FunctionDef of `args` then `variables`' handles.

    `args` are (placeholder of `graph` or None, dtype, shape) per tensor argument (None: an
    argument this part does not use); `positions` pick the results among `graph.outputs`;
    `extra(builder, refs, outputs)` may add nodes and return more results (a loop's
    pass-through values). Returns an ExportedFunction.
    """
    builder = FunctionBuilder(name)
    refs = []
    for i, (placeholder, dtype, shape) in enumerate(args):
        ref = builder.add_input(placeholder.op.name if placeholder is not None else f"arg_{i}",
                                dtype, shape)
        refs.append(ref)
        if placeholder is not None:
            builder.refs[placeholder._id] = ref
    for v in variables:
        refs.append(builder.resource(v))
    for op in needed_operations(graph):
        if op.type == "Placeholder":
            continue
        export_node(builder, op, name)
    outputs = []
    for p in positions:
        value = graph.outputs[p]
        if isinstance(value, SymbolicTensor):
            outputs.append((builder.refs[value._id], value.dtype))
        else:
            outputs.append((Emitter(builder, _ConstantOutputs(), name).const(value), value.dtype))
    if extra is not None:
        outputs += extra(builder, refs, outputs)
    if len(builder.variables) != len(variables):
        raise errors.UnimplementedError(None, None, f"Cannot export {name!r}: it uses variables "
                                        f"its enclosing node does not pass")
    fdef = builder.finish(outputs)
    return ExportedFunction(fdef, list(variables), [d for _, d in outputs], builder.functions,
                            builder.gradients)


class _ConstantOutputs:
    """Stands for the node producing a function's constant outputs (for naming)."""

    name, type, _fn = "Const", "Const", None
