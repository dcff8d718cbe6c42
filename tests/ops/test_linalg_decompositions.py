"""Tests for minitf/ops/linalg_decompositions.py and linalg_lu.py: values against numpy, TF's
shapes, dtypes and errors, and float64 finite-difference gradients (first and second order).

Singular vectors and eigenvectors are defined only up to sign, so their gradients are checked
through sign-invariant functions (u * u weighted, u diag(s^2) v^T, ...)."""
import numpy as np
import pytest

import minitf as tf
from minitf.device import device
from minitf.gradient_checker import assert_gradients_close

rng = np.random.default_rng(0)


def r(*shape):
    return tf.constant(rng.standard_normal(shape))


def w(*shape):
    return tf.constant(rng.uniform(0.5, 1.5, shape))


# -- svd ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("shape", [(4, 3), (3, 4), (3, 3), (2, 4, 3)])
@pytest.mark.parametrize("full", [False, True])
def test_svd_reconstructs_and_matches_numpy(shape, full):
    a = r(*shape)
    s, u, v = tf.linalg.svd(a, full_matrices=full)
    m, n = shape[-2:]
    p = min(m, n)
    assert s.shape == shape[:-2] + (p,)
    assert u.shape == shape[:-2] + ((m, m) if full else (m, p))
    assert v.shape == shape[:-2] + ((n, n) if full else (n, p))
    np.testing.assert_allclose(s.numpy(), np.linalg.svd(a.numpy(), compute_uv=False), rtol=1e-12)
    rebuilt = tf.matmul(u[..., :, :p] * s[..., None, :], v[..., :, :p], transpose_b=True)
    np.testing.assert_allclose(rebuilt.numpy(), a.numpy(), atol=1e-12)
    gram = tf.matmul(u, u, transpose_a=True).numpy()
    np.testing.assert_allclose(gram, np.broadcast_to(np.eye(u.shape[-1]), gram.shape), atol=1e-12)
    only_s = tf.linalg.svd(a, full_matrices=full, compute_uv=False)
    np.testing.assert_allclose(only_s.numpy(), s.numpy(), rtol=1e-12)


def test_svd_dtypes_and_errors_follow_tf():
    s, u, v = tf.linalg.svd([[1.0, 2.0], [3.0, 4.0]])
    assert (s.dtype, u.dtype, v.dtype) == (tf.float32,) * 3
    with pytest.raises(tf.errors.InvalidArgumentError, match="Svd"):
        tf.linalg.svd(tf.constant([[1, 2], [3, 4]]))
    with pytest.raises(tf.errors.NotFoundError, match="Svd"):
        tf.linalg.svd(tf.constant([[1.0, 2.0]], tf.float16))
    with pytest.raises(tf.errors.InvalidArgumentError, match="rank >= 2"):
        tf.linalg.svd(tf.constant([1.0, 2.0]))
    s, u, v = tf.linalg.svd(tf.zeros([2, 0, 3]))
    assert (s.shape, u.shape, v.shape) == ((2, 0), (2, 0, 0), (2, 3, 0))
    s, u, v = tf.linalg.svd(tf.constant([[np.nan, 1.0], [1.0, 1.0]]))
    assert np.isnan(s.numpy()).all() and np.isnan(u.numpy()).all()
    c = tf.constant(rng.standard_normal((3, 2)) + 1j * rng.standard_normal((3, 2)))
    s, u, v = tf.linalg.svd(c)
    assert s.dtype == tf.float64 and u.dtype == tf.complex128
    np.testing.assert_allclose(tf.matmul(u * tf.cast(s, tf.complex128), v, adjoint_b=True).numpy(), c.numpy(),
                               atol=1e-12)


