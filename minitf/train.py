"""tf.train: checkpoints (Checkpoint, CheckpointManager, latest_checkpoint, readers) and the
tf.train.Example protobuf messages (see minitf.example.proto)."""
from minitf.checkpoint import (Checkpoint, CheckpointManager, latest_checkpoint,  # noqa: F401
                               list_variables, load_checkpoint, load_variable)
from minitf.checkpoint.checkpoint import CheckpointLoadStatus  # noqa: F401
from minitf.checkpoint.manager import get_checkpoint_state  # noqa: F401
from minitf.example import proto as _example_proto
from minitf.api_export import export


@export("train.CheckpointOptions")
class CheckpointOptions:
    """Accepted for API compatibility; minitf has no checkpoint options."""

    def __init__(self, *args, **kwargs):
        self.args, self.kwargs = args, kwargs


__all__ = ["Checkpoint", "CheckpointManager", "CheckpointOptions", "get_checkpoint_state",
           "latest_checkpoint", "list_variables", "load_checkpoint", "load_variable"]
from minitf.moving_averages import ExponentialMovingAverage  # noqa: E402
__all__ += ["ExponentialMovingAverage"]


def __getattr__(name):
    # tf.train.Example and its parts are protobuf classes built on first use (protobuf is optional)
    if name in _example_proto.MESSAGE_NAMES:
        return _example_proto.message_class(name)
    raise AttributeError(f"module 'minitf.train' has no attribute {name!r}")
