"""keras.ops.linalg: decompositions, solves, inverses, norms and jvp, with Keras' argument
checks (ValueError for non-square or too-low-rank inputs)."""
import numpy as np

from minitf.errors import errors
from minitf.nest import nest
from minitf.autodiff.forwardprop import ForwardAccumulator
from minitf.keras_core import config
from minitf.keras_ops.core import convert, keras_op
from minitf.keras_ops.dtypes import result_type
from minitf.keras_ops.np_shape import moveaxis
from minitf.ops import array as array_ops
from minitf.ops import compare as CMP
from minitf.ops import constant as constant_ops
from minitf.ops import linalg as linalg_ops
from minitf.ops import linalg_decompositions as decompositions
from minitf.ops import linalg_lu
from minitf.ops import math as math_ops
from minitf.ops import reduce as reduce_ops
from minitf.ops.gather import where as tf_where
from minitf.api_export import export

__all__ = ["cholesky", "cholesky_inverse", "det", "eigh", "inv", "lu_factor", "solve",
           "solve_triangular", "svd", "qr", "norm", "lstsq", "matrix_rank", "pinv", "jvp"]


def _at_least_2d(*arrays):
    for a in arrays:
        if a.shape.rank < 2:
            raise ValueError(f"Expected input to have rank >= 2. Received input with shape "
                             f"{tuple(a.shape)}.")


def _square(*arrays):
    for a in arrays:
        m, n = list(a.shape[-2:])
        if m != n:
            raise ValueError(f"Expected a square matrix. Received non-square input with shape "
                             f"{tuple(a.shape)}")


def _at_least_1d(*arrays):
    for a in arrays:
        if a.shape.rank < 1:
            raise ValueError(f"Expected input to have rank >= 1. Received scalar input {a}.")


def _compatible(a, b):
    if a.shape.rank == b.shape.rank and int(a.shape[-2]) != int(b.shape[-2]):
        raise ValueError(f"Incompatible shapes between `a` and `b`. Expected `a.shape[-2] == "
                         f"b.shape[-2]`. Received: a.shape={tuple(a.shape)}, b.shape="
                         f"{tuple(b.shape)}")
    if a.shape.rank == b.shape.rank - 1 and int(a.shape[-1]) != int(b.shape[-1]):
        raise ValueError(f"Incompatible shapes between `a` and `b`. Expected `a.shape[-1] == "
                         f"b.shape[-1]`. Received: a.shape={tuple(a.shape)}, b.shape="
                         f"{tuple(b.shape)}")


def _matrix(x):
    x = convert(x)
    _at_least_2d(x)
    _square(x)
    return x


@export("keras.ops.cholesky", "keras.ops.linalg.cholesky")
@keras_op
def cholesky(x, upper=False):
    """The Cholesky factor of the Hermitian positive-definite x (lower, or upper)."""
    x = _matrix(x)
    out = linalg_ops.cholesky(x)
    if not bool(np.all(np.isfinite(out.numpy()))):
        raise ValueError("Cholesky decomposition failed: the input is not positive definite "
                         "(Cholesky : Tensor had NaN values)")
    return linalg_ops.adjoint(out) if upper else out


@export("keras.ops.cholesky_inverse", "keras.ops.linalg.cholesky_inverse")
@keras_op
def cholesky_inverse(x, upper=False):
    """The inverse of A from its Cholesky factor x (A = x x^H, or x^H x when upper)."""
    x = _matrix(x)
    eye = array_ops.eye(int(x.shape[-1]), dtype=x.dtype)
    inv_chol = decompositions.triangular_solve(x, eye, lower=not upper)
    if upper:
        return linalg_ops.matmul(inv_chol, inv_chol, transpose_b=True)
    return linalg_ops.matmul(inv_chol, inv_chol, transpose_a=True)


@export("keras.ops.det", "keras.ops.linalg.det")
@keras_op
def det(x):
    """The determinant of the square matrices x."""
    return linalg_ops.det(_matrix(x))


@export("keras.ops.eigh", "keras.ops.linalg.eigh")
@keras_op
def eigh(x):
    """(eigenvalues, eigenvectors) of the Hermitian matrices x, eigenvalues ascending."""
    return tuple(decompositions.eigh(_matrix(x)))


@export("keras.ops.inv", "keras.ops.linalg.inv")
@keras_op
def inv(x):
    """The inverse of the square matrices x."""
    return linalg_ops.inv(_matrix(x))


