"""Adam (and AMSGrad), Keras 3 formulas, updated in place."""
import math

from minitf.optimizers import rules
from minitf.optimizers.base import Optimizer
from minitf.api_export import export

__all__ = ["Adam"]


@export("optimizers.Adam", "keras.optimizers.Adam")
class Adam(Optimizer):
    """Adaptive moment estimation.

    The update is `rules.adam`, with t = iterations + 1 in its bias correction and slots m, v
    (and vhat for AMSGrad) starting at 0. Keras 3 computes this with dense ops, so an
    IndexedSlices gradient is densified (every row's moments decay each step); the result
    equals the dense gradient's.
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

    _rule = staticmethod(rules.adam)

    def _rule_constants(self, lr):
        t = int(self._iterations._value) + 1
        alpha = lr * math.sqrt(1 - self.beta_2 ** t) / (1 - self.beta_1 ** t)
        return {"alpha": alpha, "one_minus_b1": 1 - self.beta_1, "one_minus_b2": 1 - self.beta_2,
                "epsilon": self.epsilon}

    def get_config(self):
        """Constructor arguments."""
        config = super().get_config()
        config.update(beta_1=self.beta_1, beta_2=self.beta_2, epsilon=self.epsilon,
                      amsgrad=self.amsgrad)
        return config

