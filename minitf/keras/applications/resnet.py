"""tf.keras.applications.resnet: ResNet50, ResNet101 and ResNet152 and its input preprocessing.

A re-export module, importable by its dotted path as in TF (`import minitf.keras.applications.resnet`);
every name is the object defined in `minitf.applications.resnet`.
"""
from minitf.applications.resnet import *  # noqa: F401,F403
from minitf.applications.resnet import __all__  # noqa: F401
