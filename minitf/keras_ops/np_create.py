"""keras.ops (numpy-like): tensors made from shapes and ranges, triangles and diagonals, and
the window functions (bartlett, blackman, hamming, hanning, kaiser)."""
import numpy as np

from minitf.errors import errors
from minitf.keras_core import config
from minitf.keras_ops.core import canonical_axis, convert, keras_op
from minitf.keras_ops.dtypes import FLOAT_TYPES, result_type, standardize_dtype
from minitf.keras_ops.np_math import i0
from minitf.keras_ops.np_reduce import accumulating_dtype
from minitf.keras_ops.np_shape import moveaxis
from minitf.ops import array as array_ops
from minitf.ops import compare as CMP
from minitf.ops import constant as constant_ops
from minitf.ops import linalg as linalg_ops
from minitf.ops import math as tfm
from minitf.ops import reduce as reduce_ops
from minitf.ops.gather import where as tf_where
from minitf.ops.indexing import getitem
from minitf.api_export import export

__all__ = ["arange", "linspace", "logspace", "geomspace", "ones", "zeros", "full", "empty",
           "ones_like", "zeros_like", "full_like", "empty_like", "eye", "identity", "tri", "tril",
           "triu", "meshgrid", "bartlett", "blackman", "hamming", "hanning", "kaiser", "vander",
           "diag", "diagflat", "diagonal", "trace"]

_RANGE_DTYPES = ("int32", "int64", "float32", "float64", "float16", "bfloat16")


@export("keras.ops.arange", "keras.ops.numpy.arange")
@keras_op
def arange(start, stop=None, step=None, dtype=None):
    """Evenly spaced values in [start, stop) (Python ints give int32, floats float32)."""
    if dtype is None:
        kinds = [getattr(start, "dtype", type(start))]
        if stop is not None:
            kinds.append(getattr(stop, "dtype", type(stop)))
        if step is not None:
            kinds.append(getattr(step, "dtype", type(step)))
        dtype = result_type(*kinds)
    dtype = standardize_dtype(dtype)
    step = 1 if step is None else step
    if dtype in ("uint8", "bool"):
        raise errors.invalid_argument("Range", f"Value for attr 'Tidx' of {dtype} is not in the "
                                               f"list of allowed values: bfloat16, half, float, "
                                               f"double, int8, int16, int32, int64, uint16, "
                                               f"uint32, uint64; pass another dtype")
    if dtype in _RANGE_DTYPES:
        return array_ops.range(start, stop, step, dtype=dtype)
    return constant_ops.cast(array_ops.range(start, stop, step, dtype="float32"), dtype)


@export("keras.ops.linspace", "keras.ops.numpy.linspace")
@keras_op
def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0):
    """`num` evenly spaced values from start to stop (stop left out when endpoint=False);
    with `retstep`, also the spacing."""
    if num < 0:
        raise ValueError(f"`num` must be a non-negative integer. Received: num={num}")
    if dtype is None:
        dtype = result_type(getattr(start, "dtype", type(start)),
                            getattr(stop, "dtype", type(stop)), float)
    else:
        dtype = standardize_dtype(dtype)
    start, stop = convert(start, dtype), convert(stop, dtype)
    step = convert(np.nan)
    if endpoint:
        result = array_ops.linspace(start, stop, num, axis=axis)
        if num > 1:
            step = tfm.divide(tfm.subtract(stop, start), constant_ops.cast(num - 1, dtype))
    else:
        if num > 0:
            step = tfm.divide(tfm.subtract(stop, start), constant_ops.cast(num, dtype))
        if num > 1:
            new_stop = tfm.subtract(constant_ops.cast(stop, step.dtype), step)
            result = array_ops.linspace(constant_ops.cast(start, new_stop.dtype), new_stop, num, axis=axis)
        else:
            result = array_ops.linspace(start, stop, num, axis=axis)
    if "int" in dtype:
        result = tfm.floor(result)
    result = constant_ops.cast(result, dtype)
    return (result, step) if retstep else result


