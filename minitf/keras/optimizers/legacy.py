"""tf.keras.optimizers.legacy: the six names Keras 3 keeps, none of them constructible.

A module, so `import minitf.keras.optimizers.legacy` works as in TF; building any of these
raises ImportError pointing at the current optimizers (see `minitf.optimizers.legacy`).
"""
from minitf.optimizers import legacy as _legacy

__all__ = ["Adagrad", "Adam", "Ftrl", "Optimizer", "RMSprop", "SGD"]

Adagrad = _legacy.Adagrad
Adam = _legacy.Adam
Ftrl = _legacy.Ftrl
Optimizer = _legacy.Optimizer
RMSprop = _legacy.RMSprop
SGD = _legacy.SGD
