"""tf.random: seeded random ops (re-exports; nothing is defined here)."""
from minitf.ops.random import *  # noqa: F401,F403

del get_seed  # noqa: F821  (TF 2 has no tf.random.get_seed; minitf.ops.random keeps it)
