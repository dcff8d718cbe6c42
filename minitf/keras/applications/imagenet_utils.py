"""tf.keras.applications.imagenet_utils: ImageNet input preprocessing and prediction decoding.

A re-export module, importable by its dotted path as in TF (`import minitf.keras.applications.imagenet_utils`);
every name is the object defined in `minitf.applications.imagenet_utils`.
"""
from minitf.applications.imagenet_utils import *  # noqa: F401,F403
from minitf.applications.imagenet_utils import __all__  # noqa: F401