@export("keras.ops.lu_factor", "keras.ops.linalg.lu_factor")
@keras_op
def lu_factor(x):
    """(lu, pivots) of the square matrices x: L and U packed in one matrix, and the row each
    output row came from (TF's permutation inverted, as Keras returns it)."""
    x = convert(x)
    _at_least_2d(x)
    try:
        _square(x)
    except ValueError as e:
        raise ValueError(f"LU decomposition failed: {e}. LU decomposition is only supported for "
                         f"square matrices in Tensorflow.") from None
    if x.shape.rank != 2:
        raise errors.invalid_argument("InvertPermutation", f"invert_permutation expects a 1D "
                                                           f"vector: Keras on TF factors one "
                                                           f"matrix at a time (received shape "
                                                           f"{list(x.shape)})")
    lu, p = linalg_lu.lu(x)
    host = p.numpy()
    inverse = np.argsort(host, axis=-1).astype(host.dtype)
    return lu, constant_ops.constant(inverse)


def _solve_inputs(a, b):
    a, b = convert(a), convert(b)
    _at_least_2d(a)
    _square(a)
    _at_least_1d(b)
    _compatible(a, b)
    return a, b


@export("keras.ops.solve", "keras.ops.linalg.solve")
@keras_op
def solve(a, b):
    """x with a x = b (b a vector or a matrix of right-hand sides)."""
    a, b = _solve_inputs(a, b)
    if b.shape.rank == a.shape.rank - 1:
        return array_ops.squeeze(linalg_ops.solve(a, array_ops.expand_dims(b, -1)), [-1])
    return linalg_ops.solve(a, b)


@export("keras.ops.solve_triangular", "keras.ops.linalg.solve_triangular")
@keras_op
def solve_triangular(a, b, lower=False):
    """x with a x = b for a triangular `a` (upper by default)."""
    a, b = _solve_inputs(a, b)
    if b.shape.rank == a.shape.rank - 1:
        return array_ops.squeeze(decompositions.triangular_solve(a, array_ops.expand_dims(b, -1), lower=lower), [-1])
    return decompositions.triangular_solve(a, b, lower=lower)


@export("keras.ops.svd", "keras.ops.linalg.svd")
@keras_op
def svd(x, full_matrices=True, compute_uv=True):
    """(u, s, vh) with x = u diag(s) vh (s alone when compute_uv=False)."""
    x = convert(x)
    _at_least_2d(x)
    if not compute_uv:
        return decompositions.svd(x, full_matrices=full_matrices, compute_uv=False)
    s, u, v = decompositions.svd(x, full_matrices=full_matrices, compute_uv=True)
    return u, s, linalg_ops.adjoint(v)


@export("keras.ops.qr", "keras.ops.linalg.qr")
@keras_op
def qr(x, mode="reduced"):
    """(q, r) with x = q r; mode 'reduced' or 'complete'."""
    if mode not in ("reduced", "complete"):
        raise ValueError(f"`mode` argument value not supported. Expected one of {{'reduced', "
                         f"'complete'}}. Received: mode={mode}")
    return tuple(decompositions.qr(convert(x), full_matrices=mode == "complete"))


def _norm_dtype(x):
    return config.floatx() if x.dtype.name == "int64" else result_type(x.dtype, float)


@export("keras.ops.norm", "keras.ops.linalg.norm")
@keras_op
def norm(x, ord=None, axis=None, keepdims=False):  # noqa: A002 (numpy's name)
    """The vector norm (one axis) or matrix norm (two axes) of x, numpy's `ord` values."""
    x = convert(x)
    ndim = x.shape.rank
    axes = tuple(range(ndim)) if axis is None else ((axis,) if isinstance(axis, int) else
                                                     tuple(axis))
    if any(a < -ndim or a >= ndim for a in axes):
        raise ValueError(f"All `axis` values must be in the range [-ndim, ndim). Received inputs "
                         f"with ndim={ndim}, while axis={axes}")
    x = constant_ops.cast(x, _norm_dtype(x))
    if len(axes) == 1:
        ax = axes[0]
        if ord is None or ord == 2:
            return math_ops.sqrt(reduce_ops.reduce_sum(math_ops.square(x), axis=ax, keepdims=keepdims))
        if ord == float("inf"):
            return reduce_ops.reduce_max(math_ops.abs(x), axis=ax, keepdims=keepdims)
        if ord == float("-inf"):
            return reduce_ops.reduce_min(math_ops.abs(x), axis=ax, keepdims=keepdims)
        if ord == 0:
            return reduce_ops.reduce_sum(constant_ops.cast(CMP.not_equal(x, 0), x.dtype), axis=ax, keepdims=keepdims)
        if isinstance(ord, str):
            raise ValueError(f"Invalid `ord` argument for vector norm. Received: ord={ord}")
        order = constant_ops.cast(convert(ord), x.dtype)
        total = reduce_ops.reduce_sum(math_ops.pow(math_ops.abs(x), order), axis=ax, keepdims=keepdims)
        return math_ops.pow(total, math_ops.divide(constant_ops.constant(1.0, dtype=x.dtype), order))
    if len(axes) != 2:
        raise ValueError(f"Invalid axis values. Received: axis={axis}")
    row, col = (a + ndim if a < 0 else a for a in axes)
    if ord is None or ord == "fro":
        return math_ops.sqrt(reduce_ops.reduce_sum(math_ops.square(x), axis=list(axes), keepdims=keepdims))
    if ord in (1, -1):
        reduce = reduce_ops.reduce_max if ord == 1 else reduce_ops.reduce_min
        if not keepdims and col > row:
            col -= 1
        return reduce(reduce_ops.reduce_sum(math_ops.abs(x), axis=row, keepdims=keepdims), axis=col,
                      keepdims=keepdims)
    if ord in (float("inf"), float("-inf")):
        reduce = reduce_ops.reduce_max if ord > 0 else reduce_ops.reduce_min
        if not keepdims and row > col:
            row -= 1
        return reduce(reduce_ops.reduce_sum(math_ops.abs(x), axis=col, keepdims=keepdims), axis=row,
                      keepdims=keepdims)
    if ord in ("nuc", 2, -2):
        moved = moveaxis(x, axes, (-2, -1))
        s = decompositions.svd(moved, compute_uv=False)
        out = {"nuc": reduce_ops.reduce_sum, 2: reduce_ops.reduce_max, -2: reduce_ops.reduce_min}[ord](s, axis=-1)
        if keepdims:
            out = array_ops.expand_dims(array_ops.expand_dims(out, axes[0]), axes[1])
        return out
    raise ValueError(f"Invalid `ord` argument for matrix norm. Received: ord={ord}")


