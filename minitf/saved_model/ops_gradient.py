"""Custom gradients in SavedModels (`SaveOptions(experimental_custom_gradients=True)`, TF's default).

A `tf.custom_gradient` call inside a traced function is one graph node that runs the user's
function. It is exported as TF writes it: the forward computation's ops inlined, then an
`IdentityN` of (results..., inputs...) tagged `_gradient_op_type: CustomGradient-N`, whose
gradient is a library function registered under that op type (FunctionDefLibrary's
`registered_gradients`). The gradient function takes one upstream gradient per IdentityN output
and returns the gradients of the custom gradient's inputs (the user's rule; zeros for None), as
TF's own files hold them.

Loading, an `IdentityN` whose op type names a registered gradient runs under minitf's
`custom_gradient`, its rule the loaded gradient function: its values are the gradients of the
last IdentityN inputs (the custom gradient's inputs); the results before them get none, so the
forward ops are not differentiated, as with tf.custom_gradient. (TF's loader hands them to the
first inputs instead, which is the same when the forward function returns its inputs.) Rules
that read forward values other than the upstream gradients, or variables, are not exported.
"""
import itertools

from minitf.nest import nest
from minitf.custom_gradient import custom_gradient
from minitf.graph.interpreter import needed_operations
from minitf.ops import constant, creation
from minitf.saved_model.export_graph import export_node, export_subgraph
from minitf.saved_model.op_table import define, exports
from minitf.saved_model.tensors import Attr
from minitf.symbolic_tensor import SymbolicTensor
from minitf.tensor import Tensor
from minitf.tensor_spec import TensorSpec

__all__ = []

_ids = itertools.count(1)


@exports("custom_gradient")
def _export_custom_gradient(e, args, op):
    user_fn = getattr(op._fn, "__wrapped__", None)
    if user_fn is None:
        raise e.error("the custom gradient's function could not be read")
    call_args, call_kwargs = op._template.rebuild(op._template.leaves)
    inputs = [a for a in call_args if isinstance(a, Tensor)]
    if len(inputs) != len(call_args):
        raise e.error("custom gradients of non-tensor arguments are not exported")
    graph_type = type(op.graph)
    forward = graph_type(f"{op.name}_forward", parent=op.graph)
    with forward.building():
        placeholders = [forward.placeholder(t.shape, t.dtype, f"x_{i}",
                                            getattr(t, "example", None))
                        for i, t in enumerate(inputs)]
        result, grad_fn = user_fn(*placeholders, **call_kwargs)
        forward.add_identity_outputs(result)
    for placeholder, value in zip(placeholders, inputs):
        e.b.refs[placeholder._id] = e.ref(value)
    for outer, inner in forward.captures:
        e.b.refs[inner._id] = e.ref(outer)
    if forward.variables:
        raise e.error("custom gradients of functions that read variables are not exported")
    for inner_op in needed_operations(forward):
        export_node(e.b, inner_op, e.function_name)
    results = [t for t in forward.outputs if isinstance(t, Tensor)]
    result_refs = [e.b.refs[t._id] if isinstance(t, SymbolicTensor) else e.const(t)
                   for t in results]
    op_type = f"CustomGradient-{next(_ids)}"
    all_values = results + inputs
    identity = e.node("IdentityN", result_refs + [e.ref(v) for v in inputs], {
        "T": Attr.types([v.dtype for v in all_values]), "_gradient_op_type": Attr.str(op_type)},
        n_out=len(all_values))
    gradient, signature = _gradient_function(e, graph_type, grad_fn, all_values, len(results))
    e.add_function(gradient, gradient_op_type=op_type, signature=signature)
    return identity[:len(results)]


def _gradient_function(e, graph_type, grad_fn, values, n_results):
    graph = graph_type(f"{e.op.name}_grad")
    with graph.building():
        upstream = [graph.placeholder(v.shape, v.dtype, f"result_grads_{i}")
                    for i, v in enumerate(values)]
        try:
            grads = grad_fn(*upstream[:n_results])
        except TypeError as err:
            raise e.error(f"its gradient function could not be traced on its own ({err}); "
                          f"rules that use forward values are not exported") from None
        grads = nest.flatten(grads) if isinstance(grads, (list, tuple)) else [grads]
        outputs = [creation.zeros_like(u) if g is None else constant.identity(g)
                   for g, u in zip(grads, upstream[n_results:])]
        graph.add_identity_outputs(outputs)
    args = [(p, p.dtype, p.shape) for p in upstream]
    exported = export_subgraph(graph, e.sub_function_name("grad"), args, [],
                               list(range(len(outputs))))
    # TF's structure of a registered gradient: (op, *result_grads) in; None for each result
    inputs = ((None,) + tuple(TensorSpec(p.shape, p.dtype, p.op.name) for p in upstream), {})
    outputs = [None] * n_results + [TensorSpec(o.shape, o.dtype, f"tensor_{n_results + i}")
                                    for i, o in enumerate(graph.outputs)]
    return exported, (inputs, outputs)


def _identity_n(ins, a, ctx):
    gradient = ctx.gradient_function(a.get("_gradient_op_type")) if ctx is not None else None
    if gradient is None:
        return [constant.identity(x) for x in ins]

    @custom_gradient
    def tagged(*xs):
        outs = [constant.identity(x) for x in xs]

        def rule(*upstream):
            upstream = [creation.zeros_like(o) if u is None else u for u, o in zip(upstream, outs)]
            grads = list(ctx.call(gradient, upstream))[:len(xs)]
            # the function gives the inputs' gradients; the results before them get none
            return [None] * (len(xs) - len(grads)) + grads
        return outs, rule
    out = tagged(*ins)
    return list(out) if isinstance(out, (list, tuple)) else [out]


define("IdentityN", ("output*",))(_identity_n)
