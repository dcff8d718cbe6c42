"""The functional API: Input, InputLayer, symbolic layer calls and running a layer graph."""
from minitf.layers.base import Layer, _accepts_kwarg, unique_layer_name
from minitf.models.keras_tensor import KerasTensor, Node
from minitf.tensor_shape import TensorShape

__all__ = ["Input", "InputLayer", "call_symbolic", "infer_output_shape", "GraphRunner"]


def _input_name():
    """'input_layer', 'input_layer_1', ... (Keras 3's default InputLayer names)."""
    return unique_layer_name("input_layer")


class InputLayer(Layer):
    """The layer standing for a model input; its output is the Input KerasTensor."""

    def __init__(self, input_shape=None, batch_size=None, dtype=None, input_tensor=None,
                 sparse=None, name=None, ragged=None, type_spec=None, batch_input_shape=None,
                 **kwargs):
        name = name or _input_name()
        super().__init__(name=name, dtype=dtype)
        if batch_input_shape is not None:
            batch_shape = tuple(batch_input_shape)
        elif input_tensor is not None:
            batch_shape = tuple(input_tensor.shape.as_list())
        else:
            batch_shape = (batch_size,) + tuple(input_shape or ())
        self._batch_input_shape = batch_shape
        self.built = True
        if input_tensor is None:
            input_tensor = KerasTensor(batch_shape, dtype=self.dtype, name=name)
        node = Node(self, [], (), {}, input_tensor)
        input_tensor._node = node
        self._inbound_nodes.append(node)

    def call(self, inputs):
        return inputs

    def get_config(self):
        """batch_input_shape, dtype and name."""
        return {"batch_input_shape": self._batch_input_shape, "dtype": self.dtype,
                "sparse": False, "ragged": False, "name": self.name}

    @property
    def output_shape(self):
        """[batch_input_shape] as Keras 2 reports it for inputs."""
        return [self._batch_input_shape]


def Input(shape=None, batch_size=None, name=None, dtype=None, sparse=None, tensor=None,  # noqa: N802
          ragged=None, type_spec=None, batch_shape=None, **kwargs):
    """A symbolic model input: a KerasTensor of shape (batch_size,) + shape."""
    if shape is None and batch_shape is None and tensor is None:
        raise ValueError("Please provide to Input a `shape` or a `tensor` or a `type_spec` "
                         "argument. Note that `shape` does not include the batch dimension.")
    if isinstance(shape, int):
        shape = (shape,)
    layer = InputLayer(input_shape=shape, batch_size=batch_size, dtype=dtype, name=name,
                       input_tensor=None, batch_input_shape=batch_shape)
    return layer._inbound_nodes[0].output_tensors


# -- symbolic calls --------------------------------------------------------------------------
def _substitute_dims(shape, batch_value, other_value):
    dims = shape.as_list()
    return [d if d is not None else (batch_value if i == 0 else other_value)
            for i, d in enumerate(dims)]


def _dummy_value(kt, batch_value, other_value):
    from minitf.ops.array import zeros
    return zeros(_substitute_dims(kt.shape, batch_value, other_value), dtype=kt.dtype)


def _run_dummy(layer, inputs, args, kwargs, batch_value, other_value):
    """Run `layer.call` on zeros shaped like the symbolic inputs (no tape, no losses kept)."""
    from minitf import nest
    from minitf.recording import stop_recording_all

    def fill(x):
        return _dummy_value(x, batch_value, other_value) if isinstance(x, KerasTensor) else x
    values = nest.map_structure(fill, inputs)
    args = nest.map_structure(fill, list(args))
    kwargs = nest.map_structure(fill, dict(kwargs))
    if _accepts_kwarg(layer.call, "training"):
        kwargs["training"] = False
    else:
        kwargs.pop("training", None)
    with stop_recording_all():
        values = layer._cast_inputs(values)
        saved = layer._call_losses
        with layer.name_scope:
            out = layer.call(values, *args, **kwargs)
        layer._call_losses = saved
    return out


def _has_unknown_inner_dims(inputs):
    from minitf import nest
    return any(isinstance(x, KerasTensor) and x.shape.rank is not None
               and any(d is None for d in x.shape.as_list()[1:]) for x in nest.flatten(inputs))


def _symbolic_outputs(layer, inputs, args, kwargs):
    """Shapes and dtypes of the layer's outputs: a structure of (TensorShape, dtype)."""
    from minitf import nest
    first = _run_dummy(layer, inputs, args, kwargs, 1, 32)
    flat_first = nest.flatten(first)
    batch_unknown = any(isinstance(x, KerasTensor) and x.shape.rank and x.shape[0] is None
                        for x in nest.flatten(inputs))
    flat_second = None
    if _has_unknown_inner_dims(inputs):
        flat_second = nest.flatten(_run_dummy(layer, inputs, args, kwargs, 2, 64))
    specs = []
    for i, out in enumerate(flat_first):
        dims = list(out.shape.as_list())
        if flat_second is not None:
            other = flat_second[i].shape.as_list()
            dims = [a if a == b else None for a, b in zip(dims, other)]
        if batch_unknown and dims:
            dims[0] = None
        specs.append(_Spec(TensorShape(dims), out.dtype))
    return nest.pack_sequence_as(first, specs) if nest.is_nested(first) else specs[0]


