"""tf.math: elementwise math, reductions and related ops (re-exports; nothing is defined here)."""
from minitf.ops.math import *  # noqa: F401,F403
from minitf.ops.reduce import *  # noqa: F401,F403
from minitf.ops.math import sigmoid, softplus, log_sigmoid, abs, pow, round  # noqa: F401,A004
from minitf.ops.nn import softmax, log_softmax  # noqa: F401,E402
from minitf.ops.top_k import top_k, in_top_k  # noqa: F401,E402
from minitf.ops.linalg import l2_normalize  # noqa: F401,E402 (tf.math's is tf.linalg's)
from minitf.ops.debugging import is_non_decreasing, is_strictly_increasing  # noqa: F401 (tf.math only)
from minitf.ops.segment import *  # noqa: F401,F403,E402 (tf.math only)
from minitf.ops.complex_ops import angle, conj, imag, real  # noqa: F401,E402 (tf.math only)

# TF 2 has these under tf.bitwise or at the top level only, and no tf.math.real_div/floor_div.
for _name in ("bitwise_and", "bitwise_or", "bitwise_xor", "invert", "clip_by_value", "floor_div",
              "real_div"):
    globals().pop(_name, None)
del _name
