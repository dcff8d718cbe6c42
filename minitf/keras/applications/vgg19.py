"""tf.keras.applications.vgg19: VGG19 and its input preprocessing.

A re-export module, importable by its dotted path as in TF (`import minitf.keras.applications.vgg19`);
every name is the object defined in `minitf.applications.vgg19`.
"""
from minitf.applications.vgg19 import *  # noqa: F401,F403
from minitf.applications.vgg19 import __all__  # noqa: F401
