"""Tests for minitf/ops/linalg.py: values against numpy and float64 finite-difference gradients."""
import numpy as np
import pytest

import minitf as tf
from minitf.gradient_checker import assert_gradients_close

rng = np.random.default_rng(0)


def r(*shape):
    return tf.constant(rng.standard_normal(shape))


def spd(n, batch=()):
    m = rng.standard_normal(batch + (n, n))
    return tf.constant(m @ np.swapaxes(m, -1, -2) + n * np.eye(n))


# -- tensordot / einsum ---------------------------------------------------------------------------

@pytest.mark.parametrize("axes,sa,sb", [
    (0, (2, 3), (2,)), (1, (2, 3), (3, 2)), (2, (2, 3, 4), (3, 4, 2)),
    ([[1, 2], [0, 1]], (2, 3, 4), (3, 4, 2)), ([[0], [2]], (2, 3), (3, 1, 2)),
])
def test_tensordot_matches_numpy_and_gradients(axes, sa, sb):
    a, b = r(*sa), r(*sb)
    np.testing.assert_allclose(tf.tensordot(a, b, axes).numpy(), np.tensordot(a.numpy(), b.numpy(), axes))
    assert_gradients_close(lambda x, y: tf.tensordot(x, y, axes), [a, b], order=2)


def test_tensordot_mismatched_dims_raise():
    with pytest.raises(tf.errors.InvalidArgumentError, match="Tensordot"):
        tf.tensordot(r(2, 3), r(4, 2), 1)


@pytest.mark.parametrize("eq,shapes", [
    ("ij,jk->ik", [(2, 3), (3, 4)]),
    ("bij,bjk->bik", [(2, 2, 3), (2, 3, 2)]),
    ("bijc,bijd->bcd", [(2, 2, 3, 2), (2, 2, 3, 3)]),
    ("i,i->", [(4,), (4,)]),
    ("ii->", [(3, 3)]),
    ("ii->i", [(3, 3)]),
    ("ij->i", [(2, 3)]),
    ("ij->ji", [(2, 3)]),
    ("...ij,...jk->...ik", [(2, 2, 3), (3, 2)]),
    ("ij,jk", [(2, 3), (3, 2)]),
    ("i,j->ij", [(3,), (2,)]),
    ("bii->b", [(2, 3, 3)]),
])
def test_einsum_matches_numpy_and_gradients(eq, shapes):
    xs = [r(*s) for s in shapes]
    np.testing.assert_allclose(tf.einsum(eq, *xs).numpy(), np.einsum(eq, *[x.numpy() for x in xs]),
                               rtol=1e-12)
    assert_gradients_close(lambda *a: tf.einsum(eq, *a), xs, order=2)
    assert tf.linalg.einsum is tf.einsum


def test_einsum_errors_name_the_op():
    with pytest.raises(tf.errors.InvalidArgumentError, match="Einsum"):
        tf.einsum("ij,jk->ik", r(2, 3), r(4, 2))
    with pytest.raises(ValueError, match="rank"):
        tf.einsum("ij->i", r(2, 3, 4))


def test_einsum_jacobian_is_vectorized_and_correct():
    a, b = r(2, 3), r(3, 2)
    with tf.GradientTape() as tape:
        tape.watch(a)
        y = tf.einsum("ij,jk->ik", a, b)
    jac = tape.jacobian(y, a).numpy()
    expected = np.einsum("ia,jk->ikaj", np.eye(2), b.numpy())  # dy[i,k]/da[a,j]
    np.testing.assert_allclose(jac, expected)


# -- matrix helpers --------------------------------------------------------------------------------

def test_matvec_matches_numpy_and_gradients():
    a, v = r(2, 3, 4), r(4)
    np.testing.assert_allclose(tf.linalg.matvec(a, v).numpy(), a.numpy() @ v.numpy())
    np.testing.assert_allclose(tf.linalg.matvec(a, r(2, 3), transpose_a=True).shape, (2, 4))
    assert_gradients_close(lambda x, y: tf.linalg.matvec(x, y), [a, v], order=2)


