"""Bidirectional and TimeDistributed: layers that wrap another layer (Keras 3's wrappers)."""
from minitf.nest import nest
from minitf.keras_core.call_context import spec_of
from minitf.layers import serialization
from minitf.layers.base import Layer
from minitf.ops import reorder
from minitf.ops import shaping as shaping_ops
from minitf.tensor_shape import TensorShape
from minitf.api_export import export

__all__ = ["Bidirectional", "TimeDistributed"]

_MERGE_MODES = ("sum", "mul", "ave", "concat", None)


def _copy_layer(layer, **changes):
    entry = serialization.serialize(layer)
    entry.pop("build_config", None)
    entry["config"] = dict(entry["config"], **changes)
    return serialization.deserialize(entry)


def _without_prefix(name, prefix):
    return name[len(prefix):] if name.startswith(prefix) else name


@export("layers.Bidirectional", "keras.layers.Bidirectional")
class Bidirectional(Layer):
    """Runs a recurrent layer forwards and a copy of it backwards, and merges their outputs.

    The forward layer is a fresh copy of `layer` named 'forward_<name>', the backward one a
    copy with `go_backwards=True` named 'backward_<name>' (or `backward_layer`). With
    `return_sequences`, the backward outputs are flipped back to the input's order before the
    merge, and both copies output zeros at masked steps.

    Args:
        layer: an RNN layer (LSTM, GRU, SimpleRNN, RNN).
        merge_mode: 'concat' (default), 'sum', 'mul', 'ave', or None for a list of both outputs.
        weights: initial weights, forward half then backward half (Keras' legacy argument).
        backward_layer: the layer to use backwards (its go_backwards must differ from `layer`'s).
        **kwargs: the base Layer's arguments.
    """

    def __init__(self, layer, merge_mode="concat", weights=None, backward_layer=None, **kwargs):
        if not isinstance(layer, Layer):
            raise ValueError(f"Please initialize `Bidirectional` layer with a `keras.layers.Layer` "
                             f"instance. Received: {layer}")
        if backward_layer is not None and not isinstance(backward_layer, Layer):
            raise ValueError(f"`backward_layer` need to be a `keras.layers.Layer` instance. "
                             f"Received: {backward_layer}")
        if merge_mode not in _MERGE_MODES:
            raise ValueError(f"Invalid merge mode. Received: {merge_mode}. Merge mode should be one of "
                             f'{{"sum", "mul", "ave", "concat", None}}')
        super().__init__(**kwargs)
        self.forward_layer = _copy_layer(layer, name="forward_" + _without_prefix(layer.name, "forward_"))
        if backward_layer is None:
            backward_layer = _copy_layer(layer, go_backwards=not layer.go_backwards,
                                         name="backward_" + _without_prefix(layer.name, "backward_"))
        self.backward_layer = backward_layer
        self._verify()
        for sub in (self.forward_layer, self.backward_layer):
            if getattr(sub, "zero_output_for_mask", None) is not None:
                sub.zero_output_for_mask = sub.return_sequences
        self.merge_mode = merge_mode
        self._initial_weights = list(weights) if weights else None
        self.return_sequences = layer.return_sequences
        self.return_state = layer.return_state
        self.supports_masking = True
        self.input_spec = layer.input_spec

    def _verify(self):
        fwd, bwd = self.forward_layer, self.backward_layer
        if fwd.go_backwards == bwd.go_backwards:
            raise ValueError(f"Forward layer and backward layer should have different `go_backwards` value. "
                             f"Received: forward_layer.go_backwards {fwd.go_backwards}, "
                             f"backward_layer.go_backwards={bwd.go_backwards}")
        for a in ("stateful", "return_sequences", "return_state"):
            if getattr(fwd, a) != getattr(bwd, a):
                raise ValueError(f'Forward layer and backward layer are expected to have the same value for '
                                 f'attribute "{a}", got "{getattr(fwd, a)}" for forward layer and '
                                 f'"{getattr(bwd, a)}" for backward layer')

    @property
    def stateful(self):
        """Whether the wrapped layers are stateful."""
        return self.forward_layer.stateful

    @property
    def states(self):
        """The forward then backward state variables of stateful layers, else None."""
        if self.forward_layer.states and self.backward_layer.states:
            return tuple(self.forward_layer.states + self.backward_layer.states)
        return None

    def reset_states(self):
        """Zero both layers' states (AttributeError when not stateful)."""
        self.reset_state()

    def reset_state(self):
        """Zero both layers' states (AttributeError when not stateful)."""
        if not self.stateful:
            raise AttributeError("Layer must be stateful.")
        self.forward_layer.reset_state()
        self.backward_layer.reset_state()

    def build(self, sequences_shape, initial_state_shape=None):
        """Build both layers for `sequences_shape`."""
        for sub in (self.forward_layer, self.backward_layer):
            if not sub.built:
                with sub._scope():
                    sub.build(sequences_shape)
                sub.built = True
                sub._build_input_shape = sequences_shape
        if self._initial_weights:
            half = len(self._initial_weights) // 2
            self.forward_layer.set_weights(self._initial_weights[:half])
            self.backward_layer.set_weights(self._initial_weights[half:])
            self._initial_weights = None
        self.built = True

    def call(self, sequences, initial_state=None, mask=None, training=None):
        """Both directions, then the merge (followed by the states with return_state)."""
        kwargs = {}
        spec = spec_of(self.forward_layer)
        if spec.takes_training:
            kwargs["training"] = training
        if spec.takes_mask:
            kwargs["mask"] = mask
        forward_state = backward_state = None
        if initial_state is not None:
            half = len(initial_state) // 2
            forward_state, backward_state = list(initial_state[:half]), list(initial_state[half:])
        y = self.forward_layer(sequences, initial_state=forward_state, **kwargs)
        y_rev = self.backward_layer(sequences, initial_state=backward_state, **kwargs)
        states = ()
        if self.return_state:
            states = tuple(y[1:]) + tuple(y_rev[1:])
            y, y_rev = y[0], y_rev[0]
        if self.return_sequences:
            y_rev = reorder.reverse(y_rev, [1])
        if self.merge_mode == "concat":
            output = shaping_ops.concat([y, y_rev], axis=-1)
        elif self.merge_mode == "sum":
            output = y + y_rev
        elif self.merge_mode == "ave":
            output = (y + y_rev) / 2
        elif self.merge_mode == "mul":
            output = y * y_rev
        else:
            output = (y, y_rev)
        if self.return_state:
            return (output if self.merge_mode is None else (output,)) + states
        return output

    def compute_mask(self, inputs, mask):
        """The input mask for sequence outputs (one per output with merge_mode None), else None."""
        if isinstance(mask, list):
            mask = mask[0]
        if self.return_sequences:
            output_mask = [mask, mask] if not self.merge_mode else mask
        else:
            output_mask = [None, None] if not self.merge_mode else None
        if self.return_state:
            n = len(self.forward_layer.state_size) * 2
            head = output_mask if isinstance(output_mask, list) else [output_mask]
            return head + [None] * n
        return output_mask

    def get_config(self):
        """merge_mode, layer (the forward copy) and backward_layer."""
        config = super().get_config()
        config["merge_mode"] = self.merge_mode
        config["layer"] = serialization.serialize(self.forward_layer)
        config["backward_layer"] = serialization.serialize(self.backward_layer)
        return config

    @classmethod
    def from_config(cls, config, custom_objects=None):
        """A new Bidirectional with its layers rebuilt from their configs."""
        config = dict(config)
        config["layer"] = serialization.deserialize(config["layer"], custom_objects=custom_objects)
        backward = config.pop("backward_layer", None)
        if backward is not None:
            config["backward_layer"] = serialization.deserialize(backward, custom_objects=custom_objects)
        return cls(**config)


