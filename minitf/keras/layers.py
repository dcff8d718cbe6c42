"""tf.keras.layers: the Layer base class and the built-in layers.

A re-export module, importable by its dotted path as in TF (`import minitf.keras.layers`);
every name is the object defined in `minitf.layers`.
"""
from minitf.keras._reexport import public_names
from minitf import layers as _source

__all__ = public_names(_source)
globals().update({name: getattr(_source, name) for name in __all__})
