"""RMSprop, Keras 3 formulas, updated in place."""
from minitf.optimizers import rules
from minitf.optimizers.base import Optimizer
from minitf.api_export import export

__all__ = ["RMSprop"]


@export("optimizers.RMSprop", "keras.optimizers.RMSprop")
class RMSprop(Optimizer):
    """Divide the gradient by a running root-mean-square of recent gradients.

    The update is `rules.rmsprop`. Slots: velocity, plus momentum when `momentum > 0` and
    average_gradient when `centered`; all start at 0.
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

    _rule = staticmethod(rules.rmsprop)

    def _rule_constants(self, lr):
        return {"lr": lr, "rho": self.rho, "momentum": self.momentum, "epsilon": self.epsilon,
                "centered": self.centered}

    def get_config(self):
        """Constructor arguments."""
        config = super().get_config()
        config.update(rho=self.rho, momentum=self.momentum, epsilon=self.epsilon,
                      centered=self.centered)
        return config
