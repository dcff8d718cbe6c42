"""Matrix decompositions and the solvers built on them: tf.linalg.svd, qr, eigh, eigvalsh,
triangular_solve, cholesky_solve, lstsq, pinv, matrix_rank, plus cross and normalize (the LU
family lives in ops/linalg_lu.py).

Each gradient rule sits beside its forward and follows TF's linalg_grad.py; the rules are written
with minitf ops, so a tape that records a backward pass differentiates them again. Kernels go
through the array-module seam (`xp.linalg`), so the same code runs on numpy and cupy.
"""
import collections

import numpy as np

from minitf import dispatch
from minitf.errors import errors
from minitf.convert import convert_to_tensor
from minitf.ops._core import Op, Tensor, thread_state, array_module, as_tensor, binary, record
from minitf.ops.array import concat, expand_dims, where
from minitf.ops.constant import cast
from minitf.ops.linalg import band_part, cholesky, diag, matmul, matrix_transpose
from minitf.ops.math import reciprocal
from minitf.ops.norms import norm
from minitf.ops.reduce import reduce_max, reduce_sum
from minitf.api_export import export

__all__ = ["svd", "qr", "eigh", "eigvalsh", "triangular_solve", "cholesky_solve", "lstsq", "pinv",
           "matrix_rank", "cross", "normalize"]

Qr = collections.namedtuple("Qr", ["q", "r"])

_ATTR_LIST = "double, float, half, complex64, complex128"


# -- helpers ---------------------------------------------------------------------------------

def check_kernel(x, op_name, half=False, attr_list=_ATTR_LIST):
    """TF's errors for a dtype the op does not take (InvalidArgumentError) or takes but has no
    CPU kernel for (NotFoundError); `half` says whether the op has a float16 kernel."""
    name = x.dtype.name
    if name in ("float32", "float64", "complex64", "complex128") or (half and name == "float16"):
        return
    if name in attr_list.replace("half", "float16").split(", "):
        raise errors.NotFoundError(
            None, None, f"Could not find device for node: {{{{node {op_name}}}}} = {op_name}[T={name}]: "
                        f"{op_name} has no {name} kernel; cast the input to float32 [Op:{op_name}]")
    raise errors.invalid_argument(
        op_name, f"Value for attr 'T' of {name} is not in the list of allowed values: {attr_list}; "
                 f"cast the input with tf.cast")


def check_rank(x, op_name, index=0):
    if x._value.ndim < 2:
        raise errors.invalid_argument(op_name, f"Input tensor {index} must have rank >= 2, got "
                                               f"{x._value.ndim} (shape {list(x.shape)})")


def _adj(t):
    return matrix_transpose(t, conjugate=True)


def _safe_reciprocal(x, epsilon=1e-20):
    """x / (x^2 + eps): TF's Lorentz broadening, so repeated values give 0 instead of inf."""
    return x * reciprocal(x * x + epsilon)


def _const(value, like):
    """A constant array on `like`'s device with `like`'s dtype."""
    xp = array_module(like._value)
    return Tensor(xp.asarray(value, dtype=like._value.dtype))


def _off_diagonal(f, p):
    """`f` with its main diagonal zeroed (TF's matrix_set_diag(f, 0))."""
    xp = array_module(f._value)
    return f * Tensor(1 - xp.eye(p, dtype=f._value.dtype))


def _no_complex_grad(x, op_name):
    if x._value.dtype.kind == "c":
        raise NotImplementedError(f"minitf has no gradient for {op_name} of complex inputs (shape "
                                  f"{list(x.shape)}); differentiate a real-valued input instead")


def _finite_slices(v, xp):
    """Matrices of `v` whose entries are all finite (flattened batch), with the others zeroed."""
    flat = v.reshape((-1,) + v.shape[-2:])
    good = xp.isfinite(flat).all(axis=(-2, -1))
    if bool(good.all()):
        return v, None
    return xp.where(good[:, None, None], flat, 0).reshape(v.shape), good