def test_transpose_diag_trace_band_part_values():
    x = r(2, 3, 3)
    xv = x.numpy()
    np.testing.assert_array_equal(tf.linalg.matrix_transpose(x).numpy(), np.swapaxes(xv, -1, -2))
    np.testing.assert_allclose(tf.linalg.trace(x).numpy(), np.trace(xv, axis1=-2, axis2=-1))
    np.testing.assert_array_equal(tf.linalg.diag_part(x).numpy(), np.diagonal(xv, axis1=-2, axis2=-1))
    d = r(2, 3)
    np.testing.assert_array_equal(tf.linalg.diag(d).numpy(), np.stack([np.diag(v) for v in d.numpy()]))
    np.testing.assert_array_equal(tf.linalg.band_part(x, -1, 0).numpy(), np.tril(xv))
    np.testing.assert_array_equal(tf.linalg.band_part(x, 1, 0).numpy(), np.tril(xv) - np.tril(xv, -2))
    np.testing.assert_array_equal(tf.eye(2, 3, batch_shape=[2]).numpy(), np.broadcast_to(np.eye(2, 3), (2, 2, 3)))
    assert tf.eye(2).dtype == tf.float32


@pytest.mark.parametrize("fn", [tf.linalg.trace, tf.linalg.diag_part, tf.linalg.matrix_transpose,
                                lambda x: tf.linalg.band_part(x, 0, 1)])
def test_matrix_helper_gradients(fn):
    assert_gradients_close(fn, [r(2, 3, 3)], order=2)
    assert_gradients_close(fn, [r(3, 3)], order=1)


def test_diag_gradient():
    assert_gradients_close(tf.linalg.diag, [r(2, 3)], order=2)


# -- inverse, determinants, solve, cholesky --------------------------------------------------------

@pytest.mark.parametrize("batch", [(), (2,)])
def test_inv_det_slogdet_values_and_gradients(batch):
    a = tf.constant(rng.standard_normal(batch + (3, 3)) + 3 * np.eye(3))
    av = a.numpy()
    np.testing.assert_allclose(tf.linalg.inv(a).numpy(), np.linalg.inv(av), rtol=1e-10)
    np.testing.assert_allclose(tf.linalg.det(a).numpy(), np.linalg.det(av), rtol=1e-10)
    sign, logabs = tf.linalg.slogdet(a)
    np.testing.assert_allclose(sign.numpy() * np.exp(logabs.numpy()), np.linalg.det(av), rtol=1e-10)
    assert_gradients_close(tf.linalg.inv, [a], order=2, rtol=1e-4)
    assert_gradients_close(tf.linalg.det, [a], order=2, rtol=1e-4)
    assert_gradients_close(lambda x: tf.linalg.slogdet(x)[1], [a], order=2, rtol=1e-4)
    assert_gradients_close(lambda x: tf.linalg.inv(x, adjoint=True), [a], order=1)


def test_det_of_hand_computed_matrix():
    assert tf.linalg.det(tf.constant([[2.0, 1.0], [1.0, 3.0]])).numpy() == pytest.approx(5.0)


def test_inverse_errors():
    with pytest.raises(tf.errors.InvalidArgumentError, match="MatrixInverse"):
        tf.linalg.inv(tf.zeros([2, 2]))
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"square.*\[2, 3\]"):
        tf.linalg.det(tf.zeros([2, 3]))


@pytest.mark.parametrize("adjoint", [False, True])
def test_solve_values_and_gradients(adjoint):
    a = tf.constant(rng.standard_normal((2, 3, 3)) + 3 * np.eye(3))
    b = r(2, 3, 2)
    av = np.swapaxes(a.numpy(), -1, -2) if adjoint else a.numpy()
    np.testing.assert_allclose(tf.linalg.solve(a, b, adjoint=adjoint).numpy(),
                               np.linalg.solve(av, b.numpy()), rtol=1e-10)
    assert_gradients_close(lambda x, y: tf.linalg.solve(x, y, adjoint=adjoint), [a, b], order=2, rtol=1e-4)


def test_solve_shape_mismatch():
    with pytest.raises(tf.errors.InvalidArgumentError, match="MatrixSolve"):
        tf.linalg.solve(tf.eye(3), tf.ones([2, 1]))


def test_cholesky_values_and_gradients():
    a = spd(3, (2,))
    chol = tf.linalg.cholesky(a).numpy()
    np.testing.assert_allclose(chol @ np.swapaxes(chol, -1, -2), a.numpy(), rtol=1e-10)
    np.testing.assert_allclose(tf.linalg.logdet(a).numpy(), np.linalg.slogdet(a.numpy())[1], rtol=1e-10)
    n3 = 3 * np.eye(3)

    def f(m):  # symmetric positive-definite by construction, so finite differences are valid
        return tf.linalg.cholesky(tf.matmul(m, m, transpose_b=True) + n3)
    assert_gradients_close(f, [r(3, 3)], order=2, rtol=1e-4)
    with pytest.raises(tf.errors.InvalidArgumentError, match="Cholesky"):
        tf.linalg.cholesky(-tf.eye(2))


