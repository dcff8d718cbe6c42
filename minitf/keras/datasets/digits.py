"""tf.keras.datasets.digits: minitf's offline digits data set.

A re-export module, importable by its dotted path as in TF (`import minitf.keras.datasets.digits`);
every name is the object defined in `minitf.datasets.digits`.
"""
from minitf.datasets.digits import *  # noqa: F401,F403
from minitf.datasets.digits import __all__  # noqa: F401
