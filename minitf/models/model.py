"""tf.keras.Model: subclassed models (your own `call`) and functional models (a layer graph).

`Model(inputs, outputs)` builds a functional model from KerasTensors; subclassing `Model` and
defining `call` gives a subclassed one. Training (`compile`, `fit`, ...) is added elsewhere;
this class holds the structure: layers, weights, summary, checkpoint names, weights files.
"""
from minitf.nest import nest
from minitf.keras_core.naming import unique_layer_name
from minitf.checkpoint import keras_weights
from minitf.convert import convert_to_tensor
from minitf.engine.training import TrainingMixin
from minitf.keras_core.keras_tensor import KerasTensor
from minitf.layers.base import BUILTIN_LAYER_CLASSES, Layer
from minitf.layers.input_spec import InputSpec, shapes_of
from minitf.models import serialization
from minitf.models.functional import GraphRunner
from minitf.models.summary import print_summary
from minitf.ops import array as array_ops
from minitf.saved_model import keras_export
from minitf.saving import saving_api
from minitf.tensor import Tensor
from minitf.tensor_shape import TensorShape
from minitf.variable import Variable
from minitf.api_export import export

__all__ = ["Model"]


@export("keras.Model", "models.Model", "keras.models.Model")
class Model(TrainingMixin, Layer):
    """A Layer with training and saving utilities; functional when given inputs and outputs."""

    def __init__(self, *args, **kwargs):
        if args and not (len(args) == 2 or (len(args) == 1 and "outputs" in kwargs)):
            # not Keras' functional signature: Keras hands the arguments to Layer.__init__
            raise TypeError(f"Layer.__init__() takes 1 positional argument but {len(args) + 1} were given "
                            f"(a functional Model takes `inputs` and `outputs`; a subclass calls "
                            f"super().__init__() without its own arguments)")
        inputs = kwargs.pop("inputs", None)
        outputs = kwargs.pop("outputs", None)
        if args:
            inputs, args = args[0], args[1:]
        if args:
            outputs, args = args[0], args[1:]
        name = kwargs.pop("name", None)
        if name is None and type(self) is Model and (inputs is not None or outputs is not None):
            name = unique_layer_name("functional")  # Keras 3's class is Functional
        trainable = kwargs.pop("trainable", True)
        dtype = kwargs.pop("dtype", None)
        super().__init__(trainable=trainable, name=name, dtype=dtype, **kwargs)
        self._graph = None
        self._layers = []
        if inputs is not None or outputs is not None:
            if inputs is None or outputs is None:
                raise ValueError("A functional Model needs both `inputs` and `outputs`.")
            self._init_graph(inputs, outputs)

    # -- functional construction -----------------------------------------------------------
    def _init_graph(self, inputs, outputs):
        if isinstance(inputs, tuple):
            inputs = list(inputs)
        if isinstance(outputs, tuple):
            outputs = list(outputs)
        self._graph = GraphRunner(inputs, outputs)
        self._layers = list(self._graph.layers)
        self.built = True
        first = self._graph.flat_inputs
        self._build_input_shape = [t.shape for t in first] if len(first) > 1 else first[0].shape

    @property
    def _is_graph_network(self):
        return self._graph is not None

    _is_sequential = False  # Sequential's summary is always the three-column table

    @property
    def _keras_class_name(self):
        """Keras 3's class name: 'Functional' for a plain Model built from inputs and outputs."""
        return "Functional" if type(self) is Model and self._graph is not None \
            else type(self).__name__

    @property
    def inputs(self):
        """The model's input KerasTensors (a list), or None for a subclassed model."""
        return None if self._graph is None else list(self._graph.flat_inputs)

    @property
    def outputs(self):
        """The model's output KerasTensors (a list), or None for a subclassed model."""
        return None if self._graph is None else list(self._graph.flat_outputs)

    @property
    def input(self):
        """The input tensor(s), as the model was given them."""
        if self._graph is None:
            return super().input
        return self._graph.inputs

    @property
    def output(self):
        """The output tensor(s), as the model was given them."""
        if self._graph is None:
            return super().output
        return self._graph.outputs

    @property
    def input_spec(self):
        """Functional models: one InputSpec per Input (its shape, batch left free, the last
        axis squeezable, named after the input layer), as Keras 3 checks model calls."""
        if self._input_spec is not None or self._graph is None:
            return self._input_spec
        cached = self.__dict__.get("_graph_input_spec")
        if cached is not None and cached[0] is self._graph:
            return cached[1]
        specs = []
        inputs = self._graph.inputs
        named = sorted(inputs.items()) if isinstance(inputs, dict) else \
            [(None, t) for t in self._graph.flat_inputs]
        for key, t in named:
            dims = t.shape.as_list() if t.shape.rank is not None else None
            if dims is None:
                specs.append(None)
                continue
            if dims:
                dims[0] = None
            name = key if key is not None else getattr(t.node.layer, "name", None)
            specs.append(InputSpec(shape=dims, allow_last_axis_squeeze=True, name=name))
        object.__setattr__(self, "_graph_input_spec", (self._graph, specs))
        return specs

    @input_spec.setter
    def input_spec(self, value):
        self._input_spec = value

    @property
    def input_names(self):
        """Names of the input layers."""
        return [t._node.layer.name if getattr(t, "_node", None) is not None else t.name
                for t in self.inputs or []]

    @property
    def output_names(self):
        """Names of the layers producing the outputs."""
        return [t.node.layer.name for t in self.outputs or []]

    # -- layers ----------------------------------------------------------------------------
    def _sublayers(self):
        if self._graph is not None:
            return list(self._layers)
        return super()._sublayers()

    @property
    def layers(self):
        """The model's layers (functional models include their InputLayers)."""
        return list(self._sublayers())

    def get_layer(self, name=None, index=None):
        """A layer by name or by index in `layers` (ValueError when there is none)."""
        if index is not None and name is not None:
            raise ValueError("Provide only a layer name or a layer index. Received: "
                             f"index={index}, name={name}.")
        layers = self.layers
        if index is not None:
            if len(layers) <= index:
                raise ValueError(f"Was asked to retrieve layer at index {index} but model "
                                 f"only has {len(layers)} layers.")
            return layers[index]
        if name is not None:
            for layer in layers:
                if layer.name == name:
                    return layer
            raise ValueError(f"No such layer: {name}. Existing layers are: "
                             f"{[layer.name for layer in layers]}.")
        raise ValueError("Provide either a layer name or layer index at `get_layer`.")

    # -- calling ---------------------------------------------------------------------------
    def call(self, inputs, training=None, mask=None):
        """Run the layer graph (functional models); subclasses override this.

        `training` (when not None) reaches every layer of the graph, `mask` is attached to the
        inputs (see GraphRunner.run).
        """
        if self._graph is None:
            raise NotImplementedError(f"Model {self.name!r}: subclassed models must define "
                                      f"`call(self, inputs, training=None)`.")
        return self._graph.run(inputs, training=training, mask=mask)

    def _cast_inputs(self, inputs):
        # Layers inside cast for themselves; a model keeps e.g. integer token ids as they are.

        def convert(x):
            if isinstance(x, (Tensor, KerasTensor)) or x is None:
                return x
            if isinstance(x, Variable):
                return x.value()
            try:
                t = convert_to_tensor(x)
            except (TypeError, ValueError):
                return x
            if self._graph is not None:
                return t  # functional: the graph converts to each Input's dtype instead
            return super(Model, self)._cast_inputs(t) if t.dtype.is_floating else t
        return nest.map_structure(convert, inputs)

    def _maybe_build(self, inputs):
        if self.built:
            return
        self._build_input_shape = shapes_of(inputs)
        self.built = True  # subclassed models build their sublayers when they run

    def build(self, input_shape):
        """Build a subclassed model by calling it on zeros of `input_shape` (None -> 1)."""
        if self._graph is not None:
            self.built = True
            return
        if input_shape is None:
            raise ValueError("Input shape must be defined when calling `build()` on a Model.")

        def make(shape):
            return array_ops.zeros([1 if d is None else d for d in TensorShape(shape).as_list()],
                         dtype=self.dtype)
        if isinstance(input_shape, (list, tuple)) and input_shape and \
                isinstance(input_shape[0], (list, tuple, TensorShape)):
            dummy = [make(s) for s in input_shape]
        elif isinstance(input_shape, dict):
            dummy = {k: make(s) for k, s in input_shape.items()}
        else:
            dummy = make(input_shape)
        self(dummy, training=False)
        self._build_input_shape = input_shape
        self.built = True

    # -- checkpointing ---------------------------------------------------------------------
    def _checkpoint_dependencies(self):
        """Subclassed: attributes by name; functional: 'layer_with_weights-N' and 'layer-N'."""
        if self._graph is None:
            return super()._checkpoint_dependencies()
        return layer_dependencies(self.layers) + [
            (k, v) for k, v in super()._checkpoint_dependencies()
            if not isinstance(v, Layer)]

    def save(self, filepath, overwrite=True, zipped=None, **kwargs):
        """Save the whole model (config, compile config, weights, optimizer state) to a Keras 3
        `.keras` file; see `tf.keras.saving.save_model`."""
        return saving_api.save_model(self, filepath, overwrite=overwrite, zipped=zipped, **kwargs)

    def export(self, filepath, format="tf_saved_model", verbose=None, input_signature=None,
               **kwargs):
        """Export the model for inference as Keras 3 does: format 'tf_saved_model' writes a
        SavedModel serving `model(inputs, training=False)` as the endpoint 'serve' (and as
        'serving_default'); see minitf.saved_model.keras_export."""
        formats = ("tf_saved_model", "onnx", "openvino", "litert", "torch")
        if format not in formats:
            raise ValueError(f"Unrecognized format={format}. Supported formats are: "
                             f"{list(formats)}.")
        if format != "tf_saved_model":
            raise NotImplementedError(f"model.export(format={format!r}) is not available in "
                                      f"minitf; export format='tf_saved_model'.")
        keras_export.export_model(self, filepath, verbose=True if verbose is None else verbose,
                                  input_signature=input_signature)

    def save_weights(self, filepath, overwrite=True, save_format=None, options=None):
        """Write the weights to `filepath` (see minitf.checkpoint.keras_weights)."""
        return keras_weights.save_weights(self, filepath)

    def load_weights(self, filepath, skip_mismatch=False, by_name=False, options=None):
        """Read weights written by `save_weights` (see minitf.checkpoint.keras_weights)."""
        return keras_weights.load_weights(self, filepath, skip_mismatch)

    # -- summary ---------------------------------------------------------------------------
    def summary(self, line_length=None, positions=None, print_fn=None, expand_nested=False,
                show_trainable=False, layer_range=None):
        """Print Keras 3's table of layers, output shapes and parameter counts.

        As in Keras 3, an unbuilt model prints its layers with shape '?' and '0 (unbuilt)'
        parameters; `print_fn` receives the whole text in one call.
        """
        print_summary(self, line_length=line_length, positions=positions, print_fn=print_fn,
                      expand_nested=expand_nested, show_trainable=show_trainable,
                      layer_range=layer_range)

    def get_config(self):
        """Functional models: Keras' graph config (layers, inbound nodes, inputs, outputs).

        Subclassed models: name/trainable/dtype when `__init__` takes no arguments of its own,
        else NotImplementedError (override `get_config`, as in Keras).
        """
        if self._graph is not None:
            return serialization.functional_config(self)
        return serialization.subclassed_config(self)

    @classmethod
    def from_config(cls, config, custom_objects=None):
        """A new model from `get_config()`'s output; functional configs rebuild the graph."""
        if "layers" in config and "input_layers" in config:
            return serialization.functional_from_config(cls, config, custom_objects)
        try:
            return cls(**config)
        except TypeError as e:
            raise TypeError(f"Unable to revive model {cls.__name__!r} from config: when "
                            f"overriding `get_config()`, return every constructor argument. "
                            f"Error: {e}") from e



BUILTIN_LAYER_CLASSES["Functional"] = Model  # Keras 3's class name of functional models

def layer_dependencies(layers):
    """TF's names for a layer list: 'layer_with_weights-N' for layers with weights, 'layer-N'."""
    deps, n_weighted = [], 0
    for layer in layers:
        if layer.weights:
            deps.append((f"layer_with_weights-{n_weighted}", layer))
            n_weighted += 1
    for i, layer in enumerate(layers):
        deps.append((f"layer-{i}", layer))
    return deps

