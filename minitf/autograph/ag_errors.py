"""AutoGraph's error types, as TF 2.21 names them."""

__all__ = ["AutoGraphError", "ConversionError", "StagingError", "PyCTError",
           "UnsupportedLanguageElementError", "InaccessibleSourceCodeError"]


class AutoGraphError(Exception):
    """Base class for AutoGraph's errors."""


class ConversionError(AutoGraphError):
    """Converting a function failed (`tf.autograph.to_graph` / `to_code`)."""


class StagingError(AutoGraphError):
    """Running converted code failed while staging it into a graph."""


class PyCTError(Exception):
    """Base class for errors of the source transformation itself."""


class UnsupportedLanguageElementError(PyCTError, NotImplementedError):
    """The function uses a construct AutoGraph does not convert (a generator, for/else ...)."""


class InaccessibleSourceCodeError(PyCTError, ValueError):
    """The function's source code cannot be found (defined in an interactive shell, exec ...)."""
