"""tf.keras.ops.linalg: the linear algebra of keras.ops (re-exports only). Implemented in
minitf.keras_ops.linalg.

Not provided: eig (the eigendecomposition of general, non-symmetric matrices has no minitf op and
no cupy kernel; eigh covers symmetric matrices)."""
from minitf.keras_ops.linalg import (  # noqa: F401,A004
    cholesky, cholesky_inverse, det, eigh, inv, jvp, lstsq, lu_factor, matrix_rank, norm, pinv, qr,
    solve, solve_triangular, svd)

__all__ = [
    "cholesky", "cholesky_inverse", "det", "eigh", "inv", "jvp", "lstsq", "lu_factor",
    "matrix_rank", "norm", "pinv", "qr", "solve", "solve_triangular", "svd"]
