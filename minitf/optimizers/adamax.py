"""Adamax (Adam with the infinity norm), Keras 3 formulas."""
from minitf.optimizers import rules
from minitf.optimizers.base import Optimizer
from minitf.api_export import export

__all__ = ["Adamax"]


@export("optimizers.Adamax", "keras.optimizers.Adamax")
class Adamax(Optimizer):
    """Adam's variant built on the infinity norm.

    The update is `rules.adamax`, with t = iterations + 1 and slots m, u starting at 0.
    Other keyword arguments (weight_decay, clipnorm, use_ema, ...) are the base Optimizer's.
    """

    def __init__(self, learning_rate=0.001, beta_1=0.9, beta_2=0.999, epsilon=1e-7,
                 name=None, **kwargs):
        super().__init__(learning_rate, name=name, **kwargs)
        self.beta_1 = beta_1
        self.beta_2 = beta_2
        self.epsilon = epsilon

    _slot_names = ("m", "u")

    _rule = staticmethod(rules.adamax)

    def _rule_constants(self, lr):
        return {"lr": lr, "beta_1": self.beta_1, "beta_2": self.beta_2, "epsilon": self.epsilon,
                "t": int(self._iterations._value) + 1}

    def get_config(self):
        """Constructor arguments."""
        config = super().get_config()
        config.update(beta_1=self.beta_1, beta_2=self.beta_2, epsilon=self.epsilon)
        return config