def _poison(out, good, xp):
    """NaN for the matrices flagged not finite by `_finite_slices` (what TF's kernels return)."""
    if good is None:
        return out
    batch = int(good.shape[0])
    flat = out.reshape((batch, -1))
    return xp.where(good[:, None], flat, xp.nan).reshape(out.shape).astype(out.dtype)


# -- singular value decomposition --------------------------------------------------------------

SVD = Op("Svd")


@export("linalg.svd")
@dispatch.add_dispatch_support
def svd(tensor, full_matrices=False, compute_uv=True, name=None):
    """Singular value decomposition a = u @ diag(s) @ adjoint(v) of the last two dimensions.

    Args:
      tensor: a float32/float64/complex tensor of shape [..., M, N].
      full_matrices: u is [..., M, M] and v [..., N, N] instead of [..., M, P] and [..., N, P]
        (P = min(M, N)).
      compute_uv: False returns only s.
      name: ignored (TF's op name).

    Returns:
      (s, u, v) with s [..., P] (real, descending), or s alone when compute_uv is False. Note
      the order (s first) and that v is not adjoint, unlike numpy.linalg.svd. Non-finite input
      matrices give NaNs, as in TF.

    Raises:
      InvalidArgumentError: an integer dtype or rank < 2.
      NotFoundError: float16 (TF has no CPU kernel).
      NotImplementedError (from the gradient): full_matrices with |M - N| > 1, as in TF.
    """
    x = as_tensor(tensor)
    check_kernel(x, "Svd")
    check_rank(x, "Svd")
    s_raw, u_raw, v_raw = _svd_raw(x._value, full_matrices, compute_uv)
    s = Tensor(s_raw)
    if not compute_uv:
        if thread_state.active:
            record(SVD, (x,), (s,), lambda gs: _svd_values_grad(x, gs))
        return s
    u, v = Tensor(u_raw), Tensor(v_raw)
    if thread_state.active:
        record(SVD, (x,), (s, u, v), lambda gs, gu, gv: _svd_grad(x, s, u, v, gs, gu, gv, full_matrices))
    return s, u, v


def _svd_raw(v, full_matrices, compute_uv):
    xp = array_module(v)
    m, n = v.shape[-2:]
    p, batch = min(m, n), v.shape[:-2]
    real = np.dtype(v.dtype.char.lower()) if v.dtype.kind == "c" else v.dtype
    if v.size == 0:
        cols_u, cols_v = (m, n) if full_matrices else (p, p)
        return (xp.zeros(batch + (p,), dtype=real),
                xp.broadcast_to(xp.eye(m, cols_u, dtype=v.dtype), batch + (m, cols_u)).copy(),
                xp.broadcast_to(xp.eye(n, cols_v, dtype=v.dtype), batch + (n, cols_v)).copy())
    clean, good = _finite_slices(v, xp)
    if not compute_uv:
        s = xp.linalg.svd(clean, compute_uv=False)
        return _poison(s.astype(real, copy=False), good, xp), None, None
    u, s, vh = xp.linalg.svd(clean, full_matrices=full_matrices)
    vv = xp.swapaxes(vh, -1, -2).conj()
    return (_poison(s.astype(real, copy=False), good, xp), _poison(u.astype(v.dtype, copy=False), good, xp),
            _poison(vv.astype(v.dtype, copy=False), good, xp))


def _svd_values_grad(x, gs):
    """compute_uv=False: dA = u diag(gs) v^H from a fresh (recorded) SVD, as TF does."""
    _no_complex_grad(x, "Svd")
    _, u, v = svd(x, full_matrices=False, compute_uv=True)
    return matmul(u, matmul(diag(cast(gs, x.dtype)), v, adjoint_b=True))