@export("keras.ops.lstsq", "keras.ops.linalg.lstsq")
@keras_op
def lstsq(a, b, rcond=None):
    """The least-squares solution x of a x = b (2-D a; b a vector or a matrix)."""
    a, b = convert(a), convert(b)
    if int(a.shape[0]) != int(b.shape[0]):
        raise ValueError("Leading dimensions of input arrays must match")
    vector = b.shape.rank == 1
    if vector:
        b = array_ops.expand_dims(b, -1)
    if a.shape.rank != 2:
        raise TypeError(f"{a.shape.rank}-dimensional array given. Array must be two-dimensional")
    if b.shape.rank != 2:
        raise TypeError(f"{b.shape.rank}-dimensional array given. Array must be one or "
                        f"two-dimensional")
    m, n = (int(d) for d in a.shape)
    eps = float(np.finfo(a.dtype.as_numpy_dtype).eps)
    rcond = eps * max(n, m) if rcond is None else (eps if rcond < 0 else rcond)
    u, s, vt = svd(a, full_matrices=False)
    big = CMP.greater_equal(s, math_ops.multiply(s[0], rcond))
    safe = tf_where(big, s, array_ops.ones_like(s))
    s_inv = array_ops.expand_dims(tf_where(big, math_ops.divide(1.0, safe), array_ops.zeros_like(s)), -1)
    x = linalg_ops.matmul(linalg_ops.adjoint(vt), math_ops.multiply(s_inv, linalg_ops.matmul(linalg_ops.adjoint(u), b)))
    return array_ops.reshape(x, [-1]) if vector else x


@export("keras.ops.matrix_rank", "keras.ops.linalg.matrix_rank")
@keras_op
def matrix_rank(x, tol=None):
    """The number of singular values of x above `tol` (a size-dependent default)."""
    return decompositions.matrix_rank(convert(x), tol=tol)


@export("keras.ops.pinv", "keras.ops.linalg.pinv")
@keras_op
def pinv(x, rcond=None):
    """The Moore-Penrose pseudo-inverse of x."""
    return decompositions.pinv(convert(x), rcond=rcond)


@export("keras.ops.jvp", "keras.ops.linalg.jvp")
def jvp(fun, primals, tangents, has_aux=False):
    """(fun(*primals), the derivative of fun at primals along tangents) by forward-mode
    differentiation; with has_aux, fun returns (output, aux) and aux comes back third."""
    primal_flat = [convert(p) for p in nest.flatten(primals)]
    tangent_flat = [constant_ops.cast(convert(t), p.dtype) for t, p in zip(nest.flatten(tangents),
                                                                primal_flat)]
    primals = nest.pack_sequence_as(primals, primal_flat)
    with ForwardAccumulator(primal_flat, tangent_flat) as acc:
        if has_aux:
            out, aux = fun(*primals)
        else:
            out = fun(*primals)
        out_flat = nest.flatten(out)
        tangents_out = [acc.jvp(o) for o in out_flat]
    tangents_out = nest.pack_sequence_as(out, tangents_out)
    return (out, tangents_out, aux) if has_aux else (out, tangents_out)


