"""tf.searchsorted: where values would go in sorted sequences, row by row (TF's LowerBound and
UpperBound kernels). Integer results: no gradient."""
import numpy as np

from minitf import dispatch
from minitf.dtypes import dtypes
from minitf.errors import errors
from minitf.ops._core import REAL, Op, Tensor, array_module, as_tensor
from minitf.api_export import export

__all__ = ["searchsorted"]

LOWER_BOUND = Op("LowerBound", dtypes=REAL)
UPPER_BOUND = Op("UpperBound", dtypes=REAL)


def merged_rank(xp, seq, vals, side):
    """[rows, m] insertion points of `vals` into the rows of `seq` ([rows, n], each sorted): one
    stable sort of each row of both merged, so every row is searched at once on any array module.

    For "left" the values go first in the merge (a value precedes sorted entries equal to it),
    for "right" last; a value's insertion point is the count of sorted entries before it.
    """
    rows, n = seq.shape
    m = vals.shape[1]
    if side == "left":
        merged = xp.concatenate([vals, seq], axis=1)
        is_val = xp.concatenate([xp.ones((rows, m), bool), xp.zeros((rows, n), bool)], axis=1)
    else:
        merged = xp.concatenate([seq, vals], axis=1)
        is_val = xp.concatenate([xp.zeros((rows, n), bool), xp.ones((rows, m), bool)], axis=1)
    order = xp.argsort(merged, axis=1, kind="stable") if xp is np else xp.argsort(merged, axis=1)
    val_at = xp.take_along_axis(is_val, order, axis=1).astype(np.int64)
    # sorted entries before merged position k: k minus the values before k
    before = xp.arange(n + m, dtype=np.int64)[None, :] - (xp.cumsum(val_at, axis=1) - val_at)
    back = xp.argsort(order, axis=1)
    placed = xp.take_along_axis(before, back, axis=1)
    return placed[:, :m] if side == "left" else placed[:, n:]


@export("searchsorted")
@dispatch.add_dispatch_support
def searchsorted(sorted_sequence, values, side="left", out_type=dtypes.int32, name=None):
    """Indices at which `values` would be inserted into `sorted_sequence` to keep it sorted.

    Args:
      sorted_sequence: an N-D real tensor sorted along its last dimension.
      values: an N-D tensor of the same dtype; its leading dimensions hold as many rows as the
        sequence's (each row of values is searched in the matching row of the sequence).
      side: "left" (the first suitable index: the count of entries < v) or "right" (the count
        of entries <= v).
      out_type: tf.int32 or tf.int64.
      name: ignored (TF's op name).

    Returns:
      An `out_type` tensor of `values`' shape. A NaN value goes first ("left") or last ("right"),
      as TF's comparisons with `<` put it.

    Raises:
      ValueError: a `side` other than "left"/"right".
      InvalidArgumentError: a scalar input, row counts that differ, dtypes that differ, or an
        out_type other than int32/int64.
      NotFoundError: a dtype TF has no kernel for (bool, complex, string).
    """
    seq = as_tensor(sorted_sequence)
    vals = as_tensor(values)
    if seq._value.ndim == 0 or vals._value.ndim == 0:
        raise errors.invalid_argument(
            "StridedSlice", f"slice index -1 of dimension 0 out of bounds: searchsorted needs "
                            f"tensors of rank >= 1, got shapes {list(seq.shape)} and {list(vals.shape)}")
    if side not in ("left", "right"):
        raise ValueError(f"Argument `side` must be either 'right' or 'left'. Received: `side` = '{side}'.")
    op = LOWER_BOUND if side == "left" else UPPER_BOUND
    out = dtypes.as_dtype(out_type)
    if out.name not in ("int32", "int64"):
        raise op.invalid(f"Value for attr 'out_type' of {out.name} is not in the list of allowed "
                         f"values: int32, int64; pass out_type=tf.int32 or tf.int64")
    if seq._value.dtype != vals._value.dtype:
        raise op.invalid(f"cannot compute {op.name} as input #1(zero-based) was expected to be a "
                         f"{seq.dtype.name} tensor but is a {vals.dtype.name} tensor; cast one with tf.cast")
    if seq._value.dtype not in op.np_dtypes:
        raise errors.NotFoundError(None, None, f"Could not find device for node: {op.name}[T={seq.dtype.name}]: "
                                               f"searchsorted has real-number kernels only; cast the inputs")
    s, v = seq._value, vals._value
    rows_s = int(np.prod(s.shape[:-1], dtype=np.int64))
    rows_v = int(np.prod(v.shape[:-1], dtype=np.int64))
    if rows_s != rows_v:
        raise op.invalid(f"Leading dim_size of both tensors must match: sorted_sequence {list(seq.shape)} "
                         f"holds {rows_s} rows, values {list(vals.shape)} holds {rows_v}")
    xp = array_module(s)
    s2 = s.reshape(rows_s, s.shape[-1])
    v2 = v.reshape(rows_v, v.shape[-1])
    n = s2.shape[1]
    if rows_s == 1:
        idx = xp.searchsorted(s2[0], v2[0], side=side)[None, :]
    else:
        idx = merged_rank(xp, s2, v2, side)
    if v2.dtype.kind == "f":
        idx = xp.where(xp.isnan(v2), 0 if side == "left" else n, idx)
    return Tensor(idx.reshape(v.shape).astype(out.as_numpy_dtype))