@pytest.mark.parametrize("shape", [(4, 3), (3, 4), (3, 3), (2, 3, 2)])
def test_svd_gradients(shape):
    a = r(*shape)
    m, n = shape[-2:]
    p = min(m, n)
    wu, wv, ws = w(*shape[:-2], m, p), w(*shape[:-2], n, p), w(*shape[:-2], p)

    def f(x):
        s, u, v = tf.linalg.svd(x)
        return (tf.reduce_sum(ws * s) + tf.reduce_sum(wu * u * u) + tf.reduce_sum(wv * v * v)
                + tf.reduce_sum(tf.matmul(u * (s * s)[..., None, :], v, transpose_b=True)))
    assert_gradients_close(f, [a], order=2)
    assert_gradients_close(lambda x: tf.linalg.svd(x, compute_uv=False) ** 2, [a], order=2)


@pytest.mark.parametrize("shape", [(4, 3), (3, 4), (3, 3)])
def test_svd_full_matrices_gradient_for_near_square(shape):
    a = r(*shape)
    m, n = shape
    wu, wv = w(m, m), w(n, n)

    def f(x):
        s, u, v = tf.linalg.svd(x, full_matrices=True)
        return tf.reduce_sum(wu * u * u) + tf.reduce_sum(wv * v * v) + tf.reduce_sum(s)
    assert_gradients_close(f, [a], order=1)


def test_svd_gradient_raises_like_tf():
    a = r(5, 3)
    with tf.GradientTape() as tape:
        tape.watch(a)
        s = tf.linalg.svd(a, full_matrices=True)[0]
    with pytest.raises(NotImplementedError, match="abs\\(m - n\\) > 1"):
        tape.gradient(s, a)
    x = tf.constant(np.eye(3))
    with tf.GradientTape() as tape:  # repeated singular values: TF's broadening gives zeros
        tape.watch(x)
        u = tf.reduce_sum(tf.linalg.svd(x)[1])
    np.testing.assert_array_equal(tape.gradient(u, x).numpy(), np.zeros((3, 3)))


# -- qr -------------------------------------------------------------------------------------------

@pytest.mark.parametrize("shape", [(4, 3), (3, 4), (3, 3), (2, 4, 2)])
@pytest.mark.parametrize("full", [False, True])
def test_qr_matches_numpy(shape, full):
    a = r(*shape)
    out = tf.linalg.qr(a, full_matrices=full)
    q, rr = out
    assert type(out).__name__ == "Qr" and out.q is q and out.r is rr
    nq, nr = np.linalg.qr(a.numpy(), mode="complete" if full else "reduced")
    np.testing.assert_allclose(q.numpy(), nq, atol=1e-12)
    np.testing.assert_allclose(rr.numpy(), nr, atol=1e-12)
    np.testing.assert_allclose(tf.matmul(q, rr).numpy(), a.numpy(), atol=1e-12)


def test_qr_half_and_errors():
    q, rr = tf.linalg.qr(tf.constant([[1.0, 2.0], [3.0, 4.0]], tf.float16))
    assert q.dtype == rr.dtype == tf.float16
    with pytest.raises(tf.errors.InvalidArgumentError, match="Qr"):
        tf.linalg.qr(tf.constant([[1, 2], [3, 4]]))
    q, rr = tf.linalg.qr(tf.constant([[np.nan, 1.0], [1.0, 1.0]]))
    assert rr.numpy()[1, 0] == 0 and np.isnan(q.numpy()).all()


@pytest.mark.parametrize("shape", [(4, 3), (3, 4), (3, 3), (2, 3, 2)])
def test_qr_gradients(shape):
    a = r(*shape)
    wq = w(*tf.linalg.qr(a)[0].shape)
    wr = w(*tf.linalg.qr(a)[1].shape)
    assert_gradients_close(lambda x: tf.reduce_sum(wq * tf.linalg.qr(x)[0]) + tf.reduce_sum(wr * tf.linalg.qr(x)[1]),
                           [a], order=2)


def test_qr_gradient_deep_full_raises_like_tf():
    a = r(5, 3)
    with tf.GradientTape() as tape:
        tape.watch(a)
        q = tf.linalg.qr(a, full_matrices=True).q
    with pytest.raises(NotImplementedError, match="nrows > ncols"):
        tape.gradient(q, a)


# -- eigh / eigvalsh --------------------------------------------------------------------------------

