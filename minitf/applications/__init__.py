"""tf.keras.applications: VGG19, InceptionV3, MobileNet, MobileNetV2, ResNet50/101/152 and
EfficientNetB0-B7 with Keras' architectures and weight files."""
from minitf.applications import (efficientnet, imagenet_utils, inception_v3, mobilenet_v2,  # noqa: F401
                                 resnet, resnet50, vgg19)
from minitf.applications.efficientnet import (EfficientNetB0, EfficientNetB1, EfficientNetB2,  # noqa: F401
                                              EfficientNetB3, EfficientNetB4, EfficientNetB5,
                                              EfficientNetB6, EfficientNetB7)
from minitf.applications.inception_v3 import InceptionV3  # noqa: F401
from minitf.applications.mobilenet_v2 import MobileNetV2  # noqa: F401
from minitf.applications import mobilenet  # noqa: F401
from minitf.applications.mobilenet import MobileNet  # noqa: F401
from minitf.applications.resnet import ResNet50, ResNet101, ResNet152  # noqa: F401
from minitf.applications.vgg19 import VGG19  # noqa: F401

__all__ = ["VGG19", "InceptionV3", "MobileNetV2", "ResNet50", "ResNet101", "ResNet152",
           "EfficientNetB0", "EfficientNetB1", "EfficientNetB2", "EfficientNetB3",
           "EfficientNetB4", "EfficientNetB5", "EfficientNetB6", "EfficientNetB7",
           "vgg19", "inception_v3", "mobilenet_v2", "resnet", "resnet50", "efficientnet",
           "imagenet_utils"]
__all__ += ["MobileNet", "mobilenet"]
