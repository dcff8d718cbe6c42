"""Node: one call of a layer on KerasTensors, and how such a call finds its output shapes.

Keras 3 keeps these below the layers (ops/node.py, Operation.symbolic_call); so does minitf.
Nothing here imports a layer: a layer's symbolic call hands this module a function that runs
the layer on concrete values (`run(values, args, kwargs)`), and `symbolic_call` turns the
results into KerasTensors recorded on a new Node.
"""
from minitf.nest import nest
from minitf.keras_core import call_context
from minitf.keras_core.keras_tensor import KerasTensor
from minitf.ops import array as array_ops
from minitf.recording import stop_recording_all
from minitf.tensor_shape import TensorShape

__all__ = ["Node", "OutputSpec", "call_accepts", "output_specs", "symbolic_call",
           "keras_tensors_like"]


def call_accepts(fn, name):
    """Whether the callable `fn` takes a keyword argument `name` (or any `**kwargs`); the
    signature is read once per function (minitf.layers.call_context's cache)."""
    return call_context.spec_of_function(fn).accepts(name)


class Node:
    """One call of a layer on symbolic inputs: the layer, its inputs, extra arguments, outputs."""

    def __init__(self, layer, inputs, args, kwargs, outputs):
        self.layer = layer
        self.input_tensors = inputs
        self.call_args = args
        self.call_kwargs = kwargs
        self.output_tensors = outputs

    @property
    def parent_tensors(self):
        """The KerasTensors this node reads (its inputs and any symbolic extra arguments)."""
        flat = nest.flatten([self.input_tensors, list(self.call_args), self.call_kwargs])
        return [t for t in flat if isinstance(t, KerasTensor)]


class OutputSpec:
    """Shape and dtype of one symbolic output (a leaf for tf.nest, unlike a tuple)."""

    def __init__(self, shape, dtype):
        self.shape = shape
        self.dtype = dtype


def _zeros_like_symbolic(kt, batch_value, other_value):
    dims = [d if d is not None else (batch_value if i == 0 else other_value)
            for i, d in enumerate(kt.shape.as_list())]
    return array_ops.zeros(dims, dtype=kt.dtype)


def _dry_run(run, inputs, args, kwargs, batch_value, other_value):
    """`run` on zeros shaped like the symbolic inputs, with every tape paused."""
    def fill(x):
        return _zeros_like_symbolic(x, batch_value, other_value) \
            if isinstance(x, KerasTensor) else x
    with stop_recording_all():
        return run(nest.map_structure(fill, inputs), nest.map_structure(fill, list(args)),
                   nest.map_structure(fill, dict(kwargs)))


def _has_unknown_inner_dims(inputs):
    return any(isinstance(x, KerasTensor) and x.shape.rank is not None
               and any(d is None for d in x.shape.as_list()[1:]) for x in nest.flatten(inputs))


def output_specs(run, inputs, args=(), kwargs=None):
    """The outputs' shapes and dtypes: a structure of OutputSpec like the outputs of `run`.

    The call runs on zeros (unknown sizes: batch 1, other axes 32). When the inputs have
    unknown sizes past the batch axis it runs again (batch 2, other axes 64): output sizes
    that change between the runs are unknown (None). An unknown batch stays unknown.
    """
    kwargs = {} if kwargs is None else kwargs
    first = _dry_run(run, inputs, args, kwargs, 1, 32)
    flat_first = nest.flatten(first)
    batch_unknown = any(isinstance(x, KerasTensor) and x.shape.rank and x.shape[0] is None
                        for x in nest.flatten(inputs))
    flat_second = None
    if _has_unknown_inner_dims(inputs):
        flat_second = nest.flatten(_dry_run(run, inputs, args, kwargs, 2, 64))
    specs = []
    for i, out in enumerate(flat_first):
        dims = list(out.shape.as_list())
        if flat_second is not None:
            other = flat_second[i].shape.as_list()
            dims = [a if a == b else None for a, b in zip(dims, other)]
        if batch_unknown and dims:
            dims[0] = None
        specs.append(OutputSpec(TensorShape(dims), out.dtype))
    return nest.pack_sequence_as(first, specs) if nest.is_nested(first) else specs[0]


def keras_tensors_like(shapes, dtype):
    """KerasTensors standing for inputs of the given shape(s): one shape or a list of them."""
    if isinstance(shapes, (list, tuple)) and shapes and \
            isinstance(shapes[0], (list, tuple, TensorShape)):
        return [KerasTensor(TensorShape(s), dtype=dtype) for s in shapes]
    return KerasTensor(TensorShape(shapes), dtype=dtype)


def symbolic_call(layer, run, inputs, args, kwargs):
    """Record `layer`'s call on KerasTensors: a new Node and its output KerasTensors.

    Args:
        layer: the (built) layer being called; the node is appended to its inbound nodes.
        run: `run(values, args, kwargs)` computes the layer on concrete values.
        inputs, args, kwargs: the call's arguments (KerasTensors anywhere inside).

    Returns:
        The output KerasTensor(s), in the structure the layer returns; each output's name is
        the layer's name ('dense', or 'dense/0', 'dense/1' ... for several outputs).
    """
    specs = output_specs(run, inputs, args, kwargs)
    flat_specs = nest.flatten(specs) if nest.is_nested(specs) else [specs]
    node = Node(layer, inputs, tuple(args), dict(kwargs), None)
    outs = []
    for i, spec in enumerate(flat_specs):
        name = layer.name if len(flat_specs) == 1 else f"{layer.name}/{i}"
        outs.append(KerasTensor(spec.shape, dtype=spec.dtype, name=name, node=node, index=i))
    outputs = nest.pack_sequence_as(specs, outs) if nest.is_nested(specs) else outs[0]
    node.output_tensors = outputs
    layer._inbound_nodes.append(node)
    return outputs
