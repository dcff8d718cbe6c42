"""TF's fused gradients of sqrt, rsqrt and reciprocal (SqrtGrad, RsqrtGrad, ReciprocalGrad): 0
wherever the upstream gradient is 0, even where the input is 0, negative or infinite (TF's
kernels), the conjugate convention for complex inputs, and their own gradients (finite
differences in float64, and TF 2.21 where installed)."""
import numpy as np
import pytest

import minitf as tf
from minitf.gradient_checker import assert_gradients_close

OPS = {"sqrt": tf.sqrt, "rsqrt": tf.math.rsqrt, "reciprocal": tf.math.reciprocal}
SPECIAL = np.array([0.0, -0.0, 1.0, 4.0, -1.0, np.inf, np.nan])
# TF 2.21's gradients at SPECIAL (float32, float64, float16 alike) for upstream 1.0
TF_UPSTREAM_ONE = {
    "sqrt": [np.inf, -np.inf, 0.5, 0.25, np.nan, 0.0, np.nan],
    "rsqrt": [-np.inf, np.inf, -0.5, -0.0625, np.nan, -0.0, np.nan],
    "reciprocal": [-np.inf, -np.inf, -1.0, -0.0625, -1.0, -0.0, np.nan],
}


def _gradient(op, x, upstream):
    x = tf.Variable(x)
    with tf.GradientTape() as tape:
        y = op(x)
    return tape.gradient(y, x, output_gradients=tf.fill(tf.shape(y), tf.cast(upstream, y.dtype)))


@pytest.mark.parametrize("name", sorted(OPS))
@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_zero_upstream_gives_zero_even_at_the_singularity(name, dtype):
    g = _gradient(OPS[name], SPECIAL.astype(dtype), 0.0)
    np.testing.assert_array_equal(g.numpy(), np.zeros(len(SPECIAL), dtype))
    assert not np.signbit(g.numpy()).any()  # +0, as TF's kernels return
    g = _gradient(OPS[name], SPECIAL.astype(dtype), 1.0)
    np.testing.assert_array_equal(g.numpy(), np.array(TF_UPSTREAM_ONE[name], dtype))
    signed = ~np.isnan(TF_UPSTREAM_ONE[name])
    np.testing.assert_array_equal(np.signbit(g.numpy())[signed], np.signbit(TF_UPSTREAM_ONE[name])[signed])
    assert np.isnan(_gradient(OPS[name], SPECIAL.astype(dtype), np.nan).numpy()).all()


@pytest.mark.parametrize("name", sorted(OPS))
def test_a_masked_out_singularity_adds_no_nan(name):
    x = tf.Variable([0.0, 1.0, 4.0], dtype=tf.float64)
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(tf.where([False, True, True], OPS[name](x), 0.0))
    g = tape.gradient(loss, x).numpy()
    assert g[0] == 0.0 and np.isfinite(g).all()


@pytest.mark.parametrize("name", sorted(OPS))
@pytest.mark.parametrize("shape", [(), (3,), (2, 3)])
def test_finite_differences_first_and_second_order(name, shape):
    x = np.random.default_rng(len(shape)).uniform(0.5, 2.0, size=shape)
    assert_gradients_close(OPS[name], [x], order=2)


@pytest.mark.parametrize("name", sorted(OPS))
def test_the_fused_gradient_is_differentiable_in_both_inputs(name):
    def grad_of(x, u):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = OPS[name](x)
        return tape.gradient(y, x, output_gradients=u)
    rng = np.random.default_rng(1)
    assert_gradients_close(grad_of, [rng.uniform(0.5, 2.0, (2, 3)), rng.uniform(-1, 1, (2, 3))])


@pytest.mark.parametrize("name", sorted(OPS))
def test_complex_gradients_follow_tfs_conjugate_convention(name):
    z = np.array([0.5 + 0.3j, 1.5 - 0.7j, -2.0 + 0.2j])
    u = np.array([1.0 + 0.2j, -2.0 + 0.1j, 0.5 - 1.0j])
    g = _gradient(OPS[name], z, 0.0)
    np.testing.assert_array_equal(g.numpy(), np.zeros(3, complex))
    x = tf.Variable(z)
    with tf.GradientTape() as tape:
        y = OPS[name](x)
    g = tape.gradient(y, x, output_gradients=tf.constant(u)).numpy()
    derivative = {"sqrt": 0.5 / np.sqrt(z), "rsqrt": -0.5 * z ** -1.5, "reciprocal": -1 / z ** 2}[name]
    np.testing.assert_allclose(g, u * np.conj(derivative), rtol=1e-12)


@pytest.mark.parametrize("name", ["sqrt", "math.rsqrt", "math.reciprocal"])
@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64", "complex128"])
def test_first_and_second_order_match_tensorflow(name, dtype):
    tf_ref = pytest.importorskip("tensorflow")
    rng = np.random.default_rng(2)
    x = np.concatenate([[0.0, 0.0, 1.0], rng.uniform(0.25, 3.0, 5)])
    up = np.concatenate([[0.0, 1.0, 0.0], rng.uniform(-1, 1, 5)])
    w = rng.uniform(-1, 1, 8)
    if dtype.startswith("complex"):
        x, up, w = x + 1j * rng.uniform(-1, 1, 8), up + 1j * rng.uniform(-1, 1, 8), w + 1j * rng.uniform(-1, 1, 8)
        x[0] = 0  # with upstream 0; at a complex 0 with upstream != 0 numpy's complex division
        up[0] = 0  # gives inf+infj where Eigen's gives nan+nanj, so that point is left out

    def run(lib):
        fn = lib
        for part in name.split("."):
            fn = getattr(fn, part)
        xv, u = lib.Variable(x.astype(dtype)), lib.constant(up.astype(dtype))
        with lib.GradientTape() as outer:
            outer.watch(u)
            with lib.GradientTape() as inner:
                y = fn(xv)
            g = inner.gradient(y, xv, output_gradients=u)
            total = lib.reduce_sum(g * lib.constant(w.astype(dtype)))
        return [np.asarray(v) for v in [g] + outer.gradient(total, [xv, u])]
    rtol = 1e-4 if dtype in ("float32", "complex64") else 1e-10
    for mine, ref in zip(run(tf), run(tf_ref)):
        np.testing.assert_allclose(mine, ref, rtol=rtol, atol=rtol, equal_nan=True)
