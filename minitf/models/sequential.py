"""tf.keras.Sequential: a plain stack of layers, each feeding the next."""
from minitf.keras_core.naming import unique_layer_name
from minitf.keras_core.keras_tensor import KerasTensor
from minitf.layers.base import Layer
from minitf.layers.input_layer import Input, InputLayer
from minitf.layers.input_spec import shape_of
from minitf.models import serialization
from minitf.models.functional import GraphRunner, set_input_masks, to_input_dtype
from minitf.models.model import Model, layer_dependencies
from minitf.tensor_shape import TensorShape
from minitf.api_export import export

__all__ = ["Sequential"]


@export("keras.Sequential", "models.Sequential", "keras.models.Sequential")
class Sequential(Model):
    """A model whose layers run one after the other.

    It builds as soon as the input shape is known: from an `Input`/`InputLayer` added first,
    an `input_shape=` argument of the first layer, `build(input_shape)`, or the first call.
    """

    _is_sequential = True

    def __init__(self, layers=None, name=None):
        super().__init__(name=name)
        self._seq_input = None   # the Input KerasTensor once the input shape is known
        if layers is not None and not hasattr(layers, "__iter__"):  # Keras 3 iterates it: TypeError
            raise TypeError(f"Sequential: `layers` must be a list of layers, not {layers!r}")
        for layer in layers or []:
            self.add(layer, rebuild=False)
        if layers:
            self._after_change(True)  # one trace for the whole list, as Keras 3 builds it

    @property
    def layers(self):
        """The layers (without the InputLayer)."""
        return [layer for layer in self._layers if not isinstance(layer, InputLayer)]

    def _sublayers(self):
        return self.layers

    @property
    def input_spec(self):
        """None unless set: as in Keras, a Sequential model leaves the checks to its layers."""
        return self._input_spec

    @input_spec.setter
    def input_spec(self, value):
        self._input_spec = value

    def add(self, layer, rebuild=True):
        """Append a layer (an Input KerasTensor or InputLayer fixes the input shape).

        With `rebuild=False` the graph is not traced again until a later `add`, `pop` or
        build, so that adding many layers makes one graph (and takes one automatic name).
        """
        if isinstance(layer, KerasTensor) and isinstance(layer.node.layer, InputLayer):
            layer = layer.node.layer
        if not isinstance(layer, Layer):  # Keras 3's ValueError
            raise ValueError(f"Sequential: only instances of `keras.Layer` can be added to a Sequential "
                             f"model. Received: {layer!r} (of type {type(layer)})")
        if any(existing is layer for existing in self._layers):
            raise ValueError(f"Layer {layer.name!r} is already in Sequential model {self.name!r}.")
        if isinstance(layer, InputLayer):
            if self.layers:
                raise ValueError("An InputLayer can only be the first layer of a Sequential model.")
            self._layers.append(layer)
            self._seq_input = layer._inbound_nodes[0].output_tensors
            self._after_change(rebuild)
            return
        if not self._layers and layer._batch_input_shape is not None:
            # Keras 3 makes a plain InputLayer here: named 'input_layer', 'input_layer_1', ...
            self._seq_input = Input(batch_shape=layer._batch_input_shape, dtype=layer._dtype)
        self._layers.append(layer)
        self._after_change(rebuild)

    def pop(self, rebuild=True):
        """Remove the last layer (TypeError when there are none); `rebuild=False` leaves the
        graph to be traced again by a later `add`, `pop` or build."""
        if not self.layers:
            raise TypeError("There are no layers in the model.")
        layer = self.layers[-1]
        self._layers = [x for x in self._layers if x is not layer]
        self._after_change(rebuild)
        return layer

    def _after_change(self, rebuild):
        """Trace the graph again now, or drop it so that the next build or call does."""
        if self._seq_input is None:
            # Keras 3 builds at once when the first layer is a built model with one input
            first = self.layers[0] if len(self.layers) > 1 else None
            graph = getattr(first, "_graph", None)
            if rebuild and graph is not None and len(graph.flat_inputs) == 1:
                self.build(graph.flat_inputs[0].shape)
            return
        if rebuild:
            self._rebuild_graph()
        else:
            self._graph = None
            self.built = False

    def _rebuild_graph(self):
        """Trace the symbolic input through every layer to get the functional graph."""
        x = self._seq_input
        with self._scope():  # as in Keras 3, layers built here get 'sequential/dense/kernel' paths
            for layer in self.layers:
                x = layer(x)
        if self.layers:
            # Keras 3 wraps each traced graph in a Functional model, which takes the next
            # automatic 'functional' name: a later Model(inputs, outputs) is 'functional_1'.
            unique_layer_name("functional")
        self._graph = GraphRunner(self._seq_input, x) if self.layers else None
        self.built = bool(self.layers)
        self._build_input_shape = self._seq_input.shape

    def build(self, input_shape=None):
        """Build every layer for inputs of `input_shape` (batch dimension included)."""
        if input_shape is None:
            if self._seq_input is None:
                raise ValueError("You must provide an `input_shape` argument.")
            return
        shape = TensorShape(input_shape).as_list()
        if self._seq_input is None or TensorShape(self._seq_input.shape) != TensorShape(shape):
            # Keras gives the Input the first layer's compute dtype
            dtype = self.layers[0].compute_dtype if self.layers else self._dtype
            self._seq_input = Input(batch_shape=shape, dtype=dtype)
            self._rebuild_graph()
        elif self._graph is None and self.layers:
            self._rebuild_graph()  # layers were added or popped with rebuild=False
        self.built = True

    @property
    def inputs(self):
        """The input KerasTensor in a list (None before the input shape is known)."""
        return None if self._seq_input is None else [self._seq_input]

    @property
    def input(self):
        """The input KerasTensor."""
        if self._seq_input is None:
            raise AttributeError(f"Sequential model {self.name!r} has no input yet: build it "
                                 f"or call it first.")
        return self._seq_input

    def call(self, inputs, training=None, mask=None):
        """Feed `inputs` through the layers in order.

        As Keras 3's Sequential (a functional graph underneath): a `training` value that is not
        None is handed to every layer, whose own call keeps it only when its `call` takes
        `training` and passes it on to the layers inside it either way; `mask` is attached to
        the inputs, and each layer's output masks travel on to the next layer.
        """
        x = inputs
        if self._seq_input is not None and not isinstance(inputs, (list, tuple, dict)):
            x = to_input_dtype(inputs, self._seq_input)  # as Keras' functional Sequential
        if mask is not None:
            set_input_masks(x, mask)
        if training is None:
            for layer in self.layers:
                x = layer(x)
        else:
            for layer in self.layers:
                x = layer(x, training=training)
        return x

    def _maybe_build(self, inputs):
        if self.built and self._graph is not None:
            return
        shape = shape_of(inputs).as_list()
        try:
            self.build(TensorShape([None] + shape[1:]))
        except Exception:  # noqa: BLE001 -- some layers cannot trace; build eagerly instead
            self._seq_input = None
            self._graph = None
        self.built = True

    def _checkpoint_dependencies(self):
        """'layer_with_weights-N' / 'layer-N' for the layers (InputLayer excluded)."""
        return layer_dependencies(self.layers)

    def get_config(self):
        """name, trainable, the layers' configs (an InputLayer first once the input shape is
        known) and build_input_shape."""
        return serialization.sequential_config(self)

    @classmethod
    def from_config(cls, config, custom_objects=None):
        """A new Sequential with fresh layers from `get_config()`'s output."""
        return serialization.sequential_from_config(cls, config, custom_objects)
