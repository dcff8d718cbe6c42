"""tf.linalg: matrix ops (re-exports; nothing is defined here)."""
from minitf.ops.linalg import *  # noqa: F401,F403
from minitf.ops.clip import global_norm  # noqa: F401,E402
