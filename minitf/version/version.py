"""tf.version: minitf's own release number (TF code reads `tf.version.VERSION` or `tf.__version__`).

It is minitf's version, kept equal to the one in pyproject.toml, not the TF release whose API
minitf follows (TF 2.x); TF's build fields (GIT_VERSION, COMPILER_VERSION, GRAPH_DEF_*) describe
a compiled TF and have no minitf meaning, so they are absent.
"""
from minitf.api_export import export_value
__all__ = ["VERSION"]

VERSION = "0.1.0"
export_value("VERSION", "__version__", "version.VERSION")
