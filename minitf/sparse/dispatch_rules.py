"""SparseTensor's entry in the dispatch seam (minitf.dispatch): the tf.* ops TF lets take one.

TF serves a fixed list of zero-preserving unary ops on a SparseTensor by mapping its values
(tf.math.abs, negative, sign, square, sqrt, sin, tan, tanh, asin, atan, erf), tf.cast casts its
values and tf.shape gives its dense shape. Every other op keeps its conversion error (ValueError "Attempt to
convert a value ... with an unsupported type"), as in TF.
"""
import numpy as np

from minitf import dispatch
from minitf.dtypes import dtypes
from minitf.ops import constant, shaping
from minitf.recording import Op
from minitf.sparse.sparse_tensor import SparseTensor
from minitf.tensor import Tensor

# TF's op names (and the function names of ops that hand themselves to the seam)
_ZERO_PRESERVING_OPS = {"Abs", "Neg", "Sign", "Square", "Sqrt", "Sin", "Tan", "Tanh", "Asin", "Atan", "Erf"}
_ZERO_PRESERVING_FUNCTIONS = {"abs", "negative", "sign", "square", "sqrt", "sin", "tan", "tanh", "asin",
                              "atan", "erf"}


def _op_name(api):
    """The TF op an elementwise api stands for: the `Op` its closure holds (the unary ops pass a
    per-call lambda over their Op to the seam), else the function's own name."""
    for cell in getattr(api, "__closure__", None) or ():
        try:
            value = cell.cell_contents
        except ValueError:  # an empty cell
            continue
        if isinstance(value, Op):
            return value.name, None
    return None, getattr(api, "__name__", None)


def _tf_dispatch(cls, api, args, kwargs):
    """Serve `api(*args, **kwargs)` for a SparseTensor argument, or NotImplemented."""
    if api is shaping.shape:
        return _shape(*args, **kwargs)
    if api is constant.cast:
        return _cast(*args, **kwargs)
    if dispatch.elementwise_kind(api) == "unary" or getattr(api, "__name__", "") in _ZERO_PRESERVING_FUNCTIONS:
        op_name, fn_name = _op_name(api)
        allowed = op_name in _ZERO_PRESERVING_OPS if op_name else fn_name in _ZERO_PRESERVING_FUNCTIONS
        if allowed and args and isinstance(args[0], SparseTensor):
            sp = args[0]
            return SparseTensor(sp.indices, api(sp.values, *args[1:], **kwargs), sp.dense_shape)
    return NotImplemented


def _cast(x, dtype, name=None):
    """tf.cast of a SparseTensor: its values cast, its indices and shape kept."""
    return SparseTensor(x.indices, constant.cast(x.values, dtype), x.dense_shape)


def _shape(input, out_type=dtypes.int32, name=None):  # noqa: A002 (TF's name)
    return Tensor(np.asarray(input._dims, dtype=dtypes.as_dtype(out_type)._np).reshape(-1))


SparseTensor.__tf_dispatch__ = classmethod(_tf_dispatch)
