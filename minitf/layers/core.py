"""Core layers: Dense, Activation, Lambda."""
from minitf.activations import activations
from minitf import constraints
from minitf.initializers import initializers
from minitf.regularizers import regularizers
from minitf.nest import nest
from minitf.keras_core.call_context import spec_of_function
from minitf.keras_core.keras_tensor import set_operator_layer
from minitf.layers import layer_utils
from minitf.layers import serialization
from minitf.layers.base import InputSpec, Layer
from minitf.layers.build_at_init import build_at_init
from minitf.ops.linalg import matmul, tensordot
from minitf.sparse.math_ops import sparse_dense_matmul
from minitf.sparse.sparse_tensor import SparseTensor
from minitf.tensor_shape import TensorShape
from minitf.api_export import export

__all__ = ["Dense", "Activation", "Lambda"]


@export("layers.Dense", "keras.layers.Dense")
class Dense(Layer):
    """A fully connected layer: `activation(inputs @ kernel + bias)`.

    The kernel maps the last axis of the input to `units` outputs; its size is taken from the
    first input the layer sees, so `Dense(64)` works on any feature count. Inputs of rank
    above 2 are transformed along their last axis only: `(batch, steps, features)` becomes
    `(batch, steps, units)`, the same kernel applied at every step. Integer inputs (uint8
    images) are converted to the layer's float dtype first.

    Example:

    ```python
    layer = tf.keras.layers.Dense(3, activation="relu")
    y = layer(tf.ones((2, 5)))     # builds a (5, 3) kernel and a (3,) bias; y is (2, 3)
    ```

    Args:
        units: the size of the output's last axis (a positive integer).
        activation: applied to the result: a name ('relu', 'softmax'), a callable, or None
            for none (linear).
        use_bias: whether to add a bias vector.
        kernel_initializer, bias_initializer: how the weights start ('glorot_uniform' and
            'zeros' by default): an initializer object, name or callable.
        kernel_regularizer, bias_regularizer: penalties on the weights, added to the
            layer's `losses`.
        activity_regularizer: a penalty on the layer's output, added to `losses` per call.
        kernel_constraint, bias_constraint: functions applied to the weights after each
            optimizer update.
        **kwargs: the Layer arguments (`name`, `dtype`, `trainable`, `input_shape`, ...).

    Raises:
        ValueError: when `units` is not positive, or (when building) the input's last
            dimension is unknown.

    Input shape: `(batch, ..., features)`, at least 2-D.
    Output shape: `(batch, ..., units)`.
    """

    def __init__(self, units, activation=None, use_bias=True, kernel_initializer="glorot_uniform",
                 bias_initializer="zeros", kernel_regularizer=None, bias_regularizer=None,
                 activity_regularizer=None, kernel_constraint=None, bias_constraint=None,
                 **kwargs):
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        if not isinstance(units, int) or units <= 0:  # Keras 3: a Python int (numpy ints too are refused)
            raise ValueError(f"Dense: received an invalid value for `units`, expected a positive "
                             f"integer. Received: units={units!r}")
        self.units = int(units)
        self.activation = activations.get(activation)
        self.use_bias = use_bias
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self.kernel_regularizer = regularizers.get(kernel_regularizer)
        self.bias_regularizer = regularizers.get(bias_regularizer)
        self.kernel_constraint = constraints.get(kernel_constraint)
        self.bias_constraint = constraints.get(bias_constraint)
        self.input_spec = InputSpec(min_ndim=2)

    def build(self, input_shape):
        if isinstance(input_shape, dict):  # Keras 3 reads input_shape[-1]: a KeyError
            raise KeyError(f"Dense {self.name!r} takes one tensor, not a dict of inputs {sorted(input_shape)}")
        last = TensorShape(input_shape)[-1]
        if last is None:
            raise ValueError(f"The last dimension of the inputs to a Dense layer {self.name!r} "
                             f"should be defined. Found None. Full input shape received: "
                             f"{TensorShape(input_shape)}")
        self.kernel = self.add_weight("kernel", shape=[last, self.units],
                                      initializer=self.kernel_initializer,
                                      regularizer=self.kernel_regularizer,
                                      constraint=self.kernel_constraint)
        if self.use_bias:
            self.bias = self.add_weight("bias", shape=[self.units],
                                        initializer=self.bias_initializer,
                                        regularizer=self.bias_regularizer,
                                        constraint=self.bias_constraint)
        else:
            self.bias = None
        self.input_spec = InputSpec(min_ndim=2, axes={-1: last})
        self.built = True

    def call(self, inputs):
        inputs = layer_utils.as_floating(inputs, self.compute_dtype)  # uint8 images -> float32, as Keras
        if isinstance(inputs, SparseTensor):  # Keras 3's ops.matmul: a sparse-dense product
            out = sparse_dense_matmul(inputs, self.kernel)
        elif inputs.shape.rank == 2:
            out = matmul(inputs, self.kernel)
        else:
            out = tensordot(inputs, self.kernel, [[inputs.shape.rank - 1], [0]])
        if self.use_bias:
            out = out + self.bias
        return self.activation(out) if self.activation is not None else out

    def compute_output_shape(self, input_shape):
        """input_shape[:-1] + (units,)."""
        return TensorShape(input_shape)[:-1].concatenate([self.units])

    def get_config(self):
        """units, activation, use_bias, initializers, regularizers, constraints."""
        config = super().get_config()
        config.update({
            "units": self.units,
            "activation": layer_utils.serialize(self.activation, "activations"),
            "use_bias": self.use_bias,
            "kernel_initializer": layer_utils.serialize(self.kernel_initializer, "initializers"),
            "bias_initializer": layer_utils.serialize(self.bias_initializer, "initializers"),
            "kernel_regularizer": layer_utils.serialize(self.kernel_regularizer, "regularizers"),
            "bias_regularizer": layer_utils.serialize(self.bias_regularizer, "regularizers"),
            "kernel_constraint": layer_utils.serialize(self.kernel_constraint, "constraints"),
            "bias_constraint": layer_utils.serialize(self.bias_constraint, "constraints"),
        })
        return config


