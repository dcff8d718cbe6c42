"""Nadam (Adam with Nesterov momentum), Keras 3 formulas."""
from minitf.optimizers import rules
from minitf.optimizers.base import Optimizer
from minitf.variable import Variable
from minitf.api_export import export

__all__ = ["Nadam"]


@export("optimizers.Nadam", "keras.optimizers.Nadam")
class Nadam(Optimizer):
    """Adam with Nesterov momentum and Keras's momentum-decay schedule.

    The update is `rules.nadam` with t = iterations + 1; the running product of the momentum
    schedule `u_prod *= u_t` (starts at 1, advanced once per step before it) is a float
    variable saved with the optimizer ('u_product').
    Other keyword arguments (weight_decay, clipnorm, use_ema, ...) are the base Optimizer's.
    """

    def __init__(self, learning_rate=0.001, beta_1=0.9, beta_2=0.999, epsilon=1e-7,
                 name=None, **kwargs):
        super().__init__(learning_rate, name=name, **kwargs)
        self.beta_1 = beta_1
        self.beta_2 = beta_2
        self.epsilon = epsilon
        self._u_product = Variable(1.0, trainable=False, name="u_product")
        self._u_product_step = -1  # the iteration whose factor is already in _u_product

    _slot_names = ("m", "v")

    def _checkpoint_dependencies(self):
        return super()._checkpoint_dependencies() + [("u_product", self._u_product)]

    @property
    def variables(self):
        """Base variables plus the momentum-schedule product."""
        return super().variables[:2] + [self._u_product] + super().variables[2:]

    def _advance_u_product(self, t):
        if self._u_product_step != t:
            u_t = self.beta_1 * (1.0 - 0.5 * 0.96 ** t)
            self._u_product.assign(float(self._u_product._value) * u_t)
            self._u_product_step = t

    _rule = staticmethod(rules.nadam)

    def _rule_constants(self, lr):
        t = int(self._iterations._value) + 1
        self._advance_u_product(t)
        b1 = self.beta_1
        u_t = b1 * (1.0 - 0.5 * 0.96 ** t)
        u_t1 = b1 * (1.0 - 0.5 * 0.96 ** (t + 1))
        u_prod = float(self._u_product._value)
        return {"lr": lr, "beta_1": b1, "beta_2": self.beta_2, "epsilon": self.epsilon, "t": t,
                "u_t": u_t, "u_t1": u_t1, "u_prod": u_prod, "u_prod1": u_prod * u_t1}

    def get_config(self):
        """Constructor arguments."""
        config = super().get_config()
        config.update(beta_1=self.beta_1, beta_2=self.beta_2, epsilon=self.epsilon)
        return config
