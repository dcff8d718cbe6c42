"""tf.keras.optimizers.schedules: learning-rate schedules.

A re-export module, importable by its dotted path as in TF (`import minitf.keras.optimizers.schedules`);
every name is the object defined in `minitf.optimizers.schedules`.
"""
from minitf.optimizers.schedules import *  # noqa: F401,F403
from minitf.optimizers.schedules import __all__  # noqa: F401
