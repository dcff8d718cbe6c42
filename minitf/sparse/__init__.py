"""tf.sparse: SparseTensor and the ops on it (conversion, arithmetic, reshaping, reductions).

The package splits by concern: `sparse_tensor` (the class and its `*`, `/` operators),
`conversion` (from_dense, to_dense, to_indicator, fill_empty_rows, eye, retain), `math_ops`
(add, sparse_dense_matmul, reductions, minimum/maximum, map_values, mask) and `shaping`
(reorder, reshape, transpose, concat, slice, split, expand_dims, reset_shape) and `counting`
(bincount). `batching` cuts and stacks rows for tf.data.
"""
from minitf.sparse.sparse_tensor import SparseTensor, SparseTensorSpec
from minitf.sparse.counting import bincount
from minitf.sparse.conversion import eye, fill_empty_rows, from_dense, retain, to_dense, to_indicator
from minitf.sparse.math_ops import (add, map_values, mask, maximum, minimum, reduce_max, reduce_sum,
                                    sparse_dense_matmul)
from minitf.sparse.shaping import concat, expand_dims, reorder, reset_shape, reshape, slice, split, transpose
from minitf.sparse import dispatch_rules  # noqa: F401 (gives SparseTensor its tf.* dispatch rules)

__all__ = ["SparseTensor", "add", "bincount", "concat", "expand_dims", "eye", "fill_empty_rows", "from_dense",
           "map_values", "mask", "maximum", "minimum", "reduce_max", "reduce_sum", "reorder",
           "reset_shape", "reshape", "retain", "slice", "sparse_dense_matmul", "split", "to_dense",
           "to_indicator", "transpose"]

# SparseTensorSpec lives at tf.SparseTensorSpec in TF, not in tf.sparse
del SparseTensorSpec
