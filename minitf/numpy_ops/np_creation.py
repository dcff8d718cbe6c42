"""tnp's array creation: zeros/ones/full/empty (and *_like), arange, linspace and friends,
eye/identity/tri, diag, meshgrid, vander.

Dtypes follow TF's tnp: `float` (float64) when no dtype is given to zeros/ones/eye/tri, the
inferred type of the arguments for arange/full/linspace.
"""
import builtins

import numpy as np

from minitf.dtypes import dtypes
from minitf.errors import errors
from minitf.ops import array as A
from minitf.ops import compare as CMP
from minitf.ops import constant as C
from minitf.ops import linalg as LA
from minitf.ops import linalg_diag as LD
from minitf.ops import math as M
from minitf.ops import math as MATH  # eye and tri take an argument named M
from minitf.numpy_ops import np_dtypes as D
from minitf.numpy_ops.np_dtypes import array, asarray, is_tensor, result_type
from minitf.api_export import export


def _shape_list(shape):
    if is_tensor(shape):
        return shape
    if isinstance(shape, (int, np.integer)):
        return [int(shape)]
    return [int(d) for d in shape]


@export("experimental.numpy.zeros")
def zeros(shape, dtype=float):
    """A Tensor of zeros (float64 by default, as NumPy)."""
    dtype = result_type(dtype) if dtype else D.default_float_type()
    return A.zeros(_shape_list(shape), dtype=dtypes.as_dtype(dtype))


@export("experimental.numpy.ones")
def ones(shape, dtype=float):
    """A Tensor of ones (float64 by default, as NumPy); dtype=None raises TypeError, as TF."""
    dtype = result_type(dtype) if dtype else _no_dtype()
    return A.ones(_shape_list(shape), dtype=dtypes.as_dtype(dtype))


def _no_dtype():
    raise TypeError("Cannot convert the argument `type_value`: None to a TensorFlow DType; "
                    "pass a dtype (tnp.float64, tnp.int32, ...) or leave the argument out.")


@export("experimental.numpy.empty")
def empty(shape, dtype=float):
    """Same as zeros (a tensor's contents are always defined)."""
    return zeros(shape, dtype)


def _like_dtype(a, dtype):
    return D._unary_dtype(a, dtype)


@export("experimental.numpy.zeros_like")
def zeros_like(a, dtype=None):
    """Zeros of a's shape, in `dtype` or a's dtype."""
    return A.zeros_like(asarray(a), dtype=_like_dtype(a, dtype))


@export("experimental.numpy.ones_like")
def ones_like(a, dtype=None):
    """Ones of a's shape, in `dtype` or a's dtype."""
    return A.ones_like(asarray(a), dtype=_like_dtype(a, dtype))


@export("experimental.numpy.empty_like")
def empty_like(a, dtype=None):
    """Same as zeros_like."""
    return zeros_like(a, dtype)


@export("experimental.numpy.full")
def full(shape, fill_value, dtype=None):
    """`fill_value` (an array broadcasts) repeated to `shape`; dtype inferred from it."""
    if not is_tensor(shape):
        shape = _shape_list(shape)
    fill_value = asarray(fill_value, dtype=dtype)
    return A.broadcast_to(fill_value, shape)


@export("experimental.numpy.full_like")
def full_like(a, fill_value, dtype=None, order="K", subok=True, shape=None):
    """`fill_value` broadcast to a's shape, in `dtype` or a's dtype."""
    if order != "K":
        raise ValueError("Non-standard orders are not supported.")
    if not subok:
        raise ValueError("subok being False is not supported.")
    if shape:
        raise ValueError("Overriding the shape is not supported.")
    a = asarray(a)
    dtype = dtype or result_type(a)
    return A.broadcast_to(asarray(fill_value, dtype=dtype), A.shape(a))


