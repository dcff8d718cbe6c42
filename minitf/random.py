"""tf.random: seeded random ops, stateless ops and Generator (re-exports; nothing is defined here)."""
from minitf.ops.random import *  # noqa: F401,F403
from minitf.ops import random_experimental as experimental  # noqa: F401

del get_seed  # noqa: F821  (TF 2 has no tf.random.get_seed; minitf.ops.random keeps it)
