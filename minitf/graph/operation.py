"""Operation: one node of a traced graph, and the call template it replays.

A node stands for one call made while tracing: an op function (`tf.matmul(x, w)`), a variable
read or write, a step of a GradientTape, a control-flow construct with its sub-graphs. It keeps
the callable and the call's arguments with every graph value (a symbolic tensor of this graph)
left as a slot; running the node calls the same callable, eagerly, with the slots filled from
the values computed so far. So a graph runs exactly the op code eager mode runs, with the same
results, errors and tape records, and never the Python around the calls.
"""
from minitf.nest import nest
from minitf.graph.structure import Flat, flatten, is_composite
from minitf.symbolic_tensor import GraphObject, SymbolicTensor
from minitf.variable import Variable

__all__ = ["Operation", "CallTemplate"]


class CallTemplate:
    """The arguments of a recorded call, with graph values as slots.

    `fill(env)` rebuilds `(args, kwargs)` for one run: a slot takes `env[tensor._id]`; a
    variable an entry of `env` remaps (a variable passed as a function argument) takes the
    variable of this run; everything else is passed as recorded.
    """

    __slots__ = ("_flat", "_leaves", "_slots", "_simple", "_nargs", "_kwnames", "_masks")

    def __init__(self, args, kwargs, _flat=None):
        args, kwargs = tuple(args), dict(kwargs)
        self._nargs = len(args)
        self._kwnames = tuple(kwargs)
        if _flat is None and not any(_opens(a) for a in args) and \
                not any(_opens(v) for v in kwargs.values()):
            self._simple = True  # a flat call: the leaves are the arguments themselves
            self._flat = None
            self._set_leaves(list(args) + list(kwargs.values()))
        else:
            self._simple = False
            self._flat = _flat or Flat((args, kwargs))
            self._set_leaves(list(self._flat.leaves))

    def _set_leaves(self, leaves):
        self._leaves = leaves
        self._slots = tuple((i, leaf._id) for i, leaf in enumerate(leaves)
                            if isinstance(leaf, (SymbolicTensor, Variable, GraphObject)))
        # Keras masks ride on tensors as Python attributes: each run puts them back on its values
        self._masks = tuple((i, mask) for i, leaf in enumerate(leaves)
                            if isinstance(leaf, SymbolicTensor)
                            for mask in (getattr(leaf, "_keras_mask", None),) if mask is not None)

    @property
    def leaves(self):
        """The recorded leaves, graph values included (a copy)."""
        return list(self._leaves)

    def with_leaves(self, leaves):
        """This template with its leaves replaced, in order, by `leaves`."""
        other = object.__new__(CallTemplate)
        other._nargs, other._kwnames = self._nargs, self._kwnames
        other._simple, other._flat = self._simple, self._flat
        other._set_leaves(list(leaves))
        return other

    def rebuild(self, leaves):
        """`(args, kwargs)` with `leaves` in place of the recorded leaves."""
        if self._simple:
            n = self._nargs
            return tuple(leaves[:n]), dict(zip(self._kwnames, leaves[n:]))
        args, kwargs = self._flat.rebuild(leaves)
        return tuple(args), kwargs

    def fill(self, env):
        """`(args, kwargs)` with every slot replaced by its value in `env`."""
        leaves = self._leaves
        if self._slots:
            leaves = list(leaves)
            for i, key in self._slots:
                value = env.get(key)
                if value is not None:
                    leaves[i] = value
            for i, mask in self._masks:
                leaves[i]._keras_mask = env.get(mask._id, mask) if isinstance(mask, SymbolicTensor) \
                    else mask
        return self.rebuild(leaves)

    def symbolic_inputs(self):
        """The graph values (symbolic tensors and graph objects) among the leaves, in order."""
        return [leaf for leaf in self._leaves if isinstance(leaf, (SymbolicTensor, GraphObject))] + \
            [mask for _, mask in self._masks if isinstance(mask, SymbolicTensor)]

    def variables(self):
        """The variables among the leaves, in order."""
        return [leaf for leaf in self._leaves if isinstance(leaf, Variable)]


def _opens(value):
    """True for an argument the template must open: a structure, a composite tensor, a slice."""
    return nest.is_nested(value) or isinstance(value, slice) or is_composite(value)


class Operation:
    """A node of a FuncGraph (TF's `tf.Operation`).

    Attributes:
      graph: the FuncGraph it belongs to.
      name: its name in the graph, unique there (`"MatMul"`, `"add_1"`).
      type: TF's op type (`"MatMul"`, `"AddV2"`, `"ReadVariableOp"`, `"Placeholder"`).
      stateful: True when it must run even if no output is used (prints, writes, random draws).
      outputs: the symbolic tensors it produces.
    """

    __slots__ = ("graph", "name", "type", "stateful", "outputs", "_fn", "_template",
                 "_output_positions", "_single_output", "_wants_env", "attrs", "__weakref__")

    def __init__(self, graph, name, op_type, fn=None, template=None, stateful=False, attrs=None,
                 wants_env=False):
        self.graph = graph
        self._wants_env = wants_env
        self.name = name
        self.type = op_type
        self.stateful = stateful
        self.outputs = []
        self._fn = fn
        self._template = template
        self._output_positions = ()
        self._single_output = False
        self.attrs = attrs or {}

    @property
    def inputs(self):
        """The symbolic tensors this node reads, in argument order."""
        return [] if self._template is None else self._template.symbolic_inputs()

    @property
    def variables(self):
        """The variables this node reads or writes."""
        return [] if self._template is None else self._template.variables()

    @property
    def node_def(self):
        """A NodeDef-like description (`name`, `op`, `input`)."""
        return NodeDef(self.name, self.type, [_input_name(t) for t in self.inputs], self.attrs)

    def _set_outputs(self, outputs, positions, single):
        self.outputs = outputs
        self._output_positions = positions
        self._single_output = single

    def run(self, env):
        """Call the recorded callable on this run's values and store its outputs in `env`."""
        args, kwargs = self._template.fill(env)
        if self._wants_env:  # a node that keeps per-run state (a tape) in the environment
            result = self._fn(env, *args, **kwargs)
        else:
            result = self._fn(*args, **kwargs)
        outputs = self.outputs
        if not outputs:
            return
        if self._single_output:
            env[outputs[0]._id] = result
            return
        flat = flatten(result)
        for tensor, position in zip(outputs, self._output_positions):
            env[tensor._id] = flat[position]

    def __repr__(self):
        return f"<tf.Operation '{self.name}' type={self.type}>"


def _input_name(tensor):
    return tensor.op.name if tensor.value_index == 0 else f"{tensor.op.name}:{tensor.value_index}"


class NodeDef:
    """What TF's GraphDef keeps of a node: its name, op type, input names and attributes."""

    __slots__ = ("name", "op", "input", "attr")

    def __init__(self, name, op, inputs, attrs):
        self.name = name
        self.op = op
        self.input = inputs
        self.attr = dict(attrs)

    def __repr__(self):
        lines = [f'name: "{self.name}"', f'op: "{self.op}"']
        lines += [f'input: "{i}"' for i in self.input]
        for key, value in sorted(self.attr.items()):
            lines.append(f'attr {{\n  key: "{key}"\n  value {{\n    {value}\n  }}\n}}')
        return "\n".join(lines)