@export("experimental.numpy.arange")
def arange(start, stop=None, step=1, dtype=None):
    """Evenly spaced values in [start, stop) (or [0, start)); dtype inferred from the
    arguments (int64 for ints, float64 for floats) unless given."""
    if not step:
        raise ValueError("step must be non-zero.")
    if dtype:
        dtype = result_type(dtype)
    else:
        dtype = result_type(start, step) if stop is None else result_type(start, step, stop)
    if step > 0 and ((stop is not None and start > stop) or (stop is None and start < 0)):
        return array([], dtype=dtype)
    if step < 0 and ((stop is not None and start < stop) or (stop is None and start > 0)):
        return array([], dtype=dtype)
    return C.cast(A.range(start, limit=stop, delta=step), dtype)


@export("experimental.numpy.linspace")
def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=float, axis=0):
    """`num` evenly spaced values from start to stop (stop left out when endpoint=False);
    with retstep, also the step. Under NumPy 2, TF infers the dtype from start and stop."""
    if dtype:
        dtype = result_type([start * 1.0, stop * 1.0])
    start = array(start, dtype=dtype)
    stop = array(stop, dtype=dtype)
    if start.dtype != stop.dtype and not endpoint and num > 0:  # as TF: the step's Sub meets the two dtypes
        raise errors.InvalidArgumentError(None, None, f"tnp.linspace: cannot compute Sub of {stop.dtype.name} and "
                                          f"{start.dtype.name} endpoints (dtype=None keeps each endpoint's own "
                                          "dtype); pass a dtype. [Op:Sub]")
    if start.dtype != stop.dtype:
        raise ValueError(f"tnp.linspace: stop of dtype {stop.dtype.name} does not convert to start's dtype "
                         f"{start.dtype.name} (dtype=None keeps each endpoint's own dtype); pass a dtype.")
    if num < 0:
        raise ValueError("Argument `num` (number of samples) must be a non-negative integer. "
                         f"Received: num={num}")
    step = C.constant(np.nan, dtype=dtypes.float32)
    if endpoint:
        result = _linspace(start, stop, num, axis)
        if num > 1:
            step = M.truediv(M.subtract(stop, start), C.constant(num - 1, dtype=stop.dtype))
    else:
        if num > 0:
            step = M.truediv(M.subtract(stop, start), C.constant(num, dtype=stop.dtype))
        if num > 1:
            new_stop = M.subtract(C.cast(stop, step.dtype), step)
            result = _linspace(C.cast(start, new_stop.dtype), new_stop, num, axis)
        else:
            result = _linspace(start, stop, num, axis)
    if dtype:
        if dtype.is_integer:
            result = M.floor(result)
        result = C.cast(result, dtype)
    return (result, step) if retstep else result


def _linspace(start, stop, num, axis):
    """tf.linspace as TF 2.21 computes it: integer endpoints in float64, and for num == 1 the
    start alone (even when stop is not finite)."""
    if start.dtype.is_integer:
        start, stop = C.cast(start, dtypes.float64), C.cast(stop, dtypes.float64)
    if num == 1:
        stop = start
    result = A.linspace(start, stop, num, axis=axis)
    if num > 1 and start.shape.rank == 0 and stop.shape.rank == 0:
        # TF places the endpoints exactly, so a NaN or inf at one end leaves the other intact
        result = A.concat([A.reshape(start, [1]), result[1:-1], A.reshape(stop, [1])], axis=0)
    return result


@export("experimental.numpy.logspace")
def logspace(start, stop, num=50, endpoint=True, base=10.0, dtype=None, axis=0):
    """base ** linspace(start, stop, num)."""
    dtype = result_type([start * 1.0, stop * 1.0])
    result = linspace(start, stop, num=num, endpoint=endpoint, dtype=dtype, axis=axis)
    result = M.pow(C.cast(C.constant(base), result.dtype), result)
    return C.cast(result, dtype)


