"""tf.keras.applications.mobilenet: MobileNet (v1) and its input preprocessing.

A re-export module, importable by its dotted path as in TF (`import minitf.keras.applications.mobilenet`);
every name is the object defined in `minitf.applications.mobilenet`.
"""
from minitf.applications.mobilenet import *  # noqa: F401,F403
from minitf.applications.mobilenet import __all__  # noqa: F401
