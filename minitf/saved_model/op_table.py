"""The op table: the one place a TF op type is mapped to minitf, in both directions.

Each TF op type minitf knows is a `TFOp`: its output argument names (TF's OpDef names, which a
FunctionDef uses to name tensors, `"MatMul:product:0"`) and a runner that computes the op with
minitf's own functions on the node's inputs and attributes (so a loaded function runs, records
on tapes and traces exactly as minitf code does). Exporters map the minitf functions a traced
graph records (`minitf.ops.linalg.matmul`) to the TF nodes that compute them; they sit beside the
runners of the same ops in `ops_*.py`, which register here when this package is imported.

A node of a type the table lacks raises errors.UnimplementedError naming the op type and the
function that holds it, when a SavedModel is loaded (before anything runs); a graph node whose
minitf function has no exporter raises it when a SavedModel is saved.
"""
from minitf.errors import errors

__all__ = ["TFOp", "TABLE", "EXPORTERS", "define", "exports", "fn_key", "lookup", "exporter_for",
           "output_ref", "flat_output_index", "mapped_types"]

TABLE = {}
EXPORTERS = {}
_VARIABLE_WRITES = {"AssignVariableOp": "assign", "AssignAddVariableOp": "assign_add",
                    "AssignSubVariableOp": "assign_sub"}


class TFOp:
    """One TF op type: `outputs` names its output arguments (a trailing '*' marks a list
    argument, whose length the node's attributes give); `run(inputs, attrs, ctx)` computes it."""

    __slots__ = ("type", "outputs", "run", "stateful", "resource_inputs")

    def __init__(self, op_type, outputs, run, stateful, resource_inputs):
        self.type, self.outputs, self.run = op_type, tuple(outputs), run
        self.stateful, self.resource_inputs = stateful, resource_inputs

    def __repr__(self):
        return f"<TFOp {self.type}>"


def define(op_type, outputs=("output",), stateful=False, resource_inputs=()):
    """Decorator: `run(inputs, attrs, ctx)` computes the TF op `op_type`.

    `resource_inputs` are the positions of inputs that are variable handles (the runner gets
    the minitf Variable there, not a tensor).
    """
    def register(run):
        TABLE[op_type] = TFOp(op_type, outputs, run, stateful, tuple(resource_inputs))
        return run
    return register


def fn_key(fn, op_type=None):
    """The key an exporter is registered under for the minitf function `fn` (a node's `_fn`).

    Functions generated per op (the elementwise unary ops share one closure) key by the node's
    TF op type."""
    if isinstance(fn, str):
        return fn
    if op_type == "CustomGradient":   # the user's function, wrapped by tf.custom_gradient
        return "custom_gradient"
    qualname = getattr(fn, "__qualname__", None) or repr(fn)
    if qualname.startswith("_unary.<locals>"):
        return f"unary:{op_type}"
    if op_type in _VARIABLE_WRITES and qualname.rsplit(".", 1)[-1] == _VARIABLE_WRITES[op_type]:
        return f"variable:{op_type}"  # a write through any Variable subclass's method
    return f"{getattr(fn, '__module__', '?')}.{qualname}"


def exports(*fns):
    """Decorator: `rule(emitter, args, op)` exports graph nodes calling any of `fns` (functions,
    or key strings such as 'unary:Exp'); `args` are the call's arguments bound to the
    function's parameters (defaults filled in)."""
    def register(rule):
        for fn in fns:
            EXPORTERS[fn_key(fn)] = (rule, None if isinstance(fn, str) else fn)
        return rule
    return register


def lookup(op_type, function_name):
    """The TFOp for `op_type`; UnimplementedError naming it and `function_name` if unmapped."""
    op = TABLE.get(op_type)
    if op is None:
        raise errors.UnimplementedError(
            None, None, f"The SavedModel's function {function_name!r} uses the TF op "
                        f"{op_type!r}, which minitf's SavedModel loader does not implement "
                        f"(mapped ops: minitf.saved_model.mapped_op_types()).")
    return op


def exporter_for(op):
    """(rule, function) exporting the graph node `op`, or None."""
    return EXPORTERS.get(fn_key(op._fn, op.type))


def _list_length(tf_op, attrs, arg):
    """How many tensors the list output `arg` of a node holds (from its attributes)."""
    for key in ("Tout", "T", "dtypes", "output_types"):
        value = attrs.get(key)
        if isinstance(value, list):
            return len(value)
    for key in ("num", "num_split", "N"):
        if key in attrs:
            return int(attrs[key])
    return None


def flat_output_index(tf_op, attrs, arg, index):
    """The position among a node's flat outputs of its output `arg`:`index` (ValueError if it
    names no output)."""
    position = 0
    for name in tf_op.outputs:
        is_list = name.endswith("*")
        name = name.rstrip("*")
        size = (_list_length(tf_op, attrs, name) if is_list else 1)
        if name == arg:
            if index < 0 or (size is not None and index >= size):
                raise ValueError(f"output {arg}:{index} is out of range")
            return position + index
        if size is None:
            raise ValueError(f"output {arg} follows a list of unknown length")
        position += size
    raise ValueError(f"{tf_op.type} has no output named {arg!r}")


def output_ref(tf_op, flat_index, counts=None):
    """'<arg>:<index>' naming flat output `flat_index` of a node of `tf_op` (list outputs of
    `counts` tensors, in output order)."""
    if len(tf_op.outputs) == 1:
        return f"{tf_op.outputs[0].rstrip('*')}:{flat_index}"
    position = 0
    counts = list(counts or [])
    for name in tf_op.outputs:
        size = counts.pop(0) if name.endswith("*") and counts else 1
        if flat_index < position + size:
            return f"{name.rstrip('*')}:{flat_index - position}"
        position += size
    raise ValueError(f"{tf_op.type} has no output {flat_index}")


def mapped_types():
    """The TF op types the table maps, sorted."""
    return sorted(TABLE)
