"""RNN: runs a recurrent cell over the time axis of a sequence (Keras 3's `keras.layers.RNN`).

The loop is plain Python over the steps. Built-in cells project the inputs of every step in
one matmul first (`cell._precompute`) and then recur one step at a time (`cell._recur`); other
cells are called step by step. Gradients through time come from the tape. A mask (batch,
steps) freezes the states at masked steps and repeats the previous output there (zeros with
`zero_output_for_mask=True`), as Keras' backend rnn does.
"""
from minitf.nest import nest
from minitf.convert import convert_to_tensor
from minitf.keras_core.call_context import spec_of, spec_of_function
from minitf.layers import serialization
from minitf.layers.base import Layer
from minitf.layers.rnn.stacked import StackedRNNCells
from minitf.ops import creation, gather
from minitf.ops import shaping as shaping_ops
from minitf.ops.constant import cast
from minitf.tensor import Tensor
from minitf.variable import Variable
from minitf.api_export import export

__all__ = ["RNN"]


def _state_sizes(cell):
    size = getattr(cell, "state_size", None)
    if size is None:
        raise ValueError(f"The RNN cell should have a `state_size` attribute (single integer or "
                         f"list of integers, one integer per RNN state). Received: cell={cell}")
    if isinstance(size, int):
        return [size], True
    if isinstance(size, (list, tuple)):
        return list(size), False
    raise ValueError(f"state_size must be an integer, or a list/tuple of integers (one for each "
                     f"state tensor); got {size!r} from cell {cell}.")


def _state_tensor(value, layer):
    """An initial state given as Python data, converted to the layer's dtype as Keras 3 does
    (TypeError or ValueError naming the layer when it cannot be)."""
    try:
        return convert_to_tensor(value, dtype=layer.dtype)
    except (TypeError, ValueError) as e:
        if type(e) not in (TypeError, ValueError):
            raise
        raise type(e)(f"{type(layer).__name__}: argument `initial_state`: {e}") from None


