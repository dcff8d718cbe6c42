"""tf.data.Options: pipeline settings, accepted for compatibility (minitf runs in order)."""
from minitf.api_export import export

__all__ = ["Options"]


@export("data.Options")
class Options:
    """Pipeline options (accepted for compatibility; minitf runs deterministically in order)."""

    def __init__(self):
        self.deterministic = None
        self.experimental_deterministic = None
        self.experimental_optimization = _Namespace()
        self.experimental_distribute = _Namespace()
        self.threading = _Namespace()

    def merge(self, options):
        """A new Options with `options`' set attributes overriding these."""
        merged = Options()
        merged.__dict__.update(self.__dict__)
        merged.__dict__.update({k: v for k, v in options.__dict__.items() if v is not None})
        return merged


class _Namespace:
    """A group of options whose every attribute reads as None (unset)."""

    def __getattr__(self, name):
        return None
