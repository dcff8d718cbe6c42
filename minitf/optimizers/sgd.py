"""SGD with optional (Nesterov) momentum, Keras 3 formulas."""
from minitf.optimizers import rules
from minitf.optimizers.base import Optimizer
from minitf.api_export import export

__all__ = ["SGD"]


@export("optimizers.SGD", "keras.optimizers.SGD")
class SGD(Optimizer):
    """Gradient descent with momentum.

    The update is `rules.sgd`: with `momentum == 0`, `w -= lr * g`; otherwise a velocity slot
    (starts at 0) carries the steps, Nesterov's or plain. An IndexedSlices gradient without
    momentum updates only its rows (duplicates summed first), bit for bit the dense update;
    with momentum it is densified first (every row's velocity decays, so every row moves).
    """

    def __init__(self, learning_rate=0.01, momentum=0.0, nesterov=False, weight_decay=None,
                 clipnorm=None, clipvalue=None, global_clipnorm=None, use_ema=False,
                 ema_momentum=0.99, ema_overwrite_frequency=None, loss_scale_factor=None,
                 gradient_accumulation_steps=None, name=None, **kwargs):
        super().__init__(learning_rate, weight_decay=weight_decay, clipnorm=clipnorm,
                         clipvalue=clipvalue, global_clipnorm=global_clipnorm, use_ema=use_ema,
                         ema_momentum=ema_momentum,
                         ema_overwrite_frequency=ema_overwrite_frequency,
                         loss_scale_factor=loss_scale_factor,
                         gradient_accumulation_steps=gradient_accumulation_steps, name=name,
                         **kwargs)
        if not isinstance(momentum, (int, float)) or momentum < 0 or momentum > 1:
            raise ValueError("SGD: `momentum` must be a float between [0, 1]. "
                             f"Received: momentum={momentum} (of type {type(momentum)}).")
        self.momentum = momentum
        self.nesterov = nesterov

    def _slot_names_for(self, var):
        return ("momentum",) if self.momentum != 0 else ()

    def _sparse_ok(self):
        return self.momentum == 0

    _rule = staticmethod(rules.sgd)

    def _rule_constants(self, lr):
        return {"lr": lr, "momentum": self.momentum, "nesterov": self.nesterov}

    def get_config(self):
        """Constructor arguments."""
        config = super().get_config()
        config.update(momentum=self.momentum, nesterov=self.nesterov)
        return config
