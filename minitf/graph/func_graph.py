"""FuncGraph: the graph one trace of a `tf.function` records.

While a function is traced, its arguments are placeholders (symbolic tensors) and every op it
calls on a graph value becomes a node (`Operation`). To know the dtype and shape of a node's
outputs, the graph runs the op once on *examples*: eager tensors standing in for the symbolic
inputs (the first call's own arguments, or ones of the declared shape). A symbolic tensor whose
shape has unknown dimensions carries a second example whose unknown dimensions have other sizes;
output dimensions that come out different in the two runs are unknown (None), as TF's shape
inference would leave them. Ops on eager tensors alone (constants) run at once, as in TF's
constant folding.

Variables are captured by reference: reading one is a `ReadVariableOp` node, writing one a
stateful node that writes when the graph runs (never while tracing). Tapes entered inside the
function record the examples, so `tape.gradient` inside a trace knows which gradients exist and
their shapes (see `minitf.graph.tape_nodes`).
"""
import contextlib
import itertools

from minitf.dtypes import dtypes
from minitf.errors import errors
from minitf.dispatch import is_dispatchable
from minitf.graph import control_flow, functional_ops
from minitf.graph.examples import (example_for_spec, example_leaves, examples_for, gaussian_like_leaf,
                                   graph_dtype_error, has_unknown_sizes, is_static_error, merged_shape, unit_sized_leaf,
                                   unknown_output, values_differ, zeros_like_leaf)
from minitf.graph.operation import CallTemplate, Operation
from minitf.graph.structure import Flat, flatten
from minitf.graph.tape_nodes import record_folded_op, record_tape_answer, record_tape_step
from minitf.graph.tensor_array import SymbolicTensorArray, new_tensor_array
from minitf.ops.tensor_array import TensorArray
from minitf.recording import thread_state, tracing
from minitf.symbolic_tensor import SymbolicArgumentError, SymbolicTensor, out_of_scope_error
from minitf.tensor import Tensor
from minitf.tensor_shape import TensorShape
from minitf.tensor_spec import TensorSpec
from minitf.variable import Variable

__all__ = ["FuncGraph", "GraphDef", "example_for_spec"]

_graph_ids = itertools.count(1)


class _Everything:
    """A watch set holding every tensor: the op observer below sees every op that records."""

    __slots__ = ()

    def __contains__(self, key):
        return True

    def add(self, key):
        pass


class _OpObserver:
    """A pseudo-tape pushed while a node's example runs: the ops that record on tapes tell it
    their TF type (`MatMul`, `AddV2`, ...), which becomes the node's type."""

    _forward = False
    _watch_accessed_variables = False

    def __init__(self):
        self._watched = _Everything()
        self._records = []

    def _watch_variable(self, variable):
        pass

    @property
    def op_type(self):
        return self._records[-1][0].name if self._records else None


