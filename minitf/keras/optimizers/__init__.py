"""tf.keras.optimizers: the optimizers, their registry functions and schedules.

A re-export module, importable by its dotted path as in TF (`import minitf.keras.optimizers`);
every name is the object defined in `minitf.optimizers`.
"""
from minitf.optimizers import *  # noqa: F401,F403
from minitf.optimizers import __all__  # noqa: F401
# The star import bound the defining package's own submodules; drop them so that the import
# below loads this package's re-export modules (`from package import name` imports a submodule
# only when the package has no such attribute yet). Attribute and module are then one object.
del schedules, legacy  # noqa: F405,F821
from minitf.keras.optimizers import schedules, legacy  # noqa: E402,F401
