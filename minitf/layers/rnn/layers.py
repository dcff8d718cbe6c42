"""SimpleRNN, LSTM and GRU: an RNN around the matching built-in cell, configured in one call.

Each keeps Keras 3's layout: the weights live in the cell (`layer.cell.kernel`, saved under
'cell' in weight files, paths like 'lstm/lstm_cell/kernel'), the cell's settings read through
the layer (`layer.units`), and the config is flat (the cell's arguments next to the RNN's).
"""
from minitf.layers import layer_utils
from minitf.layers.input_spec import InputSpec
from minitf.layers.rnn.cells import GRUCell, LSTMCell, SimpleRNNCell
from minitf.layers.rnn.rnn import RNN
from minitf.api_export import export

__all__ = ["SimpleRNN", "LSTM", "GRU"]

_RNN_ARGS = ("return_sequences", "return_state", "go_backwards", "stateful", "unroll",
             "zero_output_for_mask")
_BASE_ARGS = ("name", "trainable", "dtype", "input_shape", "batch_input_shape", "batch_size",
              "input_dim", "autocast", "input_length")


def _cell_property(name):
    return property(lambda self: getattr(self.cell, name), doc=f"The cell's `{name}`.")


class _CellRNN(RNN):
    """An RNN that makes its own cell from the layer's arguments."""

    _cell_class = None
    _cell_name = None
    _cell_keys = ()

    def __init__(self, units, **kwargs):
        rnn_kwargs = {k: kwargs.pop(k) for k in _RNN_ARGS if k in kwargs}
        base = {k: kwargs.pop(k) for k in _BASE_ARGS if k in kwargs}
        activity_regularizer = kwargs.pop("activity_regularizer", None)
        kwargs.pop("use_cudnn", None)
        kwargs.pop("time_major", None)
        cell = self._cell_class(units, dtype=base.get("dtype"), trainable=base.get("trainable", True),
                                name=self._cell_name, **kwargs)
        super().__init__(cell, activity_regularizer=activity_regularizer, **rnn_kwargs, **base)
        self.input_spec = InputSpec(ndim=3)

    def call(self, sequences, initial_state=None, mask=None, training=False):
        """Run the layer over `sequences` (batch, steps, features); see RNN."""
        return super().call(sequences, initial_state=initial_state, mask=mask, training=training)

    def get_config(self):
        """The RNN's flags and the cell's arguments (no nested cell), as Keras 3 writes them."""
        config = super().get_config()
        del config["cell"]
        cell_config = self.cell.get_config()
        for key in self._cell_keys:
            config[key] = cell_config[key]
        config["activity_regularizer"] = layer_utils.serialize(self._activity_regularizer, "regularizers")
        return config

    @classmethod
    def from_config(cls, config, custom_objects=None):
        """A new layer from `get_config()`'s output."""
        return cls(**config)


_COMMON = ("units", "activation", "use_bias", "kernel_initializer", "recurrent_initializer",
           "bias_initializer", "kernel_regularizer", "recurrent_regularizer", "bias_regularizer",
           "kernel_constraint", "recurrent_constraint", "bias_constraint", "dropout", "recurrent_dropout")

for _name in _COMMON + ("recurrent_activation", "unit_forget_bias", "reset_after", "seed", "implementation"):
    setattr(_CellRNN, _name, _cell_property(_name))


@export("layers.SimpleRNN", "keras.layers.SimpleRNN")
class SimpleRNN(_CellRNN):
    """A fully connected RNN whose output is fed back as the next state (SimpleRNNCell over time).

    Args:
        units: the output size. activation: default 'tanh'. use_bias, kernel_initializer
            ('glorot_uniform'), recurrent_initializer ('orthogonal'), bias_initializer ('zeros'),
            regularizers, constraints, dropout, recurrent_dropout, seed: as SimpleRNNCell.
        return_sequences, return_state, go_backwards, stateful, unroll: as RNN.
        activity_regularizer and the base Layer's arguments.
    """

    _cell_class = SimpleRNNCell
    _cell_name = "simple_rnn_cell"
    _cell_keys = _COMMON

    def __init__(self, units, activation="tanh", use_bias=True, kernel_initializer="glorot_uniform",
                 recurrent_initializer="orthogonal", bias_initializer="zeros", **kwargs):
        super().__init__(units, activation=activation, use_bias=use_bias,
                         kernel_initializer=kernel_initializer,
                         recurrent_initializer=recurrent_initializer,
                         bias_initializer=bias_initializer, **kwargs)


@export("layers.LSTM", "keras.layers.LSTM")
class LSTM(_CellRNN):
    """Long short-term memory layer (LSTMCell over time); states [h, c].

    Args:
        units: the output size. activation ('tanh'), recurrent_activation ('sigmoid'),
            use_bias, initializers (recurrent: 'orthogonal'), unit_forget_bias (True),
            regularizers, constraints, dropout, recurrent_dropout, seed: as LSTMCell.
        return_sequences, return_state, go_backwards, stateful, unroll: as RNN.
        use_cudnn: accepted for compatibility. activity_regularizer and the base Layer's arguments.
    """

    _cell_class = LSTMCell
    _cell_name = "lstm_cell"
    _cell_keys = _COMMON[:2] + ("recurrent_activation",) + _COMMON[2:6] + ("unit_forget_bias",) \
        + _COMMON[6:] + ("seed",)

    def __init__(self, units, activation="tanh", recurrent_activation="sigmoid", use_bias=True,
                 kernel_initializer="glorot_uniform", recurrent_initializer="orthogonal",
                 bias_initializer="zeros", unit_forget_bias=True, **kwargs):
        super().__init__(units, activation=activation, recurrent_activation=recurrent_activation,
                         use_bias=use_bias, kernel_initializer=kernel_initializer,
                         recurrent_initializer=recurrent_initializer, bias_initializer=bias_initializer,
                         unit_forget_bias=unit_forget_bias, **kwargs)


@export("layers.GRU", "keras.layers.GRU")
class GRU(_CellRNN):
    """Gated recurrent unit layer (GRUCell over time); `reset_after=True` by default (cuDNN's form).

    Args:
        units: the output size. activation ('tanh'), recurrent_activation ('sigmoid'),
            use_bias, initializers, regularizers, constraints, dropout, recurrent_dropout,
            reset_after, seed: as GRUCell.
        return_sequences, return_state, go_backwards, stateful, unroll: as RNN.
        use_cudnn: accepted for compatibility. activity_regularizer and the base Layer's arguments.
    """

    _cell_class = GRUCell
    _cell_name = "gru_cell"
    _cell_keys = _COMMON[:2] + ("recurrent_activation",) + _COMMON[2:] + ("reset_after", "seed")

    def __init__(self, units, activation="tanh", recurrent_activation="sigmoid", use_bias=True,
                 kernel_initializer="glorot_uniform", recurrent_initializer="orthogonal",
                 bias_initializer="zeros", reset_after=True, **kwargs):
        super().__init__(units, activation=activation, recurrent_activation=recurrent_activation,
                         use_bias=use_bias, kernel_initializer=kernel_initializer,
                         recurrent_initializer=recurrent_initializer, bias_initializer=bias_initializer,
                         reset_after=reset_after, **kwargs)
