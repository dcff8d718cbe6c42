"""KerasTensor and Node, defined below the layers in minitf.keras (re-exported here)."""
from minitf.keras.keras_tensor import KerasTensor  # noqa: F401
from minitf.keras.node import Node  # noqa: F401

__all__ = ["KerasTensor", "Node"]
