"""tf.keras.saving: save_model, load_model and the custom-object registry.

A re-export module, importable by its dotted path as in TF (`import minitf.keras.saving`);
every name is the object defined in `minitf.saving`.
"""
from minitf.saving import *  # noqa: F401,F403
from minitf.saving import __all__  # noqa: F401
