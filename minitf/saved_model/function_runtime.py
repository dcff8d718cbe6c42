"""Running a SavedModel's FunctionDefs with minitf's ops.

`Library` holds the function library of a loaded SavedModel. Each function is checked once, as a
whole, before anything runs (`compile`): every node's op type must be in the op table, every input
must name an argument or another node's output, the nodes must form no cycle, every function a
node calls must exist. A compiled function runs its nodes in dependency order, each through its
op table runner on minitf tensors, so a loaded function computes with minitf's own kernels: it
records on gradient tapes, and called while a `tf.function` is traced it becomes nodes of that
graph. Only nodes the results or a stateful node need run, as in TF.
"""
from minitf.errors import errors
from minitf.saved_model import op_table
from minitf.saved_model.codec import WireError
from minitf.saved_model.tensors import attr_values, dtype_of
from minitf.variable import Variable

__all__ = ["Library", "CompiledFunction"]

_MAX_CALL_DEPTH = 200


class _Node:
    __slots__ = ("name", "op", "attrs", "inputs", "controls")

    def __init__(self, name, op, attrs):
        self.name, self.op, self.attrs = name, op, attrs
        self.inputs, self.controls = [], []


class CompiledFunction:
    """One FunctionDef, checked and ordered: `input_dtypes`, `output_dtypes`, `output_names`."""

    def __init__(self, fdef, library):
        sig = fdef.signature
        self.name = sig.name
        self.library = library
        self.input_names = [a.name for a in sig.input_arg]
        self.input_dtypes = [dtype_of(a.type, f"an input of {self.name}") for a in sig.input_arg]
        self.output_names = [a.name for a in sig.output_arg]
        self.output_dtypes = [dtype_of(a.type, f"an output of {self.name}")
                              for a in sig.output_arg]
        args = {name: i for i, name in enumerate(self.input_names)}
        nodes = {}
        for nd in fdef.node_def:
            if nd.name in nodes or nd.name in args:
                raise WireError(f"function {self.name!r} names two nodes {nd.name!r}")
            nodes[nd.name] = _Node(nd.name, op_table.lookup(nd.op, self.name), attr_values(nd.attr))
        for nd in fdef.node_def:
            node = nodes[nd.name]
            for ref in nd.input:
                if ref.startswith("^"):
                    if ref[1:] not in nodes:
                        raise WireError(f"node {nd.name!r} of {self.name!r} waits for unknown "
                                        f"node {ref[1:]!r}")
                    node.controls.append(ref[1:])
                else:
                    node.inputs.append(self._source(ref, args, nodes, nd.name))
        self.outputs = [self._source(fdef.ret.get(n, ""), args, nodes, f"result {n}")
                        for n in self.output_names]
        wanted = [s[1] for s in self.outputs if s[0] == "node"]
        wanted += [n for n in fdef.control_ret.values() if n in nodes]
        wanted += [n.name for n in nodes.values() if n.op.stateful]
        self.nodes = _ordered(nodes, wanted, self.name)

    def _source(self, ref, args, nodes, where):
        """('arg', index) or ('node', name, flat output index) for a tensor reference."""
        if ref in args:
            return ("arg", args[ref])
        parts = ref.split(":")
        if parts[0] in args and len(parts) == 2 and parts[1] == "0":
            return ("arg", args[parts[0]])
        node = nodes.get(parts[0])
        if node is None or len(parts) > 3:
            raise WireError(f"{where} of function {self.name!r} reads {ref!r}, which names no "
                            f"argument or node output")
        try:
            if len(parts) == 3:
                index = op_table.flat_output_index(node.op, node.attrs, parts[1], int(parts[2]))
            else:
                index = int(parts[1]) if len(parts) == 2 else 0
        except ValueError as e:
            raise WireError(f"{where} of function {self.name!r} reads {ref!r}: {e}") from None
        return ("node", node.name, index)

    def callees(self):
        """Names of the functions this one's nodes call."""
        out = []
        for node in self.nodes:
            op_type = node.attrs.get("_gradient_op_type")
            gradient = self.library.gradients.get(
                op_type.decode("utf-8", "replace") if isinstance(op_type, bytes) else op_type)
            if gradient is not None:
                out.append(gradient)
            for value in node.attrs.values():
                refs = value if isinstance(value, list) else [value]
                out.extend(r.name for r in refs if hasattr(r, "attrs") and hasattr(r, "name"))
        return out

    def __call__(self, inputs, depth=0):
        """The outputs (a list) of this function on `inputs` (tensors, and Variables for its
        resource arguments)."""
        if len(inputs) != len(self.input_names):
            raise errors.InvalidArgumentError(
                None, None, f"function {self.name!r} takes {len(self.input_names)} inputs, got "
                            f"{len(inputs)}")
        if depth > _MAX_CALL_DEPTH:
            raise errors.ResourceExhaustedError(None, None, f"function {self.name!r}: calls nested "
                                                f"deeper than {_MAX_CALL_DEPTH}")
        values = {}
        ctx = _Context(self, depth)

        def fetch(source):
            if source[0] == "arg":
                return inputs[source[1]]
            return values[source[1]][source[2]]
        for node in self.nodes:
            ctx.node = node
            try:
                out = node.op.run([fetch(s) for s in node.inputs], node.attrs, ctx)
            except KeyError as e:
                raise errors.InvalidArgumentError(
                    None, None, f"node {node.name!r} ({node.op.type}) of function {self.name!r} "
                                f"lacks the attribute {e}") from None
            except IndexError:
                raise errors.InvalidArgumentError(
                    None, None, f"node {node.name!r} ({node.op.type}) of function {self.name!r} "
                                f"has too few inputs ({len(node.inputs)})") from None
            if out is None:
                out = []
            elif not isinstance(out, (list, tuple)):
                out = [out]
            values[node.name] = list(out)
        return [fetch(s) for s in self.outputs]


