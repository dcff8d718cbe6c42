"""InputLayer and Input: where a functional model's graph starts.

`Input(shape)` makes an InputLayer and returns its output, a KerasTensor with a free batch
dimension; calling layers on it records the graph that `Model(inputs, outputs)` runs.
"""
from minitf.keras_core.naming import unique_layer_name
from minitf.keras_core.keras_tensor import KerasTensor
from minitf.keras_core.node import Node
from minitf.layers.base import Layer
from minitf.api_export import export

__all__ = ["Input", "InputLayer"]


@export("layers.InputLayer", "models.InputLayer", "keras.layers.InputLayer",
        "keras.models.InputLayer")
class InputLayer(Layer):
    """The layer standing for a model input; its output is the Input KerasTensor."""

    def __init__(self, shape=None, batch_size=None, dtype=None, sparse=None, ragged=None, batch_shape=None,
                 input_tensor=None, optional=False, name=None, **kwargs):
        # Keras 2's spellings, which Keras 3 still reads
        shape = kwargs.pop("input_shape", shape)
        batch_shape = kwargs.pop("batch_input_shape", batch_shape)
        kwargs.pop("type_spec", None)
        if kwargs:
            raise ValueError(f"Unrecognized keyword arguments: {sorted(kwargs)}")
        tensor_name = name or unique_layer_name("keras_tensor")  # Keras 3's default names
        name = name or unique_layer_name("input_layer")
        super().__init__(name=name, dtype=dtype)
        if batch_shape is not None:
            batch_shape = tuple(batch_shape)
        elif input_tensor is not None:
            batch_shape = tuple(input_tensor.shape.as_list())
        else:
            batch_shape = (batch_size,) + tuple(shape or ())
        self._batch_input_shape = batch_shape
        self.optional = bool(optional)
        self.built = True
        if input_tensor is None:
            input_tensor = KerasTensor(batch_shape, dtype=self.dtype, name=tensor_name)
        node = Node(self, [], (), {}, input_tensor)
        input_tensor._node = node
        self._inbound_nodes.append(node)

    def call(self, inputs):
        return inputs

    def get_config(self):
        """Keras 3's InputLayer config: batch_shape, dtype, sparse, ragged, name, optional."""
        return {"batch_shape": self._batch_input_shape, "dtype": self.dtype, "sparse": False,
                "ragged": False, "name": self.name, "optional": self.optional}

    @property
    def output_shape(self):
        """[batch_input_shape] as Keras 2 reports it for inputs."""
        return [self._batch_input_shape]


@export("keras.Input", "layers.Input", "models.Input", "keras.layers.Input", "keras.models.Input")
def Input(shape=None, batch_size=None, name=None, dtype=None, sparse=None, tensor=None,  # noqa: N802
          ragged=None, type_spec=None, batch_shape=None, **kwargs):
    """A symbolic model input: a KerasTensor of shape (batch_size,) + shape."""
    if shape is None and batch_shape is None and tensor is None:
        raise ValueError("Please provide to Input a `shape` or a `tensor` or a `type_spec` "
                         "argument. Note that `shape` does not include the batch dimension.")
    if isinstance(shape, int):
        shape = (shape,)
    layer = InputLayer(shape=shape, batch_size=batch_size, dtype=dtype, name=name,
                       input_tensor=None, batch_shape=batch_shape)
    return layer._inbound_nodes[0].output_tensors
