"""StackedRNNCells: several cells run as one, each feeding its output to the next."""
from minitf.nest import nest
from minitf.keras_core.call_context import spec_of, spec_of_function
from minitf.layers import serialization
from minitf.layers.base import Layer
from minitf.ops import creation
from minitf.api_export import export

__all__ = ["StackedRNNCells"]


@export("layers.StackedRNNCells", "keras.layers.StackedRNNCells")
class StackedRNNCells(Layer):
    """A stack of recurrent cells that behaves as a single cell (used by `RNN([cell1, cell2])`).

    At each step the first cell reads the input, every other cell reads the output of the one
    before; the states are one entry per cell (each entry that cell's own state or states).

    Args:
        cells: the cells, first to last.
        **kwargs: the base Layer's arguments.
    """

    def __init__(self, cells, **kwargs):
        super().__init__(**kwargs)
        for cell in cells:
            if not callable(getattr(cell, "call", None)):
                raise ValueError(f"All cells must have a `call` method. Received cell without a "
                                 f"`call` method: {cell}")
            if getattr(cell, "state_size", None) is None:
                raise ValueError(f"All cells must have a `state_size` attribute. Received cell "
                                 f"without a `state_size`: {cell}")
        self.cells = list(cells)

    @property
    def state_size(self):
        """One entry per cell: that cell's state_size."""
        return [c.state_size for c in self.cells]

    @property
    def output_size(self):
        """The last cell's output size."""
        last = self.cells[-1]
        if getattr(last, "output_size", None) is not None:
            return last.output_size
        return last.state_size[0] if isinstance(last.state_size, (list, tuple)) else last.state_size

    def get_initial_state(self, batch_size=None):
        """Each cell's zero state(s), in order."""
        out = []
        for cell in self.cells:
            fn = getattr(cell, "get_initial_state", None)
            if fn is not None:
                out.append(fn(batch_size=batch_size))
            elif isinstance(cell.state_size, int):
                out.append(creation.zeros((batch_size, cell.state_size), dtype=self.dtype))
            else:
                out.append([creation.zeros((batch_size, d), dtype=self.dtype) for d in cell.state_size])
        return out

    def build(self, input_shape):
        """Build each cell for the output size of the one before."""
        shape = tuple(input_shape.as_list()) if hasattr(input_shape, "as_list") else tuple(input_shape)
        for cell in self.cells:
            if isinstance(cell, Layer) and not cell.built:
                with cell._scope():
                    cell.build(shape)
                cell.built = True
                cell._build_input_shape = shape
            size = getattr(cell, "output_size", None)
            if size is None:
                size = cell.state_size[0] if isinstance(cell.state_size, (list, tuple)) else cell.state_size
            shape = (shape[0], size)
        self.built = True

    def call(self, inputs, states, training=False):
        """One step through every cell: (last output, [new states of each cell])."""
        new_states = []
        for cell, state in zip(self.cells, states):
            is_list = nest.is_nested(state)
            state = list(state) if is_list else [state]
            takes = spec_of(cell).takes_training if isinstance(cell, Layer) else \
                spec_of_function(cell.call).takes_training
            kwargs = {"training": training} if takes else {}
            inputs, state = cell(inputs, state, **kwargs) if isinstance(cell, Layer) \
                else cell.call(inputs, state, **kwargs)
            state = list(state) if isinstance(state, (list, tuple)) else [state]
            new_states.append(state[0] if len(state) == 1 and not is_list else state)
        return inputs, new_states

    def get_config(self):
        """The cells' configs."""
        config = super().get_config()
        config["cells"] = [serialization.serialize(c) for c in self.cells]
        return config

    @classmethod
    def from_config(cls, config, custom_objects=None):
        """A new stack with the cells rebuilt from their configs."""
        config = dict(config)
        cells = [serialization.deserialize(c, custom_objects=custom_objects) for c in config.pop("cells")]
        return cls(cells, **config)
