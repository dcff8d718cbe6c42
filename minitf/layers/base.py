"""Layer: the Keras building block that creates its weights lazily on the first call.

A layer knows nothing about its input size until it is called: `__call__` then runs
`build(input_shape)` (which creates weights with `add_weight`) and afterwards `call`.
Before that first call `layer.variables` is empty, exactly as in TensorFlow, so a tape with
`watch_accessed_variables=False` cannot watch the weights of an unbuilt layer.

Weights and sublayers are found from the attributes, in the order they were assigned:
own weights first (creation order), then sublayers at any depth, including lists, tuples
and dicts of layers.
"""
import inspect
import re
import threading

from minitf.module import Module
from minitf.variable import Variable
from minitf.trackable import Trackable
from minitf.tensor_shape import TensorShape

__all__ = ["Layer", "InputSpec", "clear_session", "unique_layer_name"]

# -- unique names ('dense', 'dense_1', ...) ------------------------------------------------
_name_counts = {}
_name_lock = threading.Lock()


def unique_layer_name(base):
    """'dense' the first time, then 'dense_1', 'dense_2', ... (per base name)."""
    with _name_lock:
        count = _name_counts.get(base, 0)
        _name_counts[base] = count + 1
    return base if count == 0 else f"{base}_{count}"


def clear_session():
    """Reset Keras' global state: automatic layer names start again at 'dense', 'dense_1'."""
    with _name_lock:
        _name_counts.clear()


def to_snake_case(name):
    """Keras' naming rule (keras.src.utils.naming.to_snake_case), used for every Keras object:
    layer, model, metric and loss default names and '.weights.h5' group names.

    'Conv2DTranspose' -> 'conv2d_transpose', 'ReLU' -> 're_lu', 'my.layer' -> 'mylayer'.
    (Plain tf.Modules follow TF's own rule, `minitf.module.camel_to_snake`: 'conv2_d'.)
    """
    name = re.sub(r"\W+", "", name)
    name = re.sub(r"(.)([A-Z][a-z]+)", r"\1_\2", name)
    return re.sub(r"([a-z])([A-Z])", r"\1_\2", name).lower()


def floatx():
    """The default float type of layer weights ('float32' unless keras.backend says otherwise)."""
    try:
        from minitf.keras import backend as kb
        return kb.floatx()
    except Exception:  # the keras namespace may not define floatx
        return "float32"


# -- input specification ------------------------------------------------------------------
class InputSpec:
    """What a built layer accepts: rank bounds and fixed sizes of some axes.

    Recorded at build time, checked on every later call so that an input of the wrong
    size fails with a ValueError naming the layer and both shapes.
    """

    def __init__(self, dtype=None, shape=None, ndim=None, max_ndim=None, min_ndim=None,
                 axes=None, allow_last_axis_squeeze=False, name=None):
        self.dtype = dtype
        self.shape = None if shape is None else TensorShape(shape)
        self.ndim = len(shape) if shape is not None else ndim
        self.max_ndim = max_ndim
        self.min_ndim = min_ndim
        self.axes = dict(axes or {})
        self.allow_last_axis_squeeze = allow_last_axis_squeeze
        self.name = name

    def __repr__(self):
        parts = [f"{k}={v}" for k, v in (("dtype", self.dtype), ("shape", self.shape),
                                        ("ndim", self.ndim), ("max_ndim", self.max_ndim),
                                        ("min_ndim", self.min_ndim), ("axes", self.axes)) if v]
        return f"InputSpec({', '.join(parts)})"

    def get_config(self):
        """The spec's arguments as a dict."""
        return {"dtype": self.dtype, "shape": None if self.shape is None else self.shape.as_list(),
                "ndim": self.ndim, "max_ndim": self.max_ndim, "min_ndim": self.min_ndim,
                "axes": self.axes}