def _svd_grad(a, s, u, v, grad_s, grad_u, grad_v, full_matrices):
    """TF's _SvdGrad (Giles; Townsend) for real matrices: works on the wide orientation m <= n
    and transposes back at the end."""
    _no_complex_grad(a, "Svd")
    m, n = a._value.shape[-2:]
    use_adjoint = m > n
    if use_adjoint:
        m, n = n, m
        u, v, grad_u, grad_v = v, u, grad_v, grad_u
    if full_matrices and abs(m - n) > 1:
        raise NotImplementedError(f"svd gradient is not implemented for abs(m - n) > 1 when full_matrices "
                                  f"is True. Received: m={m} and n={n} from op input with shape "
                                  f"{list(a.shape)}; use full_matrices=False")
    grad_s_mat = diag(cast(grad_s, a.dtype))
    s_mat = diag(s)
    s2 = s * s
    f = _off_diagonal(_safe_reciprocal(expand_dims(s2, -2) - expand_dims(s2, -1)), m)
    s_inv_mat = diag(_safe_reciprocal(s))
    v1, grad_v1 = v[..., :, :m], grad_v[..., :, :m]
    f_u = f * matmul(u, grad_u, adjoint_a=True)
    f_v = f * matmul(v1, grad_v1, adjoint_a=True)
    term1_nouv = grad_s_mat + matmul(f_u + _adj(f_u), s_mat) + matmul(s_mat, f_v + _adj(f_v))
    grad_a = matmul(u, matmul(term1_nouv, v1, adjoint_b=True))
    if m != n:
        gv1t = _adj(grad_v1)
        term2_nous = gv1t - matmul(matmul(gv1t, v1), v1, adjoint_b=True)
        if full_matrices:
            v2, grad_v2 = v[..., :, m:n], grad_v[..., :, m:n]
            term2_nous = term2_nous - matmul(matmul(v1, grad_v2, adjoint_a=True), v2, adjoint_b=True)
        grad_a = grad_a + matmul(matmul(u, s_inv_mat), term2_nous)
    return _adj(grad_a) if use_adjoint else grad_a


# -- triangular solves -------------------------------------------------------------------------

MATRIX_TRIANGULAR_SOLVE = Op("MatrixTriangularSolve")
_TRI_ATTRS = "bfloat16, double, float, half, complex64, complex128"


@export("linalg.triangular_solve")
@dispatch.add_dispatch_support
def triangular_solve(matrix, rhs, lower=True, adjoint=False, name=None):
    """X with matrix @ X = rhs for triangular matrices (only the `lower` or upper triangle is read).

    Args:
      matrix: [..., M, M] float32/float64/complex; rhs: [..., M, K] of the same dtype. Batch
        dimensions broadcast.
      lower: whether the matrices are lower (True) or upper triangular.
      adjoint: solve adjoint(matrix) @ X = rhs instead.
      name: ignored (TF's op name).

    Returns:
      X of shape [broadcast batch..., M, K]; a zero on the diagonal gives infs/NaNs, as in TF.

    Raises:
      InvalidArgumentError: mixed dtypes, an integer dtype, rank < 2, a non-square matrix, rows
        that differ, or batch dimensions that do not broadcast.
      NotFoundError: float16/bfloat16 (TF has no CPU kernel).
    """
    op = "MatrixTriangularSolve"
    a, b = binary(as_tensor(matrix), rhs, MATRIX_TRIANGULAR_SOLVE)
    check_kernel(a, op, attr_list=_TRI_ATTRS)
    for i, t in enumerate((a, b)):
        if t._value.ndim < 2:
            raise errors.invalid_argument(op, f"In[{i}] ndims must be >= 2: {t._value.ndim} (shape "
                                              f"{list(t.shape)}); add a trailing axis to a vector rhs")
    m, n = a._value.shape[-2:]
    if m != n:
        raise errors.invalid_argument(op, f"In[0] matrices in the last dimensions must be square ({n} =/= {m})")
    if b._value.shape[-2] != n:
        raise errors.invalid_argument(op, f"In[0] mismatch In[1] shape: {n} vs. {b._value.shape[-2]}: "
                                          f"{list(a.shape)} {list(b.shape)}; rhs needs as many rows as the matrix")
    try:
        batch = np.broadcast_shapes(a._value.shape[:-2], b._value.shape[:-2])
    except ValueError:
        raise errors.invalid_argument(op, f"Incompatible batch dimensions: {list(a.shape)} vs. "
                                          f"{list(b.shape)}") from None
    x = Tensor(_tri_solve_raw(a._value, b._value, lower, adjoint, batch))
    if thread_state.active:
        def grad(g):
            gb = triangular_solve(a, g, lower=lower, adjoint=not adjoint)
            ga = -matmul(x, gb, adjoint_b=True) if adjoint else -matmul(gb, x, adjoint_b=True)
            return (band_part(ga, -1, 0) if lower else band_part(ga, 0, -1)), gb
        record(MATRIX_TRIANGULAR_SOLVE, (a, b), (x,), grad)
    return x