@export("experimental.numpy.geomspace")
def geomspace(start, stop, num=50, endpoint=True, dtype=None, axis=0):
    """`num` values spaced evenly on a log scale from start to stop (signs kept)."""
    dtype = dtypes.as_dtype(dtype) if dtype else result_type(start, stop, float(num),
                                                            A.zeros((), dtype=D.default_float_type()))
    compute = np.promote_types(D.np_dtype(dtype), np.float32)
    start = asarray(start, dtype=compute)
    stop = asarray(stop, dtype=compute)
    start_sign = M.subtract(C.constant(1, start.dtype), M.sign(start))
    stop_sign = M.subtract(C.constant(1, stop.dtype), M.sign(stop))
    signflip = M.subtract(C.constant(1, start.dtype),
                          M.floordiv(M.multiply(start_sign, stop_sign), C.constant(2, start.dtype)))
    lo = M.truediv(M.log(M.multiply(signflip, start)), C.constant(np.log(10), start.dtype))
    hi = M.truediv(M.log(M.multiply(signflip, stop)), C.constant(np.log(10), start.dtype))
    res = M.multiply(signflip, logspace_tensors(lo, hi, num, endpoint, compute))
    if axis != 0:
        res = A.transpose(res, _move_first_to(res.shape.rank, axis))
    return C.cast(res, dtype)


def logspace_tensors(lo, hi, num, endpoint, dtype):
    """10 ** linspace(lo, hi) for tensor endpoints of `dtype`."""
    dtype = dtypes.as_dtype(dtype)
    if endpoint or num <= 1:
        grid = _linspace(lo, hi, num, 0)
    else:
        step = M.truediv(M.subtract(hi, lo), C.constant(num, dtype))
        grid = _linspace(lo, M.subtract(hi, step), num, 0)
    return M.pow(C.constant(10.0, dtype), grid)


def _move_first_to(rank, axis):
    axis = axis + rank if axis < 0 else axis
    perm = list(builtins.range(1, rank))
    perm.insert(axis, 0)
    return perm


@export("experimental.numpy.eye")
def eye(N, M=None, k=0, dtype=float):  # noqa: N803 (NumPy's names)
    """An N x M matrix with ones on the k-th diagonal (float64 by default)."""
    rows, cols = int(N), int(M) if M else int(N)
    k = int(k)
    if k >= cols or -k >= rows:  # as TF: this path takes tnp.zeros' default dtype for None
        return zeros([rows, cols], dtype=dtype)
    dtype = dtypes.as_dtype(result_type(dtype) if dtype else _no_dtype())
    i = A.reshape(A.range(rows), [-1, 1])
    j = A.reshape(A.range(cols), [1, -1])
    return C.cast(CMP.equal(_plus(i, k), j), dtype)


@export("experimental.numpy.identity")
def identity(n, dtype=float):
    """The n x n identity matrix."""
    return eye(N=n, M=n, dtype=dtype)


@export("experimental.numpy.tri")
def tri(N, M=None, k=0, dtype=None):  # noqa: N803 (NumPy's names)
    """An N x M matrix with ones at and below the k-th diagonal (default float dtype)."""
    M = M if M is not None else N
    dtype = dtypes.as_dtype(result_type(dtype) if dtype is not None else result_type(float))
    i = A.reshape(A.range(N), [-1, 1])
    j = A.reshape(A.range(M), [1, -1])
    return C.cast(CMP.less_equal(j, _plus(i, k)), dtype)


def _plus(t, k):
    """i + k for an int32 index tensor and a Python int."""
    return MATH.add(t, C.constant(int(k), dtypes.int32))


def _triangle(m, k, lower):
    m = asarray(m)
    if m.shape.rank is None:
        raise ValueError(f"Argument to {'tril' if lower else 'triu'} should have known rank")
    shape = m.shape.as_list()
    if len(shape) < 2:
        raise ValueError(f"Argument to {'tril' if lower else 'triu'} must have rank at least 2")
    if shape[-1] is None or shape[-2] is None:
        raise ValueError("Currently, the last two dimensions of the input array need to be known.")
    mask = tri(shape[-2], shape[-1], k=k if lower else k - 1, dtype=bool)
    zero = C.constant(0, m.dtype)  # as TF: a bool m raises TypeError here
    mask = A.broadcast_to(mask, A.shape(m))
    return A.where(mask, m, zero) if lower else A.where(mask, zero, m)


