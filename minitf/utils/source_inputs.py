"""keras.utils.get_source_inputs: the Input tensors a symbolic tensor was computed from."""
from minitf.keras_core.keras_tensor import KerasTensor
from minitf.layers.input_layer import InputLayer
from minitf.nest import nest
from minitf.api_export import export

__all__ = ["get_source_inputs"]


@export("keras.utils.get_source_inputs", "utils.get_source_inputs")
def get_source_inputs(tensor):
    """The list of Input tensors that `tensor` depends on, in first-seen order (Keras 3).

    A tensor without Keras history (not a KerasTensor) comes back as it is; an Input tensor,
    or one with no producing call, comes back as `[tensor]`.
    """
    if not isinstance(tensor, KerasTensor):
        return tensor
    node = tensor.node
    if node is None or node.layer is None or not node.layer._inbound_nodes:
        return [tensor]
    if isinstance(node.layer, InputLayer):
        return nest.flatten(node.output_tensors)
    sources = []
    for parent in node.parent_tensors:
        for source in get_source_inputs(parent):
            if all(source is not s for s in sources):
                sources.append(source)
    return sources