def sym(n, batch=()):
    m = rng.standard_normal(batch + (n, n))
    return tf.constant(m + np.swapaxes(m, -1, -2))


def test_eigh_matches_numpy_and_reads_the_lower_triangle():
    a = sym(4, (2,))
    e, v = tf.linalg.eigh(a)
    ne, _ = np.linalg.eigh(a.numpy())
    np.testing.assert_allclose(e.numpy(), ne, rtol=1e-12)
    np.testing.assert_allclose(tf.matmul(v * e[..., None, :], v, transpose_b=True).numpy(), a.numpy(), atol=1e-12)
    lower_only = tf.linalg.band_part(a, -1, 0)
    np.testing.assert_allclose(tf.linalg.eigvalsh(lower_only).numpy(), ne, rtol=1e-12)
    c = tf.constant(np.eye(2) + 0j)
    assert tf.linalg.eigh(c)[0].dtype == tf.complex128 and tf.linalg.eigvalsh(c).dtype == tf.complex128


def test_eigh_errors_follow_tf():
    with pytest.raises(tf.errors.InvalidArgumentError, match="square"):
        tf.linalg.eigh(r(3, 2))
    with pytest.raises(tf.errors.InvalidArgumentError, match="SelfAdjointEigV2"):
        tf.linalg.eigh(tf.eye(3, dtype=tf.int32))
    with pytest.raises(tf.errors.NotFoundError):
        tf.linalg.eigvalsh(tf.eye(3, dtype=tf.float16))
    with pytest.raises(tf.errors.InvalidArgumentError, match="not successful"):
        tf.linalg.eigh(tf.constant([[np.nan, 1.0], [1.0, 1.0]]))


def test_eigh_gradients():
    a = sym(3, (2,))
    wv, we = w(2, 3, 3), w(2, 3)

    def f(x):
        e, v = tf.linalg.eigh(x)
        return tf.reduce_sum(we * e) + tf.reduce_sum(wv * v * v)
    assert_gradients_close(f, [a], order=2)
    assert_gradients_close(lambda x: tf.linalg.eigvalsh(x) ** 2, [a], order=2)
    # only the lower triangle is read, so the gradient lives there
    x = sym(3)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(tf.linalg.eigvalsh(x) * w(3))
    assert np.all(np.triu(tape.gradient(y, x).numpy(), 1) == 0)


# -- triangular and Cholesky solves ---------------------------------------------------------------

def tri(n, batch=(), lower=True):
    m = rng.standard_normal(batch + (n, n)) + 3 * np.eye(n)
    return tf.constant(np.tril(m) if lower else np.triu(m))


@pytest.mark.parametrize("lower", [True, False])
@pytest.mark.parametrize("adjoint", [False, True])
def test_triangular_solve_values_and_gradients(lower, adjoint):
    full = tf.constant(rng.standard_normal((2, 3, 3)) + 3 * np.eye(3))  # the other triangle is ignored
    b = r(3, 2)  # broadcast against the batch
    x = tf.linalg.triangular_solve(full, b, lower=lower, adjoint=adjoint)
    t = np.tril(full.numpy()) if lower else np.triu(full.numpy())
    t = np.swapaxes(t, -1, -2) if adjoint else t
    np.testing.assert_allclose(x.numpy(), np.linalg.solve(t, np.broadcast_to(b.numpy(), (2, 3, 2))), rtol=1e-10)
    assert_gradients_close(lambda m, y: tf.linalg.triangular_solve(m, y, lower=lower, adjoint=adjoint),
                           [full, b], order=2)


