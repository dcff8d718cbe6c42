"""tf.linalg: matrix ops (re-exports; nothing is defined here)."""
from minitf.ops.linalg import *  # noqa: F401,F403
from minitf.ops.clip import global_norm  # noqa: F401,E402
from minitf.ops.linalg_decompositions import *  # noqa: F401,F403,E402
from minitf.ops.linalg_lu import *  # noqa: F401,F403,E402
from minitf.ops.linalg_diag import set_diag  # noqa: F401,E402
