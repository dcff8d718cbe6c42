"""tf.keras.preprocessing.sequence: pad_sequences (the same object as tf.keras.utils.pad_sequences)."""
from minitf.utils.sequence_utils import pad_sequences  # noqa: F401

__all__ = ["pad_sequences"]
