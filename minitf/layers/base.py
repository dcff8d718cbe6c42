"""Layer: the Keras building block that creates its weights lazily on the first call.

A layer knows nothing about its input size until it is called: `__call__` then runs
`build(input_shape)` (which creates weights with `add_weight`) and afterwards `call`.
Before that first call `layer.variables` is empty, exactly as in TensorFlow, so a tape with
`watch_accessed_variables=False` cannot watch the weights of an unbuilt layer.

Called on KerasTensors (symbolic inputs from `tf.keras.Input`), a layer computes nothing: it
records a Node (minitf.keras_core.node) whose output KerasTensors carry the inferred shapes.
Weights and sublayers are found from the attributes (see minitf.layers.tracking); the input
checks are in minitf.layers.input_spec; names come from minitf.keras_core.naming.
"""
import inspect

import numpy as np

from minitf.dtypes import dtypes
from minitf.initializers import initializers
from minitf.nest import nest
from minitf.regularizers import regularizers

from minitf.function import TensorSpec
from minitf.keras_core import naming
from minitf.keras_core import node as node_module
from minitf.keras_core.keras_tensor import any_symbolic
from minitf.layers import auto_config, layer_call, mask_propagation
from minitf.layers.call_checks import check_positional_inputs, naming_errors
from minitf.layers.input_spec import InputSpec, assert_input_compatibility, shape_of, shapes_of
from minitf.layers.tracking import AttributeTracking, LayerWeight
from minitf.layers import dtype_policy as layer_dtypes
from minitf.mixed_precision import policy as dtype_policies
from minitf.module import Module
from minitf.tensor_shape import TensorShape
from minitf.trackable import Trackable
from minitf.tensor import Tensor
from minitf.variable import VariableAggregation, VariableSynchronization, scopes
from minitf.api_export import export

__all__ = ["Layer", "InputSpec", "BUILTIN_LAYER_CLASSES"]

# Every Layer subclass defined inside minitf (layers, InputLayer, Model, Sequential), by class
# name, filled as the classes are defined: deserialization finds built-in classes here instead
# of importing the modules above it.
BUILTIN_LAYER_CLASSES = {}

_ALLOWED_KWARGS = frozenset({"input_shape", "batch_input_shape", "batch_size", "input_dim",
                             "activity_regularizer", "autocast", "input_length"})


def _unique(objects):
    """`objects` without repeats (compared by identity), first occurrence kept."""
    seen, out = set(), []
    for obj in objects:
        if id(obj) not in seen:
            seen.add(id(obj))
            out.append(obj)
    return out


def _first_call_parameter(layer):
    """The name of the first parameter of `layer.call` (None when it takes only *args)."""
    try:
        params = inspect.signature(layer.call).parameters.values()
    except (TypeError, ValueError):
        return None
    for p in params:
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
            return p.name
        return None
    return None


