"""tf.keras.initializers: weight initializers.

A re-export module, importable by its dotted path as in TF (`import minitf.keras.initializers`);
every name is the object defined in `minitf.initializers`.
"""
from minitf.initializers import *  # noqa: F401,F403
from minitf.initializers import __all__  # noqa: F401
