"""Adagrad, Keras 3 formulas, updated in place."""
from minitf.optimizers import rules
from minitf.optimizers.base import Optimizer
from minitf.api_export import export

__all__ = ["Adagrad"]


@export("optimizers.Adagrad", "keras.optimizers.Adagrad")
class Adagrad(Optimizer):
    """Per-parameter learning rates that shrink with the sum of squared gradients.

    The update is `rules.adagrad`; the accumulator slot starts at `initial_accumulator_value`.
    An IndexedSlices gradient reads and writes only its rows of the variable and accumulator
    (duplicate indices summed first), bit for bit the dense update.
    Other keyword arguments (weight_decay, clipnorm, use_ema, ...) are the base Optimizer's.
    """

    def __init__(self, learning_rate=0.001, initial_accumulator_value=0.1, epsilon=1e-7,
                 name=None, **kwargs):
        super().__init__(learning_rate, name=name, **kwargs)
        self.initial_accumulator_value = initial_accumulator_value
        self.epsilon = epsilon

    _slot_names = ("accumulator",)

    def _slot_initial_value(self, name):
        return float(self.initial_accumulator_value)

    def _sparse_ok(self):
        return True

    _rule = staticmethod(rules.adagrad)

    def _rule_constants(self, lr):
        return {"lr": lr, "epsilon": self.epsilon}

    def get_config(self):
        """Constructor arguments."""
        config = super().get_config()
        config.update(initial_accumulator_value=self.initial_accumulator_value,
                      epsilon=self.epsilon)
        return config
