"""Control flow inside a traced function: `tf.cond`, `tf.switch_case` and `tf.while_loop` as
nodes with their own sub-graphs, as TF builds them.

Each branch (or the loop's condition and body) is traced once into a child FuncGraph: its
Python runs once, whatever the data, and tensors of the enclosing graph it uses become inputs of
the node (captures). When the graph runs, the node evaluates the predicate and runs one branch,
or runs the body while the condition holds, on that run's values, eagerly, so tapes record every
iteration taken and gradients flow as in eager mode.
"""
from minitf.nest import nest
from minitf.convert import convert_to_tensor
from minitf.graph.interpreter import Interpreter
from minitf.ops.tensor_array import TensorArray
from minitf.symbolic_tensor import SymbolicTensor
from minitf.tensor import Tensor
from minitf.tensor_shape import TensorShape
from minitf.variable import Variable

__all__ = ["cond", "switch_case", "while_loop", "dataset_loop"]


def _as_output(value):
    """A branch or body result as a graph value: Python numbers and arrays become tensors."""
    if value is None or isinstance(value, (Tensor, TensorArray)):
        return value
    if isinstance(value, Variable):
        return value.value()
    return convert_to_tensor(value)


def as_outputs(value):
    return nest.map_structure(_as_output, value) if nest.is_nested(value) else _as_output(value)


class SubGraphs:
    """Sub-graphs of one node and how the node's capture arguments feed each of them."""

    def __init__(self, graphs):
        self.interpreters = [Interpreter(g) for g in graphs]
        self.captured = []  # the outer tensors the sub-graphs use, in node-argument order
        position = {}
        self.feeds = []
        for g in graphs:
            feed = []
            for outer, _ in g.captures:
                if outer._id not in position:
                    position[outer._id] = len(self.captured)
                    self.captured.append(outer)
                feed.append(position[outer._id])
            self.feeds.append(feed)
        self.stateful = any(op.stateful for g in graphs for op in g.operations)

    def run(self, which, inputs, captured):
        """The flat outputs of sub-graph `which` on `inputs` and its captured values."""
        return self.interpreters[which].run(list(inputs) + [captured[i] for i in self.feeds[which]])


def _merged_shape(tensors):
    """The dims every tensor agrees on (None elsewhere; unknown rank if ranks differ)."""
    merged = tensors[0].shape
    for t in tensors[1:]:
        if merged.rank is None or t.shape.rank != merged.rank:
            return TensorShape(None)
        merged = TensorShape([a if a == b else None for a, b in zip(merged.as_list(), t.shape.as_list())])
    return merged


def _check_branches(outputs, names):
    """TF's errors for branches that return different structures, None in one, or dtypes."""
    first = outputs[0]
    for other, name in zip(outputs[1:], names[1:]):
        try:
            nest.assert_same_structure(first, other, check_types=False)
        except (ValueError, TypeError) as e:
            raise ValueError(f"{names[0]} and {name} arguments to tf.cond must have the same number, "
                             f"type, and overall structure of return values.\n\n{names[0]} output: "
                             f"{first}\n{name} output: {other}\n\nError details:\n{e}") from None
    for leaves in zip(*(nest.flatten(o) for o in outputs)):
        tensors = [t for t in leaves if isinstance(t, Tensor)]
        if tensors and len(tensors) != len(leaves):
            raise ValueError(f"{', '.join(names)} must all return a tensor, or all None, for each "
                             f"output; got {leaves}.")
        if len({t.dtype for t in tensors}) > 1:
            raise TypeError(f"{', '.join(names)} return different dtypes for one output: "
                            f"{[t.dtype.name for t in tensors]}; cast them to one dtype.")


def _trace_branches(graph, fns, prefix):
    graphs = []
    for i, fn in enumerate(fns):
        child = type(graph)(f"{graph.name}_{prefix}{i}", parent=graph)
        with child.building(hide_outer_tapes=False):
            child.add_identity_outputs(as_outputs(fn()))
        graphs.append(child)
    return graphs


def _branch_node(graph, selector, fns, names, choose, op_type, node_name):
    """Trace `fns` as branches; record the node running `fns[choose(selector)]`."""
    graphs = _trace_branches(graph, fns, node_name)
    outputs = [g.structured_outputs for g in graphs]
    _check_branches(outputs, names)
    sub = SubGraphs(graphs)
    chosen = choose(selector.example if isinstance(selector, SymbolicTensor) else selector)
    examples = [t.example if isinstance(t, SymbolicTensor) else t for t in graphs[chosen].outputs]

    def run_branch(selector_value, *captured):
        return sub.run(choose(selector_value), (), captured)
    run_branch.sub_graphs = sub  # read by exporters (the branches' graphs and captures)

    flat = graph.call(run_branch, (selector,) + tuple(sub.captured), {}, stateful=sub.stateful,
                      abstract=lambda *args: list(examples),
                      op_type=op_type if sub.stateful else "Stateless" + op_type, name=node_name)
    for value, leaves in zip(flat, zip(*(g.outputs for g in graphs))):
        if isinstance(value, SymbolicTensor):
            value._static_shape = _merged_shape(leaves)
    structure = graphs[0].output_structure
    return structure.rebuild(flat)