def _ordered(nodes, wanted, function_name):
    """The nodes `wanted` needs (with themselves), each after its inputs (WireError on a cycle)."""
    order, state = [], {}
    for root in wanted:
        stack = [(root, False)]
        while stack:
            name, done = stack.pop()
            if done:
                state[name] = 2
                order.append(nodes[name])
                continue
            if state.get(name) == 2:
                continue
            if state.get(name) == 1:
                raise WireError(f"function {function_name!r} has a cycle through node {name!r}")
            state[name] = 1
            stack.append((name, True))
            node = nodes[name]
            deps = [s[1] for s in node.inputs if s[0] == "node"] + node.controls
            for dep in deps:
                if state.get(dep) == 1:
                    raise WireError(f"function {function_name!r} has a cycle through node {dep!r}")
                if state.get(dep) != 2:
                    stack.append((dep, False))
    return order


class _Context:
    """What a runner may ask of the function running it."""

    __slots__ = ("function", "depth", "node")

    def __init__(self, function, depth):
        self.function, self.depth, self.node = function, depth, None

    def call(self, name, inputs):
        """The outputs of library function `name` on `inputs`."""
        return self.function.library.function(name)(list(inputs), self.depth + 1)

    def gradient_function(self, op_type):
        """The name of the function registered as custom gradient `op_type`, or None."""
        if isinstance(op_type, bytes):
            op_type = op_type.decode("utf-8", "replace")
        return self.function.library.gradients.get(op_type)

    def variable(self, handle):
        """The Variable a resource input carries (InvalidArgumentError for anything else)."""
        if not isinstance(handle, Variable):
            raise errors.InvalidArgumentError(
                None, None, f"node {self.node.name!r} of function {self.function.name!r} expects "
                            f"a variable handle, got {type(handle).__name__}")
        return handle


class Library:
    """The functions of a SavedModel, compiled on first use (`check_all` compiles them all)."""

    def __init__(self, fdefs, where, gradients=()):
        self._fdefs = {}
        for fdef in fdefs:
            name = fdef.signature.name if fdef.signature is not None else ""
            if not name or name in self._fdefs:
                raise WireError(f"the function library holds an unnamed or repeated function "
                                f"{name!r}")
            self._fdefs[name] = fdef
        self._compiled = {}
        self.where = where
        self.gradients = {}     # custom gradient op type -> gradient function name
        for g in gradients:
            if g.registered_op_type:
                if g.gradient_func not in self._fdefs:
                    raise WireError(f"the custom gradient {g.registered_op_type!r} names function "
                                    f"{g.gradient_func!r}, which the library does not define")
                self.gradients[g.registered_op_type] = g.gradient_func

    def __contains__(self, name):
        return name in self._fdefs

    def names(self):
        """The functions' names."""
        return list(self._fdefs)

    def function(self, name):
        """The CompiledFunction `name` (WireError when there is none)."""
        compiled = self._compiled.get(name)
        if compiled is None:
            fdef = self._fdefs.get(name)
            if fdef is None:
                raise WireError(f"no function {name!r} in the library")
            compiled = self._compiled[name] = CompiledFunction(fdef, self)
        return compiled

    def check(self, names):
        """Compile `names` and every function they call, transitively."""
        todo, seen = list(names), set()
        while todo:
            name = todo.pop()
            if name in seen:
                continue
            seen.add(name)
            todo.extend(self.function(name).callees())