def test_triangular_solve_singular_and_errors_follow_tf():
    x = tf.linalg.triangular_solve(tf.constant([[0.0, 0.0], [1.0, 3.0]]), tf.constant([[1.0], [2.0]]))
    np.testing.assert_array_equal(x.numpy(), [[np.inf], [-np.inf]])
    a = tf.constant([[2.0, 0.0], [1.0, 3.0]])
    with pytest.raises(tf.errors.InvalidArgumentError, match="mismatch"):
        tf.linalg.triangular_solve(a, tf.ones([3, 1]))
    with pytest.raises(tf.errors.InvalidArgumentError, match="ndims must be >= 2"):
        tf.linalg.triangular_solve(a, tf.ones([2]))
    with pytest.raises(tf.errors.InvalidArgumentError, match="square \\(3 =/= 4\\)"):
        tf.linalg.triangular_solve(tf.ones([4, 3]), tf.ones([4, 1]))
    with pytest.raises(tf.errors.InvalidArgumentError, match="expected to be a float32"):
        tf.linalg.triangular_solve(a, tf.ones([2, 1], tf.float64))
    with pytest.raises(tf.errors.NotFoundError):
        tf.linalg.triangular_solve(tf.cast(a, tf.float16), tf.ones([2, 1], tf.float16))


def test_cholesky_solve_values_and_gradients():
    m = rng.standard_normal((2, 3, 3))
    spd = m @ np.swapaxes(m, -1, -2) + 3 * np.eye(3)
    chol = tf.linalg.cholesky(tf.constant(spd))
    rhs = r(2, 3, 2)
    np.testing.assert_allclose(tf.linalg.cholesky_solve(chol, rhs).numpy(), np.linalg.solve(spd, rhs.numpy()),
                               rtol=1e-10)
    assert_gradients_close(tf.linalg.cholesky_solve, [chol, rhs], order=2)


# -- lstsq, pinv, matrix_rank ---------------------------------------------------------------------

@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (2, 4, 4)])
@pytest.mark.parametrize("l2", [0.0, 0.5])
def test_lstsq_fast_values_and_gradients(shape, l2):
    a, b = r(*shape), r(*shape[:-1], 2)
    at = np.swapaxes(a.numpy(), -1, -2)
    n_small = min(shape[-2:])
    if shape[-2] >= shape[-1]:
        want = np.linalg.solve(at @ a.numpy() + l2 * np.eye(n_small), at @ b.numpy())
    else:
        want = at @ np.linalg.solve(a.numpy() @ at + l2 * np.eye(n_small), b.numpy())
    np.testing.assert_allclose(tf.linalg.lstsq(a, b, l2_regularizer=l2).numpy(), want, rtol=1e-9, atol=1e-12)
    assert_gradients_close(lambda x, y: tf.linalg.lstsq(x, y, l2_regularizer=l2), [a, b], order=2)


def test_lstsq_slow_is_minimum_norm_and_has_no_gradient():
    a = tf.constant(np.arange(12.0).reshape(4, 3))  # rank 2
    b = r(4, 2)
    x = tf.linalg.lstsq(a, b, fast=False, l2_regularizer=3.0)  # the regularizer is ignored, as in TF
    np.testing.assert_allclose(x.numpy(), np.linalg.pinv(a.numpy()) @ b.numpy(), atol=1e-10)
    with tf.GradientTape() as tape:
        tape.watch(a)
        y = tf.linalg.lstsq(a, b, fast=False)
    with pytest.raises(ValueError, match="fast=False"):
        tape.gradient(y, a)
    with pytest.raises(tf.errors.InvalidArgumentError, match="MatMul"):
        tf.linalg.lstsq(r(4, 3), r(3, 1))
    with pytest.raises(tf.errors.InvalidArgumentError, match="same rank"):  # fast=False does not broadcast
        tf.linalg.lstsq(r(2, 4, 3), r(4, 1), fast=False)
    with pytest.raises(tf.errors.InvalidArgumentError, match="outer dimensions"):
        tf.linalg.lstsq(r(2, 4, 3), r(1, 4, 1), fast=False)
    with pytest.raises(tf.errors.NotFoundError):
        tf.linalg.lstsq(tf.ones([2, 2], tf.float16), tf.ones([2, 1], tf.float16))