@export("keras.ops.logspace", "keras.ops.numpy.logspace")
@keras_op
def logspace(start, stop, num=50, endpoint=True, base=10, dtype=None, axis=0):
    """base ** linspace(start, stop, num)."""
    result = linspace(start, stop, num=num, endpoint=endpoint, dtype=dtype, axis=axis)
    return tfm.pow(constant_ops.cast(convert(base), result.dtype), result)


@export("keras.ops.geomspace", "keras.ops.numpy.geomspace")
@keras_op
def geomspace(start, stop, num=50, endpoint=True, dtype=None, axis=0):
    """`num` values evenly spaced on a log scale from start to stop (same signs)."""
    start, stop = convert(start), convert(stop)
    float_dtype = dtype or config.floatx()
    log_start = tfm.log(constant_ops.cast(tfm.abs(start), float_dtype))
    log_stop = tfm.log(constant_ops.cast(tfm.abs(stop), float_dtype))
    log_base = tfm.log(constant_ops.constant(10.0, dtype=log_start.dtype))
    result = logspace(tfm.divide(log_start, log_base), tfm.divide(log_stop, log_base), num=num,
                      endpoint=endpoint, base=10, dtype=dtype, axis=axis)
    sign = constant_ops.cast(tfm.sign(constant_ops.cast(start, log_start.dtype)), result.dtype)
    return tfm.multiply(result, sign)


def _dtype_or_floatx(dtype):
    return standardize_dtype(dtype or config.floatx())


@export("keras.ops.ones", "keras.ops.numpy.ones")
@keras_op
def ones(shape, dtype=None):
    """A tensor of ones (floatx by default)."""
    return array_ops.ones(shape, dtype=_dtype_or_floatx(dtype))


@export("keras.ops.zeros", "keras.ops.numpy.zeros")
@keras_op
def zeros(shape, dtype=None):
    """A tensor of zeros (floatx by default)."""
    return array_ops.zeros(shape, dtype=_dtype_or_floatx(dtype))


@export("keras.ops.empty", "keras.ops.numpy.empty")
@keras_op
def empty(shape, dtype=None):
    """A tensor of `shape` (filled with zeros, as Keras on TF does)."""
    return array_ops.zeros(shape, dtype=_dtype_or_floatx(dtype))


@export("keras.ops.full", "keras.ops.numpy.full")
@keras_op
def full(shape, fill_value, dtype=None):
    """A tensor of `shape` filled with `fill_value` (floatx unless `dtype` says otherwise)."""
    dtype = _dtype_or_floatx(dtype)
    return array_ops.broadcast_to(convert(fill_value, dtype), shape)


def _like_dtype(dtype):
    return None if dtype is None else standardize_dtype(dtype)


@export("keras.ops.ones_like", "keras.ops.numpy.ones_like")
@keras_op
def ones_like(x, dtype=None):
    """Ones shaped like `x` (its dtype unless `dtype` is given)."""
    return array_ops.ones_like(convert(x), dtype=_like_dtype(dtype))


@export("keras.ops.zeros_like", "keras.ops.numpy.zeros_like")
@keras_op
def zeros_like(x, dtype=None):
    """Zeros shaped like `x` (its dtype unless `dtype` is given)."""
    return array_ops.zeros_like(convert(x), dtype=_like_dtype(dtype))


@export("keras.ops.empty_like", "keras.ops.numpy.empty_like")
@keras_op
def empty_like(x, dtype=None):
    """A tensor shaped like `x` (zeros, as Keras on TF does)."""
    return array_ops.zeros_like(convert(x), dtype=_like_dtype(dtype))


@export("keras.ops.full_like", "keras.ops.numpy.full_like")
@keras_op
def full_like(x, fill_value, dtype=None):
    """`fill_value` broadcast to the shape of `x` (its dtype unless `dtype` is given)."""
    x = convert(x)
    dtype = result_type(_like_dtype(dtype) or x.dtype)
    return array_ops.broadcast_to(convert(fill_value, dtype), list(x.shape))