def cond(graph, pred, true_fn, false_fn):
    """`tf.cond` while tracing: both branches traced, one run each time the graph runs."""
    if not isinstance(pred, Tensor):
        pred = convert_to_tensor(pred)
    return _branch_node(graph, pred, [true_fn, false_fn], ["true_fn", "false_fn"],
                        lambda p: 0 if bool(p) else 1, "If", "cond")


def switch_case(graph, branch_index, branch_fns):
    """`tf.switch_case` while tracing: every branch traced; an index out of range runs the last."""
    n = len(branch_fns)

    def choose(index):
        i = int(index)
        return i if 0 <= i < n else n - 1
    return _branch_node(graph, branch_index, list(branch_fns),
                        [f"branch_fns[{i}]" for i in range(n)], choose, "Case", "switch_case")


def while_loop(graph, cond_fn, body, loop_vars, shape_invariants=None, maximum_iterations=None):
    """`tf.while_loop` while tracing: the condition and the body traced once each; the node runs
    the body while the condition holds (at most `maximum_iterations` times)."""
    structure = loop_vars
    flat = [_as_output(v) for v in nest.flatten(loop_vars)]
    if not flat:
        raise ValueError("'loop_vars' must be provided.")
    shapes = _invariant_shapes(flat, shape_invariants)
    cond_graph = _trace_loop_part(graph, "cond", cond_fn, structure, flat, shapes)
    body_graph = _trace_loop_part(graph, "body", body, structure, flat, shapes)
    _check_loop_outputs(structure, body_graph.structured_outputs, flat, shapes)
    sub = SubGraphs([cond_graph, body_graph])
    n_vars = len(flat)

    def run_loop(*args):
        values, captured, limit = list(args[:n_vars]), args[n_vars:-1], args[-1]
        bound = None if limit is None else int(limit)
        count = 0
        while (bound is None or count < bound) and bool(sub.run(0, values, captured)[0]):
            values = sub.run(1, values, captured)
            count += 1
        return values
    run_loop.sub_graphs, run_loop.loop_variable_count = sub, n_vars  # read by exporters

    examples = [p if isinstance(p, TensorArray) else p.example for p in cond_graph.inputs[:n_vars]]
    outputs = graph.call(run_loop, tuple(flat) + tuple(sub.captured) + (maximum_iterations,), {},
                         stateful=sub.stateful, abstract=lambda *args: list(examples),
                         op_type="While" if sub.stateful else "StatelessWhile", name="while")
    for out, shape in zip(outputs, shapes):
        if isinstance(out, SymbolicTensor):
            out._static_shape = shape
    return nest.pack_sequence_as(structure, outputs) if nest.is_nested(structure) else outputs[0]


def _invariant_shapes(flat, shape_invariants):
    if shape_invariants is None:
        return [v.element_shape if isinstance(v, TensorArray) else v.shape for v in flat]
    shapes = [TensorShape(s) for s in nest.flatten(shape_invariants)]
    for v, shape in zip(flat, shapes):
        if not shape.is_compatible_with(v.shape):
            raise ValueError(f"The shape invariant specified for {v!r} is not compatible with the "
                             f"initial shape of the loop variable. It enters the loop with shape "
                             f"{v.shape}, but the specified shape invariant is {shape}.")
    return shapes


def _state_placeholders(child, flat, shapes):
    """Placeholders in `child` (a loop part's graph) for the loop state `flat` with `shapes`:
    each carries its value's example when the shape allows it."""
    placeholders = []
    for v, shape in zip(flat, shapes):
        if isinstance(v, TensorArray):
            placeholders.append(child.tensor_array_placeholder(v))
            continue
        example = v.example if isinstance(v, SymbolicTensor) else v
        if example is not None and not shape.is_compatible_with(example.shape):
            example = None
        placeholders.append(child.placeholder(shape, v.dtype, "loop_var", example))
    return placeholders


