"""Adam (and AMSGrad), Keras 3 formulas, updated in place."""
import math

from minitf import backend, kernels
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
        # m += (g - m)(1 - b1); v += (g^2 - v)(1 - b2); [AMSGrad: vhat = max(vhat, v), used for v];
        # w -= alpha * m / (sqrt(v) + eps): fused, in place, on the arrays' own device
        kernels.for_module(backend.array_module(scratch)).adam_update(
            grad, slots["m"], slots["v"], var._buffer_for_update(), scratch, slots.get("vhat"),
            alpha, one_minus_b1, one_minus_b2, self.epsilon)

    def get_config(self):
        """Constructor arguments."""
        config = super().get_config()
        config.update(beta_1=self.beta_1, beta_2=self.beta_2, epsilon=self.epsilon,
                      amsgrad=self.amsgrad)
        return config

