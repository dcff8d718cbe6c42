"""FTRL-Proximal ("Follow The Regularized Leader"), Keras 3 formulas."""
from minitf.optimizers import rules
from minitf.optimizers.base import Optimizer
from minitf.api_export import export

__all__ = ["Ftrl"]


@export("optimizers.Ftrl", "keras.optimizers.Ftrl")
class Ftrl(Optimizer):
    """FTRL-Proximal with online L1/L2 and shrinkage-type L2 regularization.

    Slots: `accumulator` (n, starts at `initial_accumulator_value`) and `linear` (z, starts
    at 0); the update is `rules.ftrl`. As in Keras, a variable's value is recomputed from (z, n)
    every step, so rows whose gradient is zero still change (on the first step they become 0);
    an IndexedSlices gradient is therefore densified. Other keyword arguments (weight_decay,
    clipnorm, use_ema, ...) are the base Optimizer's.
    """

    _slot_names = ("accumulator", "linear")

    def __init__(self, learning_rate=0.001, learning_rate_power=-0.5,
                 initial_accumulator_value=0.1, l1_regularization_strength=0.0,
                 l2_regularization_strength=0.0, l2_shrinkage_regularization_strength=0.0,
                 beta=0.0, name=None, **kwargs):
        super().__init__(learning_rate, name=name, **kwargs)
        _check_non_negative("initial_accumulator_value", initial_accumulator_value)
        if learning_rate_power > 0.0:
            raise ValueError("`learning_rate_power` needs to be negative or zero. Received: "
                             f"learning_rate_power={learning_rate_power}.")
        _check_non_negative("l1_regularization_strength", l1_regularization_strength)
        _check_non_negative("l2_regularization_strength", l2_regularization_strength)
        _check_non_negative("l2_shrinkage_regularization_strength",
                            l2_shrinkage_regularization_strength)
        self.learning_rate_power = learning_rate_power
        self.initial_accumulator_value = initial_accumulator_value
        self.l1_regularization_strength = l1_regularization_strength
        self.l2_regularization_strength = l2_regularization_strength
        self.l2_shrinkage_regularization_strength = l2_shrinkage_regularization_strength
        self.beta = beta

    def _slot_initial_value(self, name):
        return float(self.initial_accumulator_value) if name == "accumulator" else "zeros"

    _rule = staticmethod(rules.ftrl)

    def _rule_constants(self, lr):
        return {"lr": lr, "power": -self.learning_rate_power, "l1": self.l1_regularization_strength,
                "l2": self.l2_regularization_strength + self.beta / (2.0 * lr),
                "l2_shrinkage": self.l2_shrinkage_regularization_strength}

    def get_config(self):
        """Constructor arguments."""
        config = super().get_config()
        config.update(learning_rate_power=self.learning_rate_power,
                      initial_accumulator_value=self.initial_accumulator_value,
                      l1_regularization_strength=self.l1_regularization_strength,
                      l2_regularization_strength=self.l2_regularization_strength,
                      l2_shrinkage_regularization_strength=(
                          self.l2_shrinkage_regularization_strength),
                      beta=self.beta)
        return config


def _check_non_negative(name, value):
    if value < 0.0:
        raise ValueError(f"`{name}` needs to be positive or zero. Received: {name}={value}.")