def test_pinv_and_matrix_rank():
    a = tf.constant(np.arange(12.0).reshape(4, 3))
    np.testing.assert_allclose(tf.linalg.pinv(a).numpy(), np.linalg.pinv(a.numpy()), atol=1e-12)
    assert tf.linalg.matrix_rank(a).numpy() == 2 and tf.linalg.matrix_rank(a).dtype == tf.int32
    np.testing.assert_array_equal(tf.linalg.matrix_rank(tf.stack([a, a * 0])).numpy(), [2, 0])
    assert tf.linalg.matrix_rank([[1, 2], [3, 4]]).numpy() == 2  # Python ints become float32
    assert tf.linalg.matrix_rank(a, tol=100.0).numpy() == 0
    with pytest.raises(TypeError, match="float"):
        tf.linalg.pinv(tf.constant([[1, 2], [3, 4]]))
    with pytest.raises(ValueError, match="at least 2 dimensions"):
        tf.linalg.matrix_rank(tf.constant([1.0, 2.0]))
    assert_gradients_close(tf.linalg.pinv, [r(4, 3)], order=2)


# -- cross, normalize ---------------------------------------------------------------------------------

def test_cross_values_dtypes_errors_and_gradients():
    np.testing.assert_array_equal(tf.linalg.cross([1, 2, 3], [4, 5, 6]).numpy(), [-3, 6, -3])
    a, b = r(2, 3), r(2, 3)
    np.testing.assert_allclose(tf.linalg.cross(a, b).numpy(), np.cross(a.numpy(), b.numpy()))
    assert_gradients_close(tf.linalg.cross, [a, b], order=2)
    with pytest.raises(tf.errors.FailedPreconditionError, match="3-element"):
        tf.linalg.cross([1.0, 2.0], [3.0, 4.0])
    with pytest.raises(tf.errors.InvalidArgumentError, match="same shape"):
        tf.linalg.cross(tf.ones([2, 3]), tf.ones([3]))
    with pytest.raises(tf.errors.InvalidArgumentError, match="Cross"):
        tf.linalg.cross(tf.ones([3], tf.bool), tf.ones([3], tf.bool))


def test_normalize():
    x, n = tf.linalg.normalize([3.0, 4.0])
    np.testing.assert_allclose(x.numpy(), [0.6, 0.8], rtol=1e-6)
    assert n.shape == (1,) and n.numpy()[0] == 5.0
    x, n = tf.linalg.normalize([[3.0, 4.0], [1.0, 2.0]], ord="fro", axis=[0, 1])
    assert n.shape == (1, 1)
    with pytest.raises(ValueError):
        tf.linalg.normalize([[3.0, 4.0]], ord="fro")
    assert_gradients_close(lambda t: tf.linalg.normalize(t, ord=1, axis=-1)[0], [r(2, 3)], order=2)


# -- LU ----------------------------------------------------------------------------------------------

def test_lu_matches_tf_example_and_round_trips():
    out = tf.linalg.lu(tf.constant([[1.0, 2.0, 0.0], [3.0, 4.0, 1.0], [0.0, 5.0, 6.0]]))
    assert type(out).__name__ == "Lu"
    np.testing.assert_array_equal(out.p.numpy(), [1, 2, 0])  # TF's permutation for this matrix
    assert out.p.dtype == tf.int32
    np.testing.assert_allclose(out.lu.numpy(), [[3, 4, 1], [0, 5, 6], [1 / 3, 2 / 15, -17 / 15]], rtol=1e-6)
    a = r(2, 4, 4)
    lu, p = tf.linalg.lu(a, output_idx_type=tf.int64)
    assert p.dtype == tf.int64
    np.testing.assert_allclose(tf.linalg.lu_reconstruct(lu, p).numpy(), a.numpy(), atol=1e-12)
    rhs = r(2, 4, 3)
    np.testing.assert_allclose(tf.linalg.lu_solve(lu, p, rhs).numpy(), np.linalg.solve(a.numpy(), rhs.numpy()),
                               rtol=1e-9)
    np.testing.assert_allclose(tf.linalg.lu_matrix_inverse(lu, p).numpy(), np.linalg.inv(a.numpy()), rtol=1e-9)
    assert_gradients_close(lambda f, y: tf.linalg.lu_solve(f, p, y), [lu, rhs], order=2)
    assert_gradients_close(lambda f: tf.linalg.lu_reconstruct(f, p), [lu], order=1)