def _band(n, m, k, upper):
    rows = array_ops.reshape(array_ops.range(n), [n, 1])
    cols = array_ops.reshape(array_ops.range(m), [1, m])
    diff = tfm.subtract(cols, rows)
    return CMP.greater_equal(diff, k) if upper else CMP.less_equal(diff, k)


@export("keras.ops.eye", "keras.ops.numpy.eye")
@keras_op
def eye(N, M=None, k=0, dtype=None):  # noqa: N803 (Keras' names)
    """An N x M matrix with ones on diagonal `k`."""
    if isinstance(N, float) or getattr(N, "dtype", None) in FLOAT_TYPES:
        raise TypeError("Argument `N` must be an integer or an integer tensor.")
    if isinstance(M, float) or getattr(M, "dtype", None) in FLOAT_TYPES:
        raise TypeError("Argument `M` must be an integer, an integer tensor, or `None`.")
    dtype = _dtype_or_floatx(dtype)
    n = int(N)
    m = n if M is None else int(M)
    k = int(k)
    if min(m - k, n + k) < 0:
        raise errors.invalid_argument("Fill", f"Dimension {min(m - k, n + k)} must be >= 0 "
                                              f"(eye({n}, {m}, k={k}) has no diagonal {k})")
    rows = array_ops.reshape(array_ops.range(n), [n, 1])
    cols = array_ops.reshape(array_ops.range(m), [1, m])
    return constant_ops.cast(CMP.equal(tfm.subtract(cols, rows), k), dtype)


@export("keras.ops.identity", "keras.ops.numpy.identity")
@keras_op
def identity(n, dtype=None):
    """The n x n identity matrix."""
    return eye(n, n, dtype=dtype)


@export("keras.ops.tri", "keras.ops.numpy.tri")
@keras_op
def tri(N, M=None, k=0, dtype=None):  # noqa: N803 (Keras' names)
    """An N x M matrix of ones at and below diagonal `k`, zeros above."""
    m = N if M is None else M
    return constant_ops.cast(_band(N, m, k, upper=False), _dtype_or_floatx(dtype))


def _triangle(x, k, upper):
    x = convert(x)
    shape = list(x.shape)
    rows, cols = int(shape[-2]), int(shape[-1])
    if not upper and k > cols:
        raise errors.invalid_argument("MatrixBandPart", f"num_upper must be negative or less or "
                                                        f"equal to number of columns ({cols}) "
                                                        f"got: {k}")
    if upper and -k > rows:
        raise errors.invalid_argument("MatrixBandPart", f"num_lower must be negative or less or "
                                                        f"equal to number of rows ({rows}) got: "
                                                        f"{-k}")
    mask = _band(shape[-2], shape[-1], int(k), upper)
    return tf_where(array_ops.broadcast_to(mask, shape), x, array_ops.zeros_like(x))


@export("keras.ops.tril", "keras.ops.numpy.tril")
@keras_op
def tril(x, k=0):
    """`x` with the elements above diagonal `k` zeroed."""
    return _triangle(x, k, upper=False)


@export("keras.ops.triu", "keras.ops.numpy.triu")
@keras_op
def triu(x, k=0):
    """`x` with the elements below diagonal `k` zeroed."""
    return _triangle(x, k, upper=True)


@export("keras.ops.meshgrid", "keras.ops.numpy.meshgrid")
@keras_op
def meshgrid(*x, indexing="xy"):
    """Coordinate grids from 1-D coordinate vectors ('xy' or 'ij' indexing)."""
    xs = [convert(v) for v in x]
    if len({v.dtype for v in xs}) > 1:
        raise errors.invalid_argument("Mul", f"meshgrid needs vectors of one dtype (TF multiplies "
                                             f"them by ones of the first one's dtype); received "
                                             f"{[v.dtype.name for v in xs]}")
    return array_ops.meshgrid(*xs, indexing=indexing)


