"""tf.bitwise: bitwise ops on integer tensors (re-exports; nothing is defined here)."""
from minitf.ops.math import bitwise_and, bitwise_or, bitwise_xor, invert  # noqa: F401