def _tri_solve_raw(a, b, lower, adjoint, batch):
    xp = array_module(a)
    n, k = a.shape[-1], b.shape[-1]
    tri = xp.tril(a) if lower else xp.triu(a)
    if adjoint:
        tri, lower = xp.swapaxes(tri, -1, -2).conj(), not lower
    tri = xp.broadcast_to(tri, batch + (n, n))
    b = xp.broadcast_to(b, batch + (n, k))
    if tri.size == 0 or b.size == 0:
        return xp.zeros(batch + (n, k), dtype=a.dtype)
    if bool((xp.diagonal(tri, axis1=-2, axis2=-1) != 0).all()):
        return xp.linalg.solve(tri, b).astype(a.dtype, copy=False)
    # a zero pivot: substitute row by row so the infs and NaNs come out as TF's do
    x = xp.zeros(batch + (n, k), dtype=a.dtype)
    with np.errstate(divide="ignore", invalid="ignore"):
        for i in (range(n) if lower else range(n - 1, -1, -1)):
            done = slice(0, i) if lower else slice(i + 1, n)
            acc = b[..., i, :] - xp.matmul(tri[..., i:i + 1, done], x[..., done, :])[..., 0, :]
            x[..., i, :] = acc / tri[..., i, i][..., None]
    return x


@export("linalg.cholesky_solve")
@dispatch.add_dispatch_support
def cholesky_solve(chol, rhs, name=None):
    """X with A @ X = rhs given A's Cholesky factor `chol` (lower triangular, [..., M, M]): two
    triangular solves, so gradients reach both `chol` and `rhs`."""
    y = triangular_solve(chol, rhs, lower=True, adjoint=False)
    return triangular_solve(chol, y, lower=True, adjoint=True)


# -- QR --------------------------------------------------------------------------------------

QR = Op("Qr")


@export("linalg.qr")
@dispatch.add_dispatch_support
def qr(input, full_matrices=False, name=None):  # noqa: A002
    """QR decomposition of the last two dimensions: input = q @ r, q with orthonormal columns and
    r upper triangular.

    Args:
      input: a float16/float32/float64/complex tensor of shape [..., M, N].
      full_matrices: q is [..., M, M] and r [..., M, N]; else q [..., M, P], r [..., P, N].
      name: ignored (TF's op name).

    Returns:
      A Qr(q, r) named tuple.

    Raises:
      InvalidArgumentError: an integer dtype or rank < 2.
      NotImplementedError (from the gradient): M > N with full_matrices, as in TF.
    """
    x = as_tensor(input)
    check_kernel(x, "Qr", half=True)
    check_rank(x, "Qr")
    v = x._value
    xp = array_module(v)
    work = v.astype(np.float32) if v.dtype == np.float16 else v  # numpy has no half LAPACK
    m, n = v.shape[-2:]
    if v.size == 0:
        cols = m if full_matrices else min(m, n)
        q_raw = xp.broadcast_to(xp.eye(m, cols, dtype=v.dtype), v.shape[:-2] + (m, cols)).copy()
        r_raw = xp.zeros(v.shape[:-2] + (cols, n), dtype=v.dtype)
    else:
        clean, good = _finite_slices(work, xp)
        q_raw, r_raw = xp.linalg.qr(clean, mode="complete" if full_matrices else "reduced")
        q_raw = _poison(q_raw, good, xp).astype(v.dtype, copy=False)
        r_raw = xp.triu(_poison(r_raw, good, xp)).astype(v.dtype, copy=False)
    q, r = Tensor(q_raw), Tensor(r_raw)
    if thread_state.active:
        record(QR, (x,), (q, r), lambda dq, dr: _qr_grad(x, q, r, dq, dr))
    return Qr(q, r)