@export("layers.RNN", "keras.layers.RNN")
class RNN(Layer):
    """Runs `cell` over the steps of (batch, steps, features) inputs.

    Args:
        cell: a cell (an object with `call(inputs, states)` and `state_size`), or a list of
            cells, which are stacked (StackedRNNCells).
        return_sequences: return the output of every step (batch, steps, units) instead of
            the last one (batch, units).
        return_state: also return the final states, after the output.
        go_backwards: process the steps last to first; returned sequences are then in the
            processing order (reversed), as in Keras.
        stateful: keep the final states of a batch as the initial states of the next
            (needs a fixed batch size); `reset_states()` zeroes them.
        unroll: accepted for compatibility (minitf always loops in Python).
        zero_output_for_mask: output zeros at masked steps instead of the previous output.
        **kwargs: the base Layer's arguments.

    Call arguments:
        sequences: (batch, steps, features). initial_state: a list of state tensors.
        mask: bool (batch, steps), True for steps to use (taken from the inputs' Keras mask).
        training: whether dropout applies.
    """

    def __init__(self, cell, return_sequences=False, return_state=False, go_backwards=False,
                 stateful=False, unroll=False, zero_output_for_mask=False, **kwargs):
        if isinstance(cell, (list, tuple)):
            cell = StackedRNNCells(cell)
        if not callable(getattr(cell, "call", None)):
            raise ValueError(f"Argument `cell` should have a `call` method. Received: cell={cell}")
        sizes, single = _state_sizes(cell)
        super().__init__(**kwargs)
        self.zero_output_for_mask = zero_output_for_mask
        self.cell = cell
        self.return_sequences = return_sequences
        self.return_state = return_state
        self.go_backwards = go_backwards
        self._stateful = bool(stateful)
        self.unroll = unroll
        self.supports_masking = True
        self.state_size = sizes
        self.single_state = single
        object.__setattr__(self, "_state_vars", None)  # not tracked: Keras does not save them

    @property
    def stateful(self):
        """Whether the final states carry over to the next call."""
        return self._stateful

    @stateful.setter
    def stateful(self, value):
        self._stateful = bool(value)

    @property
    def states(self):
        """The state variables of a stateful RNN (None before it is built, or when not stateful)."""
        return self._state_vars

    def build(self, sequences_shape, initial_state_shape=None):
        """Build the cell for one step's shape; a stateful RNN also makes its state variables."""
        shape = list(sequences_shape.as_list()) if hasattr(sequences_shape, "as_list") else list(sequences_shape)
        if len(shape) < 3:
            raise ValueError(f"Input of RNN layer {self.name!r} must be 3D (batch, timesteps, features); "
                             f"received input with shape {tuple(shape)}.")
        step_shape = tuple([shape[0]] + shape[2:])
        if isinstance(self.cell, Layer) and not self.cell.built:
            with self.cell._scope():
                self.cell.build(step_shape)
            self.cell.built = True
            self.cell._build_input_shape = step_shape
        if self.stateful:
            if shape[0] is None:
                raise ValueError(f"When using `stateful=True` in a RNN, the batch size must be static. "
                                 f"Found dynamic batch size: sequence.shape={tuple(shape)}")
            if self._state_vars is None:
                with self._scope():
                    states = [Variable(s, trainable=False, name="rnn_state")
                              for s in nest.flatten(self.get_initial_state(shape[0]))]
                object.__setattr__(self, "_state_vars", states)
        self.built = True

    def get_initial_state(self, batch_size):
        """Zero states for `batch_size` sequences (from the cell's get_initial_state if it has one)."""
        fn = getattr(self.cell, "get_initial_state", None)
        if fn is not None:
            state = fn(batch_size=batch_size)
            return list(state) if nest.is_nested(state) else [state]
        return [creation.zeros((batch_size, d), dtype=self.compute_dtype) for d in self.state_size]

    def reset_states(self):
        """Zero the states of a stateful RNN."""
        self.reset_state()

    def reset_state(self):
        """Zero the states of a stateful RNN (nothing to do otherwise)."""
        for v in self._state_vars or []:
            v.assign(creation.zeros_like(v.value()))

    def compute_mask(self, inputs, mask):
        """The input mask for sequence outputs, None for the last output and for the states."""
        mask = nest.flatten(mask)[0] if mask is not None else None
        output_mask = mask if self.return_sequences else None
        if self.return_state:
            return [output_mask] + [None for _ in self.state_size]
        return output_mask

    def _initial_states(self, sequences, initial_state):
        if initial_state is None:
            if self.stateful and self._state_vars is not None:
                flat = [v.value() for v in self._state_vars]
                return nest.pack_sequence_as(self.get_initial_state(1), flat)
            batch_size = sequences.shape[0]
            if batch_size is None:  # traced with an unknown batch: the zeros take its runtime size
                batch_size = shaping_ops.shape(sequences)[0]
            return self.get_initial_state(batch_size)
        if self.stateful and self._state_vars is not None:
            expected = self._state_vars[0].shape[0]
            if sequences.shape[0] != expected:
                raise ValueError(f"If an RNN is stateful, the batch size of the input sequences must be "
                                 f"the same as the batch size of the initial state. Expected batch size: "
                                 f"{expected}; received: {sequences.shape[0]}.")
        states = list(initial_state) if isinstance(initial_state, (list, tuple)) else [initial_state]
        states = [s if isinstance(s, (Tensor, Variable)) or s is None else _state_tensor(s, self) for s in states]
        return nest.map_structure(lambda s: cast(s, self.dtype) if isinstance(s, Tensor) and s.dtype != self.dtype
                                  and s.dtype.is_floating else s, states)

    def call(self, sequences, initial_state=None, mask=None, training=False):
        """Run the cell over the steps; see the class docstring for the arguments."""
        if self.stateful and self._state_vars is not None and initial_state is None \
                and sequences.shape[0] != self._state_vars[0].shape[0]:
            raise ValueError(f"If an RNN is stateful, the batch size of the input sequences must be the same "
                             f"as the batch size of the initial state. Expected batch size: "
                             f"{self._state_vars[0].shape[0]}; received: {sequences.shape[0]}.")
        states = self._initial_states(sequences, initial_state)
        if mask is not None:
            mask = nest.flatten(mask)[0]
            if not hasattr(mask, "dtype"):  # Keras 3 reads mask.dtype: an AttributeError
                raise AttributeError(f"{type(self).__name__}.call(): mask={mask!r} is not a tensor (it has no dtype)")
        last, outputs, states = self._loop(sequences, states, mask, bool(training))
        if self.stateful:
            for var, value in zip(self._state_vars, nest.flatten(states)):
                var.assign(value)
        output = outputs if self.return_sequences else last
        if self.return_state:
            return (output, *states)
        return output

    def _loop(self, sequences, states, mask, training):
        cell = self.cell
        if hasattr(cell, "_precompute"):
            projected, ctx = cell._precompute(sequences, training, states)
            inputs = shaping_ops.unstack(projected, axis=1)

            def step(x, s):
                return cell._recur(x, s, ctx)
        else:
            inputs = shaping_ops.unstack(sequences, axis=1)
            # Keras 3 hands `training` to a Layer cell whose call takes it; a cell that is not a
            # Layer gets it when its call takes it too
            takes = spec_of(cell).takes_training if isinstance(cell, Layer) else \
                spec_of_function(cell.call).takes_training
            kwargs = {"training": training} if takes else {}

            def step(x, s):
                out, new = cell(x, s, **kwargs) if isinstance(cell, Layer) else cell.call(x, s, **kwargs)
                return out, (list(new) if isinstance(new, (list, tuple)) else [new])
        masks = None
        if mask is not None:
            masks = shaping_ops.unstack(shaping_ops.expand_dims(cast(mask, "bool"), -1), axis=1)
        order = range(len(inputs) - 1, -1, -1) if self.go_backwards else range(len(inputs))
        outs, prev = [], None
        for t in order:
            out, new_states = step(inputs[t], states)
            if masks is not None:
                keep = masks[t]
                if prev is None:
                    prev = creation.zeros_like(out)
                out = gather.where(keep, out, creation.zeros_like(out) if self.zero_output_for_mask else prev)
                new_states = nest.map_structure(lambda n, s: gather.where(keep, n, s), list(new_states),
                                                list(states))
                prev = out
            states = new_states
            if self.return_sequences:
                outs.append(out)
        outputs = shaping_ops.stack(outs, axis=1) if self.return_sequences else None
        return out, outputs, states

    def get_config(self):
        """return_sequences, return_state, go_backwards, stateful, unroll, zero_output_for_mask, cell."""
        config = super().get_config()
        config.update({"return_sequences": self.return_sequences, "return_state": self.return_state,
                       "go_backwards": self.go_backwards, "stateful": self.stateful, "unroll": self.unroll,
                       "zero_output_for_mask": self.zero_output_for_mask})
        config["cell"] = serialization.serialize(self.cell)
        return config

    @classmethod
    def from_config(cls, config, custom_objects=None):
        """A new RNN; the cell is rebuilt from its nested config."""
        config = dict(config)
        cell = config.pop("cell")
        if isinstance(cell, dict):
            cell = serialization.deserialize(cell, custom_objects=custom_objects)
        return cls(cell, **config)
