"""clone_model: the same architecture with freshly initialized weights."""
from minitf.nest import nest
from minitf.keras_core.keras_tensor import KerasTensor
from minitf.layers.input_layer import Input, InputLayer
from minitf.models.model import Model
from minitf.models.sequential import Sequential
from minitf.models.serialization import deserialize_layer, keeping_callables, serialize_layer
from minitf.api_export import export

__all__ = ["clone_model"]


def _clone_layer(layer):
    """A new layer from the layer's config (nested models and Lambda layers included)."""
    with keeping_callables():
        return deserialize_layer(serialize_layer(layer))


def _as_input_list(input_tensors, expected):
    flat = nest.flatten(input_tensors)
    if len(flat) != expected:
        raise ValueError(f"clone_model: the model has {expected} input(s) but "
                         f"`input_tensors` holds {len(flat)}.")
    return flat


def _clone_sequential(model, input_tensors, clone):
    layers = []
    if input_tensors is not None:
        layers.append(_as_input_list(input_tensors, 1)[0])
    elif model._seq_input is not None:
        source = model._seq_input.node.layer
        layers.append(InputLayer(batch_input_shape=tuple(model._seq_input.shape.as_list()),
                                 dtype=model._seq_input.dtype.name, name=source.name))
    layers += [clone(layer) for layer in model.layers]
    return Sequential(layers, name=model.name)


@export("models.clone_model", "keras.models.clone_model")
def clone_model(model, input_tensors=None, clone_function=None):
    """A new Sequential or functional model with new layers built from each layer's config.

    Shared layers stay shared (cloned once, called as often as before). `input_tensors`
    (symbolic tensors from `tf.keras.Input`) replace the model's inputs; `clone_function`
    maps each layer (not the InputLayers) to its copy.
    """
    clone = clone_function or _clone_layer
    if isinstance(model, Sequential):
        return _clone_sequential(model, input_tensors, clone)
    if model._graph is None:
        raise ValueError("clone_model does not support subclassed models: their structure "
                         "is defined by code, not by a graph. Instantiate the class again.")
    graph = model._graph
    new_layers = {}
    values = {}
    given = None if input_tensors is None else _as_input_list(input_tensors,
                                                               len(graph.flat_inputs))
    for i, t in enumerate(graph.flat_inputs):
        values[id(t)] = given[i] if given is not None else Input(
            batch_shape=t.shape.as_list(), dtype=t.dtype.name, name=t.node.layer.name)

    def get(x):
        return values[id(x)] if isinstance(x, KerasTensor) else x
    for node in graph.nodes:
        key = id(node.layer)
        if key not in new_layers:
            new_layers[key] = clone(node.layer)
        out = new_layers[key](nest.map_structure(get, node.input_tensors),
                              *nest.map_structure(get, list(node.call_args)),
                              **nest.map_structure(get, dict(node.call_kwargs)))
        for kt, v in zip(nest.flatten(node.output_tensors), nest.flatten(out)):
            values[id(kt)] = v
    new_inputs = nest.map_structure(get, graph.inputs)
    return Model(new_inputs, nest.map_structure(get, graph.outputs), name=model.name)