def _qr_grad(a, q, r, dq, dr):
    """TF's _QrGrad (arXiv:2009.10071) for real matrices; wide inputs reduce to the square case."""
    _no_complex_grad(a, "Qr")
    m, n = r._value.shape[-2:]
    if m > n and q._value.shape[-1] == q._value.shape[-2]:
        raise NotImplementedError(f"QrGrad not implemented when nrows > ncols and full_matrices is true. "
                                  f"Received r.shape={list(r.shape)} with nrows={m} and ncols={n}; use "
                                  f"full_matrices=False")
    num_rows = q._value.shape[-2]
    if num_rows >= n:
        return _qr_grad_square_deep(q, r, dq, dr)
    y, u = a[..., :, num_rows:], r[..., :, :num_rows]
    dv, du = dr[..., :, num_rows:], dr[..., :, :num_rows]
    dx = _qr_grad_square_deep(q, u, dq + matmul(y, dv, adjoint_b=True), du)
    return concat([dx, matmul(q, dv)], axis=-1)


def _qr_grad_square_deep(q, r, dq, dr):
    def tri_solve(x, rr):  # x @ inv(rr)^H for upper-triangular rr
        return _adj(triangular_solve(rr, _adj(x), lower=False, adjoint=False))
    qdq = matmul(q, dq, adjoint_a=True)
    rdr = matmul(r, dr, adjoint_b=True)
    tril = band_part(qdq - _adj(qdq) + rdr - _adj(rdr), -1, 0)
    grad_a = matmul(q, dr + tri_solve(tril, r))
    return grad_a + tri_solve(dq - matmul(q, qdq), r)


# -- self-adjoint eigendecomposition -----------------------------------------------------------

SELF_ADJOINT_EIG = Op("SelfAdjointEigV2")


def _eigh_raw(x, compute_v):
    op = "SelfAdjointEigV2"
    check_kernel(x, op)
    check_rank(x, op)
    v = x._value
    if v.shape[-1] != v.shape[-2]:
        raise errors.invalid_argument(op, f"Input matrix must be square, got shape {list(x.shape)}")
    xp = array_module(v)
    if v.size == 0:
        return xp.zeros(v.shape[:-1], dtype=v.dtype), xp.zeros(v.shape, dtype=v.dtype)
    if bool(xp.isnan(v).any()):
        raise errors.invalid_argument(op, "Self-adjoint eigen decomposition was not successful. The input "
                                          f"might not be valid (shape {list(x.shape)} holds NaNs).")
    clean, good = _finite_slices(v, xp)
    if compute_v:
        e, vecs = xp.linalg.eigh(clean)  # reads the lower triangle, as TF's kernel does
        vecs = vecs.astype(v.dtype, copy=False)
        if good is not None:  # TF's kernel leaves identity vectors for a matrix with infinities
            eye = xp.broadcast_to(xp.eye(v.shape[-1], dtype=v.dtype), v.shape)
            vecs = xp.where(good.reshape(v.shape[:-2] + (1, 1)), vecs, eye)
    else:
        e, vecs = xp.linalg.eigvalsh(clean), None
    return _poison(e.astype(v.dtype), good, xp), vecs


