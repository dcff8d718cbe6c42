"""Exporters for control flow: tf.cond, tf.switch_case and tf.while_loop nodes as TF's If, Case
and While, their branches and loop parts as functions of the library.

A traced control-flow node (minitf.graph.control_flow) keeps its sub-graphs on the callable it
runs (`sub_graphs`, a `_SubGraphs`: the traced graphs, the outer values they capture and which of
those each graph reads; a loop also `loop_variable_count`). TF's If and Case pass every branch the same inputs, so each
branch function takes all captured values (and the handles of every variable any branch uses),
reading the ones it needs. TF's While carries every value the loop uses as a loop variable: the
loop's own variables, then the captured values and variable handles unchanged, then (with
`maximum_iterations`) an iteration counter and its limit, as TF's while_v2 builds them.
"""
from minitf.dtypes import dtypes
from minitf.saved_model.export_graph import export_subgraph
from minitf.saved_model.op_table import exports
from minitf.saved_model.tensors import Attr
from minitf.symbolic_tensor import SymbolicTensor
from minitf.tensor_shape import TensorShape

__all__ = []

_BRANCH_KEY = "minitf.graph.control_flow._branch_node.<locals>.run_branch"
_LOOP_KEY = "minitf.graph.control_flow.while_loop.<locals>.run_loop"


def _sub_graphs(e, op):
    """(the _SubGraphs of a control-flow node, its graphs)."""
    try:
        sub = op._fn.sub_graphs
        return sub, [it.graph for it in sub.interpreters]
    except AttributeError:
        raise e.error("its sub-graphs could not be read") from None


def _variables(graphs):
    out, seen = [], set()
    for g in graphs:
        for v in g.variables:
            if v._id not in seen:
                seen.add(v._id)
                out.append(v)
    return out


def _stateful(graphs, variables):
    return bool(variables) or any(o.stateful for g in graphs for o in g.operations)


def _shape(value):
    return value.shape if hasattr(value, "shape") else TensorShape(None)


def _captured_args(sub, graph_index, graph, skip=0):
    """(placeholder or None, dtype, shape) per captured value, for sub-graph `graph_index`."""
    inner = {}
    for (outer, placeholder), position in zip(graph.captures, sub.feeds[graph_index]):
        inner[position] = placeholder
    return [(inner.get(i), c.dtype, _shape(c)) for i, c in enumerate(sub.captured)]


@exports(_BRANCH_KEY)
def _export_branch(e, args, op):
    sub, graphs = _sub_graphs(e, op)
    leaves = op._template.leaves
    selector, captured = leaves[0], list(sub.captured)
    if any(not isinstance(c, SymbolicTensor) for c in captured):
        raise e.error("a branch captures a value that is not a tensor of the function")
    variables = _variables(graphs)
    positions = list(op._output_positions) if not op._single_output else [0]
    names = []
    for i, g in enumerate(graphs):
        exported = export_subgraph(g, e.sub_function_name(f"branch{i}"), _captured_args(sub, i, g),
                                   variables, positions)
        e.add_function(exported)
        names.append(exported.name)
    out_dtypes = [t.dtype for t in op.outputs]
    in_dtypes = [c.dtype for c in captured] + [dtypes.resource] * len(variables)
    inputs = [e.ref(c) for c in captured] + [e.resource(v) for v in variables]
    stateful = _stateful(graphs, variables)
    attrs = {"Tin": Attr.types(in_dtypes), "Tout": Attr.types(out_dtypes),
             "output_shapes": Attr.shapes([t.shape for t in op.outputs])}
    if len(graphs) == 2 and op.type.endswith("If"):
        selector_ref = e.ref(selector)
        attrs.update(Tcond=Attr.type(selector.dtype if e.symbolic(selector) else e.dtype(selector)),
                     then_branch=Attr.func(names[0]), else_branch=Attr.func(names[1]))
        return e.node("If" if stateful else "StatelessIf", [selector_ref] + inputs, attrs,
                      n_out=len(out_dtypes), variables=variables if stateful else ())
    attrs["branches"] = Attr.funcs(names)
    return e.node("Case" if stateful else "StatelessCase",
                  [e.ref(selector, dtypes.int32, "branch_index")] + inputs, attrs,
                  n_out=len(out_dtypes), variables=variables if stateful else ())


