"""The array ops under one name: shape manipulation, creation, gathers and scatters, reordering.

The ops live in one module per job, each importing only from below:
  shaping  reshape, transpose, broadcast_to, stack/unstack, concat/split, tile, shape queries
  creation zeros/ones/fill, one_hot, range, linspace, eye, meshgrid, sequence_mask
  gather   where, gather/scatter, boolean_mask, pad, repeat
  indexing t[...] and tf.slice
  reorder  roll, reverse, sort, argsort, unique
`from minitf.ops.array import X` keeps working for every public name; new code may import the
defining module directly.
"""
from minitf.ops.creation import (eye, eye_like_seed, fill, linspace, meshgrid, one_hot, ones,  # noqa: F401
                                 ones_like, range, sequence_mask, zeros, zeros_like)
from minitf.ops.gather import (boolean_mask, gather, gather_nd, pad, repeat, scatter_nd,  # noqa: F401
                               tensor_scatter_nd_add, tensor_scatter_nd_max, tensor_scatter_nd_min,
                               tensor_scatter_nd_sub, tensor_scatter_nd_update, where)
from minitf.ops.indexing import slice_ as slice  # noqa: F401,A004 (TF's name)
from minitf import dispatch
from minitf.ops.reorder import argsort, reverse, roll, sort, unique  # noqa: F401
from minitf.ops.shaping import (broadcast_to, concat, expand_dims, identity_n, newaxis,  # noqa: F401
                                rank, reshape, shape, size, split, squeeze, stack, tile, transpose,
                                unstack)
from minitf.api_export import export_value

__all__ = ["reshape", "broadcast_to", "transpose", "stack", "unstack", "where", "zeros", "ones",
           "zeros_like", "ones_like", "fill", "newaxis",
           "expand_dims", "squeeze", "concat", "split", "tile", "pad", "gather", "gather_nd",
           "scatter_nd", "tensor_scatter_nd_update", "tensor_scatter_nd_add",
           "tensor_scatter_nd_sub", "tensor_scatter_nd_max", "tensor_scatter_nd_min", "slice",
           "boolean_mask", "one_hot", "range", "linspace", "eye", "shape",
           "size", "rank", "roll", "reverse",
           "sort", "argsort", "repeat", "meshgrid", "sequence_mask", "unique", "identity_n"]

# these take a RaggedTensor too (minitf.ragged serves them through the dispatch seam)
reverse = dispatch.add_dispatch_support(reverse)
export_value("reverse", "reverse")
gather = dispatch.add_dispatch_support(gather)
export_value("gather", "gather")
zeros_like = dispatch.add_dispatch_support(zeros_like, elementwise="unary")
export_value("zeros_like", "zeros_like")
ones_like = dispatch.add_dispatch_support(ones_like, elementwise="unary")
export_value("ones_like", "ones_like")