def _symmetrize_lower(grad_a):
    """TF's last step: the op reads only the lower triangle, so fold the gradient onto it."""
    xp = array_module(grad_a._value)
    n = grad_a._value.shape[-1]
    dt = grad_a._value.dtype
    weights = Tensor(xp.tril(xp.ones((n, n), dtype=dt)) - 0.5 * xp.eye(n, dtype=dt))
    return (grad_a + _adj(grad_a)) * weights


@export("linalg.eigh")
@dispatch.add_dispatch_support
def eigh(tensor, name=None):
    """Eigenvalues and eigenvectors of self-adjoint matrices (only the lower triangle is read).

    Args:
      tensor: a float32/float64/complex tensor of shape [..., N, N].
      name: ignored (TF's op name).

    Returns:
      (e, v): e [..., N] ascending (the input's dtype, complex for complex input as in TF) and
      v [..., N, N] with the eigenvectors in its columns.

    Raises:
      InvalidArgumentError: an integer dtype, rank < 2, a non-square matrix, or NaN entries.
      NotFoundError: float16 (TF has no CPU kernel).
    """
    x = as_tensor(tensor)
    e_raw, v_raw = _eigh_raw(x, True)
    e, v = Tensor(e_raw), Tensor(v_raw)
    if thread_state.active:
        def grad(ge, gv):
            # f_ij = 1 / (e_j - e_i) off the diagonal, broadened: repeated eigenvalues give 0 there
            f = _off_diagonal(_safe_reciprocal(expand_dims(e, -2) - expand_dims(e, -1)), e._value.shape[-1])
            inner = diag(ge) + f * matmul(v, gv, adjoint_a=True)
            return _symmetrize_lower(matmul(v, matmul(inner, v, adjoint_b=True)))
        record(SELF_ADJOINT_EIG, (x,), (e, v), grad)
    return e, v


@export("linalg.eigvalsh")
@dispatch.add_dispatch_support
def eigvalsh(tensor, name=None):
    """The eigenvalues (ascending, [..., N]) of self-adjoint matrices [..., N, N]; see `eigh`."""
    x = as_tensor(tensor)
    e = Tensor(_eigh_raw(x, False)[0])
    if thread_state.active:
        def grad(ge):
            _, v = eigh(x)  # recomputed and recorded, so higher derivatives see it
            return _symmetrize_lower(matmul(v, matmul(diag(ge), v, adjoint_b=True)))
        record(SELF_ADJOINT_EIG, (x,), (e,), grad)
    return e


# -- least squares, pseudo-inverse, rank ----------------------------------------------------------

MATRIX_SOLVE_LS = Op("MatrixSolveLs")


@export("linalg.lstsq")
@dispatch.add_dispatch_support
def lstsq(matrix, rhs, l2_regularizer=0.0, fast=True, name=None):
    """X minimizing ||matrix @ X - rhs||^2 + l2_regularizer ||X||^2 for [..., M, N] and [..., M, K].

    fast=True (the default) solves the regularized normal equations with a Cholesky factor, the
    way TF's composite does: cheap and differentiable, but it fails or gives NaNs on
    rank-deficient matrices. fast=False uses an SVD-based minimum-norm solution, which handles
    rank deficiency; it ignores l2_regularizer and has no gradient (ValueError), as in TF.

    Returns:
      X of shape [..., N, K].

    Raises:
      InvalidArgumentError: rows that differ, mixed or integer dtypes, or (fast) a Gram matrix
        that is not positive definite.
      NotFoundError: float16.
      NotImplementedError: complex128 with a nonzero l2_regularizer (TF's accuracy guard).
    """
    a = as_tensor(matrix)
    if a.dtype.name == "complex128" and (isinstance(l2_regularizer, Tensor) or l2_regularizer != 0):
        raise NotImplementedError("matrix_solve_ls is currently disabled for complex128 and l2_regularizer "
                                  "!= 0 due to poor accuracy (TF's restriction); use complex64 or no regularizer")
    if a.dtype.name in ("float16", "bfloat16"):
        check_kernel(a, "Cholesky" if fast else "MatrixSolveLs")
    if not fast:
        return _lstsq_svd(a, rhs)
    m, n = a._value.shape[-2:] if a._value.ndim >= 2 else (None, None)
    first_kind = m is None or m >= n
    gram = matmul(a, a, adjoint_a=first_kind, adjoint_b=not first_kind)
    if isinstance(l2_regularizer, Tensor) or l2_regularizer != 0:
        xp = array_module(gram._value)
        gram = gram + l2_regularizer * Tensor(xp.eye(gram._value.shape[-1], dtype=gram._value.dtype))
    chol = cholesky(gram)
    if first_kind:
        return cholesky_solve(chol, matmul(a, rhs, adjoint_a=True))
    return matmul(a, cholesky_solve(chol, rhs), adjoint_a=True)


