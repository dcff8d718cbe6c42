"""Adamax (Adam with the infinity norm), Keras 3 formulas."""
from minitf import backend
from minitf.optimizers.base import Optimizer

__all__ = ["Adamax"]


class Adamax(Optimizer):
    """Adam's variant built on the infinity norm.

    With t = iterations + 1 and slots m, u starting at 0:
    `m += (g - m) * (1 - beta_1)`, `u = max(beta_2 * u, |g|)`,
    `w -= lr * m / ((1 - beta_1**t) * (u + epsilon))`.
    Other keyword arguments (weight_decay, clipnorm, use_ema, ...) are the base Optimizer's.
    """

    def __init__(self, learning_rate=0.001, beta_1=0.9, beta_2=0.999, epsilon=1e-7,
                 name=None, **kwargs):
        super().__init__(learning_rate, name=name, **kwargs)
        self.beta_1 = beta_1
        self.beta_2 = beta_2
        self.epsilon = epsilon

    _slot_names = ("m", "u")

    def _update_step(self, grad, var, lr, slots, scratch):
        xp = backend.array_module(var._value)
        t = int(self._iterations._value) + 1
        m, u, w, s = slots["m"], slots["u"], var._buffer_for_update(), scratch
        xp.subtract(grad, m, out=s)
        s *= 1 - self.beta_1
        m += s
        u *= self.beta_2
        xp.abs(grad, out=s)
        xp.maximum(u, s, out=u)
        xp.add(u, self.epsilon, out=s)
        s *= 1 - self.beta_1 ** t
        xp.divide(m, s, out=s)
        s *= lr
        w -= s

    def get_config(self):
        """Constructor arguments."""
        config = super().get_config()
        config.update(beta_1=self.beta_1, beta_2=self.beta_2, epsilon=self.epsilon)
        return config
