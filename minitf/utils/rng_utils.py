"""tf.keras.utils.set_random_seed: one call that seeds every random source a Keras program uses."""
import random

import numpy as np

from minitf.ops import random as random_ops
from minitf.api_export import export

__all__ = ["set_random_seed", "get_random_seed"]

_state = {"seed": None}  # the integer last given to set_random_seed (Keras keeps it globally too)


@export("utils.set_random_seed", "keras.utils.set_random_seed")
def set_random_seed(seed):
    """Seed Python's `random`, numpy's global generator and minitf's global seed at once.

    This is what Keras 3 does: `random.seed(seed)`, `np.random.seed(seed)` and
    `tf.random.set_seed(seed)`. Afterwards random ops without their own seed, initializers,
    dropout, augmentation layers and `Dataset.shuffle` repeat their values from run to run.

    Args:
        seed: A Python int.

    Raises:
        ValueError: `seed` is not an int (Keras raises ValueError too, not TypeError), or lies
            outside numpy's range [0, 2**32 - 1].
    """
    if not isinstance(seed, int):
        raise ValueError("Expected `seed` argument to be an integer. "
                         f"Received: seed={seed!r} (of type {type(seed)})")
    if not 0 <= seed < 2 ** 32:
        # checked before seeding anything, so a bad seed leaves every generator as it was
        raise ValueError(f"set_random_seed: seed must be between 0 and 2**32 - 1 (numpy's range). "
                         f"Received: seed={seed}")
    _state["seed"] = seed
    random.seed(seed)
    np.random.seed(seed)
    random_ops.set_seed(seed)


def get_random_seed():
    """The integer last passed to `set_random_seed`, or None if it was never called."""
    return _state["seed"]