def _lstsq_svd(a, rhs):
    """MatrixSolveLs with fast=False: the minimum-norm least-squares solution from an SVD."""
    op = "MatrixSolveLs"
    a, b = binary(a, rhs, MATRIX_SOLVE_LS)
    check_kernel(a, op)
    for i, t in enumerate((a, b)):
        check_rank(t, op, i)
    # TF's MatrixSolveLs kernel does not broadcast: one rank, one batch shape, one row count
    if a._value.ndim != b._value.ndim:
        raise errors.invalid_argument(op, f"All input tensors must have the same rank: {list(a.shape)} vs. "
                                          f"{list(b.shape)} (fast=False does not broadcast)")
    if a._value.shape[:-2] != b._value.shape[:-2]:
        raise errors.invalid_argument(op, f"All input tensors must have the same outer dimensions: "
                                          f"{list(a.shape)} vs. {list(b.shape)} (fast=False does not broadcast)")
    if a._value.shape[-2] != b._value.shape[-2]:
        raise errors.invalid_argument(op, f"Input matrix and rhs are incompatible: {list(a.shape)} vs. "
                                          f"{list(b.shape)}; they need the same number of rows")
    va, vb = a._value, b._value
    xp = array_module(va)
    m, n = va.shape[-2:]
    if va.size == 0 or vb.size == 0:
        out = xp.zeros(va.shape[:-2] + (n, vb.shape[-1]), dtype=va.dtype)
    else:
        s, u, v = _svd_raw(va, False, True)
        cutoff = np.finfo(s.dtype).eps * max(m, n) * s.max(axis=-1, keepdims=True)
        inv_s = xp.where(s > cutoff, 1 / xp.where(s > cutoff, s, 1), 0).astype(va.dtype)
        uhb = xp.matmul(xp.swapaxes(u, -1, -2).conj(), vb)
        out = xp.matmul(v, inv_s[..., :, None] * uhb).astype(va.dtype, copy=False)
    x = Tensor(out)
    if thread_state.active:
        def grad(g):
            raise ValueError("Gradient not defined for fast=False: tf.linalg.lstsq(..., fast=False) has no "
                             "gradient; use fast=True (the default) to differentiate")
        record(MATRIX_SOLVE_LS, (a, b), (x,), grad)
    return x


def _validate_float_matrix(a):
    """TF's _maybe_validate_matrix: real floating dtypes only (TypeError), rank >= 2 (ValueError)."""
    if a._value.dtype.kind != "f":
        raise TypeError(f"Input `a` must have `float`-like `dtype` (saw {a.dtype.name}).")
    if a._value.ndim < 2:
        raise ValueError(f"Input `a` must have at least 2 dimensions (saw: {a._value.ndim}).")


