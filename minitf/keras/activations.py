"""tf.keras.activations: activation functions.

A re-export module, importable by its dotted path as in TF (`import minitf.keras.activations`);
every name is the object defined in `minitf.activations`.
"""
from minitf.activations import *  # noqa: F401,F403
from minitf.activations import __all__  # noqa: F401
