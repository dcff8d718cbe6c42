"""tf.keras.losses: loss classes and functions.

A re-export module, importable by its dotted path as in TF (`import minitf.keras.losses`);
every name is the object defined in `minitf.losses`.
"""
from minitf.losses import *  # noqa: F401,F403
from minitf.losses import __all__  # noqa: F401