@exports(_LOOP_KEY)
def _export_while(e, args, op):
    sub, (cond_graph, body_graph) = _sub_graphs(e, op)
    n_vars = op._fn.loop_variable_count
    leaves = op._template.leaves
    loop_values, captured, limit = leaves[:n_vars], list(sub.captured), leaves[-1]
    if any(not (isinstance(v, SymbolicTensor) or hasattr(v, "dtype")) for v in loop_values):
        raise e.error("a loop variable is not a tensor (TensorArrays are not exported)")
    variables = _variables([cond_graph, body_graph])
    shapes = [t.shape for t in op.outputs]
    loop_dtypes = [v.dtype for v in loop_values]
    counted = limit is not None
    cap_dtypes = [c.dtype for c in captured]
    n_cap, n_res = len(captured), len(variables)

    def args_of(index, graph):
        own = [(p, d, s) for p, d, s in zip(graph.inputs[:n_vars], loop_dtypes, shapes)]
        extra = [(None, dtypes.int32, TensorShape([]))] * (2 if counted else 0)
        return own + _captured_args(sub, index, graph) + extra

    def wrap_args(exported_args):
        # the counter and limit go last, after the variable handles export_subgraph appends
        return exported_args

    def cond_extra(b, refs, outputs):
        if not counted:
            return []
        counter, bound = refs[-2], refs[-1]
        less = b.node("Less", "Less", [counter, bound], {"T": Attr.type(dtypes.int32)})
        both = b.node("LogicalAnd", "LogicalAnd", [f"{less}:z:0", outputs[0][0]])
        outputs[0] = (f"{both}:z:0", dtypes.bool)
        return []

    def body_extra(b, refs, outputs):
        passed = [(r, d) for r, d in zip(refs[n_vars:n_vars + n_cap], cap_dtypes)]
        handles = [(r, dtypes.resource) for r in refs[n_vars + n_cap + (2 if counted else 0):]]
        more = passed
        counters = []
        if counted:
            counter, bound = refs[n_vars + n_cap], refs[n_vars + n_cap + 1]
            one = b.node("Const", "add/y", [], {"value": Attr.tensor(1, dtypes.int32),
                                                "dtype": Attr.type(dtypes.int32)})
            step = b.node("AddV2", "add", [counter, f"{one}:output:0"], {"T": Attr.type(dtypes.int32)})
            counters = [(f"{step}:z:0", dtypes.int32), (bound, dtypes.int32)]
        return more + counters + handles

    cond_fn = export_subgraph(cond_graph, e.sub_function_name("cond"), wrap_args(args_of(0, cond_graph)),
                              variables, [0], cond_extra)
    body_fn = export_subgraph(body_graph, e.sub_function_name("body"), wrap_args(args_of(1, body_graph)),
                              variables, list(range(n_vars)), body_extra)
    e.add_function(cond_fn)
    e.add_function(body_fn)
    inputs = [e.ref(v, d, f"loop_var_{i}") for i, (v, d) in enumerate(zip(loop_values, loop_dtypes))]
    inputs += [e.ref(c) for c in captured]
    all_dtypes = loop_dtypes + cap_dtypes
    all_shapes = shapes + [_shape(c) for c in captured]
    if counted:
        inputs += [e.const(0, dtypes.int32, "loop_counter"),
                   e.ref(limit, dtypes.int32, "maximum_iterations")]
        all_dtypes += [dtypes.int32, dtypes.int32]
        all_shapes += [TensorShape([]), TensorShape([])]
    inputs += [e.resource(v) for v in variables]
    all_dtypes += [dtypes.resource] * n_res
    all_shapes += [TensorShape([])] * n_res
    stateful = _stateful([cond_graph, body_graph], variables)
    refs = e.node("While" if stateful else "StatelessWhile", inputs, {
        "T": Attr.types(all_dtypes), "cond": Attr.func(cond_fn.name),
        "body": Attr.func(body_fn.name), "output_shapes": Attr.shapes(all_shapes),
        "parallel_iterations": Attr.int(10)}, n_out=len(all_dtypes),
        variables=variables if stateful else ())
    return refs[:n_vars]
