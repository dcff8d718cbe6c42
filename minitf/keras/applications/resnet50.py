"""tf.keras.applications.resnet50: ResNet50 and its input preprocessing.

A re-export module, importable by its dotted path as in TF (`import minitf.keras.applications.resnet50`);
every name is the object defined in `minitf.applications.resnet50`.
"""
from minitf.applications.resnet50 import *  # noqa: F401,F403
from minitf.applications.resnet50 import __all__  # noqa: F401
