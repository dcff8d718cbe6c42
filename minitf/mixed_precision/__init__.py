"""Mixed precision: dtype policies and the autocast scope layers compute under.

`tf.keras.mixed_precision` re-exports these names together with `LossScaleOptimizer`
(defined in minitf.optimizers, which sits above the layers).
"""
from minitf.mixed_precision.autocast import AutocastScope
from minitf.mixed_precision.policy import (DTypePolicy, FloatDTypePolicy, Policy, dtype_policy, global_policy,
                                           set_dtype_policy, set_global_policy)

__all__ = ["DTypePolicy", "FloatDTypePolicy", "Policy", "dtype_policy", "global_policy", "set_dtype_policy",
           "set_global_policy", "AutocastScope"]