def _check_input_spec(layer, spec, shape, index):
    """Raise Keras 3's ValueError when `shape` breaks `spec` (same checks, order and text as
    keras.src.layers.input_spec.assert_input_compatibility)."""
    if spec is None or shape.rank is None:
        return
    head = (f"Input {index} with name '{spec.name}' of layer '{layer.name}' is incompatible "
            f"with the layer: ")
    rank = shape.rank
    full = tuple(shape.as_list())
    if spec.ndim is not None and not spec.allow_last_axis_squeeze and rank != spec.ndim:
        raise ValueError(f"{head}expected ndim={spec.ndim}, found ndim={rank}. "
                         f"Full shape received: {full}")
    if spec.max_ndim is not None and rank > spec.max_ndim:
        raise ValueError(f"{head}expected max_ndim={spec.max_ndim}, found ndim={rank}")
    if spec.min_ndim is not None and rank < spec.min_ndim:
        raise ValueError(f"{head}expected min_ndim={spec.min_ndim}, found ndim={rank}. "
                         f"Full shape received: {full}")
    for axis, value in spec.axes.items():
        if value is None or -rank > axis or axis >= rank:
            continue
        got = shape[axis]
        if got is not None and got != value:
            raise ValueError(f"{head}expected axis {axis} of input shape to have value {value}, "
                             f"but received input with shape {full}")
    if spec.shape is not None:
        want, got = spec.shape.as_list(), list(full)
        if spec.allow_last_axis_squeeze:
            got = got[:-1] if got and got[-1] == 1 else got
            want = want[:-1] if want and want[-1] == 1 else want
        if any(a is not None and b is not None and a != b for a, b in zip(want, got)):
            raise ValueError(f"{head}expected shape={tuple(spec.shape.as_list())}, found "
                             f"shape={full}")


# -- helpers ------------------------------------------------------------------------------
def _is_symbolic(x):
    from minitf.models.keras_tensor import KerasTensor
    return isinstance(x, KerasTensor)


def _shape_of(x):
    """TensorShape of a tensor, variable, KerasTensor or array-like."""
    shape = getattr(x, "shape", None)
    if shape is None:
        import numpy as np
        shape = np.shape(x)
    return TensorShape(shape)


def _shapes_of(inputs):
    """The input shape handed to `build`: one TensorShape, or a list/dict of them."""
    if isinstance(inputs, (list, tuple)):
        return [_shapes_of(x) for x in inputs]
    if isinstance(inputs, dict):
        return {k: _shapes_of(v) for k, v in inputs.items()}
    return _shape_of(inputs)


def _accepts_kwarg(fn, name):
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return False
    return name in params or any(p.kind == p.VAR_KEYWORD for p in params.values())


_INTERNAL = frozenset({
    "_name", "_scope_name", "_trainable", "_built", "built", "_weights", "_dtype",
    "_input_spec", "_call_losses", "_inbound_nodes", "_outbound_nodes", "_pending_restore",
    "_attr_order", "_kwargs_config", "_layers", "_self_setattr_tracking", "_batch_input_shape",
    "_build_input_shape", "_call_accepts_training", "_autocast", "_activity_regularizer",
    "_graph", "_seq_input",
})