class FuncGraph:
    """The nodes, inputs and outputs of one trace (TF's `FuncGraph`).

    Attributes:
      name: the traced function's name.
      parent: the graph this one is a branch or loop body of (None for a function's graph).
      inputs: the placeholders: the function's tensor arguments, then captured outer tensors.
      captures: (outer tensor, inner placeholder) pairs, for branch and loop-body graphs.
      outputs: the flat outputs (symbolic tensors of this graph, or constants).
      structured_outputs: the outputs in the structure the Python function returned.
      variables: the variables the graph reads or writes, in first-use order.
      created_variables: the variables created while tracing.
    """

    def __init__(self, name, parent=None):
        self.name = name
        self.parent = parent
        self.id = next(_graph_ids)
        self.operations = []
        self.inputs = []
        self.captures = []
        self.outputs = []
        self.structured_outputs = None
        self.output_structure = None
        self.variables = []
        self.variable_arguments = []
        self.created_variables = []
        self._capture_map = {}
        self._variable_ids = set()
        self._names = {}
        self._finished = False

    # -- naming ------------------------------------------------------------------------------
    def unique_name(self, name):
        """`name`, or `name_1`, `name_2`, ... when it is taken in this graph (TF's rule)."""
        count = self._names.get(name)
        if count is None:
            self._names[name] = 1
            return name
        while True:
            candidate = f"{name}_{count}"
            count += 1
            if candidate not in self._names:
                self._names[name] = count
                self._names[candidate] = 1
                return candidate

    def _add_operation(self, op_type, name, fn=None, template=None, stateful=False, attrs=None,
                       wants_env=False):
        op = Operation(self, self.unique_name(name or op_type), op_type, fn, template, stateful, attrs,
                       wants_env)
        self.operations.append(op)
        return op

    # -- scopes ------------------------------------------------------------------------------
    @contextlib.contextmanager
    def building(self, hide_outer_tapes=True):
        """Make this the graph ops record into on this thread.

        With `hide_outer_tapes` (a function's own graph), tapes recording outside the function
        do not see its trace: they record the graph's run instead.
        """
        saved_graph, saved_active = thread_state.graph, thread_state.active
        thread_state.graph = self
        if hide_outer_tapes:
            thread_state.active = []
        tracing[0] += 1
        try:
            yield self
        finally:
            tracing[0] -= 1
            thread_state.graph = saved_graph
            thread_state.active = saved_active

    @contextlib.contextmanager
    def provisional(self):
        """Record ops for code that may give up: when it raises, the nodes it added are dropped
        (a host-computing op that read a graph tensor's value half-way is recorded as one node
        instead, and its unused first steps must not run on every call)."""
        count = len(self.operations)
        try:
            yield self
        except BaseException:
            del self.operations[count:]
            raise

    @contextlib.contextmanager
    def _evaluating(self):
        """Run code eagerly (the examples of a node), with an observer among the tapes."""
        saved_graph, saved_active = thread_state.graph, thread_state.active
        observer = _OpObserver()
        thread_state.graph = None
        thread_state.active = saved_active + [observer]
        try:
            yield observer
        finally:
            thread_state.graph = saved_graph
            # keep what the code did to the tape stack (a tape answering pops itself)
            thread_state.active = [t for t in thread_state.active if t is not observer]

    # -- placeholders and captures -----------------------------------------------------------
    def placeholder(self, shape, dtype, name, example=None):
        """A new input of this graph of `shape` and `dtype` (`example`: its stand-in value)."""
        shape = TensorShape(shape)
        op = self._add_operation("Placeholder", name)
        op.attrs = {"dtype": dtypes.as_dtype(dtype).name, "shape": str(shape)}
        example_a, example_b = examples_for(shape, dtype, example)
        tensor = SymbolicTensor(self, op, 0, shape, dtype, example_a, example_b)
        op._set_outputs([tensor], (0,), True)
        self.inputs.append(tensor)
        return tensor

    def capture(self, tensor):
        """The placeholder standing for `tensor` of an enclosing graph (made on first use).

        Raises TypeError (TF's "out of scope" error) for a tensor of an unrelated graph.
        """
        if tensor.graph is self:
            return tensor
        inner = self._capture_map.get(tensor._id)
        if inner is not None:
            return inner
        if self.parent is None:
            raise out_of_scope_error(tensor)
        outer = self.parent.capture(tensor)
        if isinstance(outer, TensorArray):
            inner = self.tensor_array_placeholder(outer)
        else:
            inner = SymbolicTensor(self, None, 0, outer.shape, outer.dtype, outer.example,
                                   outer.example_b)
            op = self._add_operation("Placeholder", "input")
            op.attrs = {"dtype": outer.dtype.name, "shape": str(outer.shape)}
            inner.op = op
            op._set_outputs([inner], (0,), True)
            self.inputs.append(inner)
        self.captures.append((outer, inner))
        self._capture_map[tensor._id] = inner
        return inner

    def note_variable(self, variable):
        """Remember that the graph uses `variable` (ConcreteFunction.variables lists them)."""
        if variable._id not in self._variable_ids:
            self._variable_ids.add(variable._id)
            self.variables.append(variable)
            if self.parent is not None:
                self.parent.note_variable(variable)

    def lift_initial_value(self, value):
        """The eager initial value of a variable created while tracing: a callable is called
        outside the graph (TF lifts variable initialisation out of functions)."""
        if callable(value):
            saved_graph, saved_active = thread_state.graph, thread_state.active
            thread_state.graph, thread_state.active = None, []
            try:
                value = value()
            finally:
                thread_state.graph, thread_state.active = saved_graph, saved_active
        if isinstance(value, SymbolicTensor):
            value = self._lift(value)
        return value

    def _lift(self, tensor):
        """Compute `tensor` now, eagerly, and drop the nodes that only served it (an initializer
        traced inside the function, such as a random draw): TF lifts them out of the graph.
        ValueError when it depends on the function's arguments or variables."""
        producers = {t._id: op for op in self.operations for t in op.outputs}
        lifted, stack = {}, [tensor]
        while stack:
            t = stack.pop()
            op = producers.get(t._id)
            if op is None or op.type == "Placeholder" or op.variables or t.graph is not self:
                raise ValueError(
                    f"A tf.Variable created inside a tf.function got the initial value {tensor!r}, "
                    f"which depends on the function's arguments or variables: variables are created "
                    f"once, outside the graph. Create the variable outside the function, or give it "
                    f"a value computed from Python values and constants.")
            if id(op) not in lifted:
                lifted[id(op)] = op
                stack.extend(op.inputs)
        env = {}
        saved_graph, saved_active = thread_state.graph, thread_state.active
        thread_state.graph, thread_state.active = None, []
        try:
            for op in self.operations:
                if id(op) in lifted:
                    op.run(env)
        finally:
            thread_state.graph, thread_state.active = saved_graph, saved_active
        used_elsewhere = {t._id for op in self.operations if id(op) not in lifted for t in op.inputs}
        self.operations = [op for op in self.operations if id(op) not in lifted
                           or any(t._id in used_elsewhere for t in op.outputs)]
        return env[tensor._id]

    def note_created_variable(self, variable):
        """Remember a variable created while tracing (tf.function allows that on its first trace
        only)."""
        graph = self
        while graph is not None:
            graph.created_variables.append(variable)
            graph = graph.parent

    # -- recording calls ---------------------------------------------------------------------
    def call(self, api, args, kwargs, stateful=False, abstract=None, op_type=None, name=None,
             wants_env=False, read_variables=True):
        """Record `api(*args, **kwargs)` as a node and return its outputs as graph values.

        The call runs once on the examples of its symbolic arguments (or `abstract`, for a
        stateful op whose effect must wait for the graph's run, runs instead) to learn the
        outputs' dtypes and shapes. Eager tensors among the arguments are constants of the node.
        With `wants_env`, the node's callable takes the run's environment first (per-run state).
        """
        args = tuple(list(a) if _is_one_shot_iterator(a) else a for a in args)
        template = CallTemplate(args, kwargs)
        leaves = template.leaves
        has_b = False
        for i, leaf in enumerate(leaves):
            if isinstance(leaf, SymbolicTensor):
                if leaf.graph is not self:
                    leaves[i] = leaf = self.capture(leaf)
                has_b = has_b or leaf.example_b is not None
            elif isinstance(leaf, SymbolicTensorArray) and leaf.graph is not self:
                leaves[i] = self.capture(leaf)
            elif isinstance(leaf, Variable):
                if read_variables:  # read now, in the caller's scope (autocast casts the read)
                    leaves[i] = leaf = leaf.value()
                    has_b = has_b or leaf.example_b is not None
                else:
                    self.note_variable(leaf)
        template = template.with_leaves(leaves)
        runner = abstract if abstract is not None else api
        call_args, call_kwargs = template.rebuild(example_leaves(leaves, "example"))
        try:
            with self._evaluating() as observer:
                out_a = runner(*call_args, **call_kwargs)
        except errors.OpError as error:
            # The examples' values may be invalid for this op (an index out of range, a
            # singular matrix): TF would only fail if the node runs. A dtype or shape error TF
            # finds while tracing is raised now, unless it came from the sizes the examples
            # chose for unknown dimensions.
            unit = self._unit_sized_outputs(runner, template, leaves) \
                if is_static_error(error) and has_unknown_sizes(leaves) else None
            if unit is not None:
                out_a, out_b = unit
                node_type = op_type or _camel(getattr(api, "__name__", "Call"))
                op = self._add_operation(node_type, name or getattr(api, "__name__", node_type).strip("_")
                                         or node_type, api, template, stateful, wants_env=wants_env)
                return self._wrap_outputs(op, out_a, out_b)
            if is_static_error(error):
                typed = graph_dtype_error(error)  # TF's graph builder: a TypeError, not the kernel's error
                if typed is not None:
                    raise typed from error
                raise
            out_a, observer = self._outputs_despite(runner, template, leaves), None
            has_b = False
        out_b = None
        if has_b and abstract is None:
            call_args, call_kwargs = template.rebuild(example_leaves(leaves, "example_b"))
            try:
                with self._evaluating():
                    out_b = api(*call_args, **call_kwargs)
            except Exception:  # noqa: BLE001 (the second example only probes unknown sizes)
                # its sizes clash (with a captured constant, say): sizes of 1 broadcast
                out_b = self._run_quietly(api, template.rebuild([unit_sized_leaf(leaf) for leaf in leaves]))
        node_type = op_type or (observer and observer.op_type) or _camel(getattr(api, "__name__", "Call"))
        node_name = name or getattr(api, "__name__", node_type).strip("_") or node_type
        op = self._add_operation(node_type, node_name, api, template, stateful, wants_env=wants_env)
        return self._wrap_outputs(op, out_a, out_b)

    def _unit_sized_outputs(self, runner, template, leaves):
        """(example A, example B) of a single-tensor output from the op run on examples whose
        unknown dimensions have size 1, or None. Output sizes of 1 may come from them and are
        unknown; sizes a constant imposed are known (TF's broadcasting shape inference)."""
        out = self._run_quietly(runner, template.rebuild([unit_sized_leaf(leaf) for leaf in leaves]))
        if type(out) is not Tensor:
            return None
        shape = TensorShape([None if d == 1 else d for d in out.shape.as_list()])
        return examples_for(shape, out.dtype)

    def _run_quietly(self, runner, call):
        """`runner(*args, **kwargs)` of `call`, or None when it raises (a probe)."""
        call_args, call_kwargs = call
        try:
            with self._evaluating():
                return runner(*call_args, **call_kwargs)
        except Exception:  # noqa: BLE001 (only a probe)
            return None

    def _outputs_despite(self, runner, template, leaves):
        """Example outputs of a node whose examples raised: the op on zeros, then on normal
        draws, instead (to learn its output structure), else one output of unknown shape."""
        for probe in (zeros_like_leaf, gaussian_like_leaf):
            call_args, call_kwargs = template.rebuild([probe(leaf) for leaf in leaves])
            try:
                with self._evaluating():
                    return runner(*call_args, **call_kwargs)
            except Exception:  # noqa: BLE001 (only a probe of the output structure)
                continue
        return unknown_output(leaves)

    def _wrap_outputs(self, op, out_a, out_b):
        """`out_a` with every tensor replaced by a symbolic output of `op`."""
        if type(out_a) is Tensor and type(out_b) is not TensorSpec:
            tensor = self._symbolic_output(op, 0, out_a, out_b if isinstance(out_b, Tensor) else None)
            op._set_outputs([tensor], (0,), True)
            return tensor
        flat = Flat(out_a)
        flat_b = flatten(out_b) if out_b is not None else None
        if flat_b is not None and len(flat_b) != len(flat.leaves):
            flat_b = None
        outputs, positions, leaves = [], [], []
        for position, value in enumerate(flat.leaves):
            if isinstance(value, TensorSpec):  # an abstract op's output of a declared spec
                example_a, example_b = examples_for(value.shape, value.dtype)
                value = SymbolicTensor(self, op, len(outputs), value.shape, value.dtype,
                                       example_a, example_b)
                outputs.append(value)
                positions.append(position)
            elif isinstance(value, TensorArray):  # a TensorArray graph value
                value = SymbolicTensorArray._make(
                    self, op, len(outputs), value.dtype, value.element_shape, value.dynamic_size,
                    value._infer_shape, getattr(value, "_static_size", None))
                outputs.append(value)
                positions.append(position)
            elif is_dispatchable(value) and not isinstance(value, (Tensor, Variable)):
                # a ragged or sparse result: its structure is data, which a graph value of
                # minitf cannot carry; refusing beats returning the trace's numbers every call
                raise SymbolicArgumentError(f"{op.name} returns a {type(value).__name__}")
            elif type(value) is Tensor:
                other = flat_b[position] if flat_b is not None else None
                value = self._symbolic_output(op, len(outputs), value,
                                              other if isinstance(other, Tensor) else None)
                outputs.append(value)
                positions.append(position)
            leaves.append(value)
        op._set_outputs(outputs, tuple(positions), False)
        return flat.rebuild(leaves)

    def _symbolic_output(self, op, index, example_a, example_b):
        shape = merged_shape(example_a, example_b)
        if example_b is not None and shape.is_fully_defined() and not values_differ(example_a,
                                                                                     example_b):
            example_b = None
        return SymbolicTensor(self, op, index, shape, example_a.dtype, example_a, example_b)

    def read_variable(self, variable):
        """A `ReadVariableOp` node: the variable's value when the graph runs."""
        from minitf.recording import read_variable_eagerly  # lazy: recording imports this protocol
        return self.call(read_variable_eagerly, (variable,), {}, op_type="ReadVariableOp",
                         name="ReadVariableOp", read_variables=False)

    def tape_step(self, tape, step, args=()):
        """A step of a GradientTape ('enter', 'exit', 'pause', 'resume', 'watch', 'reset')."""
        record_tape_step(self, tape, step, args)

    def tape_record(self, tape, record):
        """A record an op folded while tracing left on `tape`: a node adding it to each run's tape."""
        record_folded_op(self, tape, record)

    def tape_answer(self, tape, method, args, kwargs):
        """`tape.gradient/jacobian/batch_jacobian(...)` as a node; returns its outputs."""
        return record_tape_answer(self, tape, method, args, kwargs)

    def cond(self, pred, true_fn, false_fn):
        """`tf.cond` in this graph: a node with both branches traced as sub-graphs."""
        return control_flow.cond(self, pred, true_fn, false_fn)

    def switch_case(self, branch_index, branch_fns):
        """`tf.switch_case` in this graph: a node with every branch traced."""
        return control_flow.switch_case(self, branch_index, branch_fns)

    def while_loop(self, cond, body, loop_vars, shape_invariants=None, maximum_iterations=None):
        """`tf.while_loop` in this graph: a node with its condition and body traced once."""
        return control_flow.while_loop(self, cond, body, loop_vars, shape_invariants,
                                       maximum_iterations)

    def tensor_array(self, *args, **kwargs):
        """`tf.TensorArray(...)` in this graph: made afresh each time the graph runs."""
        return new_tensor_array(self, *args, **kwargs)

    def tensor_array_placeholder(self, like):
        """An input of this graph standing for a TensorArray like `like` (a loop variable)."""
        op = self._add_operation("Placeholder", "TensorArray")
        ta = SymbolicTensorArray._make(self, op, 0, like.dtype, like.element_shape, like.dynamic_size,
                                       like._infer_shape, getattr(like, "_static_size", None))
        op._set_outputs([ta], (0,), True)
        self.inputs.append(ta)
        return ta

    def map_fn(self, fn, elems, dtypes_out=None):
        """`tf.map_fn` (and `vectorized_map`) in this graph: `fn` traced once on a row."""
        return functional_ops.map_fn(self, fn, elems, dtypes_out)

    def scan(self, fn, elems, initializer=None, reverse=False):
        """`tf.scan` in this graph: `fn` traced once on (accumulator, row)."""
        return functional_ops.scan(self, fn, elems, initializer, reverse)

    def fold(self, fn, elems, initializer=None, reverse=False):
        """`tf.foldl`/`tf.foldr` in this graph: `fn` traced once on (accumulator, row)."""
        return functional_ops.fold(self, fn, elems, initializer, reverse)

    def dataset_loop(self, dataset, body, loop_vars, extra_test=None):
        """`for element in dataset` in this graph: the body traced once on the element spec."""
        return control_flow.dataset_loop(self, dataset, body, loop_vars, extra_test)

    def write_variable(self, variable, method_name, args, kwargs):
        """A stateful node calling `variable.<method_name>(*args, **kwargs)` when the graph runs."""
        method = getattr(type(variable), method_name)
        self.call(method, (variable,) + tuple(args), kwargs, stateful=True, read_variables=False,
                  abstract=_no_result, op_type=_WRITE_TYPES.get(method_name, "AssignVariableOp"),
                  name=_WRITE_TYPES.get(method_name, "AssignVariableOp"))
        if method_name.startswith("assign") and not kwargs.get("read_value", True):
            return None
        return variable

    def add_identity_outputs(self, structured):
        """Set the function's outputs; each symbolic one gets an `Identity` node, as in TF."""
        flat = Flat(structured)
        outputs = []
        for value in flat.leaves:
            if isinstance(value, SymbolicTensor):
                value = self.capture(value) if value.graph is not self else value
                op = self._add_operation("Identity", "Identity")
                out = SymbolicTensor(self, op, 0, value.shape, value.dtype, value.example,
                                     value.example_b)
                op._template = CallTemplate((value,), {})
                op._set_outputs([out], (0,), True)
                value = out
            outputs.append(value)
        self.outputs = outputs
        self.output_structure = flat
        self.structured_outputs = flat.rebuild(outputs)
        self._finished = True

    # -- introspection -----------------------------------------------------------------------
    def get_operations(self):
        """Every node, in the order the trace recorded them."""
        return list(self.operations)

    def get_operation_by_name(self, name):
        """The node called `name` (KeyError when there is none)."""
        for op in self.operations:
            if op.name == name:
                return op
        raise KeyError(f"The name {name!r} refers to an Operation not in the graph.")

    def get_tensor_by_name(self, name):
        """The tensor `"<op name>:<index>"` (KeyError when there is none)."""
        op_name, _, index = name.partition(":")
        op = self.get_operation_by_name(op_name)
        return op.outputs[int(index or 0)]

    def as_graph_def(self, add_shapes=False):
        """A GraphDef-like description: `.node` lists each node's name, op type and inputs."""
        return GraphDef([op.node_def for op in self.operations])

    def __repr__(self):
        return f"FuncGraph(name={self.name}, id={self.id})"


