"""tf.keras.metrics: metric classes and functions.

A re-export module, importable by its dotted path as in TF (`import minitf.keras.metrics`);
every name is the object defined in `minitf.metrics`.
"""
from minitf.metrics import *  # noqa: F401,F403
from minitf.metrics import __all__  # noqa: F401
