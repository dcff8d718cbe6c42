"""Adam (and AMSGrad), Keras 3 formulas, updated in place."""
import math

from minitf import backend
from minitf.optimizers.base import Optimizer

__all__ = ["Adam"]


class Adam(Optimizer):
    """Adaptive moment estimation.

    With t = iterations + 1 and slots m, v (and v_hat for AMSGrad) starting at 0:
    `alpha = lr * sqrt(1 - beta_2**t) / (1 - beta_1**t)`,
    `m += (g - m) * (1 - beta_1)`, `v += (g*g - v) * (1 - beta_2)`,
    AMSGrad: `v_hat = max(v_hat, v)` and v_hat replaces v below,
    `w -= m * alpha / (sqrt(v) + epsilon)`.
    Keras 3 computes this with dense ops, so an IndexedSlices gradient is densified (every row's
    moments decay each step); the result equals the dense gradient's.
    """

    def __init__(self, learning_rate=0.001, beta_1=0.9, beta_2=0.999, epsilon=1e-7,
                 amsgrad=False, weight_decay=None, clipnorm=None, clipvalue=None,
                 global_clipnorm=None, use_ema=False, ema_momentum=0.99,
                 ema_overwrite_frequency=None, loss_scale_factor=None,
                 gradient_accumulation_steps=None, name=None, **kwargs):
        super().__init__(learning_rate, weight_decay=weight_decay, clipnorm=clipnorm,
                         clipvalue=clipvalue, global_clipnorm=global_clipnorm, use_ema=use_ema,
                         ema_momentum=ema_momentum,
                         ema_overwrite_frequency=ema_overwrite_frequency,
                         loss_scale_factor=loss_scale_factor,
                         gradient_accumulation_steps=gradient_accumulation_steps, name=name,
                         **kwargs)
        self.beta_1 = beta_1
        self.beta_2 = beta_2
        self.epsilon = epsilon
        self.amsgrad = amsgrad

    def _slot_names_for(self, var):
        return ("m", "v", "vhat") if self.amsgrad else ("m", "v")

    def _step_constants(self, lr):
        """(alpha, 1 - beta_1, 1 - beta_2) for this step, computed once per step (not per
        variable): the same Python floats as before, so the results do not change."""
        key = (int(self._iterations._value), lr, self.beta_1, self.beta_2)
        cached = self._constants
        if cached is None or cached[0] != key:
            t = key[0] + 1
            alpha = lr * math.sqrt(1 - self.beta_2 ** t) / (1 - self.beta_1 ** t)
            cached = self._constants = (key, (alpha, 1 - self.beta_1, 1 - self.beta_2))
        return cached[1]

    _constants = None

    def _update_step(self, grad, var, lr, slots, scratch):
        alpha, one_minus_b1, one_minus_b2 = self._step_constants(lr)
        eps = self.epsilon
        xp = backend.array_module(scratch)
        arrays = [grad, slots["m"], slots["v"], var._buffer_for_update(), scratch]
        if self.amsgrad:
            arrays.append(slots["vhat"])

        def kernel(g, m, v, w, s, vhat=None):
            _adam_kernel(xp, g, m, v, w, s, vhat, alpha, one_minus_b1, one_minus_b2, eps)
        self._map_blocks(kernel, arrays)

    def get_config(self):
        """Constructor arguments."""
        config = super().get_config()
        config.update(beta_1=self.beta_1, beta_2=self.beta_2, epsilon=self.epsilon,
                      amsgrad=self.amsgrad)
        return config


def _adam_kernel(xp, g, m, v, w, s, vhat, alpha, one_minus_b1, one_minus_b2, eps):
    """The in-place Adam update on one block of the flat arrays (`s` is scratch).

    Each line is one pass of one ufunc writing into an existing array; the order of the
    floating-point operations is the documented formula's, which the tests pin down bit for bit.
    """
    subtract, multiply = xp.subtract, xp.multiply
    subtract(g, m, out=s)
    s *= one_minus_b1
    m += s
    multiply(g, g, out=s)
    s -= v
    s *= one_minus_b2
    v += s
    if vhat is not None:
        xp.maximum(vhat, v, out=vhat)
        v = vhat
    xp.sqrt(v, out=s)
    s += eps
    xp.divide(m, s, out=s)
    s *= alpha
    w -= s
