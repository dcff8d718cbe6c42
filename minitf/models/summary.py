"""model.summary(): Keras' text table of layers, output shapes and parameter counts."""
from minitf import nest
from minitf.keras.keras_tensor import KerasTensor
from minitf.layers.input_layer import InputLayer
from minitf.layers.tracking import dedup

__all__ = ["print_summary"]


def _shape_text(value):
    if isinstance(value, KerasTensor):
        return str(tuple(value.shape.as_list()))
    flat = nest.flatten(value)
    return "[" + ", ".join(str(tuple(t.shape.as_list())) for t in flat) + "]"


def _output_shape_text(layer):
    """One inbound node: its output shape; none or several different ones: 'multiple'."""
    if isinstance(layer, InputLayer):
        return "[" + str(tuple(layer._batch_input_shape)) + "]"
    texts = {_shape_text(node.output_tensors) for node in layer._inbound_nodes}
    if len(texts) == 1:
        return texts.pop()
    return "multiple"


def _is_sequential_like(model, layers):
    if model._is_sequential or model._graph is None:
        return True
    for node in model._graph.nodes:
        if len(node.parent_tensors) > 1:
            return False
    return len(model._graph.flat_inputs) == 1


def _row(fields, positions):
    line = ""
    for i, field in enumerate(fields):
        if i > 0:
            line = line[:-1] + " "
        line += str(field)
        line = line[:positions[i]]
        line += " " * (positions[i] - len(line))
    return line


def _connections(model, layer):
    nodes = [n for n in model._graph.nodes if n.layer is layer]
    out = []
    for node in nodes:
        for t in node.parent_tensors:
            out.append(f"{t.node.layer.name}[0][{t._index}]")
    return out


def count_params(weights):
    """The total number of scalars in `weights` (each counted once)."""
    return int(sum(v.shape.num_elements() for v in dedup(list(weights))))


def print_summary(model, line_length=None, positions=None, print_fn=None):
    """Print the table for `model` through `print_fn` (default: print), line by line."""
    print_fn = print_fn or print
    layers = model.layers
    sequential_like = _is_sequential_like(model, layers)
    if sequential_like:
        line_length = line_length or 65
        positions = positions or [0.45, 0.85, 1.0]
        headers = ["Layer (type)", "Output Shape", "Param #"]
    else:
        line_length = line_length or 98
        positions = positions or [0.33, 0.55, 0.67, 1.0]
        headers = ["Layer (type)", "Output Shape", "Param #", "Connected to"]
    if positions[-1] <= 1:
        positions = [int(line_length * p) for p in positions]

    print_fn(f'Model: "{model.name}"')
    print_fn("_" * line_length)
    print_fn(_row(headers, positions))
    print_fn("=" * line_length)
    for i, layer in enumerate(layers):
        params = layer.count_params() if layer.built else 0
        name = f"{layer.name} ({type(layer).__name__})"
        fields = [name, _output_shape_text(layer), params]
        if sequential_like:
            print_fn(_row(fields, positions))
        else:
            conns = _connections(model, layer)
            print_fn(_row(fields + [conns[0] if conns else ""], positions))
            for extra in conns[1:]:
                print_fn(_row(["", "", "", extra], positions))
        print_fn(("=" if i == len(layers) - 1 else "_") * line_length)
    if not layers:
        print_fn("=" * line_length)
    trainable = count_params(model.trainable_weights)
    non_trainable = count_params(model.non_trainable_weights)
    print_fn(f"Total params: {trainable + non_trainable:,}")
    print_fn(f"Trainable params: {trainable:,}")
    print_fn(f"Non-trainable params: {non_trainable:,}")
    print_fn("_" * line_length)