class GraphDef:
    """TF's GraphDef as far as minitf describes a graph: `node`, a list of NodeDefs."""

    def __init__(self, nodes):
        self.node = nodes

    def __repr__(self):
        body = "\n".join("node {\n" + "\n".join("  " + line for line in repr(n).split("\n")) + "\n}"
                         for n in self.node)
        return body + "\nversions {\n  producer: 2202\n}\n"


_WRITE_TYPES = {
    "assign": "AssignVariableOp", "assign_add": "AssignAddVariableOp",
    "assign_sub": "AssignSubVariableOp", "scatter_add": "ResourceScatterAdd",
    "scatter_sub": "ResourceScatterSub", "scatter_mul": "ResourceScatterMul",
    "scatter_div": "ResourceScatterDiv", "scatter_max": "ResourceScatterMax",
    "scatter_min": "ResourceScatterMin", "scatter_update": "ResourceScatterUpdate",
    "scatter_nd_add": "ResourceScatterNdAdd", "scatter_nd_sub": "ResourceScatterNdSub",
    "scatter_nd_max": "ResourceScatterNdMax", "scatter_nd_min": "ResourceScatterNdMin",
    "scatter_nd_update": "ResourceScatterNdUpdate",
}


def _no_result(*args, **kwargs):
    return None


def _is_one_shot_iterator(value):
    return isinstance(value, (zip, map, filter)) or type(value).__name__ == "generator"


def _camel(name):
    return "".join(part[:1].upper() + part[1:] for part in name.strip("_").split("_")) or "Call"
