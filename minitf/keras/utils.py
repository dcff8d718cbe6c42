"""tf.keras.utils: get_file, to_categorical, normalize, Progbar.

A re-export module, importable by its dotted path as in TF (`import minitf.keras.utils`);
every name is the object defined in `minitf.utils`.
"""
from minitf.utils import *  # noqa: F401,F403
from minitf.utils import __all__  # noqa: F401
