"""Nadam (Adam with Nesterov momentum), Keras 3 formulas."""
from minitf import backend
from minitf.optimizers.base import Optimizer
from minitf.variable import Variable

__all__ = ["Nadam"]


class Nadam(Optimizer):
    """Adam with Nesterov momentum and Keras's momentum-decay schedule.

    t = iterations + 1; `u_t = beta_1 * (1 - 0.5 * 0.96**t)`,
    `u_t1 = beta_1 * (1 - 0.5 * 0.96**(t+1))`; a running product `u_prod *= u_t` (starts at 1,
    updated before the step), `u_prod1 = u_prod * u_t1`;
    `m += (g - m) * (1 - beta_1)`, `v += (g*g - v) * (1 - beta_2)`,
    `m_hat = u_t1 * m / (1 - u_prod1) + (1 - u_t) * g / (1 - u_prod)`,
    `v_hat = v / (1 - beta_2**t)`, `w -= lr * m_hat / (sqrt(v_hat) + epsilon)`.
    The running product is a float variable saved with the optimizer ('u_product').
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

    def _update_step(self, grad, var, lr, slots, scratch):
        xp = backend.array_module(var._value)
        t = int(self._iterations._value) + 1
        self._advance_u_product(t)
        b1, b2 = self.beta_1, self.beta_2
        u_t = b1 * (1.0 - 0.5 * 0.96 ** t)
        u_t1 = b1 * (1.0 - 0.5 * 0.96 ** (t + 1))
        u_prod = float(self._u_product._value)
        u_prod1 = u_prod * u_t1
        m, v, w, s = slots["m"], slots["v"], var._buffer_for_update(), scratch
        xp.subtract(grad, m, out=s)
        s *= 1 - b1
        m += s
        xp.multiply(grad, grad, out=s)
        s -= v
        s *= 1 - b2
        v += s
        # s = sqrt(v_hat) + eps, then m_hat / s
        xp.multiply(v, 1.0 / (1 - b2 ** t), out=s)
        xp.sqrt(s, out=s)
        s += self.epsilon
        m_hat = m * (u_t1 / (1 - u_prod1))
        m_hat += grad * ((1 - u_t) / (1 - u_prod))
        xp.divide(m_hat, s, out=s)
        s *= lr
        w -= s

    def get_config(self):
        """Constructor arguments."""
        config = super().get_config()
        config.update(beta_1=self.beta_1, beta_2=self.beta_2, epsilon=self.epsilon)
        return config
