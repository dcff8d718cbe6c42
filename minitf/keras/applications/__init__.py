"""tf.keras.applications: VGG19, InceptionV3, MobileNet, MobileNetV2, ResNet50/101/152,
EfficientNetB0-B7.

A re-export module, importable by its dotted path as in TF (`import minitf.keras.applications`);
every name is the object defined in `minitf.applications`.
"""
from minitf.applications import *  # noqa: F401,F403
from minitf.applications import __all__  # noqa: F401
# The star import bound the defining package's own submodules; drop them so that the import
# below loads this package's re-export modules (`from package import name` imports a submodule
# only when the package has no such attribute yet). Attribute and module are then one object.
del vgg19, inception_v3, imagenet_utils, mobilenet_v2, resnet, resnet50, efficientnet  # noqa: F405,F821
from minitf.keras.applications import (vgg19, inception_v3, imagenet_utils, mobilenet_v2,  # noqa: E402,F401
                                       resnet, resnet50, efficientnet)
del mobilenet  # noqa: F821
from minitf.keras.applications import mobilenet  # noqa: E402,F401
