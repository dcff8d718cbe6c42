"""tf.keras.datasets.mnist: the MNIST loader.

A re-export module, importable by its dotted path as in TF (`import minitf.keras.datasets.mnist`);
every name is the object defined in `minitf.datasets.mnist`.
"""
from minitf.datasets.mnist import *  # noqa: F401,F403
from minitf.datasets.mnist import __all__  # noqa: F401