def _trace_loop_part(graph, part, fn, structure, flat, shapes):
    """The loop's condition or body traced on placeholders of the loop variables."""
    child = type(graph)(f"{graph.name}_while_{part}", parent=graph)
    with child.building(hide_outer_tapes=False):
        placeholders = _state_placeholders(child, flat, shapes)
        args = nest.pack_sequence_as(structure, placeholders) if nest.is_nested(structure) \
            else placeholders[0]
        out = fn(*args) if isinstance(args, (list, tuple)) else fn(args)
        if part == "body" and isinstance(structure, (list, tuple)) and len(structure) == 1 \
                and not isinstance(out, (list, tuple)):
            out = type(structure)([out]) if not hasattr(structure, "_fields") else structure._make([out])
        child.add_identity_outputs(as_outputs(out))
    return child


def _check_loop_outputs(structure, body_out, flat_in, shapes):
    """TF's errors for a body whose results do not match the loop variables."""
    try:
        nest.assert_same_structure(structure, body_out, check_types=False)
    except (ValueError, TypeError) as e:
        raise ValueError(f"The two structures don't have the same nested structure.\n\nFirst "
                         f"structure: {structure}\n\nSecond structure: {body_out}\n\nMore "
                         f"specifically: {e}") from None
    for v, out, shape in zip(flat_in, nest.flatten(body_out), shapes):
        if not isinstance(out, Tensor):
            continue
        if out.dtype != v.dtype:
            raise TypeError(f"Loop variable {v!r} enters the loop with type {v.dtype!r}, but has "
                            f"type {out.dtype!r} after 1 iteration; cast it so both are one dtype.")
        if not _fits(out.shape, shape):
            name = v.name if isinstance(v, SymbolicTensor) else "loop_var"
            raise ValueError(f"Input tensor '{name}' enters the loop with shape {shape}, but has "
                             f"shape {out.shape} after one iteration. To allow the shape to vary "
                             f"across iterations, use the `shape_invariants` argument of "
                             f"tf.while_loop to specify a less-specific shape.")


def _fits(shape, invariant):
    """True when every dimension the invariant fixes is the same in `shape`."""
    if invariant.rank is None:
        return True
    if shape.rank != invariant.rank:
        return False
    return all(i is None or s == i for s, i in zip(shape.as_list(), invariant.as_list()))


def dataset_loop(graph, dataset, body, loop_vars, extra_test=None):
    """`for element in dataset` while tracing: `body(element, *loop_vars)` traced once, on the
    dataset's element spec; the node iterates the dataset afresh each time the graph runs (an
    iterator goes on from where it is), stopping early when `extra_test(*loop_vars)` is false."""
    flat = [_as_output(v) for v in loop_vars]
    shapes = [v.element_shape if isinstance(v, TensorArray) else v.shape for v in flat]
    spec = dataset.element_spec
    spec_leaves = nest.flatten(spec)
    n_vars = len(flat)

    def traced(part, fn, with_element):
        child = type(graph)(f"{graph.name}_dataset_{part}", parent=graph)
        with child.building(hide_outer_tapes=False):
            state = _state_placeholders(child, flat, shapes)
            if with_element:
                leaves = [child.placeholder(s.shape, s.dtype, "element") for s in spec_leaves]
                element = nest.pack_sequence_as(spec, leaves) if nest.is_nested(spec) else leaves[0]
                out = fn(element, *state)
            else:
                out = fn(*state)
            child.add_identity_outputs(as_outputs(tuple(out) if with_element else out))
        return child

    body_graph = traced("body", body, True)
    # as Dataset.reduce: a state whose shape the body makes less specific is relaxed to the
    # shape covering both, and the body traced again on it
    outs = nest.flatten(body_graph.structured_outputs)
    relaxed = [shape if not isinstance(out, Tensor) else _merged_shape([v, out]) if
               not isinstance(v, TensorArray) else shape for v, out, shape in zip(flat, outs, shapes)]
    if any(r != s for r, s in zip(relaxed, shapes)):
        shapes = relaxed
        body_graph = traced("body", body, True)
    _check_loop_outputs(tuple(flat), body_graph.structured_outputs, flat, shapes)
    graphs = [body_graph] + ([traced("test", extra_test, False)] if extra_test is not None else [])
    sub = SubGraphs(graphs)

    def run_loop(source, *args):
        values, captured = list(args[:n_vars]), args[n_vars:]
        iterator = iter(source) if hasattr(source, "_node") else source
        for element in iterator:
            if extra_test is not None and not bool(sub.run(1, values, captured)[0]):
                break
            values = sub.run(0, values + nest.flatten(element), captured)
        return values

    examples = [p if isinstance(p, TensorArray) else p.example for p in body_graph.inputs[:n_vars]]
    outputs = graph.call(run_loop, (dataset,) + tuple(flat) + tuple(sub.captured), {},
                         stateful=True, abstract=lambda *args: list(examples),
                         op_type="DatasetForLoop", name="dataset_loop")
    for out, shape in zip(outputs, shapes):
        if isinstance(out, SymbolicTensor):
            out._static_shape = shape
    return outputs