def _window_length(x):
    return int(convert(x).numpy())


@export("keras.ops.bartlett", "keras.ops.numpy.bartlett")
@keras_op
def bartlett(x):
    """The Bartlett (triangular) window of length x."""
    n = _window_length(x)
    if n == 0:
        return array_ops.zeros([0], config.floatx())
    if n == 1:
        return array_ops.ones([1], config.floatx())
    i = array_ops.range(0.0, float(n), 1.0, dtype=config.floatx())
    half = (n - 1) / 2
    up = tfm.divide(tfm.multiply(i, 2.0), float(n - 1))
    return tf_where(CMP.less_equal(i, half), up, tfm.subtract(2.0, up))


@export("keras.ops.blackman", "keras.ops.numpy.blackman")
@keras_op
def blackman(x):
    """The Blackman window of length x."""
    dtype = config.floatx()
    n = _window_length(x)
    i = array_ops.range(0.0, float(n), 1.0, dtype=dtype)
    denominator = float(n - 1) if n != 1 else 1.0
    w = tfm.add(tfm.add(0.42, tfm.multiply(tfm.cos(tfm.divide(tfm.multiply(i, 2 * np.pi), denominator)),
                                     -0.5)),
              tfm.multiply(tfm.cos(tfm.divide(tfm.multiply(i, 4 * np.pi), denominator)), 0.08))
    return array_ops.ones_like(w) if n == 1 else w


def _raised_cosine(n, a, b):
    dtype = config.floatx()
    if n == 1:
        return array_ops.ones([1], dtype)
    i = array_ops.range(0.0, float(n), 1.0, dtype=dtype)
    return tfm.subtract(a, tfm.multiply(tfm.cos(tfm.divide(tfm.multiply(i, 2 * np.pi), float(n - 1))), b))


@export("keras.ops.hamming", "keras.ops.numpy.hamming")
@keras_op
def hamming(x):
    """The Hamming window of length x."""
    return _raised_cosine(_window_length(x), 0.54, 0.46)


@export("keras.ops.hanning", "keras.ops.numpy.hanning")
@keras_op
def hanning(x):
    """The Hann window of length x."""
    return _raised_cosine(_window_length(x), 0.5, 0.5)


@export("keras.ops.kaiser", "keras.ops.numpy.kaiser")
@keras_op
def kaiser(x, beta):
    """The Kaiser window of length x with shape parameter `beta`."""
    n = _window_length(x)
    dtype = config.floatx()
    if n == 1:
        return array_ops.ones([1], dtype)
    half = (n - 1) / 2.0
    arg = array_ops.range(-half, half + 0.1, 1.0, dtype="float32")
    arg = constant_ops.cast(arg, dtype)
    beta_t = constant_ops.cast(convert(beta), dtype)
    num = tfm.multiply(beta_t, tfm.sqrt(tfm.maximum(tfm.subtract(1.0, tfm.square(tfm.divide(arg, half))),
                                              0.0)))
    return tfm.divide(i0(num), i0(beta_t))


@export("keras.ops.vander", "keras.ops.numpy.vander")
@keras_op
def vander(x, N=None, increasing=False):  # noqa: N803 (Keras' name)
    """The Vandermonde matrix of the 1-D tensor `x`: columns are powers of x."""
    x = convert(x)
    if x.shape.rank != 1:
        raise ValueError(f"Input tensor must be 1-dimensional. Received: input.shape={x.shape}")
    if N is not None:
        if not isinstance(N, int):
            raise TypeError(f"Argument `N` must be of type `int`. Received: N={N} of type "
                            f"{type(N)}")
        if N < 0:
            raise ValueError(f"Argument 'N' must be nonnegative. Received: N={N}")
    if not isinstance(increasing, bool):
        raise TypeError(f"Argument `increasing` must be of type `bool`. Received: increasing="
                        f"{increasing} of type {type(increasing)}")
    out_dtype = result_type(x.dtype)
    n = int(x.shape[0]) if N is None else N
    powers = array_ops.range(n) if increasing else array_ops.range(n - 1, -1, -1)
    compute = result_type(x.dtype, "float32")
    out = tfm.pow(constant_ops.cast(array_ops.expand_dims(x, -1), compute), constant_ops.cast(powers, compute))
    return constant_ops.cast(out, out_dtype)


