"""tf.keras.callbacks: the hooks fit, evaluate and predict call.

A re-export module, importable by its dotted path as in TF (`import minitf.keras.callbacks`);
every name is the object defined in `minitf.callbacks`.
"""
from minitf.callbacks import *  # noqa: F401,F403
from minitf.callbacks import __all__  # noqa: F401
