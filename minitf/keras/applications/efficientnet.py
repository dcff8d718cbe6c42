"""tf.keras.applications.efficientnet: EfficientNetB0 ... B7 and its input preprocessing.

A re-export module, importable by its dotted path as in TF (`import minitf.keras.applications.efficientnet`);
every name is the object defined in `minitf.applications.efficientnet`.
"""
from minitf.applications.efficientnet import *  # noqa: F401,F403
from minitf.applications.efficientnet import __all__  # noqa: F401
