"""tf.keras.applications.inception_v3: InceptionV3 and its input preprocessing.

A re-export module, importable by its dotted path as in TF (`import minitf.keras.applications.inception_v3`);
every name is the object defined in `minitf.applications.inception_v3`.
"""
from minitf.applications.inception_v3 import *  # noqa: F401,F403
from minitf.applications.inception_v3 import __all__  # noqa: F401