def test_lu_errors_follow_tf():
    with pytest.raises(tf.errors.InvalidArgumentError, match="not invertible"):
        tf.linalg.lu(tf.zeros([2, 2]))
    with pytest.raises(tf.errors.InvalidArgumentError, match="square"):
        tf.linalg.lu(tf.zeros([2, 3]))
    a = r(3, 3)
    with tf.GradientTape() as tape:
        tape.watch(a)
        lu = tf.linalg.lu(a).lu
    with pytest.raises(LookupError, match="Lu"):
        tape.gradient(lu, a)
    with pytest.raises(ValueError, match="rhs"):
        tf.linalg.lu_solve(*tf.linalg.lu(a), rhs=tf.ones([3], tf.float64))


# -- the array-module seam: the same code on a (fake) GPU module ------------------------------------

def _spd_np(n, batch=()):
    m = rng.standard_normal(batch + (n, n))
    return m @ np.swapaxes(m, -1, -2) + n * np.eye(n)


SEAM_CASES = [
    ("svd", lambda a: tf.linalg.svd(a)[0] + tf.reduce_sum(tf.abs(tf.linalg.svd(a)[1])), [(2, 4, 3)]),
    ("svd_values", lambda a: tf.linalg.svd(a, compute_uv=False), [(3, 4)]),
    ("qr", lambda a: tf.linalg.qr(a).r + 1.0, [(2, 3, 4)]),
    ("eigh", lambda a: tf.linalg.eigh(a)[0] + tf.linalg.eigvalsh(a), ["spd3"]),
    ("triangular_solve", lambda a, b: tf.linalg.triangular_solve(a, b, lower=False), ["spd3", (3, 2)]),
    ("cholesky_solve", lambda a, b: tf.linalg.cholesky_solve(tf.linalg.cholesky(a), b), ["spd3", (3, 2)]),
    ("lstsq", lambda a, b: tf.linalg.lstsq(a, b) + tf.linalg.lstsq(tf.stop_gradient(a), tf.ones([5, 2], tf.float64),
                                                                   fast=False), [(5, 3), (5, 2)]),
    ("pinv_rank", lambda a: tf.linalg.pinv(a) * tf.cast(tf.linalg.matrix_rank(a), tf.float64), [(4, 3)]),
    ("cross_normalize", lambda a, b: tf.linalg.cross(a, b) + tf.linalg.normalize(a, axis=-1)[0], [(2, 3), (2, 3)]),
    ("lu", lambda a, b: tf.linalg.lu_solve(*tf.linalg.lu(tf.stop_gradient(a)), b) + tf.linalg.lu_matrix_inverse(
        *tf.linalg.lu(tf.stop_gradient(a)))[..., :1] + tf.linalg.lu_reconstruct(a, tf.constant([2, 0, 1]))[..., :1],
     ["spd3", (3, 1)]),
]


@pytest.mark.parametrize("name,f,specs", SEAM_CASES, ids=[c[0] for c in SEAM_CASES])
def test_ops_stay_on_the_array_module_of_their_inputs(name, f, specs, fake_gpu):
    arrays = [_spd_np(3) if s == "spd3" else rng.standard_normal(s) for s in specs]

    def run():
        xs = [tf.constant(a) for a in arrays]
        with tf.GradientTape() as tape:
            tape.watch(xs)
            y = f(*xs)
            loss = tf.reduce_sum(y * y)
        return y, tape.gradient(loss, xs)

    with device("/CPU:0"):
        y_cpu, g_cpu = run()
    y_gpu, g_gpu = run()
    assert isinstance(y_gpu._value, fake_gpu.ndarray), f"{name}: output left the device"
    np.testing.assert_allclose(y_gpu.numpy(), y_cpu.numpy(), rtol=1e-9, atol=1e-12)
    for gg, gc in zip(g_gpu, g_cpu):
        assert isinstance(gg._value, fake_gpu.ndarray), f"{name}: gradient left the device"
        np.testing.assert_allclose(gg.numpy(), gc.numpy(), rtol=1e-8, atol=1e-10)
