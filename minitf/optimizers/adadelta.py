"""Adadelta, Keras 3 formulas, updated in place."""
from minitf.optimizers import rules
from minitf.optimizers.base import Optimizer
from minitf.api_export import export

__all__ = ["Adadelta"]


@export("optimizers.Adadelta", "keras.optimizers.Adadelta")
class Adadelta(Optimizer):
    """Adadelta: step sizes from running averages of squared gradients and squared updates.

    The update is `rules.adadelta`; the slots accumulated_grad (Eg) and accumulated_delta_var
    (Ed) start at 0.
    Other keyword arguments (weight_decay, clipnorm, use_ema, ...) are the base Optimizer's.
    """

    def __init__(self, learning_rate=0.001, rho=0.95, epsilon=1e-7, name=None, **kwargs):
        super().__init__(learning_rate, name=name, **kwargs)
        self.rho = rho
        self.epsilon = epsilon

    _slot_names = ("accumulated_grad", "accumulated_delta_var")

    _rule = staticmethod(rules.adadelta)

    def _rule_constants(self, lr):
        return {"lr": lr, "rho": self.rho, "epsilon": self.epsilon}

    def get_config(self):
        """Constructor arguments."""
        config = super().get_config()
        config.update(rho=self.rho, epsilon=self.epsilon)
        return config
