"""The functional API: running a graph of layer calls recorded on KerasTensors.

`Input` and `InputLayer` (minitf.layers.input_layer) start a graph; layers called on
KerasTensors record Nodes (minitf.keras_core.node); `GraphRunner` orders those nodes between some
inputs and outputs and evaluates them on concrete values, which is what a functional `Model`
does when called.
"""
from minitf.nest import nest
from minitf.convert import convert_to_tensor
from minitf.keras_core.keras_tensor import KerasTensor
from minitf.layers.mask_propagation import set_keras_mask
from minitf.layers.input_layer import Input, InputLayer
from minitf.ops import array as array_ops
from minitf.ops.constant import cast
from minitf.tensor import Tensor
from minitf.variable import Variable

__all__ = ["Input", "InputLayer", "GraphRunner", "to_input_dtype", "set_input_masks"]


# -- running a graph ------------------------------------------------------------------------
def to_input_dtype(value, input_tensor):
    """`value` as a tensor of the Input's dtype, as Keras' functional models convert their
    inputs (uint8 images into a float32 Input become float32; floats into an int32 Input
    become int32). None and values that are not tensors or arrays pass through."""
    if value is None or isinstance(value, KerasTensor):
        return value
    if isinstance(value, Variable):
        value = value.value()
    if not isinstance(value, Tensor):
        try:
            value = convert_to_tensor(value)
        except (TypeError, ValueError):
            return value
    target = input_tensor.dtype
    if target is not None and value.dtype != target:
        value = cast(value, target)
    return _adjust_rank(value, input_tensor)


def _adjust_rank(value, input_tensor):
    """Keras' rank fix-up of model inputs: drop a trailing size-1 axis the Input lacks, or add
    the trailing size-1 axis the Input has; any other rank difference is a ValueError."""
    ref = input_tensor.shape
    if ref.rank is None or value.shape.rank is None or value.shape.rank == ref.rank:
        return value
    rank = value.shape.rank
    if rank == ref.rank + 1 and value.shape[-1] == 1:
        return array_ops.squeeze(value, axis=-1)
    if rank == ref.rank - 1 and ref[-1] == 1:
        return array_ops.expand_dims(value, axis=-1)
    raise ValueError(f"Invalid input shape for input {input_tensor.name!r}: expected shape "
                     f"{tuple(ref.as_list())}, but the input has incompatible shape "
                     f"{tuple(value.shape.as_list())}. Pass a batch with the Input's rank.")


def set_input_masks(inputs, mask):
    """Attach `mask` (one mask, or one per input in the inputs' flattened order) to the inputs,
    as Keras 3's Functional.call does with its `mask` argument."""
    flat_inputs = nest.flatten(inputs)
    flat_masks = nest.flatten(mask) if nest.is_nested(mask) else [mask]
    for x, m in zip(flat_inputs, flat_masks):
        if m is not None:
            set_keras_mask(x, m)


