"""Adagrad, Keras 3 formulas, updated in place."""
from minitf import backend
from minitf.optimizers.base import Optimizer

__all__ = ["Adagrad"]


class Adagrad(Optimizer):
    """Per-parameter learning rates that shrink with the sum of squared gradients.

    Slot accumulator starts at `initial_accumulator_value`:
    `acc += g*g`, `w -= lr * g / sqrt(acc + epsilon)`.
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

    def _update_step(self, grad, var, lr, slots, scratch):
        if type(grad) is tuple:
            self._update_rows(grad, var._buffer_for_update(), slots["accumulator"], lr)
            return
        xp = backend.array_module(var._value)
        acc, w, s = slots["accumulator"], var._buffer_for_update(), scratch
        xp.multiply(grad, grad, out=s)
        acc += s
        xp.add(acc, self.epsilon, out=s)
        xp.sqrt(s, out=s)
        xp.divide(grad, s, out=s)
        s *= lr
        w -= s

    def _update_rows(self, grad, w, acc, lr):
        """The dense step's operations on the touched rows only (a zero-gradient row's
        accumulator and value are unchanged by the dense step)."""
        xp = backend.array_module(w)
        rows, g = grad
        row_acc = acc[rows]
        row_acc += g * g
        acc[rows] = row_acc
        s = xp.add(row_acc, self.epsilon)
        xp.sqrt(s, out=s)
        xp.divide(g, s, out=s)
        s *= lr
        w[rows] -= s

    def get_config(self):
        """Constructor arguments."""
        config = super().get_config()
        config.update(initial_accumulator_value=self.initial_accumulator_value,
                      epsilon=self.epsilon)
        return config
