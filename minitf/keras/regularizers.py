"""tf.keras.regularizers: weight regularizers.

A re-export module, importable by its dotted path as in TF (`import minitf.keras.regularizers`);
every name is the object defined in `minitf.regularizers`.
"""
from minitf.regularizers import *  # noqa: F401,F403
from minitf.regularizers import __all__  # noqa: F401
# TF lists this alias in tf.keras.regularizers; the defining module keeps it out of its `__all__`
from minitf.regularizers import orthogonal_regularizer  # noqa: E402,F401

__all__ = [*__all__, "orthogonal_regularizer"]
