"""RMSprop, Keras 3 formulas, updated in place."""
from minitf import backend
from minitf.optimizers.base import Optimizer

__all__ = ["RMSprop"]


class RMSprop(Optimizer):
    """Divide the gradient by a running root-mean-square of recent gradients.

    Slots: velocity (v), plus momentum (mom) when `momentum > 0` and average_gradient (a) when
    `centered`; all start at 0.
    `v = rho * v + (1 - rho) * g*g`; centered: `a = rho * a + (1 - rho) * g` and
    `denom = v - a*a + epsilon`, else `denom = v + epsilon`;
    `inc = lr * g / sqrt(denom)`; with momentum `mom = momentum * mom + inc; w -= mom`,
    else `w -= inc`. (Keras 3 puts epsilon inside the square root.)
    Other keyword arguments (weight_decay, clipnorm, use_ema, ...) are the base Optimizer's.
    """

    def __init__(self, learning_rate=0.001, rho=0.9, momentum=0.0, epsilon=1e-7,
                 centered=False, name=None, **kwargs):
        super().__init__(learning_rate, name=name, **kwargs)
        self.rho = rho
        self.momentum = momentum
        self.epsilon = epsilon
        self.centered = centered

    def _slot_names_for(self, var):
        names = ["velocity"]
        if self.momentum > 0:
            names.append("momentum")
        if self.centered:
            names.append("average_gradient")
        return tuple(names)

    def _update_step(self, grad, var, lr, slots, scratch):
        xp = backend.array_module(var._value)
        v, w, s, rho = slots["velocity"], var._buffer_for_update(), scratch, self.rho
        xp.multiply(grad, grad, out=s)
        s *= 1 - rho
        v *= rho
        v += s
        if self.centered:
            a = slots["average_gradient"]
            a *= rho
            xp.multiply(grad, 1 - rho, out=s)
            a += s
            xp.multiply(a, a, out=s)
            xp.subtract(v, s, out=s)
        else:
            s[...] = v
        s += self.epsilon
        xp.sqrt(s, out=s)
        xp.divide(grad, s, out=s)
        s *= lr
        if self.momentum > 0:
            mom = slots["momentum"]
            mom *= self.momentum
            mom += s
            w -= mom
        else:
            w -= s

    def get_config(self):
        """Constructor arguments."""
        config = super().get_config()
        config.update(rho=self.rho, momentum=self.momentum, epsilon=self.epsilon,
                      centered=self.centered)
        return config
