"""Mixed precision: dtype policies and the autocast scope layers compute under.

`tf.keras.mixed_precision` re-exports these names together with `LossScaleOptimizer`
(defined in minitf.optimizers, which sits above the layers).
"""
