"""tf.nn: activations, losses, convolution and pooling (re-exports; nothing is defined here)."""
from minitf.ops.math import sigmoid, tanh, softplus  # noqa: F401
from minitf.ops.nn import *  # noqa: F401,F403
from minitf.ops.top_k import *  # noqa: F401,F403
from minitf.ops.nn_distribute import *  # noqa: F401,F403
from minitf.ops.conv import *  # noqa: F401,F403
from minitf.ops.pooling import *  # noqa: F401,F403
from minitf.ops.linalg import l2_normalize  # noqa: F401,E402
from minitf.ops.embedding import embedding_lookup  # noqa: F401,E402
from minitf.ops.conv3d import *  # noqa: F401,F403,E402
from minitf.ops.pool3d import *  # noqa: F401,F403,E402
from minitf.sparse.ctc import (ctc_beam_search_decoder, ctc_greedy_decoder, ctc_loss,  # noqa: F401,E402
                             ctc_unique_labels)
