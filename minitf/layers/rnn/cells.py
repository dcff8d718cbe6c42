"""The recurrent cells: SimpleRNNCell, LSTMCell, GRUCell (Keras 3's weights and formulas).

A cell computes one time step: `cell(inputs_t, states) -> (output_t, new_states)`. The RNN
layer (minitf.layers.rnn.rnn) runs it over a sequence. To keep that loop short, the built-in
cells split a step in two: `_precompute(inputs, training)` does the input projection
(`inputs @ kernel + bias`, with input dropout) for every step at once, and
`_recur(x_t, states, ctx)` does the recurrent part of one step. `call` chains the two for a
single step, so a cell used on its own gives the same numbers.

Weights, in Keras 3's order and shapes: `kernel` (input_dim, gates*units), `recurrent_kernel`
(units, gates*units), `bias`; LSTM's gates are i, f, c, o; GRU's are z, r, h, and with
`reset_after=True` its bias has two rows (input bias, recurrent bias).
"""
from minitf.activations import activations
from minitf import constraints
from minitf.initializers import initializers
from minitf.regularizers import regularizers
from minitf.layers import layer_utils
from minitf.keras_ops import random as keras_random
from minitf.layers.base import Layer
from minitf.ops import creation
from minitf.ops import shaping as shaping_ops
from minitf.ops.linalg import matmul
from minitf.api_export import export

__all__ = ["DropoutRNNCell", "SimpleRNNCell", "LSTMCell", "GRUCell"]


class DropoutRNNCell:
    """Dropout masks of a recurrent cell: one mask per sequence, shared by all its steps.

    `dropout` applies to the inputs, `recurrent_dropout` to the previous state, and only when
    training. Cells with `dropout_mask_count` (LSTM and GRU with recurrent dropout) draw one
    mask per gate. The masks come from the cell's `seed_generator` (a keras.random
    SeedGenerator), as Keras 3 draws them, so they are TF's masks for the same generator state.
    """

    def _draw_mask(self, like, rate, count):
        ones = creation.ones_like(like)
        masks = [keras_random.dropout(ones, rate, seed=self.seed_generator) for _ in range(count or 1)]
        return masks if count else masks[0]

    def get_dropout_mask(self, step_input):
        """The input dropout mask(s) for `step_input` (batch, features), or None."""
        if not 0.0 < self.dropout < 1.0:
            return None
        return self._draw_mask(step_input, self.dropout, getattr(self, "dropout_mask_count", None))

    def get_recurrent_dropout_mask(self, step_input):
        """The recurrent dropout mask(s) for a state (batch, units), or None."""
        if not 0.0 < self.recurrent_dropout < 1.0:
            return None
        return self._draw_mask(step_input, self.recurrent_dropout, getattr(self, "dropout_mask_count", None))

    def reset_dropout_mask(self):
        """Nothing to reset: minitf draws the masks afresh for each sequence."""

    def reset_recurrent_dropout_mask(self):
        """Nothing to reset: minitf draws the masks afresh for each sequence."""


def _clip_rate(rate, owner="RNN cell"):
    if rate is None or isinstance(rate, (str, bytes, list, tuple, dict)):  # Keras: max(0.0, rate) fails
        raise TypeError(f"{owner}: dropout rates must be floats in [0, 1], not {rate!r}")
    return min(1.0, max(0.0, float(rate)))


