"""tf.keras.datasets: the bundled dataset loaders.

A re-export module, importable by its dotted path as in TF (`import minitf.keras.datasets`);
every name is the object defined in `minitf.datasets`.
"""
from minitf.datasets import *  # noqa: F401,F403
from minitf.datasets import __all__  # noqa: F401
# The star import bound the defining package's own submodules; drop them so that the import
# below loads this package's re-export modules (`from package import name` imports a submodule
# only when the package has no such attribute yet). Attribute and module are then one object.
del mnist, fashion_mnist, cifar10, digits  # noqa: F405,F821
from minitf.keras.datasets import mnist, fashion_mnist, cifar10, digits  # noqa: E402,F401
