"""tf.strings: functions of tf.string tensors (re-exports; nothing is defined here)."""
from minitf.ops.string_ops import *  # noqa: F401,F403
