"""tf.keras.constraints: weight constraints.

A re-export module, importable by its dotted path as in TF (`import minitf.keras.constraints`);
every name is the object defined in `minitf.constraints`.
"""
from minitf.constraints import *  # noqa: F401,F403
from minitf.constraints import __all__  # noqa: F401
