"""Op table entries for variables, function calls and control flow.

Variable handles reach a loaded function as its resource arguments: the runner of
`ReadVariableOp` gets the minitf Variable itself and reads it as minitf code would (so tapes
watch a trainable variable and a read inside a traced function is a graph node), and the
`Assign*VariableOp` runners assign it. Calls (`StatefulPartitionedCall`, `PartitionedCall`) run
the named function of the library; `If`, `Case` and `While` run their branch and body functions
through minitf's own tf.cond, tf.switch_case and tf.while_loop, so they work eagerly, under a
tape and while tracing.
"""
from minitf.ops import compare, control_flow
from minitf.recording import read_variable, read_variable_eagerly
from minitf.saved_model.op_table import define, exports
from minitf.saved_model.tensors import Attr
from minitf.variable import Variable

__all__ = []


@define("ReadVariableOp", ("value",), stateful=True, resource_inputs=(0,))
def _read(ins, a, ctx):
    return read_variable(ctx.variable(ins[0]))


@exports(read_variable_eagerly)
def _export_read(e, args, op):
    variable = next(iter(args.values()))
    return e.node("ReadVariableOp", [e.resource(variable)], {"dtype": Attr.type(variable.dtype)},
                  variables=[variable])


_WRITES = {"AssignVariableOp": "assign", "AssignAddVariableOp": "assign_add",
           "AssignSubVariableOp": "assign_sub"}


def _writer(method):
    def run(ins, a, ctx):
        getattr(ctx.variable(ins[0]), method)(ins[1])
        return []
    return run


for _type, _method in _WRITES.items():
    define(_type, (), stateful=True, resource_inputs=(0,))(_writer(_method))

    @exports(f"variable:{_type}")
    def _export_write(e, args, op, t=_type):
        variable, value = list(args.values())[:2]
        attrs = {"dtype": Attr.type(variable.dtype)}
        if t == "AssignVariableOp":
            attrs["validate_shape"] = Attr.bool(True)
        e.node(t, [e.resource(variable), e.ref(value, variable.dtype, "value")], attrs,
               n_out=0, variables=[variable])
        return []


for _type in ("StatefulPartitionedCall", "PartitionedCall"):
    @define(_type, ("output*",), stateful=_type.startswith("Stateful"))
    def _call(ins, a, ctx):
        return ctx.call(a["f"].name, list(ins))


def _truth(value):
    """TF's truth of a predicate tensor: a bool as it is, a number when it is not 0."""
    if value.dtype.is_bool:
        return value
    return compare.not_equal(value, 0)


for _type in ("If", "StatelessIf"):
    @define(_type, ("output*",), stateful=_type == "If")
    def _if(ins, a, ctx):
        args = list(ins[1:])
        then_name, else_name = a["then_branch"].name, a["else_branch"].name
        out = control_flow.cond(_truth(ins[0]), lambda: ctx.call(then_name, args),
                                lambda: ctx.call(else_name, args))
        return list(out) if isinstance(out, (list, tuple)) else [out]


for _type in ("Case", "StatelessCase"):
    @define(_type, ("output*",), stateful=_type == "Case")
    def _case(ins, a, ctx):
        args = list(ins[1:])
        fns = [lambda name=b.name: ctx.call(name, args) for b in a["branches"]]
        out = control_flow.switch_case(ins[0], fns)
        return list(out) if isinstance(out, (list, tuple)) else [out]


for _type in ("While", "StatelessWhile"):
    @define(_type, ("output*",), stateful=_type == "While")
    def _while(ins, a, ctx):
        cond_name, body_name = a["cond"].name, a["body"].name
        # variable handles ride along unchanged; minitf's while_loop carries the tensors
        fixed = {i: v for i, v in enumerate(ins) if isinstance(v, Variable)}
        tensors = [v for v in ins if not isinstance(v, Variable)]

        def full(values):
            it = iter(values)
            return [fixed[i] if i in fixed else next(it) for i in range(len(ins))]

        def body(*values):
            out = ctx.call(body_name, full(values))
            return [v for i, v in enumerate(out) if i not in fixed]
        if not tensors:
            return list(ins)
        out = control_flow.while_loop(lambda *v: _truth(ctx.call(cond_name, full(v))[0]), body,
                                      tensors)
        return full(list(out) if isinstance(out, (list, tuple)) else [out])