@export("layers.TimeDistributed", "keras.layers.TimeDistributed")
class TimeDistributed(Layer):
    """Applies `layer` to every step of the input: (batch, steps, ...) -> (batch, steps, ...).

    The same weights serve every step; a (batch, steps) mask passes through, and the wrapped
    layer receives each step's slice of it when its `call` takes a mask.

    Args:
        layer: the layer to apply at each step.
        **kwargs: the base Layer's arguments.
    """

    def __init__(self, layer, **kwargs):
        if not isinstance(layer, Layer):
            raise ValueError(f"Please initialize `TimeDistributed` layer with a `keras.layers.Layer` "
                             f"instance. Received: {layer}")
        super().__init__(**kwargs)
        self.layer = layer
        self.supports_masking = True

    @staticmethod
    def _child_shape(input_shape):
        shape = TensorShape(input_shape)
        if shape.rank is None or shape.rank < 3:
            raise ValueError(f"`TimeDistributed` Layer should be passed an `input_shape` with at least 3 "
                             f"dimensions, received: {tuple(shape.as_list()) if shape.rank else input_shape}")
        dims = shape.as_list()
        return TensorShape([dims[0]] + dims[2:])

    def build(self, input_shape):
        """Build the wrapped layer for one step's shape (batch, ...)."""
        child = self._child_shape(input_shape)
        if not self.layer.built:
            with self.layer._scope():
                self.layer.build(child)
            self.layer.built = True
            self.layer._build_input_shape = child
        self.built = True

    def call(self, inputs, training=None, mask=None):
        """The wrapped layer's `call` on each step, stacked back along axis 1."""
        if mask is not None:
            if mask.shape.rank is None or mask.shape.rank < 2:
                raise ValueError(f"The `mask` passed to the `TimeDistributed` layer must be at least 2D "
                                 f"(e.g., `(batch_size, timesteps)`), but it has shape {mask.shape}.")
            if tuple(mask.shape.as_list()[:2]) != tuple(inputs.shape.as_list()[:2]):
                raise ValueError(f"The `mask` passed to the `TimeDistributed` layer has a shape {mask.shape} "
                                 f"that is incompatible with the input shape {inputs.shape}. The first two "
                                 f"dimensions of the mask (batch size and timesteps) must match the input's.")
        kwargs = {}
        spec = spec_of(self.layer)
        if spec.takes_training:
            kwargs["training"] = training
        takes_mask = spec.takes_mask
        steps = shaping_ops.unstack(inputs, axis=1)
        step_masks = shaping_ops.unstack(mask, axis=1) if (mask is not None and takes_mask) else None
        outs = []
        for t, x in enumerate(steps):
            if step_masks is not None:
                kwargs["mask"] = step_masks[t]
            outs.append(self.layer.call(x, **kwargs))
        return nest.map_structure(lambda *ys: shaping_ops.stack(list(ys), axis=1), *outs)

    def get_config(self):
        """The wrapped layer's config under 'layer'."""
        config = super().get_config()
        config["layer"] = serialization.serialize(self.layer)
        return config

    @classmethod
    def from_config(cls, config, custom_objects=None):
        """A new TimeDistributed around the layer rebuilt from its config."""
        config = dict(config)
        layer = serialization.deserialize(config.pop("layer"), custom_objects=custom_objects)
        return cls(layer, **config)