# -- norms -----------------------------------------------------------------------------------------

@pytest.mark.parametrize("ord_,axis,expected", [
    ("euclidean", None, lambda v: np.sqrt((v ** 2).sum())),
    (1, 1, lambda v: np.abs(v).sum(1)),
    (2, 0, lambda v: np.sqrt((v ** 2).sum(0))),
    (np.inf, -1, lambda v: np.abs(v).max(-1)),
    (3, 1, lambda v: (np.abs(v) ** 3).sum(1) ** (1 / 3)),
    ("fro", [0, 1], lambda v: np.linalg.norm(v, "fro")),
    (1, [0, 1], lambda v: np.linalg.norm(v, 1)),
    (np.inf, [0, 1], lambda v: np.linalg.norm(v, np.inf)),
])
def test_norm_values_and_gradients(ord_, axis, expected):
    x = r(3, 4)
    np.testing.assert_allclose(tf.norm(x, ord=ord_, axis=axis).numpy(), expected(x.numpy()), rtol=1e-12)
    order = 1 if ord_ in (1, np.inf) else 2
    assert_gradients_close(lambda t: tf.norm(t, ord=ord_, axis=axis), [x], order=order)
    kept = tf.linalg.norm(x, ord=ord_, axis=axis, keepdims=True)
    assert kept.shape.rank == 2


def test_norm_batched_matrix_axes_and_errors():
    x = r(2, 3, 4)
    np.testing.assert_allclose(tf.norm(x, ord=1, axis=[-2, -1]).numpy(),
                               [np.linalg.norm(m, 1) for m in x.numpy()])
    with pytest.raises(ValueError, match="ord"):
        tf.norm(x, ord="nuc", axis=[1, 2])
    with pytest.raises(ValueError, match="ord"):
        tf.norm(x, ord=-1)
    with pytest.raises(ValueError, match="axis"):
        tf.norm(x, axis=[1, 1])


def test_norm_gradient_at_zero_is_nan_like_tf():
    x = tf.zeros([3], dtype=tf.float64)
    with tf.GradientTape() as tape:
        tape.watch(x)
        n = tf.norm(x)
    assert np.isnan(tape.gradient(n, x).numpy()).all()


def test_l2_normalize_values_and_gradients():
    x = r(3, 4)
    v = x.numpy()
    np.testing.assert_allclose(tf.linalg.l2_normalize(x, axis=1).numpy(),
                               v / np.sqrt((v ** 2).sum(1, keepdims=True)))
    assert_gradients_close(lambda t: tf.linalg.l2_normalize(t, axis=-1), [x], order=2)
    np.testing.assert_array_equal(tf.linalg.l2_normalize(tf.zeros([2])).numpy(), [0, 0])


def test_matmul_dtypes_follow_tfs_kernels():
    def mm(dtype, rank=2, **kw):
        shape = [2] * rank
        return tf.matmul(tf.ones(shape, dtype), tf.ones(shape, dtype), **kw)
    for dtype in (tf.float16, tf.float32, tf.float64, tf.int32, tf.int64, tf.complex64):
        assert mm(dtype).dtype == dtype
    assert mm(tf.int16, rank=3).numpy()[0, 0, 0] == 2  # int16 only has a batched kernel
    for dtype in (tf.uint8, tf.uint16, tf.uint32, tf.uint64):  # declared but no CPU kernel: never wraps
        for rank in (2, 3):
            with pytest.raises(tf.errors.NotFoundError):
                mm(dtype, rank)
    for dtype, rank in ((tf.int8, 2), (tf.int8, 3), (tf.int16, 2), (tf.bool, 2), (tf.bool, 3)):
        with pytest.raises(tf.errors.InvalidArgumentError):
            mm(dtype, rank)
    big = tf.fill([2, 2], tf.constant(100, tf.int8))
    out = tf.matmul(big, tf.cast(big, tf.uint8), output_type=tf.int32)
    assert out.dtype == tf.int32 and out.numpy()[0, 0] == 20000
    with pytest.raises(tf.errors.NotFoundError):
        mm(tf.int16, output_type=tf.int32)
    with pytest.raises(ValueError, match="transpose_b"):
        tf.matmul(tf.ones([2, 3]), tf.ones([2, 3]), transpose_b=True, adjoint_b=True)
    with pytest.raises(tf.errors.NotFoundError):  # the kernel check comes before the rank check
        tf.matmul(tf.ones([3], tf.uint8), tf.ones([3, 2], tf.uint8))
    # b follows a's dtype where it can (as TF converts the second operand with a hint)
    assert tf.matmul([[1.0, 2.0]], [[3], [4]]).numpy().tolist() == [[11.0]]