@export("keras.ops.diag", "keras.ops.numpy.diag")
@keras_op
def diag(x, k=0):
    """The matrix with `x` on diagonal k (1-D x), or diagonal k of the matrix x (2-D x)."""
    x = convert(x)
    if x.shape.rank == 1:
        out = _through_wide(x, linalg_ops.diag)
        if k:
            pad = [[0, k], [k, 0]] if k > 0 else [[-k, 0], [0, -k]]
            out = _through_wide(out, lambda v: array_ops.pad(v, pad))
        return out
    if x.shape.rank == 2:
        return diagonal(x, offset=k)
    raise ValueError(f"`x` must be 1d or 2d. Received: x.shape={tuple(x.shape)}")


@export("keras.ops.diagflat", "keras.ops.numpy.diagflat")
@keras_op
def diagflat(x, k=0):
    """The matrix with the flattened `x` on diagonal k."""
    return diag(array_ops.reshape(convert(x), [-1]), k)


@export("keras.ops.diagonal", "keras.ops.numpy.diagonal")
@keras_op
def diagonal(x, offset=0, axis1=0, axis2=1):
    """Diagonal `offset` of the matrices spanned by axes (axis1, axis2), as the last axis."""
    x = convert(x)
    ndim = x.shape.rank
    if canonical_axis(axis1, ndim) == canonical_axis(axis2, ndim):
        raise ValueError(f"`axis1` and `axis2` cannot be the same. Received: axis1={axis1}, "
                         f"axis2={axis2}")
    x = moveaxis(x, (axis1, axis2), (-2, -1))
    rows, cols = int(x.shape[-2]), int(x.shape[-1])
    if offset <= -rows or offset >= cols:
        raise errors.invalid_argument("MatrixDiagPartV3", f"diagonal offset {offset} is outside "
                                      f"the {rows} x {cols} matrices (it must be in "
                                      f"({-rows}, {cols}))")
    if offset > 0:
        x = getitem(x, (Ellipsis, slice(None), slice(offset, None)))
    elif offset < 0:
        x = getitem(x, (Ellipsis, slice(-offset, None), slice(None)))
    return _through_wide(x, linalg_ops.diag_part)


def _through_wide(x, fn):
    """fn(x) for dtypes minitf's diag ops lack a kernel for (small ints, bool), via int32."""
    name = x.dtype.name
    if name in ("bool", "int8", "int16", "uint8", "uint16"):
        return constant_ops.cast(fn(constant_ops.cast(x, "int32")), name)
    return fn(x)


@export("keras.ops.trace", "keras.ops.numpy.trace")
@keras_op
def trace(x, offset=0, axis1=0, axis2=1):
    """The sum along diagonal `offset` of the matrices spanned by (axis1, axis2)."""
    x = convert(x)
    x = constant_ops.cast(x, accumulating_dtype(x.dtype.name))
    shape = list(x.shape)
    rows, cols = shape[axis1], shape[axis2]
    if min(cols - offset, rows + offset) < 0:
        raise errors.invalid_argument("Fill", f"Dimension {min(cols - offset, rows + offset)} "
                                              f"must be >= 0 (offset {offset} lies outside the "
                                              f"{rows} x {cols} matrices)")
    x = moveaxis(x, (axis1, axis2), (-2, -1))
    mask = CMP.equal(tfm.subtract(array_ops.reshape(array_ops.range(cols), [1, cols]),
                                array_ops.reshape(array_ops.range(rows), [rows, 1])), offset)
    x = tf_where(array_ops.broadcast_to(mask, list(x.shape)), x, array_ops.zeros_like(x))
    return reduce_ops.reduce_sum(x, axis=[-2, -1])
