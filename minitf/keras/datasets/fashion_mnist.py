"""tf.keras.datasets.fashion_mnist: the Fashion-MNIST loader.

A re-export module, importable by its dotted path as in TF (`import minitf.keras.datasets.fashion_mnist`);
every name is the object defined in `minitf.datasets.fashion_mnist`.
"""
from minitf.datasets.fashion_mnist import *  # noqa: F401,F403
from minitf.datasets.fashion_mnist import __all__  # noqa: F401