def test_trace_and_vector_fro_norm_errors_follow_tf():
    with pytest.raises(tf.errors.InvalidArgumentError, match="at least 2-dim"):
        tf.linalg.trace(tf.constant([1.0, 2.0, 3.0]))
    with pytest.raises(ValueError, match="vector norm"):
        tf.linalg.norm(tf.constant([[1.0, 2.0], [3.0, 4.0]]), ord="fro")  # axis=None means a vector
    np.testing.assert_allclose(tf.linalg.norm(tf.ones([2, 2]), ord="fro", axis=[0, 1]).numpy(), 2.0)


def test_tensordot_int_axes_need_only_matching_products_and_matmul_kernel_first():
    a = tf.constant([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    b = tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    # TF reshapes both to [1, 6] x [6, 1]: the contracted sizes differ but their products agree
    np.testing.assert_allclose(tf.tensordot(a, b, 2).numpy(), np.dot(a.numpy().ravel(), b.numpy().ravel()))
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.tensordot(a, tf.ones([4, 2]), 1)
    with pytest.raises(tf.errors.NotFoundError):  # uint16 has no kernel, found before the dtype clash
        tf.matmul(tf.ones([2, 3], tf.uint16), tf.ones([3, 2], tf.float16))


def test_einsum_inv_det_norm_dtypes_follow_tf():
    for dtype in (tf.int8, tf.uint8, tf.bool):
        with pytest.raises(tf.errors.NotFoundError):
            tf.einsum("ij,jk->ik", tf.ones([2, 2], dtype), tf.ones([2, 2], dtype))
    assert tf.einsum("ij,jk->ik", tf.ones([2, 2], tf.int32), tf.ones([2, 2], tf.int32)).numpy()[0, 0] == 2
    h = tf.linalg.inv(tf.constant([[2.0, 0.0], [0.0, 4.0]], tf.float16))
    assert h.dtype == tf.float16 and h.numpy().tolist() == [[0.5, 0.0], [0.0, 0.25]]
    with pytest.raises(tf.errors.NotFoundError):
        tf.linalg.det(tf.eye(2, dtype=tf.float16))
    with pytest.raises(TypeError):
        tf.norm(tf.ones([3], tf.bool))


def test_matrix_2_norm_is_the_largest_singular_value():
    x = np.random.RandomState(0).randn(2, 3, 4)
    got = tf.linalg.norm(tf.constant(x), ord=2, axis=[1, 2])
    np.testing.assert_allclose(got.numpy(), np.linalg.norm(x, ord=2, axis=(1, 2)), rtol=1e-12)
    kept = tf.linalg.norm(tf.constant(x), ord=2, axis=[2, 0], keepdims=True)
    assert kept.shape.as_list() == [1, 3, 1]
    np.testing.assert_allclose(kept.numpy().ravel(),
                               np.linalg.norm(np.transpose(x, (1, 2, 0)), ord=2, axis=(1, 2)), rtol=1e-12)


def test_matrix_2_norm_gradient_matches_finite_differences():
    x = tf.constant(np.random.RandomState(1).randn(3, 4))
    assert_gradients_close(lambda t: tf.linalg.norm(t, ord=2, axis=[0, 1]), [x], order=1)
    assert_gradients_close(lambda t: tf.linalg.norm(t, ord=2, axis=[-1, -2]), [x], order=1)


def test_matrix_2_norm_has_no_float16_kernel():
    with pytest.raises(tf.errors.NotFoundError, match="Svd"):
        tf.linalg.norm(tf.ones([2, 2], tf.float16), ord=2, axis=[0, 1])


def test_inf_norm_gradient_splits_ties_and_namespaces_share_one_function():
    x = tf.constant([[1.0, -3.0, 3.0], [2.0, 0.5, -1.0]], dtype=tf.float64)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(tf.norm(x, ord=np.inf, axis=-1))
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), [[0, -0.5, 0.5], [1, 0, 0]])
    assert tf.linalg.l2_normalize is tf.math.l2_normalize is tf.nn.l2_normalize
    assert tf.linalg.eye is tf.eye
