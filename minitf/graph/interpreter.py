"""Interpreter: runs a FuncGraph node by node, eagerly, on one call's inputs.

The nodes run in the order the trace recorded them (program order, so reads and writes of a
variable keep their order), skipping every node that neither a stateful node nor an output
depends on: as in TF, an op whose result is unused never runs (`tf.gather(x, [1])` with an
unused result raises nothing). Errors of a node are re-raised with the node's name, as TF
names the node of a graph error.
"""
from minitf.errors import errors
from minitf.symbolic_tensor import GraphObject, SymbolicTensor

__all__ = ["Interpreter", "needed_operations"]


def needed_operations(graph):
    """The nodes of `graph` a run must execute, in recorded order."""
    producers = {}
    for op in graph.operations:
        for out in op.outputs:
            producers[out._id] = op
    needed = set()
    stack = [op for op in graph.operations if op.stateful]
    stack += [producers[t._id] for t in graph.outputs
              if isinstance(t, (SymbolicTensor, GraphObject)) and t._id in producers]
    while stack:
        op = stack.pop()
        if id(op) in needed:
            continue
        needed.add(id(op))
        for t in op.inputs:
            producer = producers.get(t._id)
            if producer is not None and id(producer) not in needed:
                stack.append(producer)
    return [op for op in graph.operations if id(op) in needed and op.type != "Placeholder"]


def _releases(operations, graph):
    """For each node, the values to drop from a run's environment once it has run: those no
    later node reads. Holding nothing longer than needed keeps a step's peak memory low and
    lets optimizers update variables in place (no read of the old value is still alive)."""
    outputs = {t._id for t in graph.outputs if isinstance(t, (SymbolicTensor, GraphObject))}
    last_use = {}
    for index, op in enumerate(operations):
        for t in op.outputs:
            last_use[t._id] = index
        for t in op.inputs:
            last_use[t._id] = index
    for t in graph.inputs:
        last_use.setdefault(t._id, -1)
    drops = [[] for _ in operations]
    early = []
    for key, index in last_use.items():
        if key in outputs:
            continue
        if index < 0:
            early.append(key)
        else:
            drops[index].append(key)
    if drops:
        drops[0].extend(early)
    return [tuple(d) for d in drops]


class Interpreter:
    """Runs one graph: `run(inputs)` returns the flat outputs for the placeholders' values."""

    def __init__(self, graph):
        self.graph = graph
        self.operations = needed_operations(graph)
        self._input_ids = [t._id for t in graph.inputs]
        self._steps = list(zip(self.operations, _releases(self.operations, graph)))

    def run(self, inputs, variables=None):
        """The graph's flat outputs for `inputs` (one value per placeholder).

        Args:
          inputs: values of `graph.inputs`, in order.
          variables: {traced variable id: variable} for variables passed as arguments.
        """
        env = dict(zip(self._input_ids, inputs))
        if variables:
            env.update(variables)
        for op, release in self._steps:
            if op._fn is None:  # Identity of an output: the value itself
                env[op.outputs[0]._id] = env[op._template._slots[0][1]]
            else:
                try:
                    op.run(env)
                except errors.OpError as e:
                    raise with_node(e, op) from None
            for key in release:  # values no later node reads: let them go now
                del env[key]
        return [env[t._id] if isinstance(t, (SymbolicTensor, GraphObject)) else t
                for t in self.graph.outputs]


def with_node(error, op):
    """`error` again, its message naming the graph node that raised it (as TF's graph errors do)."""
    message = f"{error.message}\n\t [[{{{{node {op.name}}}}}]] [Op:__inference_{op.graph.name}]"
    return type(error)(error.node_def, op, message)