class _Spec:
    """Shape and dtype of one symbolic output (a leaf for tf.nest, unlike a tuple)."""

    def __init__(self, shape, dtype):
        self.shape = shape
        self.dtype = dtype


def infer_output_shape(layer, input_shape):
    """Output shape for `input_shape` (batch None allowed), by running the layer on zeros."""
    from minitf import nest

    def to_kt(shape):
        return KerasTensor(shape, dtype=layer.dtype)
    shapes = input_shape
    if isinstance(shapes, (list, tuple)) and shapes and isinstance(shapes[0], (list, tuple,
                                                                                 TensorShape)):
        inputs = [to_kt(TensorShape(s)) for s in shapes]
    else:
        inputs = to_kt(TensorShape(shapes))
    if not layer.built:
        layer._maybe_build(inputs)
    specs = _symbolic_outputs(layer, inputs, (), {})
    return nest.map_structure(lambda s: s.shape, specs)


def call_symbolic(layer, inputs, args, kwargs):
    """Call `layer` on KerasTensors: build it, infer the outputs, record a Node."""
    from minitf import nest
    if not layer.built:
        layer._check_inputs(inputs)  # Keras checks the spec before building, too
    layer._maybe_build(inputs)
    layer._check_inputs(inputs)
    specs = _symbolic_outputs(layer, inputs, args, kwargs)
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


# -- running a graph ------------------------------------------------------------------------
def to_input_dtype(value, input_tensor):
    """`value` as a tensor of the Input's dtype, as Keras' functional models convert their
    inputs (uint8 images into a float32 Input become float32; floats into an int32 Input
    become int32). None and values that are not tensors or arrays pass through."""
    from minitf.ops.constant import cast, convert_to_tensor
    from minitf.tensor import Tensor
    from minitf.variable import Variable
    if value is None or _is_keras_tensor(value):
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
    from minitf.ops.array import expand_dims, squeeze
    ref = input_tensor.shape
    if ref.rank is None or value.shape.rank is None or value.shape.rank == ref.rank:
        return value
    rank = value.shape.rank
    if rank == ref.rank + 1 and value.shape[-1] == 1:
        return squeeze(value, axis=-1)
    if rank == ref.rank - 1 and ref[-1] == 1:
        return expand_dims(value, axis=-1)
    raise ValueError(f"Invalid input shape for input {input_tensor.name!r}: expected shape "
                     f"{tuple(ref.as_list())}, but the input has incompatible shape "
                     f"{tuple(value.shape.as_list())}. Pass a batch with the Input's rank.")


def _is_keras_tensor(x):
    return isinstance(x, KerasTensor)


class GraphRunner:
    """The nodes between some input KerasTensors and some output KerasTensors, in run order."""

    def __init__(self, inputs, outputs):
        from minitf import nest
        self.inputs = inputs
        self.outputs = outputs
        self.flat_inputs = nest.flatten(inputs)
        self.flat_outputs = nest.flatten(outputs)
        for t in self.flat_inputs + self.flat_outputs:
            if not isinstance(t, KerasTensor):
                raise ValueError(f"Functional model inputs and outputs must be symbolic tensors "
                                 f"(from tf.keras.Input or layer calls on them); got {t!r}.")
        self.nodes = self._sort()
        self.layers = self._layers()

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

    def _layers(self):
        layers, seen = [], set()
        for t in self.flat_inputs:
            layer = t.node.layer if t.node is not None else None
            if layer is not None and id(layer) not in seen:
                seen.add(id(layer))
                layers.append(layer)
        for node in self.nodes:
            if id(node.layer) not in seen:
                seen.add(id(node.layer))
                layers.append(node.layer)
        return layers

    def run(self, inputs, training=None):
        """Evaluate the graph on concrete inputs (same structure as `self.inputs`, or a list)."""
        from minitf import nest
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
        values = {id(t): v for t, v in zip(self.flat_inputs, flat)}

        def get(x):
            return values[id(x)] if isinstance(x, KerasTensor) else x
        for node in self.nodes:
            args_in = nest.map_structure(get, node.input_tensors)
            args = nest.map_structure(get, list(node.call_args))
            kwargs = nest.map_structure(get, dict(node.call_kwargs))
            if "training" not in kwargs and training is not None \
                    and _accepts_kwarg(node.layer.call, "training"):
                kwargs["training"] = training
            out = node.layer(args_in, *args, **kwargs)
            flat_kt = nest.flatten(node.output_tensors)
            flat_out = nest.flatten(out) if nest.is_nested(node.output_tensors) else [out]
            for kt, v in zip(flat_kt, flat_out):
                values[id(kt)] = v
        return nest.map_structure(get, self.outputs)
