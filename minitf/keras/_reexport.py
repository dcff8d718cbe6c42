"""The helper the tf.keras re-export modules share when their source package lists no `__all__`."""
import types

__all__ = ["public_names"]


def public_names(module):
    """The public names of `module`: no leading underscore, and no submodules.

    A package's own submodules (`minitf.layers.core`, ...) are attributes of it once loaded,
    but they are implementation files, not part of the TF namespace, so they are left out.
    """
    return sorted(name for name, value in vars(module).items()
                  if not name.startswith("_") and not isinstance(value, types.ModuleType))