@export("linalg.pinv")
@dispatch.add_dispatch_support
def pinv(a, rcond=None, validate_args=False, name=None):
    """Moore-Penrose pseudo-inverse [..., N, M] of real matrices [..., M, N], from the SVD, keeping
    singular values above rcond * the largest (default rcond 10 * max(M, N) * eps); differentiable
    through the SVD, as in TF."""
    a = as_tensor(a)
    _validate_float_matrix(a)
    dtype = a._value.dtype
    if rcond is None:
        rcond = 10.0 * max(a._value.shape[-2:]) * np.finfo(dtype).eps
    rcond = cast(as_tensor(rcond), a.dtype) if isinstance(rcond, Tensor) else _const(rcond, a)
    s, u, v = svd(a, full_matrices=False, compute_uv=True)
    cutoff = rcond * reduce_max(s, axis=-1)
    s = where(s > expand_dims(cutoff, -1), s, _const(np.inf, s))
    return matmul(v / expand_dims(s, -2), u, adjoint_b=True)


@export("linalg.matrix_rank")
@dispatch.add_dispatch_support
def matrix_rank(a, tol=None, validate_args=False, name=None):
    """Number of singular values above `tol` (default eps * max(M, N) * the largest), int32,
    for real matrices [..., M, N]."""
    a = convert_to_tensor(a, dtype_hint="float32")
    _validate_float_matrix(a)
    s = svd(a, compute_uv=False)
    if tol is None:
        tol = np.finfo(a._value.dtype).eps * max(a._value.shape[-2:]) * reduce_max(s, axis=-1, keepdims=True)
    return reduce_sum(cast(s > tol, "int32"), axis=-1)


# -- vector helpers ------------------------------------------------------------------------------

CROSS = Op("Cross")
_CROSS_ATTRS = "float, double, int32, uint8, int16, int8, int64, bfloat16, uint16, half, uint32, uint64"


@export("linalg.cross")
@dispatch.add_dispatch_support
def cross(a, b, name=None):
    """Pairwise cross products of 3-element vectors in the last dimension; a and b have one shape
    and dtype (real floats or integers)."""
    a, b = binary(as_tensor(a), b, CROSS)
    if a._value.dtype.kind not in "fiu":
        raise errors.invalid_argument("Cross", f"Value for attr 'T' of {a.dtype.name} is not in the list of "
                                               f"allowed values: {_CROSS_ATTRS}; cast the inputs with tf.cast")
    if a._value.shape != b._value.shape:
        raise errors.invalid_argument("Cross", f"Both inputs must be of same shape: {list(a.shape)} vs. "
                                               f"{list(b.shape)}")
    if a._value.ndim < 1 or a._value.shape[-1] != 3:
        raise errors.FailedPreconditionError(
            None, None, f"Cross-products are only defined for 3-element vectors (got shape {list(a.shape)}). "
                        f"[Op:Cross]")
    u, v = a._value, b._value
    xp = array_module(u)
    parts = [u[..., 1] * v[..., 2] - u[..., 2] * v[..., 1], u[..., 2] * v[..., 0] - u[..., 0] * v[..., 2],
             u[..., 0] * v[..., 1] - u[..., 1] * v[..., 0]]
    y = Tensor(xp.stack(parts, axis=-1).astype(u.dtype, copy=False))
    if thread_state.active:
        record(CROSS, (a, b), (y,), lambda g: (lambda: cross(b, g), lambda: cross(g, a)))
    return y


@export("linalg.normalize")
@dispatch.add_dispatch_support
def normalize(tensor, ord="euclidean", axis=None, name=None):  # noqa: A002
    """(tensor / norm, norm): the norm (tf.linalg.norm with keepdims=True, cast to the tensor's
    dtype) over `axis`, and the tensor divided by it. An all-zero slice gives NaNs, as in TF."""
    t = as_tensor(tensor)
    n = cast(norm(t, ord=ord, axis=axis, keepdims=True), t.dtype)
    return t / n, n
