"""tf.sparse.bincount: counts (or summed weights) of integer values, as a SparseTensor."""
import numpy as np

from minitf.dtypes import dtypes
from minitf.errors import errors
from minitf.convert import convert_to_tensor
from minitf.sparse._helpers import host, short_dtype
from minitf.recording import Op, thread_state, record
from minitf.sparse.sparse_tensor import SparseTensor
from minitf.tensor import Tensor
from minitf.api_export import export

__all__ = ["bincount"]


def _flat_and_rows(values, axis, op):
    """(flat values, batch row of each) for a dense or sparse input, and the number of rows."""
    if isinstance(values, SparseTensor):
        flat = host(values.values)
        if axis == 0:
            return flat, np.zeros(flat.shape[0], np.int64), None
        idx = host(values.indices)
        return flat, idx[:, 0] if idx.shape[1] else np.zeros(flat.shape[0], np.int64), values._dims[0]
    t = convert_to_tensor(values)
    arr = host(t)
    if axis == -1 and arr.ndim == 2:
        return arr.reshape(-1), np.repeat(np.arange(arr.shape[0], dtype=np.int64), arr.shape[1]), arr.shape[0]
    if axis == -1 and arr.ndim > 2:
        raise errors.invalid_argument(op, f"Input must be a 1 or 2-dimensional tensor. Got: "
                                          f"[{','.join(map(str, arr.shape))}]")
    flat = arr.reshape(-1)
    return flat, np.zeros(flat.shape[0], np.int64), None


@export("sparse.bincount")
def bincount(values, weights=None, axis=0, minlength=None, maxlength=None, binary_output=False, name=None):
    """How often each integer in `values` occurs, as a SparseTensor of the non-zero counts.

    `axis=0` counts over everything; `axis=-1` counts each row of a 2-D input (or each row of a
    SparseTensor) separately. `weights` (same shape, or a SparseTensor like a sparse `values`)
    sums weights instead of counting; `binary_output` marks presence with 1. The length is the
    largest value + 1, at least `minlength` and at most `maxlength` (larger values are dropped).
    """
    sparse_in = isinstance(values, SparseTensor)
    op = "SparseCountSparseOutput" if sparse_in else "DenseCountSparseOutput"
    if axis not in (0, -1):
        raise ValueError(f"Unsupported value for argument axis={axis}. Only 0 and -1 are currently supported.")
    if weights is not None and binary_output:
        raise ValueError("Arguments `binary_output` and `weights` are mutually exclusive. Please specify only one.")
    if sparse_in and weights is not None and not isinstance(weights, SparseTensor):
        raise ValueError(f"Argument `weights` must be a SparseTensor if `values` is a SparseTensor. Received "
                         f"weights={weights} of type: {type(weights).__name__}")
    flat, rows, n_rows = _flat_and_rows(values, axis, op)
    if flat.dtype.kind not in "iu" or flat.dtype.itemsize < 4:
        given = short_dtype(dtypes.as_dtype(flat.dtype))
        raise errors.invalid_argument(op, f"Value for attr 'T' of {given} is not in the list of allowed "
                                          f"values: int32, int64; cast the values with tf.cast")
    if flat.size and flat.min() < 0:
        raise errors.invalid_argument(op, "Input values must all be non-negative")
    if weights is not None:
        w = host(weights.values if isinstance(weights, SparseTensor) else convert_to_tensor(weights)).reshape(-1)
        if w.shape[0] != flat.shape[0]:
            raise errors.invalid_argument(op, f"Weights and data must have the same shape. Weight shape: "
                                              f"[{w.shape[0]}]; data shape: [{flat.shape[0]}]")
        out_dtype = w.dtype
    else:
        w = np.ones(flat.shape[0], dtype=flat.dtype)
        out_dtype = flat.dtype
    size = max(int(flat.max()) + 1 if flat.size else 1, int(minlength or 0))
    if maxlength is not None:
        size = min(size, int(maxlength))
        keep = flat < size
        flat, rows, w = flat[keep], rows[keep], w[keep]
    keys = rows * size + flat.astype(np.int64)
    unique, inverse = np.unique(keys, return_inverse=True)
    totals = np.zeros(unique.shape[0], dtype=out_dtype)
    np.add.at(totals, inverse.reshape(-1), w)
    if binary_output:
        totals = np.ones_like(totals)
    if n_rows is None:
        indices = (unique % size).reshape(-1, 1)
        dims = [size]
    else:
        indices = np.stack([unique // size, unique % size], axis=1)
        dims = [n_rows, size]
    out = Tensor(totals)
    if weights is not None and thread_state.active:
        w_tensor = weights.values if isinstance(weights, SparseTensor) else convert_to_tensor(weights)
        record(NO_GRADIENT[op], (w_tensor,), (out,), lambda g: _no_gradient(op))
    return SparseTensor(indices.astype(np.int64), out, np.asarray(dims, dtype=np.int64))


NO_GRADIENT = {name: Op(name) for name in ("DenseCountSparseOutput", "SparseCountSparseOutput")}


def _no_gradient(op_name):
    # TF registers no gradient for the counting ops; tape.gradient raises this LookupError there
    raise LookupError(f"gradient registry has no entry for: {op_name} (tf.sparse.bincount's weights get "
                      f"no gradient)")
