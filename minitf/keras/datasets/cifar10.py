"""tf.keras.datasets.cifar10: the CIFAR-10 loader.

A re-export module, importable by its dotted path as in TF (`import minitf.keras.datasets.cifar10`);
every name is the object defined in `minitf.datasets.cifar10`.
"""
from minitf.datasets.cifar10 import *  # noqa: F401,F403
from minitf.datasets.cifar10 import __all__  # noqa: F401
