"""tf.keras.random: SeedGenerator and Keras 3's seeded random functions (re-exports only;
implemented in minitf.keras_ops.random). Seeded draws equal Keras-on-TF's bit for bit, except
gamma and beta, which draw from the same distributions with other numbers."""
from minitf.keras_ops.random import (SeedGenerator, beta, binomial, categorical, dropout,  # noqa: F401
                                     gamma, normal, randint, shuffle, truncated_normal, uniform)

__all__ = ["SeedGenerator", "beta", "binomial", "categorical", "dropout", "gamma", "normal",
           "randint", "shuffle", "truncated_normal", "uniform"]
