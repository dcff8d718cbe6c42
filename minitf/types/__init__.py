"""tf.types: the types TF exposes for annotations and for extending tracing."""
from minitf.types import experimental  # noqa: F401

__all__ = ["experimental"]