@export("keras.Layer", "layers.Layer", "keras.layers.Layer")
class Layer(AttributeTracking, Module, Trackable):
    """The base class of Keras layers: a callable object that owns weights.

    A layer is the unit models are built from. Subclasses usually override three methods:

    - `__init__`: store the layer's settings (units, activation, ...); no weights yet.
    - `build(input_shape)`: create the weights with `add_weight`, now that the size of the
      input is known. `__call__` runs it once, before the first `call`.
    - `call(inputs, training=None)`: the computation, written with minitf ops.

    Weights created in `build`, variables assigned as attributes and layers assigned as
    attributes (also inside lists and dicts) are all tracked: `weights`,
    `trainable_weights` and `losses` gather them, depth first, in assignment order.

    Example:

    ```python
    class Linear(tf.keras.layers.Layer):
        def __init__(self, units=32):
            super().__init__()
            self.units = units

        def build(self, input_shape):
            self.w = self.add_weight("w", shape=(input_shape[-1], self.units))
            self.b = self.add_weight("b", shape=(self.units,), initializer="zeros")

        def call(self, inputs):
            return tf.matmul(inputs, self.w) + self.b
    ```

    Args:
        trainable: whether the layer's weights are updated by training.
        name: the layer's name; by default the class name in snake case made unique
            ('dense', 'dense_1', ...).
        dtype: the layer's dtype policy: a DTypePolicy, its name ('float32',
            'mixed_float16', ...) or a dtype. The weights are made in its variable dtype;
            floating inputs are cast to its compute dtype, and inside `call` the weights
            read as that dtype too. Default: the global policy
            (`tf.keras.mixed_precision.global_policy()`).
        dynamic: accepted for compatibility; minitf layers always run eagerly.
        **kwargs: `input_shape`, `batch_input_shape`, `batch_size` or `input_dim` (the input
            a Sequential model starts from), `activity_regularizer`, `autocast`.

    Raises:
        TypeError: for any other keyword argument, or a name that is not a string.
    """

    _checks_module_name = False  # Keras takes any string as a name

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if cls.__module__.startswith("minitf.") and not cls.__name__.startswith("_"):
            BUILTIN_LAYER_CLASSES.setdefault(cls.__name__, cls)
        if cls.__module__.startswith("minitf.") and "__init__" in cls.__dict__:
            cls.__init__ = naming_errors(cls.__dict__["__init__"])

    def __new__(cls, *args, **kwargs):
        layer = super().__new__(cls)
        # Keras 3's automatic config, for layers defined outside minitf (built-ins write their own)
        captured = None if cls.__module__.startswith("minitf.") else auto_config.capture(cls, args, kwargs)
        object.__setattr__(layer, "_auto_config", captured)
        return layer

    def __init__(self, trainable=True, name=None, dtype=None, dynamic=False, **kwargs):
        unknown = {key: value for key, value in kwargs.items() if key not in _ALLOWED_KWARGS}
        if unknown:  # Keras 3's ValueError
            raise ValueError(f"Unrecognized keyword arguments passed to {type(self).__name__}: {unknown}")
        if name is None:
            name = naming.unique_layer_name(naming.to_snake_case(type(self).__name__))
        elif not isinstance(name, str):
            raise TypeError(f"Layer name must be a string, got {type(name).__name__}.")
        object.__setattr__(self, "_attr_order", [])
        Module.__init__(self, name=name)
        self._trainable = bool(trainable)
        self.built = False
        self._weights = []          # (attribute name, variable) in creation order
        self._dtype_policy = layer_dtypes.policy_of(dtype, f"Layer {name!r}")
        self._dtype = None if dtype is None else dtype_policies.get(dtype).variable_dtype
        self._autocast = kwargs.get("autocast", True)
        self._input_spec = None
        self._call_losses = []
        self._inbound_nodes = []
        self._outbound_nodes = []
        self._build_input_shape = None
        self._activity_regularizer = kwargs.get("activity_regularizer")
        batch_shape = None
        if "batch_input_shape" in kwargs:
            batch_shape = tuple(kwargs["batch_input_shape"])
        elif "input_shape" in kwargs:
            batch_shape = (kwargs.get("batch_size"),) + tuple(kwargs["input_shape"])
        elif "input_dim" in kwargs:
            batch_shape = (kwargs.get("batch_size"), kwargs["input_dim"])
        self._batch_input_shape = batch_shape

    # -- properties ----------------------------------------------------------------------
    @property
    def name(self):
        """The layer's (unique) name."""
        return self._name

    @property
    def dtype_policy(self):
        """The layer's DTypePolicy (settable with a policy or its name)."""
        return self._dtype_policy or dtype_policies.floatx_policy()

    @dtype_policy.setter
    def dtype_policy(self, value):
        self._dtype_policy = layer_dtypes.policy_of(value, f"Layer {self.name!r}")

    @property
    def dtype(self):
        """The dtype of the layer's weights, e.g. 'float32' (alias of `variable_dtype`)."""
        return self.dtype_policy.variable_dtype

    @property
    def compute_dtype(self):
        """The dtype the layer computes in: floating inputs and weights are cast to it in `call`."""
        return self.dtype_policy.compute_dtype

    @property
    def variable_dtype(self):
        """The dtype of the layer's weights."""
        return self.dtype_policy.variable_dtype

    @property
    def input_dtype(self):
        """The dtype floating inputs are cast to (the compute dtype)."""
        return self.compute_dtype

    @property
    def autocast(self):
        """Whether floating inputs and weights are cast to the compute dtype (settable)."""
        return self._autocast

    @autocast.setter
    def autocast(self, value):
        self._autocast = bool(value)

    @property
    def input_spec(self):
        """The InputSpec recorded at build time (or set by the layer), checked on calls."""
        return self._input_spec

    @input_spec.setter
    def input_spec(self, value):
        self._input_spec = value

    @property
    def trainable(self):
        """Whether the layer's weights are trained; setting it freezes sublayers too."""
        return self._trainable

    @trainable.setter
    def trainable(self, value):
        value = bool(value)
        self._trainable = value
        for layer in self._sublayers():
            if isinstance(layer, Layer):
                layer.trainable = value

    @property
    def dynamic(self):
        """Always False: minitf layers run eagerly."""
        return False

    @property
    def stateful(self):
        """Whether the layer keeps state between calls (False by default)."""
        return False

    @property
    def supports_masking(self):
        """Whether outputs get `compute_mask(inputs, mask)` (see minitf.layers.mask_propagation); settable."""
        return mask_propagation.supports_masking(self)

    @supports_masking.setter
    def supports_masking(self, value):
        self._supports_masking = bool(value)

    compute_mask = mask_propagation.default_compute_mask

    # -- weights ---------------------------------------------------------------------------
    def add_weight(self, name=None, shape=None, dtype=None, initializer=None, regularizer=None,
                   trainable=None, constraint=None, use_resource=None, synchronization=None,
                   aggregation=None, **kwargs):
        """Create a variable owned by this layer, usually from `build`.

        The weight is tracked at once: it appears in `weights` (and `trainable_weights` or
        `non_trainable_weights`), its regularizer adds to `losses`, and checkpoints save it
        under `name`. As in Keras 3, the variable's `name` is `name` itself ('kernel') and
        its `path` puts the layer's scope in front ('dense/kernel').

        Args:
            name: the weight's name within the layer; default 'weight_<n>'.
            shape: the weight's shape (a tuple, list or TensorShape); default a scalar.
            dtype: its dtype; default the layer's `dtype`.
            initializer: an initializer object, name ('zeros', 'he_normal') or callable;
                default 'glorot_uniform' for floating weights, 'zeros' otherwise.
            regularizer: a regularizer (object, name or callable) whose penalty on this
                weight is added to `losses`; None for no penalty.
            trainable: whether training updates it (default True). A weight with
                `synchronization=ON_READ` is never trainable.
            constraint: a function applied to the weight after each optimizer update.
            use_resource: accepted for compatibility; ignored.
            synchronization, aggregation: tf.VariableSynchronization / VariableAggregation,
                recorded on the variable (minitf runs on one replica).
            **kwargs: `autocast` (default True): whether the weight reads as the layer's
                compute dtype inside a mixed-precision `call`; others are ignored.

        Returns:
            The new variable.

        Raises:
            ValueError: when the initializer is not a known name or callable.
        """
        shape = () if shape is None else tuple(TensorShape(shape).as_list())
        if None in shape:  # Keras 3's check of a new variable's shape
            raise ValueError(f"Layer {self.name!r} ({type(self).__name__}): shapes used to initialize variables "
                             f"must be fully-defined (no `None` dimensions). Received: shape={shape} for "
                             f"variable {name!r}")
        dtype = dtypes.as_dtype(dtype or self.dtype)
        if initializer is None:
            initializer = "glorot_uniform" if dtype.is_floating else "zeros"
        init = initializers.get(initializer)
        if trainable is None:
            trainable = True
        if synchronization == VariableSynchronization.ON_READ:
            trainable = False
        name = name or f"weight_{len(self._weights)}"
        value = init(shape, dtype=dtype)
        weight_class = layer_dtypes.AutocastWeight if kwargs.get("autocast", True) else LayerWeight
        with self._scope():
            var = weight_class(value, trainable=trainable, name=name, dtype=dtype,
                              constraint=constraint,
                              synchronization=synchronization or VariableSynchronization.AUTO,
                              aggregation=aggregation or VariableAggregation.NONE)
        var._path = var._name.split(":")[0]
        var._name = name
        var._regularizer = _get_regularizer(regularizer)
        self._weights.append((name, var))
        self._track_child(name, var)
        return var

    def get_weights(self):
        """The current values of `weights` as a list of numpy arrays."""
        return [v.numpy() for v in self.weights]

    def set_weights(self, weights):
        """Assign numpy arrays to `weights` (same count, same shapes, in the same order)."""
        params = self.weights
        weights = list(weights)
        if len(params) != len(weights):
            raise ValueError(
                f"Layer {self.name!r} expected {len(params)} weights, but received "
                f"{len(weights)} input weights. You called `set_weights(weights)` on layer "
                f"{self.name!r} with a weight list of length {len(weights)}.")
        for p, w in zip(params, weights):
            w_shape = tuple(np.shape(w))
            if tuple(p.shape.as_list()) != w_shape:
                raise ValueError(
                    f"Layer {self.name!r} weight shape {tuple(p.shape.as_list())} is not "
                    f"compatible with provided weight shape {w_shape} (variable {p.name}).")
        for p, w in zip(params, weights):
            p.assign(np.asarray(w, dtype=p.dtype.as_numpy_dtype))

    # -- losses ----------------------------------------------------------------------------
    def add_loss(self, losses, inputs=None):
        """Add a loss tensor (or a zero-argument callable) to `losses`."""
        items = losses if isinstance(losses, (list, tuple)) else [losses]
        for item in items:
            if item is not None:
                self._call_losses.append(item)
                layer_call.LOSS_HOLDERS.add(self)

    @property
    def losses(self):
        """Regularization losses (from the current weights) plus losses added in the last call."""
        out = []
        for _, v in self._weights:
            reg = getattr(v, "_regularizer", None)
            if reg is not None:
                out.append(reg(v))
        for item in self._call_losses:
            out.append(item() if callable(item) else item)
        for layer in self._sublayers():
            if isinstance(layer, Layer):
                out.extend(layer.losses)
        return out

    def _clear_losses(self):
        """Forget the losses added by earlier calls, here and in every sublayer (Keras 3 does this
        when an outermost call begins)."""
        if not layer_call.LOSS_HOLDERS:
            return  # no layer holds call losses: nothing to walk
        self._call_losses = []
        layer_call.LOSS_HOLDERS.discard(self)
        for layer in self._sublayers():
            if isinstance(layer, Layer):
                layer._clear_losses()

    @property
    def metrics(self):
        """Metric objects held as attributes of this layer, then those of its sublayers."""
        found = self._metric_attributes()
        for layer in self._sublayers():
            found.extend(getattr(layer, "metrics", ()))
        return _unique(found)

    @property
    def metrics_variables(self):
        """The state variables of the metrics in `metrics` (kept out of `weights`)."""
        return [v for metric in self.metrics for v in metric.variables]

    # -- building and calling --------------------------------------------------------------
    def build(self, input_shape):
        """Create the layer's weights, now that the input shape is known.

        `__call__` runs `build` once, inside the layer's name scope, before the first `call`;
        override it to create weights with `add_weight`. The base version only records the
        shape and marks the layer built.

        Args:
            input_shape: a TensorShape (batch dimension first), or a list/dict of them for
                layers called on several inputs.
        """
        self._build_input_shape = input_shape
        self.built = True

    def call(self, inputs, *args, **kwargs):
        """The layer's computation; the base version returns its inputs."""
        return inputs

    def _scope(self):
        """The layer's name scope, unless it is the innermost scope already ('dense/dense/')."""
        return _null_scope() if scopes.stack and scopes.stack[-1] == self._scope_name \
            else self.name_scope

    def _maybe_build(self, inputs):
        if self.built:
            return
        input_shape = shapes_of(inputs)
        with self._scope():
            self.build(input_shape)
        self.built = True
        if self._build_input_shape is None:
            self._build_input_shape = input_shape

    def _cast_inputs(self, inputs):
        """Floating tensors and arrays become tensors of the layer's compute dtype (Keras autocast);
        a mask attached to an input stays attached to the converted input."""
        return layer_call.convert_inputs(self, inputs)

    def _check_inputs(self, inputs):
        spec = self.input_spec
        if spec is None:
            return
        flat = nest.flatten(inputs)
        specs = spec if isinstance(spec, (list, tuple)) else [spec]
        for i, (x, s) in enumerate(zip(flat, specs)):
            assert_input_compatibility(self, s, shape_of(x), i)

    def __call__(self, *args, **kwargs):
        """Run the layer: build it on the first call, check the inputs, then `call`.

        As in Keras 3: inputs and other array arguments are converted to tensors (floating ones
        cast to the layer's compute dtype unless `autocast` is off); `training` is the value
        passed, else the one of the outermost layer call running (see
        minitf.layers.call_context), else the default of `call`'s own `training` parameter, and
        reaches `call` only when it takes `training`; masks attached to the inputs fill the
        `mask` argument when `call` takes one (see minitf.layers.mask_propagation). On KerasTensors
        (symbolic inputs) the layer computes nothing: it builds, infers the output shapes and
        records the call as a Node of the functional graph.

        Args:
            *args: the inputs (a tensor, array, or a list/dict of them), then any further
                positional arguments of `call`.
            **kwargs: keyword arguments of `call` (`training=True` during `fit`); `inputs=`
                may name the inputs.

        Returns:
            The outputs of `call` (KerasTensors for symbolic inputs).

        Raises:
            ValueError: when there are no inputs, or they break the layer's InputSpec.
        """
        if not args:
            # Keras 3 also takes the inputs by the name of `call`'s first parameter
            first = _first_call_parameter(self)
            key = first if first in kwargs else "inputs"
            if key not in kwargs:  # Keras 3: the call's signature lacks its first argument
                raise TypeError(f"Layer {self.name!r} ({type(self).__name__}) was called without inputs: "
                                f"missing a required argument: '{first or 'inputs'}'")
            inputs = kwargs.pop(key)
        else:
            inputs, args = args[0], args[1:]
            if type(inputs) is not Tensor:
                check_positional_inputs(self, inputs)
        if any_symbolic(inputs):
            return self._symbolic_call(inputs, args, kwargs)
        return layer_call.run(self, inputs, args, kwargs)

    def add_metric(self, *args, **kwargs):
        """Removed in Keras 3: raises NotImplementedError (track a Metric as an attribute, or
        pass it to `Model.compile(metrics=...)`, instead)."""
        raise NotImplementedError(
            "Layer `add_metric()` method is deprecated (removed in Keras 3). Add your metric in "
            "`Model.compile(metrics=[...])`, or create a Metric object as an attribute of the "
            "layer and update it in `call()` or `train_step()`.")

    # -- symbolic calls --------------------------------------------------------------------
    def _run_on_values(self, values, args, kwargs):
        """`call` on concrete values, for shape inference: inference mode, losses untouched."""
        return layer_call.run_on_values(self, values, args, kwargs)

    def _symbolic_call(self, inputs, args, kwargs):
        """Call on KerasTensors: build, check, then record a Node with inferred outputs."""
        if not self.built:
            self._check_inputs(inputs)  # Keras checks the spec before building, too
        self._maybe_build(inputs)
        self._check_inputs(inputs)
        outputs = node_module.symbolic_call(self, self._run_on_values, inputs, args, kwargs)
        return mask_propagation.symbolic_masks(self, inputs, kwargs, outputs)

    # -- shapes ----------------------------------------------------------------------------
    def compute_output_shape(self, input_shape):
        """The output shape for `input_shape`, found by running the layer on zeros."""
        inputs = node_module.keras_tensors_like(input_shape, self.dtype)
        if not self.built:
            self._maybe_build(inputs)
        specs = node_module.output_specs(self._run_on_values, inputs)
        return nest.map_structure(lambda s: s.shape, specs)

    def compute_output_signature(self, input_signature):
        """TensorSpec of the output for a TensorSpec input."""
        shape = self.compute_output_shape(input_signature.shape)
        return TensorSpec(shape, self.compute_dtype)

    def _first_node(self, what):
        if not self._inbound_nodes:
            raise AttributeError(f"Layer {self.name} has no inbound nodes; its {what} is "
                                 f"defined only once it has been called on a symbolic input.")
        return self._inbound_nodes[0]

    @property
    def input(self):
        """The symbolic input of the layer's first call on a KerasTensor."""
        return self._first_node("input").input_tensors

    @property
    def output(self):
        """The symbolic output of the layer's first call on a KerasTensor."""
        return self._first_node("output").output_tensors

    @property
    def input_shape(self):
        """Shape of `input` (as a tuple)."""
        return _as_tuple_shape(self.input)

    @property
    def output_shape(self):
        """Shape of `output` (as a tuple)."""
        return _as_tuple_shape(self.output)

    def count_params(self):
        """The number of scalars in the layer's weights; ValueError when unbuilt."""
        if not self.built:
            raise ValueError(f"You tried to call `count_params` on layer {self.name}, but the "
                             f"layer isn't built. You can build it manually via: "
                             f"`{self.name}.build(batch_input_shape)`.")
        return int(sum(v.shape.num_elements() for v in self.weights))

    # -- config ----------------------------------------------------------------------------
    def get_config(self):
        """The constructor arguments that recreate this layer (weights not included).

        A layer of your own that does not override `get_config` gets the arguments it was
        created with, when they are plain values (Keras 3's automatic config); otherwise an
        `__init__` with arguments of its own needs an override (NotImplementedError).
        """
        config = {"name": self.name, "trainable": self.trainable,
                  "dtype": layer_dtypes.policy_config(self.dtype_policy)}
        if self._batch_input_shape is not None:
            config["batch_input_shape"] = self._batch_input_shape
        if type(self).get_config is Layer.get_config:
            return self._with_auto_config(config, Layer.__init__)
        return config

    def _with_auto_config(self, config, base_init):
        """`config` plus the captured constructor arguments of a class of the user's own."""
        init = type(self).__init__
        if init is base_init:
            return config
        captured = vars(self).get("_auto_config")
        params = inspect.signature(init).parameters
        takes_any = any(p.kind is p.VAR_KEYWORD for p in params.values())
        if captured is None:
            own = [n for n, p in list(params.items())[1:]
                   if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD) and n not in config]
            if own:
                raise NotImplementedError(auto_config.NOT_CAPTURABLE_MESSAGE.format(cls=type(self).__name__))
            return config if takes_any else {k: v for k, v in config.items() if k in params}
        config = {**config, **captured}
        return config if takes_any or "name" in params else {k: v for k, v in config.items() if k != "name"}

    @classmethod
    def from_config(cls, config):
        """A new layer from `get_config()`'s output."""
        return cls(**config)

    def __repr__(self):
        return f"<{type(self).__module__}.{type(self).__name__} object named {self._name!r}>"


# -- small helpers --------------------------------------------------------------------------
class _null_scope:  # noqa: N801 -- used like a context-manager function
    def __enter__(self):
        return None

    def __exit__(self, *exc):
        return False


def _get_regularizer(identifier):
    if identifier is None:
        return None
    return regularizers.get(identifier)


def _as_tuple_shape(value):
    if isinstance(value, (list, tuple)):
        return [_as_tuple_shape(v) for v in value]
    return tuple(value.shape.as_list())


BUILTIN_LAYER_CLASSES["Layer"] = Layer