class Layer(Module, Trackable):
    """Base class of all Keras layers (tf.keras.layers.Layer).

    Subclasses create weights in `build(input_shape)` with `add_weight` and compute in
    `call(inputs, training=None)`; `__call__` builds on first use, then calls `call`.
    """

    def __init__(self, trainable=True, name=None, dtype=None, dynamic=False, **kwargs):
        allowed = {"input_shape", "batch_input_shape", "batch_size", "input_dim",
                   "activity_regularizer", "autocast", "input_length"}
        for key in kwargs:
            if key not in allowed:
                raise TypeError(f"Keyword argument not understood: {key!r}")
        base = to_snake_case(type(self).__name__)
        if name is None:
            name = unique_layer_name(base)
        elif not isinstance(name, str):
            raise TypeError(f"Layer name must be a string, got {type(name).__name__}.")
        object.__setattr__(self, "_attr_order", [])
        Module.__init__(self, name=name)
        self._trainable = bool(trainable)
        self.built = False
        self._weights = []          # (attribute name, variable) in creation order
        self._dtype = _dtype_name(dtype)
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

    # -- attribute tracking in assignment order --------------------------------------------
    def __setattr__(self, key, value):
        order = self.__dict__.get("_attr_order")
        if order is not None and key not in self.__dict__ and key not in _INTERNAL:
            order.append(key)
        object.__setattr__(self, key, value)
        self._track_attribute(key, value)  # a pending checkpoint restore may be waiting for it

    def __delattr__(self, key):
        object.__delattr__(self, key)
        order = self.__dict__.get("_attr_order")
        if order is not None and key in order:
            order.remove(key)

    def _tracked_attributes(self):
        order = self.__dict__.get("_attr_order", [])
        return [(k, self.__dict__[k]) for k in order if k in self.__dict__]

    def _sublayers(self):
        """Direct sublayers (Layers and Modules) in attribute-assignment order."""
        out, seen = [], {id(self)}
        for _, value in self._tracked_attributes():
            _collect_layers(value, out, seen)
        return out

    def _attribute_variables(self):
        """tf.Variables assigned directly as attributes (not created by add_weight)."""
        from minitf.variable import Variable
        own = {v._id for _, v in self._weights}
        out = []
        for _, value in self._tracked_attributes():
            for v in _flat_variables(value):
                if v._id not in own:
                    own.add(v._id)
                    out.append(v)
        return out

    def _own_variables(self):
        return [v for _, v in self._weights] + self._attribute_variables()

    # -- properties ----------------------------------------------------------------------
    @property
    def name(self):
        """The layer's (unique) name."""
        return self._name

    @property
    def dtype(self):
        """The dtype of the layer's weights, e.g. 'float32'."""
        return self._dtype or floatx()

    @property
    def compute_dtype(self):
        """The dtype floating inputs are cast to before `call`."""
        return self.dtype

    @property
    def variable_dtype(self):
        """Alias of `dtype`."""
        return self.dtype

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
        """Masks are not supported in minitf."""
        return False

    @property
    def trainable_weights(self):
        """Trainable weights: own (creation order) then sublayers'; [] when frozen."""
        if not self.trainable:
            return []
        own = [v for v in self._own_variables() if v.trainable]
        return _dedup(own + [v for layer in self._sublayers() for v in _child_trainable(layer)])

    @property
    def non_trainable_weights(self):
        """Weights that training does not update (all of them when the layer is frozen)."""
        if not self.trainable:
            own = self._own_variables()
            children = [v for layer in self._sublayers() for v in _child_all(layer)]
        else:
            own = [v for v in self._own_variables() if not v.trainable]
            children = [v for layer in self._sublayers() for v in _child_non_trainable(layer)]
        return _dedup(own + children)

    @property
    def weights(self):
        """Every weight, layer by layer (Keras 3's order): this layer's trainable then
        non-trainable weights, then each sublayer's `weights` in attribute order."""
        own = self._own_variables()
        own = [v for v in own if v.trainable] + [v for v in own if not v.trainable]
        return _dedup(own + [v for layer in self._sublayers() for v in _child_all(layer)])

    @property
    def variables(self):
        """Same as `weights`."""
        return self.weights

    @property
    def trainable_variables(self):
        """Same as `trainable_weights`."""
        return self.trainable_weights

    @property
    def non_trainable_variables(self):
        """Same as `non_trainable_weights`."""
        return self.non_trainable_weights

    @property
    def submodules(self):
        """Every layer/module reachable from this one, depth first."""
        out = []
        for layer in self._sublayers():
            out.append(layer)
            out.extend(layer.submodules)
        return tuple(_dedup(out))

    @property
    def _flatten_layers_list(self):
        return self._sublayers()

    # -- weights ---------------------------------------------------------------------------
    def add_weight(self, name=None, shape=None, dtype=None, initializer=None, regularizer=None,
                   trainable=None, constraint=None, use_resource=None, synchronization=None,
                   aggregation=None, **kwargs):
        """Create a variable owned by this layer and return it.

        As in Keras 3, the variable's `name` is `name` itself ('kernel') and its `path` puts the
        layer scope in front ('dense/kernel').
        """
        from minitf import dtypes
        from minitf.variable import VariableSynchronization, VariableAggregation
        from minitf import initializers as _inits
        shape = () if shape is None else tuple(TensorShape(shape).as_list())
        dtype = dtypes.as_dtype(dtype or self.dtype)
        if initializer is None:
            initializer = "glorot_uniform" if dtype.is_floating else "zeros"
        init = _inits.get(initializer)
        if trainable is None:
            trainable = True
        if synchronization == VariableSynchronization.ON_READ:
            trainable = False
        name = name or f"weight_{len(self._weights)}"
        value = init(shape, dtype=dtype)
        with self.name_scope if not _in_scope_of(self) else _null_scope():
            var = LayerWeight(value, trainable=trainable, name=name, dtype=dtype,
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
        import numpy as np
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
        self._call_losses = []
        for layer in self._sublayers():
            if isinstance(layer, Layer):
                layer._clear_losses()

    @property
    def metrics(self):
        """Metrics tracked by the layer (none in minitf layers)."""
        return []

    # -- building and calling --------------------------------------------------------------
    def build(self, input_shape):
        """Create the weights for an input of `input_shape`. The base version only marks built."""
        self._build_input_shape = input_shape
        self.built = True

    def call(self, inputs, *args, **kwargs):
        """The layer's computation; the base version returns its inputs."""
        return inputs

    def _maybe_build(self, inputs):
        if self.built:
            return
        input_shape = _shapes_of(inputs)
        with self.name_scope if not _in_scope_of(self) else _null_scope():
            self.build(input_shape)
        self.built = True
        if self._build_input_shape is None:
            self._build_input_shape = input_shape

    def _cast_inputs(self, inputs):
        """Floating tensors and arrays become tensors of the layer's dtype (Keras autocast)."""
        from minitf import dtypes, nest
        from minitf.ops.constant import convert_to_tensor, cast
        from minitf.tensor import Tensor
        from minitf.variable import Variable
        target = dtypes.as_dtype(self.dtype)

        def convert(x):
            if _is_symbolic(x) or x is None:
                return x
            if isinstance(x, Variable):
                x = x.value()
            if not isinstance(x, Tensor):
                try:
                    x = convert_to_tensor(x)
                except (TypeError, ValueError):
                    return x
            if self._autocast and x.dtype.is_floating and target.is_floating and x.dtype != target:
                x = cast(x, target)
            return x
        return nest.map_structure(convert, inputs)

    def _check_inputs(self, inputs):
        spec = self.input_spec
        if spec is None:
            return
        from minitf import nest
        flat = nest.flatten(inputs)
        specs = spec if isinstance(spec, (list, tuple)) else [spec]
        for i, (x, s) in enumerate(zip(flat, specs)):
            _check_input_spec(self, s, _shape_of(x), i)

    def __call__(self, *args, **kwargs):
        if not args:
            if "inputs" not in kwargs:
                raise ValueError(f"Layer {self.name!r} was called without inputs.")
            inputs = kwargs.pop("inputs")
        else:
            inputs, args = args[0], args[1:]
        from minitf import nest
        if any(_is_symbolic(x) for x in nest.flatten(inputs)):
            from minitf.models.functional import call_symbolic
            return call_symbolic(self, inputs, args, kwargs)
        inputs = self._cast_inputs(inputs)
        if not self.built:
            self._check_inputs(inputs)  # Keras checks the spec before building, too
        self._maybe_build(inputs)
        self._check_inputs(inputs)
        if "training" in kwargs and not _accepts_kwarg(self.call, "training"):
            kwargs.pop("training")
        self._call_losses = []
        with self.name_scope if not _in_scope_of(self) else _null_scope():
            outputs = self.call(inputs, *args, **kwargs)
        if self._activity_regularizer is not None:
            reg = _get_regularizer(self._activity_regularizer)
            for out in nest.flatten(outputs):
                from minitf.ops.constant import cast
                batch = out.shape[0] or 1
                self.add_loss(reg(out) / cast(batch, reg(out).dtype))
        return outputs

    # -- shapes ----------------------------------------------------------------------------
    def compute_output_shape(self, input_shape):
        """The output shape for `input_shape`, found by running the layer on zeros."""
        from minitf.models.functional import infer_output_shape
        return infer_output_shape(self, input_shape)

    def compute_output_signature(self, input_signature):
        """TensorSpec of the output for a TensorSpec input."""
        from minitf.function import TensorSpec
        shape = self.compute_output_shape(input_signature.shape)
        return TensorSpec(shape, self.dtype)

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
        """The constructor arguments that recreate this layer (weights not included)."""
        config = {"name": self.name, "trainable": self.trainable, "dtype": self.dtype}
        if self._batch_input_shape is not None:
            config["batch_input_shape"] = self._batch_input_shape
        return config

    @classmethod
    def from_config(cls, config):
        """A new layer from `get_config()`'s output."""
        return cls(**config)

    # -- checkpointing ---------------------------------------------------------------------
    def _checkpoint_dependencies(self):
        """Own weights by their add_weight names, then attributes holding layers/variables."""
        from minitf.module import _collect_deps
        deps = list(self._weights)
        own = {v._id for _, v in self._weights}
        for key, value in self._tracked_attributes():
            found = []
            _collect_deps(key, value, found)
            deps.extend((k, v) for k, v in found if getattr(v, "_id", None) not in own)
        return deps

    def __repr__(self):
        return f"<{type(self).__module__}.{type(self).__name__} object named {self._name!r}>"


# -- small helpers --------------------------------------------------------------------------
class LayerWeight(Variable):
    """A variable made by `Layer.add_weight`: named by the layer's own name for it ('kernel'),
    with the layer scope in `path` ('dense/kernel'), as Keras 3 names layer weights."""

    @property
    def path(self):
        """'<layer scope>/<name>', e.g. 'dense/kernel'."""
        return self._path


class _null_scope:
    def __enter__(self):
        return None

    def __exit__(self, *exc):
        return False


def _in_scope_of(layer):
    """True when the innermost name scope already is this layer's (avoid 'dense/dense/')."""
    from minitf.variable import _scopes
    return bool(_scopes.stack) and _scopes.stack[-1] == layer._scope_name


def _dtype_name(dtype):
    if dtype is None:
        return None
    from minitf import dtypes
    if isinstance(dtype, str) and dtype.startswith("mixed_"):
        return "float32"
    return dtypes.as_dtype(dtype).name


def _get_regularizer(identifier):
    if identifier is None:
        return None
    from minitf import regularizers
    return regularizers.get(identifier)


def _collect_layers(value, out, seen):
    from minitf.variable import Variable
    from minitf.tensor import Tensor
    if isinstance(value, (Variable, Tensor)) or id(value) in seen:
        return
    if isinstance(value, Module):
        seen.add(id(value))
        out.append(value)
    elif isinstance(value, dict):
        seen.add(id(value))
        for v in value.values():
            _collect_layers(v, out, seen)
    elif isinstance(value, (list, tuple)):
        seen.add(id(value))
        for v in value:
            _collect_layers(v, out, seen)


def _flat_variables(value):
    from minitf.variable import Variable
    if isinstance(value, Variable):
        return [value]
    if isinstance(value, dict):
        return [v for item in value.values() for v in _flat_variables(item)]
    if isinstance(value, (list, tuple)):
        return [v for item in value for v in _flat_variables(item)]
    return []


def _child_trainable(child):
    if isinstance(child, Layer):
        return child.trainable_weights
    return list(child.trainable_variables)


def _child_non_trainable(child):
    if isinstance(child, Layer):
        return child.non_trainable_weights
    return list(child.non_trainable_variables)


def _child_all(child):
    if isinstance(child, Layer):
        return child.weights
    return list(child.variables)


def _dedup(items):
    seen, out = set(), []
    for item in items:
        key = getattr(item, "_id", None)
        key = id(item) if key is None else key
        if key not in seen:
            seen.add(key)
            out.append(item)
    return out


def _as_tuple_shape(value):
    if isinstance(value, (list, tuple)):
        return [_as_tuple_shape(v) for v in value]
    return tuple(value.shape.as_list())
