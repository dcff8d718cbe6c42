"""LU factorization with partial pivoting (tf.linalg.lu) and what TF builds on it: lu_solve,
lu_reconstruct and lu_matrix_inverse. The factorization has no gradient (TF registers none);
the others are composites of differentiable ops, so gradients reach `lower_upper` and `rhs`."""
import collections

import numpy as np

from minitf import dispatch
from minitf.dtypes import dtypes
from minitf.errors import errors
from minitf.convert import convert_to_tensor
from minitf.ops._core import Op, Tensor, thread_state, array_module, as_tensor, record
from minitf.ops.linalg import band_part, matmul
from minitf.ops.linalg_decompositions import check_kernel, check_rank, triangular_solve
from minitf.api_export import export

__all__ = ["lu", "lu_solve", "lu_reconstruct", "lu_matrix_inverse"]

Lu = collections.namedtuple("Lu", ["lu", "p"])

LU = Op("Lu")


@export("linalg.lu")
@dispatch.add_dispatch_support
def lu(input, output_idx_type=dtypes.int32, name=None):  # noqa: A002
    """LU factorization with partial pivoting of square matrices [..., N, N].

    Args:
      input: a float32/float64/complex tensor.
      output_idx_type: int32 or int64, the dtype of `p`.
      name: ignored (TF's op name).

    Returns:
      Lu(lu, p): `lu` holds L (unit diagonal, below) and U (on and above the diagonal) in one
      matrix, and `p` is the row permutation: (L @ U)[i] = input[p[i]].

    Raises:
      InvalidArgumentError: an integer dtype, rank < 2, a non-square or a singular matrix.
      LookupError (from a tape): TF registers no gradient for Lu.
    """
    x = as_tensor(input)
    op = "Lu"
    check_kernel(x, op)
    check_rank(x, op)
    idx_type = dtypes.as_dtype(output_idx_type)
    if idx_type.name not in ("int32", "int64"):
        raise errors.invalid_argument(op, f"Value for attr 'output_idx_type' of {idx_type.name} is not in the "
                                          f"list of allowed values: int32, int64")
    v = x._value
    if v.shape[-1] != v.shape[-2]:
        raise errors.invalid_argument(op, f"Input matrix must be square, got shape {list(x.shape)}")
    xp = array_module(v)
    n = v.shape[-1]
    flat = v.reshape((-1, n, n)).copy()
    batch = flat.shape[0]
    perm = xp.broadcast_to(xp.arange(n), (batch, n)).copy()
    rows = xp.arange(batch)
    for k in range(n):  # Doolittle with the largest pivot of each column (first one on ties)
        piv = k + xp.argmax(xp.abs(flat[:, k:, k]), axis=1)
        top, best = flat[rows, k].copy(), flat[rows, piv].copy()
        flat[rows, k], flat[rows, piv] = best, top
        ptop, pbest = perm[rows, k].copy(), perm[rows, piv].copy()
        perm[rows, k], perm[rows, piv] = pbest, ptop
        pivot = flat[:, k, k]
        if batch and not bool((pivot != 0).all()):
            raise errors.invalid_argument(op, f"Input is not invertible (shape {list(x.shape)}: a zero pivot "
                                              f"in column {k}); tf.linalg.lu needs nonsingular matrices")
        flat[:, k + 1:, k] /= pivot[:, None]
        flat[:, k + 1:, k + 1:] -= flat[:, k + 1:, k, None] * flat[:, k, None, k + 1:]
    out = Tensor(flat.reshape(v.shape))
    p = Tensor(perm.reshape(v.shape[:-1]).astype(idx_type._np))
    if thread_state.active:
        def grad(g_lu, g_p):
            raise LookupError("gradient registry has no entry for: Lu (TF defines no gradient for "
                              "tf.linalg.lu; differentiate lu_solve/lu_reconstruct's lower_upper instead)")
        record(LU, (x,), (out, p), grad)
    return Lu(out, p)


