"""tf.ragged and tf.RaggedTensor: tensors whose rows differ in length.

Loading this package also teaches the tf.* ops (through minitf.dispatch) to accept ragged
arguments: elementwise math, reductions, tf.concat, tf.stack, tf.shape and tf.strings.
"""
from minitf.ragged.ragged_tensor import RaggedTensor, is_ragged  # noqa: F401
from minitf.ragged import ragged_getitem  # noqa: F401  (installs RaggedTensor.__getitem__)
from minitf.ragged.ragged_math import HANDLERS  # noqa: F401  (installs operators and dispatch)
from minitf.ragged.ragged_array import boolean_mask, constant, map_flat_values, range, stack  # noqa: F401,A004
from minitf.ragged.ragged_spec import RaggedTensorSpec  # noqa: F401
from minitf.ragged.dynamic_ragged_shape import DynamicRaggedShape  # noqa: F401  (serves tf.shape, reshape ...)
from minitf.ragged.row_partition import RowPartition  # noqa: F401
from minitf.ragged import ragged_functional  # noqa: F401  (tf.map_fn, tf.nn.embedding_lookup on ragged)
from minitf.ragged import ragged_graph  # noqa: F401  (ragged arguments and results of traced functions)

__all__ = ["RaggedTensor", "RaggedTensorSpec", "constant", "range", "stack", "boolean_mask",
           "map_flat_values", "is_ragged"]
