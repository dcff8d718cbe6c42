"""Convolutional LSTMs: ConvLSTM1D, ConvLSTM2D, ConvLSTM3D (Keras 3's `ConvLSTM` layers).

An LSTM whose input and recurrent transformations are convolutions: the states h and c are
feature maps. `ConvLSTMCell` computes one step and runs under minitf's RNN layer; its weights
are Keras 3's: `kernel` (kernel_size + (input_channels, 4 * filters)), `recurrent_kernel`
(kernel_size + (filters, 4 * filters)) and `bias` (4 * filters,), gates in the order i, f, c, o.
The cell convolves the inputs of every step in one batched convolution before the recurrence
(`_precompute`), then runs one 'same' recurrent convolution per step (`_recur`).

A masked call runs its own loop over the steps (minitf's RNN loop masks (batch, units)
outputs): the mask, (batch, steps) or (batch, steps, *spatial) as a Masking layer gives it, is
expanded with trailing axes to the feature maps' rank, as Keras' backend rnn does, so a masked
position keeps its previous state and output.
"""
from minitf.activations import activations
from minitf import constraints
from minitf.initializers import initializers
from minitf.regularizers import regularizers
from minitf.nest import nest
from minitf.layers import layer_utils
from minitf.layers.base import InputSpec, Layer
from minitf.layers.convolutional import conv_output_length, standardize_data_format
from minitf.keras_ops import random as keras_random
from minitf.layers.rnn.cells import DropoutRNNCell
from minitf.layers.rnn.rnn import RNN
from minitf.ops import array as array_ops
from minitf.ops import conv as conv_ops
from minitf.ops import conv3d as conv3d_ops
from minitf.ops import creation, gather
from minitf.ops import shaping as shaping_ops
from minitf.ops.constant import cast
from minitf.tensor_shape import TensorShape
from minitf.api_export import export

__all__ = ["ConvLSTM1D", "ConvLSTM2D", "ConvLSTM3D"]

_FORMATS = {1: ("NWC", "NCW"), 2: ("NHWC", "NCHW"), 3: ("NDHWC", "NCDHW")}


