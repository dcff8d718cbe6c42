"""Adadelta, Keras 3 formulas, updated in place."""
from minitf import backend
from minitf.optimizers.base import Optimizer

__all__ = ["Adadelta"]


class Adadelta(Optimizer):
    """Adadelta: step sizes from running averages of squared gradients and squared updates.

    Slots accumulated_grad (Eg) and accumulated_delta_var (Ed) start at 0; rms(x) = sqrt(x + eps):
    `Eg = rho * Eg + (1 - rho) * g*g`, `delta = -rms(Ed) * g / rms(Eg)`,
    `Ed = rho * Ed + (1 - rho) * delta*delta`, `w += lr * delta`.
    Other keyword arguments (weight_decay, clipnorm, use_ema, ...) are the base Optimizer's.
    """

    def __init__(self, learning_rate=0.001, rho=0.95, epsilon=1e-7, name=None, **kwargs):
        super().__init__(learning_rate, name=name, **kwargs)
        self.rho = rho
        self.epsilon = epsilon

    _slot_names = ("accumulated_grad", "accumulated_delta_var")

    def _update_step(self, grad, var, lr, slots, scratch):
        xp = backend.array_module(var._value)
        eg, ed, w, s, rho = (slots["accumulated_grad"], slots["accumulated_delta_var"],
                             var._buffer_for_update(), scratch, self.rho)
        xp.multiply(grad, grad, out=s)
        s *= 1 - rho
        eg *= rho
        eg += s
        # s = delta = -sqrt(Ed + eps) * g / sqrt(Eg + eps)
        xp.add(ed, self.epsilon, out=s)
        xp.sqrt(s, out=s)
        s *= grad
        xp.negative(s, out=s)
        s /= xp.sqrt(eg + self.epsilon)
        ed *= rho
        ed += (1 - rho) * (s * s)
        s *= lr
        w += s

    def get_config(self):
        """Constructor arguments."""
        config = super().get_config()
        config.update(rho=self.rho, epsilon=self.epsilon)
        return config
