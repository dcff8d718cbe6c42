"""tf.keras.models: Model, Sequential, Input and clone_model.

A re-export module, importable by its dotted path as in TF (`import minitf.keras.models`);
every name is the object defined in `minitf.models`.
"""
from minitf.keras._reexport import public_names
from minitf import models as _source

__all__ = public_names(_source)
globals().update({name: getattr(_source, name) for name in __all__})