class _Cell(DropoutRNNCell, Layer):
    """What the built-in cells share: settings, weights, config, the one-step `call`."""

    _gates = 1
    _extra_config = ()
    # Where Keras 3 builds the cell's SeedGenerator: before the initializers (SimpleRNNCell) or
    # after them (LSTM, GRU). Unseeded, both draw a seed from Python's `random`, so the order
    # decides which seeds the initializers get after keras.utils.set_random_seed.
    _seed_generator_first = False

    def __init__(self, units, activation="tanh", use_bias=True, kernel_initializer="glorot_uniform",
                 recurrent_initializer="orthogonal", bias_initializer="zeros", kernel_regularizer=None,
                 recurrent_regularizer=None, bias_regularizer=None, kernel_constraint=None,
                 recurrent_constraint=None, bias_constraint=None, dropout=0.0, recurrent_dropout=0.0,
                 seed=None, **kwargs):
        if units is None or isinstance(units, (str, bytes, list, tuple, dict)):  # Keras: `units <= 0` fails
            raise TypeError(f"{type(self).__name__}: argument `units` must be a positive integer, not {units!r}")
        if not isinstance(units, int) or isinstance(units, bool) or units <= 0:
            raise ValueError(f"{type(self).__name__}: received an invalid value for argument `units`, expected "
                             f"a positive integer, got {units}.")
        self.implementation = kwargs.pop("implementation", 2)
        super().__init__(**kwargs)
        if self._seed_generator_first:
            self.seed_generator = keras_random.SeedGenerator(seed)
        self.units = units
        self.activation = activations.get(activation)
        self.use_bias = use_bias
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.recurrent_initializer = initializers.get(recurrent_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self.kernel_regularizer = regularizers.get(kernel_regularizer)
        self.recurrent_regularizer = regularizers.get(recurrent_regularizer)
        self.bias_regularizer = regularizers.get(bias_regularizer)
        self.kernel_constraint = constraints.get(kernel_constraint)
        self.recurrent_constraint = constraints.get(recurrent_constraint)
        self.bias_constraint = constraints.get(bias_constraint)
        self.dropout = _clip_rate(dropout, type(self).__name__)
        self.recurrent_dropout = _clip_rate(recurrent_dropout, type(self).__name__)
        if self.recurrent_dropout != 0.0 and self._gates > 1:
            self.implementation = 1
        if self.implementation == 1 and self._gates > 1:
            self.dropout_mask_count = self._gates
        self.seed = seed
        if not self._seed_generator_first:
            self.seed_generator = keras_random.SeedGenerator(seed)
        self.state_size = self.units
        self.output_size = self.units

    def _add_kernels(self, input_shape, bias_shape, bias_initializer):
        input_dim = input_shape[-1]
        if input_dim is None:
            raise ValueError(f"{type(self).__name__} {self.name!r} needs the size of the input's last "
                             f"axis; got input shape {input_shape}.")
        width = self._gates * self.units
        self.kernel = self.add_weight(name="kernel", shape=(int(input_dim), width),
                                      initializer=self.kernel_initializer,
                                      regularizer=self.kernel_regularizer, constraint=self.kernel_constraint)
        self.recurrent_kernel = self.add_weight(name="recurrent_kernel", shape=(self.units, width),
                                                initializer=self.recurrent_initializer,
                                                regularizer=self.recurrent_regularizer,
                                                constraint=self.recurrent_constraint)
        self.bias = None
        if self.use_bias:
            self.bias = self.add_weight(name="bias", shape=bias_shape, initializer=bias_initializer,
                                        regularizer=self.bias_regularizer, constraint=self.bias_constraint)

    def build(self, input_shape):
        """Create kernel, recurrent_kernel and bias for inputs of `input_shape` (batch, features)."""
        self._add_kernels(input_shape, (self._gates * self.units,), self.bias_initializer)
        self.built = True

    def _input_masks(self, inputs, training):
        """Input dropout masks for (batch, [steps,] features) inputs: shape (batch, [1,] features)."""
        if not (training and 0.0 < self.dropout < 1.0):
            return None
        step = inputs[:, 0, :] if inputs.shape.rank == 3 else inputs
        masks = self.get_dropout_mask(step)
        if inputs.shape.rank == 3:
            masks = [shaping_ops.expand_dims(m, 1) for m in masks] if isinstance(masks, list) \
                else shaping_ops.expand_dims(masks, 1)
        return masks

    def _project(self, inputs, training, input_bias):
        """inputs @ kernel (+ bias), with input dropout; one mask per gate in implementation 1."""
        masks = self._input_masks(inputs, training)
        if isinstance(masks, list):
            width = self.units
            parts = [matmul(inputs * m, self.kernel[:, g * width:(g + 1) * width])
                     for g, m in enumerate(masks)]
            z = shaping_ops.concat(parts, axis=-1)
        else:
            z = matmul(inputs if masks is None else inputs * masks, self.kernel)
        return z if input_bias is None else z + input_bias

    def _state_masks(self, states, training):
        if not (training and 0.0 < self.recurrent_dropout < 1.0):
            return None
        return self.get_recurrent_dropout_mask(states[0])

    def call(self, inputs, states, training=False):
        """One step: `(output, new_states)` for inputs (batch, features) and the previous states."""
        nested = isinstance(states, (list, tuple))
        state_list = list(states) if nested else [states]
        x, ctx = self._precompute(inputs, training, state_list)
        output, new_states = self._recur(x, state_list, ctx)
        if not nested and len(new_states) == 1:
            return output, new_states[0]
        return output, new_states

    def get_initial_state(self, batch_size=None):
        """Zero states, one (batch_size, size) tensor per entry of `state_size`."""
        sizes = self.state_size if isinstance(self.state_size, (list, tuple)) else [self.state_size]
        return [creation.zeros((batch_size, d), dtype=self.compute_dtype) for d in sizes]

    def get_config(self):
        """Keras 3's keys: units, activations, use_bias, initializers, regularizers, constraints,
        dropout rates and seed."""
        config = super().get_config()
        config["units"] = self.units
        config["activation"] = layer_utils.serialize(self.activation, "activations")
        if hasattr(self, "recurrent_activation"):
            config["recurrent_activation"] = layer_utils.serialize(self.recurrent_activation, "activations")
        config["use_bias"] = self.use_bias
        if hasattr(self, "unit_forget_bias"):
            config["unit_forget_bias"] = self.unit_forget_bias
        for kind in ("initializer", "regularizer", "constraint"):
            family = kind + "s"
            for part in ("kernel", "recurrent", "bias"):
                config[f"{part}_{kind}"] = layer_utils.serialize(getattr(self, f"{part}_{kind}"), family)
        config["dropout"] = self.dropout
        config["recurrent_dropout"] = self.recurrent_dropout
        for key in self._extra_config:
            config[key] = getattr(self, key)
        config["seed"] = self.seed
        return config


@export("layers.SimpleRNNCell", "keras.layers.SimpleRNNCell")
class SimpleRNNCell(_Cell):
    """One step of a fully connected RNN: `output = activation(x @ kernel + h @ recurrent_kernel + bias)`.

    Args:
        units: the size of the output and state.
        activation: default 'tanh'; None for linear.
        use_bias, kernel_initializer ('glorot_uniform'), recurrent_initializer ('orthogonal'),
        bias_initializer ('zeros'), the regularizers and constraints of the three weights:
            as in Keras.
        dropout, recurrent_dropout: fractions of the inputs / previous state dropped in training.
        seed: seed of the dropout masks.
    """

    _seed_generator_first = True

    def _precompute(self, inputs, training, states=None):
        projected = self._project(inputs, training, self.bias)  # input masks first, as Keras draws them
        return projected, self._state_masks(states, training) if states is not None else None

    def _recur(self, x, states, ctx):
        h = states[0] if ctx is None else states[0] * ctx
        output = x + matmul(h, self.recurrent_kernel)
        if self.activation is not None:
            output = self.activation(output)
        return output, [output]


@export("layers.LSTMCell", "keras.layers.LSTMCell")
class LSTMCell(_Cell):
    """One step of a long short-term memory cell (Hochreiter 1997), Keras 3's formulation.

    With z = x @ kernel + h @ recurrent_kernel + bias split into gates i, f, c, o:
    `c' = sigma(f) * c + sigma(i) * act(c_gate)`, `h' = sigma(o) * act(c')`; the states are
    [h, c] and the output is h'.

    Args:
        units: the size of the output and of each state.
        activation: default 'tanh'. recurrent_activation: the gates' function, default 'sigmoid'.
        unit_forget_bias: start the forget gate's bias at one (default True).
        Others: as SimpleRNNCell.
    """

    _gates = 4

    def __init__(self, units, activation="tanh", recurrent_activation="sigmoid", use_bias=True,
                 kernel_initializer="glorot_uniform", recurrent_initializer="orthogonal",
                 bias_initializer="zeros", unit_forget_bias=True, **kwargs):
        super().__init__(units, activation=activation, use_bias=use_bias,
                         kernel_initializer=kernel_initializer,
                         recurrent_initializer=recurrent_initializer,
                         bias_initializer=bias_initializer, **kwargs)
        self.recurrent_activation = activations.get(recurrent_activation)
        self.unit_forget_bias = unit_forget_bias
        self.state_size = [self.units, self.units]

    def build(self, input_shape):
        """kernel (input_dim, 4*units), recurrent_kernel (units, 4*units), bias (4*units,)."""
        init = self.bias_initializer
        if self.use_bias and self.unit_forget_bias:
            units, base = self.units, self.bias_initializer

            def init(shape, dtype=None, **kwargs):
                return shaping_ops.concat([base((units,), dtype=dtype), creation.ones((units,), dtype=dtype),
                                           base((2 * units,), dtype=dtype)], axis=0)
        self._add_kernels(input_shape, (4 * self.units,), init)
        self.built = True

    def _precompute(self, inputs, training, states=None):
        projected = self._project(inputs, training, self.bias)  # input masks first, as Keras draws them
        return projected, self._state_masks(states, training) if states is not None else None

    def _recur(self, x, states, ctx):
        h, c = states[0], states[1]
        if ctx is None:
            z = x + matmul(h, self.recurrent_kernel)
        else:
            u = self.units
            z = x + shaping_ops.concat([matmul(h * m, self.recurrent_kernel[:, g * u:(g + 1) * u])
                                        for g, m in enumerate(ctx)], axis=-1)
        z_i, z_f, z_c, z_o = shaping_ops.split(z, 4, axis=-1)
        act, gate = self.activation, self.recurrent_activation
        c = gate(z_f) * c + gate(z_i) * act(z_c)
        h = gate(z_o) * act(c)
        return h, [h, c]


@export("layers.GRUCell", "keras.layers.GRUCell")
class GRUCell(_Cell):
    """One step of a gated recurrent unit (Cho et al. 2014), Keras 3's formulation.

    Gates z (update) and r (reset) and candidate hh; `h' = z * h + (1 - z) * hh`. With
    `reset_after=True` (the default, cuDNN's form) the reset gate multiplies the recurrent
    projection after the matmul and the bias has two rows (input, recurrent); with False it
    multiplies the state before it and the bias is one vector.

    Args:
        units: the size of the output and state.
        recurrent_activation: the gates' function, default 'sigmoid'.
        reset_after: where the reset gate applies (see above).
        Others: as SimpleRNNCell.
    """

    _gates = 3
    _extra_config = ("reset_after",)

    def __init__(self, units, activation="tanh", recurrent_activation="sigmoid", use_bias=True,
                 kernel_initializer="glorot_uniform", recurrent_initializer="orthogonal",
                 bias_initializer="zeros", kernel_regularizer=None, recurrent_regularizer=None,
                 bias_regularizer=None, kernel_constraint=None, recurrent_constraint=None,
                 bias_constraint=None, dropout=0.0, recurrent_dropout=0.0, reset_after=True,
                 seed=None, **kwargs):
        super().__init__(units, activation=activation, use_bias=use_bias,
                         kernel_initializer=kernel_initializer,
                         recurrent_initializer=recurrent_initializer,
                         bias_initializer=bias_initializer, kernel_regularizer=kernel_regularizer,
                         recurrent_regularizer=recurrent_regularizer, bias_regularizer=bias_regularizer,
                         kernel_constraint=kernel_constraint, recurrent_constraint=recurrent_constraint,
                         bias_constraint=bias_constraint, dropout=dropout,
                         recurrent_dropout=recurrent_dropout, seed=seed, **kwargs)
        self.recurrent_activation = activations.get(recurrent_activation)
        self.reset_after = reset_after

    def build(self, input_shape):
        """kernel (input_dim, 3*units), recurrent_kernel (units, 3*units), bias (2, 3*units) with
        reset_after, else (3*units,)."""
        shape = (2, 3 * self.units) if self.reset_after else (3 * self.units,)
        self._add_kernels(input_shape, shape, self.bias_initializer)
        self.built = True

    def _precompute(self, inputs, training, states=None):
        input_bias = recurrent_bias = None
        if self.use_bias:
            if self.reset_after:
                input_bias, recurrent_bias = self.bias[0], self.bias[1]
            else:
                input_bias = self.bias
        u = self.units
        rk = self.recurrent_kernel
        projected = self._project(inputs, training, input_bias)  # input masks first, as Keras draws them
        ctx = {"masks": self._state_masks(states, training) if states is not None else None,
               "rb": recurrent_bias}
        if not self.reset_after:
            ctx["rk_zr"], ctx["rk_h"] = rk[:, :2 * u], rk[:, 2 * u:]
        elif ctx["masks"] is not None:
            ctx["rk_parts"] = [rk[:, g * u:(g + 1) * u] for g in range(3)]
        return projected, ctx

    def _recur(self, x, states, ctx):
        h = states[0]
        masks, rb = ctx["masks"], ctx["rb"]
        x_z, x_r, x_h = shaping_ops.split(x, 3, axis=-1)
        gate = self.recurrent_activation
        if self.reset_after:
            if masks is None:
                inner = matmul(h, self.recurrent_kernel)
            else:
                inner = shaping_ops.concat([matmul(h * m, k) for m, k in zip(masks, ctx["rk_parts"])], axis=-1)
            if rb is not None:
                inner = inner + rb
            r_z, r_r, r_h = shaping_ops.split(inner, 3, axis=-1)
            z = gate(x_z + r_z)
            r = gate(x_r + r_r)
            hh = self.activation(x_h + r * r_h)
        else:
            if masks is None:
                r_z, r_r = shaping_ops.split(matmul(h, ctx["rk_zr"]), 2, axis=-1)
                h_h = h
            else:
                u = self.units
                r_z = matmul(h * masks[0], ctx["rk_zr"][:, :u])
                r_r = matmul(h * masks[1], ctx["rk_zr"][:, u:])
                h_h = h * masks[2]
            z = gate(x_z + r_z)
            r = gate(x_r + r_r)
            hh = self.activation(x_h + matmul(r * h_h, ctx["rk_h"]))
        h = z * h + (1 - z) * hh
        return h, [h]