@export("layers.Activation", "keras.layers.Activation")
class Activation(Layer):
    """Applies an activation function (a name like 'relu' or a callable)."""

    def __init__(self, activation, **kwargs):
        super().__init__(**kwargs)
        self.activation = activations.get(activation)
        build_at_init(self)

    def call(self, inputs):
        return self.activation(inputs)

    def compute_output_shape(self, input_shape):
        """Same as the input shape."""
        return TensorShape(input_shape)

    def get_config(self):
        """The activation's name."""
        config = super().get_config()
        config["activation"] = layer_utils.serialize(self.activation, "activations")
        return config


@export("layers.Lambda", "keras.layers.Lambda")
class Lambda(Layer):
    """Wraps an arbitrary function of the inputs as a layer (no weights of its own).

    `output_shape` is a tuple without the batch axis or a function of the full input shape;
    `arguments` are extra keyword arguments for `function`. In configs, a named function is
    stored by name and a Python lambda as bytecode, which `from_config` loads only with
    `safe_mode=False` (or after `minitf.layers.serialization.enable_unsafe_deserialization()`).
    """

    def __init__(self, function, output_shape=None, mask=None, arguments=None, **kwargs):
        super().__init__(**kwargs)
        self.function = function
        self.arguments = dict(arguments or {})
        self.mask = mask
        if isinstance(output_shape, list):
            output_shape = tuple(output_shape)
        self._output_shape = output_shape

    def call(self, inputs, mask=None, training=None):
        kwargs = dict(self.arguments)
        spec = spec_of_function(self.function)  # read once per function
        if spec.has("mask"):
            kwargs["mask"] = mask
        if spec.has("training"):
            kwargs["training"] = training
        return self.function(inputs, **kwargs)

    def compute_output_shape(self, input_shape):
        """`output_shape(input_shape)`, `(batch,) + output_shape`, or inferred by a dry run."""
        if self._output_shape is None:
            return super().compute_output_shape(input_shape)
        if callable(self._output_shape):
            return self._output_shape(input_shape)
        batch = nest.flatten(_shape_as_tuple(input_shape))[0] if input_shape is not None \
            else None
        return TensorShape((batch,) + tuple(self._output_shape))

    def compute_mask(self, inputs, mask=None):
        """`mask(inputs, mask)` when `mask` is callable, else the fixed `mask` given."""
        if callable(self.mask):
            return self.mask(inputs, mask)
        return self.mask

    def get_config(self):
        """function (by name, or bytecode for a lambda), output_shape, mask, arguments."""
        config = super().get_config()
        config["function"] = serialization.serialize_function(self.function)
        if self._output_shape is not None:
            config["output_shape"] = (serialization.serialize_function(self._output_shape)
                                      if callable(self._output_shape) else self._output_shape)
        if self.mask is not None:
            config["mask"] = (serialization.serialize_function(self.mask) if callable(self.mask)
                              else self.mask)
        config["arguments"] = dict(self.arguments)
        return config

    @classmethod
    def from_config(cls, config, custom_objects=None, safe_mode=None):
        """A new Lambda from `get_config()`'s output.

        Lambda bytecode is refused with ValueError unless `safe_mode=False` (or unsafe
        deserialization was enabled); named functions resolve through `custom_objects` and
        minitf's built-in activations/losses/metrics.
        """
        config = serialization._standardize_layer_config(config)
        config["function"] = serialization.deserialize_function(
            config["function"], custom_objects, safe_mode, "the `function` of a `Lambda` layer")
        for key in ("output_shape", "mask"):
            value = config.get(key)
            if isinstance(value, (dict, str)):
                config[key] = serialization.deserialize_function(
                    value, custom_objects, safe_mode, f"the `{key}` of a `Lambda` layer")
        if "arguments" in config:
            config["arguments"] = dict(config["arguments"] or {})
        return cls(**config)


def _shape_as_tuple(shape):
    if isinstance(shape, TensorShape):
        return tuple(shape.as_list()) if shape.rank is not None else (None,)
    return shape


# Python operators on KerasTensors (x + 1, x[:, 0]) become Lambda layers in the graph.
set_operator_layer(Lambda)