class ConvLSTMCell(DropoutRNNCell, Layer):
    """One step of a convolutional LSTM of spatial rank 1, 2 or 3 (see the module docstring).

    Call arguments: inputs (batch, *spatial, channels) (or channels first), states [h, c] of the
    output's shape, training (dropout applies only then).
    """

    def __init__(self, rank, filters, kernel_size, strides=1, padding="valid", data_format=None,
                 dilation_rate=1, activation="tanh", recurrent_activation="sigmoid", use_bias=True,
                 kernel_initializer="glorot_uniform", recurrent_initializer="orthogonal",
                 bias_initializer="zeros", unit_forget_bias=True, kernel_regularizer=None,
                 recurrent_regularizer=None, bias_regularizer=None, kernel_constraint=None,
                 recurrent_constraint=None, bias_constraint=None, dropout=0.0,
                 recurrent_dropout=0.0, seed=None, **kwargs):
        super().__init__(**kwargs)
        if rank not in (1, 2, 3):
            raise ValueError(f"Rank {rank} convolutions are not currently implemented. "
                             f"Received: rank={rank}")
        self.rank = rank
        self.seed = seed
        self.seed_generator = keras_random.SeedGenerator(seed)  # where Keras 3 builds it
        self.filters = filters
        self.kernel_size = layer_utils.normalize_tuple(kernel_size, rank, "kernel_size")
        self.strides = layer_utils.normalize_tuple(strides, rank, "strides")
        self.padding = layer_utils.normalize_padding(padding)
        self.data_format = standardize_data_format(data_format, self.name)
        self.dilation_rate = layer_utils.normalize_tuple(dilation_rate, rank, "dilation_rate")
        if max(self.strides) > 1 and max(self.dilation_rate) > 1:
            raise ValueError(f"Specifying `strides > 1` is not compatible with `dilation_rate > 1`. "
                             f"Please provide `strides=1` or `dilation_rate=1`. Received: "
                             f"strides={self.strides} and dilation_rate={self.dilation_rate}")
        self.activation = activations.get(activation)
        self.recurrent_activation = activations.get(recurrent_activation)
        self.use_bias = use_bias
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.recurrent_initializer = initializers.get(recurrent_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self.unit_forget_bias = unit_forget_bias
        self.kernel_regularizer = regularizers.get(kernel_regularizer)
        self.recurrent_regularizer = regularizers.get(recurrent_regularizer)
        self.bias_regularizer = regularizers.get(bias_regularizer)
        self.kernel_constraint = constraints.get(kernel_constraint)
        self.recurrent_constraint = constraints.get(recurrent_constraint)
        self.bias_constraint = constraints.get(bias_constraint)
        self.dropout = min(1.0, max(0.0, dropout))
        self.recurrent_dropout = min(1.0, max(0.0, recurrent_dropout))
        self.dropout_mask_count = 4
        self.state_size = -1  # the states are feature maps: see get_initial_state

    @property
    def _channel_axis(self):
        return 1 if self.data_format == "channels_first" else -1

    def build(self, inputs_shape, states_shape=None):
        """kernel, recurrent_kernel and bias for one step's input shape."""
        shape = TensorShape(inputs_shape).as_list()
        first = self.data_format == "channels_first"
        self.spatial_dims = tuple(shape[2:] if first else shape[1:-1])
        if None in self.spatial_dims:
            raise ValueError(f"ConvLSTM layers only support static input shapes for the spatial "
                             f"dimension. Received invalid input shape: input_shape={tuple(shape)}")
        channels = shape[1 if first else -1]
        if channels is None:
            raise ValueError(f"The channel dimension of the inputs (last axis) should be defined. "
                             f"Found None. Full input shape received: input_shape={tuple(shape)}")
        self.input_dim = channels
        if self.padding == "valid":
            for i, n in enumerate(self.spatial_dims):
                if (n - self.dilation_rate[i] * (self.kernel_size[i] - 1) - 1) // self.strides[i] + 1 <= 0:
                    raise ValueError(
                        f"Computed output size would be zero or negative. Received `inputs "
                        f"shape={tuple(shape)}`, `kernel shape={self.kernel_size + (channels, self.filters)}`, "
                        f"`dilation_rate={list(self.dilation_rate)}`, `strides={self.strides}`, "
                        f"`padding=valid` (layer {self.name!r}); give each step at least "
                        f"{self.dilation_rate[i] * (self.kernel_size[i] - 1) + 1} entries along spatial "
                        f"axis {i} or use padding='same'.")
        self.kernel = self.add_weight(name="kernel", shape=self.kernel_size + (channels, 4 * self.filters),
                                      initializer=self.kernel_initializer,
                                      regularizer=self.kernel_regularizer, constraint=self.kernel_constraint)
        self.recurrent_kernel = self.add_weight(
            name="recurrent_kernel", shape=self.kernel_size + (self.filters, 4 * self.filters),
            initializer=self.recurrent_initializer, regularizer=self.recurrent_regularizer,
            constraint=self.recurrent_constraint)
        self.bias = None
        if self.use_bias:
            init = self.bias_initializer
            if self.unit_forget_bias:
                filters, base = self.filters, self.bias_initializer

                def init(shape, dtype=None, **kwargs):
                    return shaping_ops.concat([base((filters,), dtype=dtype),
                                               creation.ones((filters,), dtype=dtype),
                                               base((2 * filters,), dtype=dtype)], axis=0)
            self.bias = self.add_weight(name="bias", shape=(4 * self.filters,), initializer=init,
                                        regularizer=self.bias_regularizer, constraint=self.bias_constraint)
        self.built = True

    # -- the convolutions ---------------------------------------------------------------------

    def _conv(self, x, w, strides, dilations, padding):
        fmt = _FORMATS[self.rank][self.data_format == "channels_first"]
        if self.rank == 1:
            return conv_ops.conv1d(x, w, strides[0], padding, data_format=fmt, dilations=dilations[0])
        if self.rank == 2:
            return conv_ops.conv2d(x, w, list(strides), padding, data_format=fmt, dilations=list(dilations))
        def five(values):
            return [1, 1] + list(values) if self.data_format == "channels_first" else [1] + list(values) + [1]
        return conv3d_ops.conv3d(x, w, five(strides), padding, data_format=fmt, dilations=five(dilations))

    def _gate_kernels(self, kernel):
        return array_ops.split(kernel, 4, axis=self.rank + 1)

    def _input_conv(self, x, masks):
        """The input convolution of every gate (one convolution, or one per gate's dropout mask)."""
        args = (self.strides, self.dilation_rate, self.padding.upper())
        if masks is None:
            z = self._conv(x, self.kernel, *args)
        else:
            z = array_ops.concat([self._conv(x * m, k, *args)
                                  for m, k in zip(masks, self._gate_kernels(self.kernel))],
                                 axis=self._channel_axis)
        if self.bias is not None:
            z = z + array_ops.reshape(self.bias, self._bias_shape())
        return z

    def _precompute(self, inputs, training, states=None):
        """The input convolutions, with input dropout, of one step or of every step of a
        (batch, steps, ...) sequence at once; and the recurrent dropout masks."""
        sequence = inputs.shape.rank == self.rank + 3
        masks = None
        if training and 0.0 < self.dropout < 1.0:
            step = inputs[:, 0] if sequence else inputs
            masks = self.get_dropout_mask(step)
            if sequence:
                masks = [shaping_ops.expand_dims(m, 1) for m in masks]
        x = inputs
        if sequence:
            if masks is not None:
                x = [x * m for m in masks]
                masks = None
            shape = inputs.shape.as_list()
            merge = lambda t: array_ops.reshape(t, [shape[0] * shape[1]] + shape[2:])  # noqa: E731
            if isinstance(x, list):
                x = array_ops.concat([self._conv(merge(t), k, self.strides, self.dilation_rate,
                                                 self.padding.upper())
                                      for t, k in zip(x, self._gate_kernels(self.kernel))],
                                     axis=self._channel_axis)
                x = x if self.bias is None else x + array_ops.reshape(self.bias, self._bias_shape())
            else:
                x = self._input_conv(merge(x), None)
            x = array_ops.reshape(x, shape[:2] + x.shape.as_list()[1:])
        else:
            x = self._input_conv(x, masks)
        ctx = None
        if states is not None and training and 0.0 < self.recurrent_dropout < 1.0:
            ctx = self.get_recurrent_dropout_mask(states[0])
        return x, ctx

    def _bias_shape(self):
        shape = [1] * (self.rank + 2)
        shape[self._channel_axis] = 4 * self.filters
        return shape

    def _recur(self, x, states, ctx):
        h, c = states[0], states[1]
        ones = (1,) * self.rank
        if ctx is None:
            r = self._conv(h, self.recurrent_kernel, ones, ones, "SAME")
        else:
            r = array_ops.concat([self._conv(h * m, k, ones, ones, "SAME")
                                  for m, k in zip(ctx, self._gate_kernels(self.recurrent_kernel))],
                                 axis=self._channel_axis)
        z_i, z_f, z_c, z_o = array_ops.split(x + r, 4, axis=self._channel_axis)
        gate, act = self.recurrent_activation, self.activation
        c = gate(z_f) * c + gate(z_i) * act(z_c)
        h = gate(z_o) * act(c)
        return h, [h, c]

    def call(self, inputs, states, training=False):
        """One step: `(h, [h, c])` for inputs of one step and the states [h, c]."""
        states = list(states)
        x, ctx = self._precompute(inputs, training, states)
        return self._recur(x, states, ctx)

    # -- shapes and states --------------------------------------------------------------------

    def compute_output_shape(self, inputs_shape, states_shape=None):
        """(output shape, [h shape, c shape]) for one step's input shape."""
        shape = TensorShape(inputs_shape).as_list()
        first = self.data_format == "channels_first"
        spatial = shape[2:] if first else shape[1:-1]
        out = [conv_output_length(n, self.kernel_size[i], self.padding, self.strides[i],
                                  self.dilation_rate[i]) for i, n in enumerate(spatial)]
        out = (shape[0], self.filters, *out) if first else (shape[0], *out, self.filters)
        return out, [out, out]

    def _state_shape(self, batch_size):
        first = self.data_format == "channels_first"
        shape = (batch_size, self.input_dim) + self.spatial_dims if first else \
            (batch_size,) + self.spatial_dims + (self.input_dim,)
        return self.compute_output_shape(shape)[0]

    def get_initial_state(self, batch_size=None):
        """Zero h and c of the output's shape."""
        shape = self._state_shape(batch_size)
        return [creation.zeros(shape, dtype=self.compute_dtype),
                creation.zeros(shape, dtype=self.compute_dtype)]

    def get_config(self):
        """Keras 3's keys of the cell."""
        config = super().get_config()
        config.update(_cell_config(self))
        return config


def _cell_config(cell):
    config = {"filters": cell.filters, "kernel_size": cell.kernel_size, "strides": cell.strides,
              "padding": cell.padding, "data_format": cell.data_format,
              "dilation_rate": cell.dilation_rate,
              "activation": layer_utils.serialize(cell.activation, "activations"),
              "recurrent_activation": layer_utils.serialize(cell.recurrent_activation, "activations"),
              "use_bias": cell.use_bias}
    for part in ("kernel", "recurrent", "bias"):
        config[f"{part}_initializer"] = layer_utils.serialize(getattr(cell, f"{part}_initializer"), "initializers")
    config["unit_forget_bias"] = cell.unit_forget_bias
    for kind, family in (("regularizer", "regularizers"), ("constraint", "constraints")):
        for part in ("kernel", "recurrent", "bias"):
            config[f"{part}_{kind}"] = layer_utils.serialize(getattr(cell, f"{part}_{kind}"), family)
    config.update(dropout=cell.dropout, recurrent_dropout=cell.recurrent_dropout, seed=cell.seed)
    return config


class _ConvLSTM(RNN):
    """The N-D convolutional LSTM layer: an RNN over a ConvLSTMCell."""

    rank = 2

    def __init__(self, filters, kernel_size, strides=1, padding="valid", data_format=None,
                 dilation_rate=1, activation="tanh", recurrent_activation="sigmoid", use_bias=True,
                 kernel_initializer="glorot_uniform", recurrent_initializer="orthogonal",
                 bias_initializer="zeros", unit_forget_bias=True, kernel_regularizer=None,
                 recurrent_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 kernel_constraint=None, recurrent_constraint=None, bias_constraint=None,
                 dropout=0.0, recurrent_dropout=0.0, seed=None, return_sequences=False,
                 return_state=False, go_backwards=False, stateful=False, **kwargs):
        cell = ConvLSTMCell(
            rank=self.rank, filters=filters, kernel_size=kernel_size, strides=strides,
            padding=padding, data_format=data_format, dilation_rate=dilation_rate,
            activation=activation, recurrent_activation=recurrent_activation, use_bias=use_bias,
            kernel_initializer=kernel_initializer, recurrent_initializer=recurrent_initializer,
            bias_initializer=bias_initializer, unit_forget_bias=unit_forget_bias,
            kernel_regularizer=kernel_regularizer, recurrent_regularizer=recurrent_regularizer,
            bias_regularizer=bias_regularizer, kernel_constraint=kernel_constraint,
            recurrent_constraint=recurrent_constraint, bias_constraint=bias_constraint,
            dropout=dropout, recurrent_dropout=recurrent_dropout, seed=seed,
            name="conv_lstm_cell", dtype=kwargs.get("dtype"))
        super().__init__(cell, return_sequences=return_sequences, return_state=return_state,
                         go_backwards=go_backwards, stateful=stateful,
                         activity_regularizer=activity_regularizer, **kwargs)
        self.input_spec = InputSpec(ndim=self.rank + 3)

    def call(self, sequences, initial_state=None, mask=None, training=False):
        """Run the cell over the steps (see RNN); a mask freezes states and outputs at masked
        steps, as in Keras."""
        if mask is None:
            return super().call(sequences, initial_state=initial_state, mask=None, training=training)
        return self._masked_call(sequences, initial_state, mask, training)

    def _masked_call(self, sequences, initial_state, mask, training):
        if initial_state is not None:
            states = list(initial_state) if isinstance(initial_state, (list, tuple)) else [initial_state]
        elif self.stateful and self._state_vars is not None:
            states = [v.value() for v in self._state_vars]
        else:
            states = self.cell.get_initial_state(sequences.shape[0])
        projected, ctx = self.cell._precompute(sequences, training, states)
        inputs = shaping_ops.unstack(projected, axis=1)
        keeps = shaping_ops.unstack(cast(nest.flatten(mask)[0], "bool"), axis=1)
        order = range(len(inputs) - 1, -1, -1) if self.go_backwards else range(len(inputs))
        outs, prev = [], None
        for t in order:
            out, new_states = self.cell._recur(inputs[t], states, ctx)
            keep = keeps[t]
            while keep.shape.rank < out.shape.rank:  # trailing axes, as Keras' backend rnn adds them
                keep = shaping_ops.expand_dims(keep, -1)
            prev = creation.zeros_like(out) if prev is None else prev
            out = gather.where(keep, out, creation.zeros_like(out) if self.zero_output_for_mask else prev)
            states = [gather.where(keep, n, s) for n, s in zip(new_states, states)]
            prev = out
            outs.append(out)
        if self.stateful:
            for var, value in zip(self._state_vars, states):
                var.assign(value)
        output = shaping_ops.stack(outs, axis=1) if self.return_sequences else out
        return (output, *states) if self.return_state else output

    def compute_output_shape(self, sequences_shape, initial_state_shape=None):
        """(batch, [steps,] *output feature map), plus two state shapes with return_state."""
        shape = TensorShape(sequences_shape).as_list()
        batch, steps = shape[0], shape[1]
        state = tuple(self.cell.compute_output_shape([batch] + shape[2:])[0][1:])
        output = (batch, steps) + state if self.return_sequences else (batch,) + state
        if self.return_state:
            return output, (batch,) + state, (batch,) + state
        return output

    def compute_mask(self, inputs, mask):
        """The input mask for sequence outputs, None for the last output and the states."""
        mask = nest.flatten(mask)[0] if mask is not None else None
        output_mask = mask if self.return_sequences else None
        return [output_mask, None, None] if self.return_state else output_mask

    def get_config(self):
        """The RNN flags and the cell's arguments, flat (no nested cell), as Keras 3 writes them."""
        config = super().get_config()
        config.pop("cell", None)
        config.update(_cell_config(self.cell))
        config["activity_regularizer"] = layer_utils.serialize(self._activity_regularizer, "regularizers")
        return config

    @classmethod
    def from_config(cls, config, custom_objects=None):
        """A new layer from get_config's keys."""
        return cls(**config)


def _cell_property(name):
    return property(lambda self: getattr(self.cell, name), doc=f"The cell's `{name}`.")


for _name in ("filters", "kernel_size", "strides", "padding", "data_format", "dilation_rate",
              "activation", "recurrent_activation", "use_bias", "kernel_initializer",
              "recurrent_initializer", "bias_initializer", "unit_forget_bias", "kernel_regularizer",
              "recurrent_regularizer", "bias_regularizer", "kernel_constraint",
              "recurrent_constraint", "bias_constraint", "dropout", "recurrent_dropout"):
    setattr(_ConvLSTM, _name, _cell_property(_name))


@export("layers.ConvLSTM1D", "keras.layers.ConvLSTM1D")
class ConvLSTM1D(_ConvLSTM):
    """A convolutional LSTM over sequences of 1-D feature maps: inputs (batch, steps, width,
    channels) (or (batch, steps, channels, width) with channels_first); outputs (batch, [steps,]
    new_width, filters). Arguments as ConvLSTM2D."""

    rank = 1


@export("layers.ConvLSTM2D", "keras.layers.ConvLSTM2D")
class ConvLSTM2D(_ConvLSTM):
    """A convolutional LSTM over sequences of images (Shi et al. 2015).

    Inputs (batch, steps, rows, cols, channels) (channels_last) or (batch, steps, channels,
    rows, cols); outputs (batch, [steps,] new_rows, new_cols, filters) (or channels first).

    Args:
        filters, kernel_size, strides, padding ('valid' or 'same'), data_format,
            dilation_rate: the input convolution's, as in Conv2D. The recurrent convolution is
            always 'same' with stride 1.
        activation ('tanh'), recurrent_activation ('sigmoid'), use_bias, unit_forget_bias, the
            initializers, regularizers and constraints of kernel, recurrent_kernel and bias,
            dropout, recurrent_dropout, seed: as in LSTM.
        return_sequences, return_state, go_backwards, stateful: as in RNN.
    """

    rank = 2


@export("layers.ConvLSTM3D", "keras.layers.ConvLSTM3D")
class ConvLSTM3D(_ConvLSTM):
    """A convolutional LSTM over sequences of volumes: inputs (batch, steps, depth, rows, cols,
    channels) (or channels first). Arguments as ConvLSTM2D."""

    rank = 3
