"""FTRL-Proximal ("Follow The Regularized Leader"), Keras 3 formulas."""
from minitf import backend
from minitf.optimizers.base import Optimizer

__all__ = ["Ftrl"]


class Ftrl(Optimizer):
    """FTRL-Proximal with online L1/L2 and shrinkage-type L2 regularization.

    Slots: `accumulator` (n, starts at `initial_accumulator_value`) and `linear` (z, starts
    at 0). With p = -learning_rate_power and `l2 = l2_regularization_strength + beta / (2 lr)`:
    `n_new = n + g*g`,
    `z += g + 2 * l2_shrinkage * w - (n_new**p - n**p) / lr * w`,
    `w = (clip(z, -l1, l1) - z) / (n_new**p / lr + 2 * l2)`, `n = n_new`.
    As in Keras, a variable's value is recomputed from (z, n) every step, so rows whose gradient
    is zero still change (on the first step they become 0); an IndexedSlices gradient is
    therefore densified. Other keyword arguments (weight_decay, clipnorm, use_ema, ...) are the
    base Optimizer's.
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

    def _update_step(self, grad, var, lr, slots, scratch):
        xp = backend.array_module(var._value)
        acc, lin, w, s = slots["accumulator"], slots["linear"], var._buffer_for_update(), scratch
        power = -self.learning_rate_power
        l2 = self.l2_regularization_strength + self.beta / (2.0 * lr)
        old_pow = xp.power(acc, power)
        xp.multiply(grad, grad, out=s)
        acc += s
        new_pow = xp.power(acc, power)
        # s = g + 2 * l2_shrinkage * w - (n_new**p - n**p) / lr * w, then z += s
        if self.l2_shrinkage_regularization_strength:
            xp.multiply(w, 2 * self.l2_shrinkage_regularization_strength, out=s)
            s += grad
        else:
            s[...] = grad
        xp.subtract(new_pow, old_pow, out=old_pow)
        old_pow /= lr
        old_pow *= w
        s -= old_pow
        lin += s
        # w = (clip(z, -l1, l1) - z) / (n_new**p / lr + 2 * l2)
        new_pow /= lr
        new_pow += 2 * l2
        l1 = self.l1_regularization_strength
        xp.clip(lin, -l1, l1, out=s)
        s -= lin
        xp.divide(s, new_pow, out=w)

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
