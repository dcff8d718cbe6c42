"""AutoGraph's logging: a verbosity level (`tf.autograph.set_verbosity`, or the
AUTOGRAPH_VERBOSITY environment variable) for debug messages, warnings always, on the
"minitf.autograph" logger, optionally echoed to stdout."""
import logging
import os
import sys
import traceback
from minitf.api_export import export

__all__ = ["set_verbosity", "trace", "get_verbosity", "has_verbosity", "log", "warning"]

_logger = logging.getLogger("minitf.autograph")
_state = {"level": None, "echo": hasattr(sys, "ps1") or hasattr(sys, "ps2")}


@export("autograph.set_verbosity")
def set_verbosity(level, alsologtostdout=False):
    """Set AutoGraph's verbosity: 0 logs nothing, larger values log more (10 for bug reports).

    Takes precedence over the AUTOGRAPH_VERBOSITY environment variable. With
    `alsologtostdout=True`, messages are also printed to stdout.
    """
    _state["level"] = level
    _state["echo"] = alsologtostdout


@export("autograph.trace")
def trace(*args):
    """Print the arguments when the code runs; inside `tf.function` that is while tracing, so it
    shows what the traced code sees (symbolic tensors, Python values)."""
    print(*args)


def get_verbosity():
    """The verbosity in force: set_verbosity's level, else AUTOGRAPH_VERBOSITY, else 0."""
    if _state["level"] is not None:
        return _state["level"]
    return int(os.getenv("AUTOGRAPH_VERBOSITY", "0"))


def has_verbosity(level):
    """Whether messages of `level` are shown."""
    return get_verbosity() >= level


def _echo(prefix, message, args, exc_info):
    print(prefix + (message % args if args else message))
    if exc_info:
        traceback.print_exc()


def log(level, message, *args, exc_info=False):
    """A debug message shown from verbosity `level` on."""
    if has_verbosity(level):
        _logger.info(message, *args, exc_info=exc_info)
        if _state["echo"]:
            _echo("", message, args, exc_info)


def warning(message, *args):
    """A warning, whatever the verbosity."""
    _logger.warning(message, *args)
    if _state["echo"]:
        _echo("WARNING: ", message, args, False)
        sys.stdout.flush()