@export("experimental.numpy.tril")
def tril(m, k=0):
    """m with the elements above the k-th diagonal set to zero."""
    return _triangle(m, k, True)


@export("experimental.numpy.triu")
def triu(m, k=0):
    """m with the elements below the k-th diagonal set to zero."""
    return _triangle(m, k, False)


@export("experimental.numpy.diag")
def diag(v, k=0):
    """A 1-d v placed on the k-th diagonal of a square matrix, or the k-th diagonal of a 2-d v."""
    v = asarray(v)
    rank = v.shape.rank
    if rank not in (1, 2):
        raise ValueError(f"tnp.diag: input must be 1-d or 2-d; got shape {v.shape}.")
    if rank == 1:
        n = v.shape[0] + builtins.abs(k)
        if v.shape[0] == 0:
            return A.zeros([builtins.abs(k), builtins.abs(k)], dtype=v.dtype)
        return LD.diag(v, k=k, num_rows=n, num_cols=n)
    rows, cols = v.shape.as_list()
    if k <= -rows or k >= cols:
        return A.zeros([0], dtype=v.dtype)
    return LD.diag_part(v, k=k)


@export("experimental.numpy.diagflat")
def diagflat(v, k=0):
    """The flattened v placed on the k-th diagonal of a square matrix."""
    return diag(A.reshape(asarray(v), [-1]), k)


@export("experimental.numpy.diagonal")
def diagonal(a, offset=0, axis1=0, axis2=1):
    """The `offset` diagonal of the matrices in a's axes axis1, axis2, as the last axis."""
    a = asarray(a)
    rank = a.shape.rank
    ax1, ax2 = axis1 % rank, axis2 % rank
    perm = [i for i in builtins.range(rank) if i not in (ax1, ax2)] + [ax1, ax2]
    a = A.transpose(a, perm)
    rows, cols = a.shape.as_list()[-2:]
    if offset <= -rows or offset >= cols:
        return A.zeros(a.shape.as_list()[:-2] + [0], dtype=a.dtype)
    return LD.diag_part(a, k=offset)


@export("experimental.numpy.meshgrid")
def meshgrid(*xi, **kwargs):
    """Coordinate matrices from 1-d coordinate vectors (indexing 'xy' or 'ij')."""
    if kwargs.get("sparse", False):
        raise ValueError("Function `meshgrid` does not support returning sparse arrays yet. "
                         f"Received: sparse={kwargs['sparse']}")
    if not kwargs.get("copy", True):
        raise ValueError(f"Function `meshgrid` only supports copy=True. Received: copy={kwargs['copy']}")
    xi = [asarray(arg) for arg in xi]
    if len({t.dtype for t in xi}) > 1:
        raise errors.InvalidArgumentError(
            None, None, "tnp.meshgrid: the inputs have different dtypes "
            f"({', '.join(t.dtype.name for t in xi)}); cast them to one dtype first. [Op:Mul]")
    return A.meshgrid(*xi, indexing=kwargs.get("indexing", "xy"))


@export("experimental.numpy.vander")
def vander(x, N=None, increasing=False):  # noqa: N803 (NumPy's name)
    """The Vandermonde matrix of 1-d x: columns x**(N-1) ... x**0 (or increasing)."""
    x = asarray(x)
    if x.shape.rank != 1:
        raise ValueError("x must be a one-dimensional array")
    if N is None:
        N = x.shape[0]
    if N < 0:
        raise ValueError("N must be nonnegative")
    powers = A.range(0, N, 1) if increasing else A.range(N - 1, -1, -1)
    return M.pow(A.expand_dims(x, -1), C.cast(powers, x.dtype))


@export("experimental.numpy.diag_indices")
def diag_indices(n, ndim=2):
    """The indices of the main diagonal of an n x ... x n array: ndim copies of range(n)."""
    if n < 0:
        raise ValueError(f"n argument to diag_indices must be nonnegative, got {n}")
    if ndim < 0:
        raise ValueError(f"ndim argument to diag_indices must be nonnegative, got {ndim}")
    return (A.range(n),) * ndim
