"""tf.train checkpointing: object-graph Checkpoint and CheckpointManager in TF's tensor-bundle format
(minitf's older HDF5 checkpoints still restore), readers, Keras weights files."""
from minitf.checkpoint.checkpoint import Checkpoint, CheckpointLoadStatus
from minitf.checkpoint.manager import CheckpointManager, latest_checkpoint
from minitf.checkpoint.reader import list_variables, load_checkpoint, load_variable

__all__ = ["Checkpoint", "CheckpointLoadStatus", "CheckpointManager", "latest_checkpoint",
           "list_variables", "load_checkpoint", "load_variable"]