class GraphRunner:
    """The nodes between some input KerasTensors and some output KerasTensors, in run order."""

    def __init__(self, inputs, outputs):
        self.inputs = inputs
        self.outputs = outputs
        self.flat_inputs = nest.flatten(inputs)
        self.flat_outputs = nest.flatten(outputs)
        for t in self.flat_inputs + self.flat_outputs:
            if not isinstance(t, KerasTensor):
                raise ValueError(f"Functional model inputs and outputs must be symbolic tensors "
                                 f"(from tf.keras.Input or layer calls on them); got {t!r}.")
        self.nodes = self._sort()
        self.layers, self.nodes_by_depth = self._map_graph()

    def _sort(self):
        """Nodes in dependency order (depth-first post-order from the outputs)."""
        input_ids = {id(t) for t in self.flat_inputs}
        order, seen, visiting = [], set(), set()

        def visit(tensor):
            if id(tensor) in input_ids:
                return
            node = tensor.node
            if node is None:
                raise ValueError(f"Graph disconnected: cannot reach tensor {tensor.name!r} "
                                 f"from the model inputs.")
            if id(node) in seen:
                return
            if isinstance(node.layer, InputLayer):
                raise ValueError(f"Graph disconnected: cannot obtain value for tensor "
                                 f"{tensor!r} at layer \"{node.layer.name}\". The following "
                                 f"previous layers were accessed without issue: "
                                 f"{[n.layer.name for n in order]}")
            visiting.add(id(node))
            for parent in node.parent_tensors:
                visit(parent)
            seen.add(id(node))
            order.append(node)
        for t in self.flat_outputs:
            visit(t)
        return order

    def _map_graph(self):
        """Keras 3's map_graph: (the layers in Keras' order, the nodes grouped by depth).

        Depth counts from the outputs (a layer called at several depths counts at its deepest);
        the layers sort deepest first, and at the same depth in the order a depth-first walk
        from the outputs first meets them; inputs no output depends on come first at depth 0.
        """
        input_ids = {id(t) for t in self.flat_inputs}
        finished, walk, first_met = set(), [], {}

        def visit(tensor):  # Keras' _build_map_helper: depth-first from the outputs
            node = tensor.node
            if node is None or id(node) in finished:
                return
            is_input = isinstance(node.layer, InputLayer)
            if not is_input and id(tensor) in input_ids:
                finished.add(id(node))  # a declared input made outside the graph
                return
            first_met.setdefault(id(node.layer), len(first_met))
            if not is_input:
                for parent in node.parent_tensors:
                    visit(parent)
            finished.add(id(node))
            walk.append(node)
        for t in self.flat_outputs:
            visit(t)
        in_graph = {id(n) for n in walk}
        node_depth, layer_depth, by_id = {}, {}, {}
        for node in reversed(walk):  # consumers before producers
            depth = max(node_depth.setdefault(id(node), 0), layer_depth.get(id(node.layer), 0))
            layer_depth[id(node.layer)] = node_depth[id(node)] = depth
            by_id[id(node)], by_id[id(node.layer)] = node, node.layer
            for parent in node.parent_tensors:
                if parent.node is not None and id(parent.node) in in_graph:
                    key = id(parent.node)
                    node_depth[key] = max(depth + 1, node_depth.get(key, 0))
        for t in self.flat_inputs:
            layer = t.node.layer if t.node is not None else None
            if isinstance(layer, InputLayer) and id(layer) not in layer_depth:
                layer_depth[id(layer)], first_met[id(layer)], node_depth[id(t.node)] = 0, -1, 0
                by_id[id(t.node)], by_id[id(layer)] = t.node, layer
        order = sorted(layer_depth, key=lambda k: (-layer_depth[k], first_met[k]))
        nodes_by_depth = {}
        for key, depth in node_depth.items():
            nodes_by_depth.setdefault(depth, []).append(by_id[key])
        return [by_id[k] for k in order], nodes_by_depth

    def run(self, inputs, training=None, mask=None):
        """Evaluate the graph on concrete inputs (same structure as `self.inputs`, or a list).

        As Keras 3's Functional.call: `mask` is attached to the inputs, and a `training` value
        that is not None replaces the `training` a node recorded (a `.keras` file of Keras 3
        records `training: false` for Dropout and the recurrent layers); each layer's own call
        keeps it only when its `call` takes `training`, and passes it on to the layers inside.
        """
        if isinstance(self.inputs, dict) and isinstance(inputs, dict):
            flat = [inputs[k] for k in sorted(self.inputs)]
        elif isinstance(self.inputs, dict):
            flat = list(inputs) if isinstance(inputs, (list, tuple)) else [inputs]
        else:
            flat = nest.flatten(inputs) if nest.is_nested(inputs) else [inputs]
        if len(flat) != len(self.flat_inputs):
            raise ValueError(f"The model expects {len(self.flat_inputs)} input(s), but it "
                             f"received {len(flat)} input tensors.")
        flat = [to_input_dtype(v, kt) for v, kt in zip(flat, self.flat_inputs)]
        if mask is not None:
            set_input_masks(flat, mask)
        values = {id(t): v for t, v in zip(self.flat_inputs, flat)}

        def get(x):
            return values[id(x)] if isinstance(x, KerasTensor) else x
        for node in self.nodes:
            args_in = nest.map_structure(get, node.input_tensors)
            args = nest.map_structure(get, list(node.call_args))
            kwargs = nest.map_structure(get, node.call_kwargs) if node.call_kwargs else {}
            if training is not None:
                kwargs["training"] = training
            out = node.layer(args_in, *args, **kwargs)
            flat_kt = nest.flatten(node.output_tensors)
            flat_out = nest.flatten(out) if nest.is_nested(node.output_tensors) else [out]
            for kt, v in zip(flat_kt, flat_out):
                values[id(kt)] = v
        return nest.map_structure(get, self.outputs)