def _lower_unit(lower_upper):
    """L from the packed factor: its strict lower triangle with ones on the diagonal."""
    xp = array_module(lower_upper._value)
    n = lower_upper._value.shape[-1]
    eye = xp.eye(n, dtype=lower_upper._value.dtype)
    return band_part(lower_upper, -1, 0) * Tensor(1 - eye) + Tensor(eye)


def _permutation_matrix(perm, dtype, xp):
    """P with P[..., k, j] = 1 where j == perm[..., k] (so P @ x gathers rows x[perm])."""
    pv = xp.asarray(perm._value)
    n = pv.shape[-1]
    return Tensor((pv[..., :, None] == xp.arange(n)).astype(dtype))


def _check_lu_args(lower_upper, perm):
    if lower_upper._value.ndim < 2:
        raise ValueError("Input `lower_upper` must have at least 2 dimensions.")
    if lower_upper._value.ndim != perm._value.ndim + 1:
        raise ValueError(f"`rank(lower_upper)` must equal `rank(perm) + 1` (got shapes {list(lower_upper.shape)} "
                         f"and {list(perm.shape)}).")
    if lower_upper._value.shape[-1] != lower_upper._value.shape[-2]:
        raise ValueError(f"`lower_upper` must be square (got shape {list(lower_upper.shape)}).")


@export("linalg.lu_reconstruct")
@dispatch.add_dispatch_support
def lu_reconstruct(lower_upper, perm, validate_args=False, name=None):
    """The matrices whose `tf.linalg.lu` gave (lower_upper, perm): P^T @ L @ U."""
    lower_upper = convert_to_tensor(lower_upper, dtype_hint="float32")
    perm = convert_to_tensor(perm, dtype_hint="int32")
    _check_lu_args(lower_upper, perm)
    x = matmul(_lower_unit(lower_upper), band_part(lower_upper, 0, -1))
    p = _permutation_matrix(perm, lower_upper._value.dtype, array_module(lower_upper._value))
    return matmul(p, x, adjoint_a=True)


@export("linalg.lu_solve")
@dispatch.add_dispatch_support
def lu_solve(lower_upper, perm, rhs, validate_args=False, name=None):
    """X with A @ X = rhs ([..., N, K]) given A's `tf.linalg.lu` factors; batch dimensions of rhs
    and perm broadcast."""
    lower_upper = convert_to_tensor(lower_upper, dtype_hint="float32")
    perm = convert_to_tensor(perm, dtype_hint="int32")
    rhs = convert_to_tensor(rhs, dtype_hint=lower_upper.dtype)
    _check_lu_args(lower_upper, perm)
    if rhs._value.ndim < 2:
        raise ValueError("Input `rhs` must have at least 2 dimensions.")
    if lower_upper._value.shape[-1] != rhs._value.shape[-2]:
        raise ValueError(f"`lower_upper.shape[-1]` must equal `rhs.shape[-1]` (got {list(lower_upper.shape)} "
                         f"and {list(rhs.shape)}).")
    p = _permutation_matrix(perm, rhs._value.dtype, array_module(rhs._value))
    permuted = matmul(p, rhs)
    y = triangular_solve(_lower_unit(lower_upper), permuted, lower=True)
    return triangular_solve(lower_upper, y, lower=False)


@export("linalg.lu_matrix_inverse")
@dispatch.add_dispatch_support
def lu_matrix_inverse(lower_upper, perm, validate_args=False, name=None):
    """Inverse of the matrices whose `tf.linalg.lu` gave (lower_upper, perm)."""
    lower_upper = convert_to_tensor(lower_upper, dtype_hint="float32")
    xp = array_module(lower_upper._value)
    shape = lower_upper._value.shape
    eye = Tensor(np.broadcast_to(np.eye(shape[-1]), shape).astype(lower_upper._value.dtype)
                 if xp is np else xp.broadcast_to(xp.eye(shape[-1], dtype=lower_upper._value.dtype), shape))
    return lu_solve(lower_upper, perm, eye)
