"""tf.random.experimental: the stateless seed tools and Generator under their experimental names."""
from minitf.ops.random_generator import (Generator, create_rng_state, get_global_generator,  # noqa: F401
                                         set_global_generator)
from minitf.ops.stateless_random import Algorithm, index_shuffle, stateless_shuffle  # noqa: F401
from minitf.ops.stateless_random import fold_in as stateless_fold_in  # noqa: F401
from minitf.ops.stateless_random import split as stateless_split  # noqa: F401

__all__ = ["Algorithm", "Generator", "create_rng_state", "get_global_generator", "set_global_generator",
           "index_shuffle", "stateless_fold_in", "stateless_shuffle", "stateless_split"]
