"""tf.keras.mixed_precision: dtype policies and LossScaleOptimizer (re-exports only).

The policies live in minitf.mixed_precision, LossScaleOptimizer in minitf.optimizers; as in
Keras 3, `Policy` is `DTypePolicy` and `set_global_policy`/`global_policy` are
`set_dtype_policy`/`dtype_policy`.
"""
from minitf.mixed_precision.policy import (DTypePolicy, Policy, dtype_policy, global_policy, set_dtype_policy,
                                           set_global_policy)
from minitf.optimizers.loss_scale_optimizer import LossScaleOptimizer

__all__ = ["DTypePolicy", "LossScaleOptimizer", "Policy", "dtype_policy", "global_policy", "set_dtype_policy",
           "set_global_policy"]
