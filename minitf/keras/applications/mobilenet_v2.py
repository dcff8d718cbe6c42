"""tf.keras.applications.mobilenet_v2: MobileNetV2 and its input preprocessing.

A re-export module, importable by its dotted path as in TF (`import minitf.keras.applications.mobilenet_v2`);
every name is the object defined in `minitf.applications.mobilenet_v2`.
"""
from minitf.applications.mobilenet_v2 import *  # noqa: F401,F403
from minitf.applications.mobilenet_v2 import __all__  # noqa: F401
