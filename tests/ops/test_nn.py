"""Tests for minitf/ops/nn.py: values against numpy formulas, float64 gradient checks, errors."""
import math

import numpy as np
import pytest

import minitf as tf
from minitf.gradient_checker import assert_gradients_close

rng = np.random.default_rng(1)


def r(*shape, scale=1.0):
    return tf.constant(rng.standard_normal(shape) * scale)


def away_from_zero(*shape):
    """Values with |x| >= 0.1, so kinks at 0 are outside the finite-difference step."""
    v = rng.standard_normal(shape)
    return tf.constant(np.where(np.abs(v) < 0.1, 0.5, v))


def np_softmax(v, axis=-1):
    e = np.exp(v - v.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def np_erf(v):
    return np.vectorize(math.erf)(v)


SELU_A, SELU_S = 1.6732632423543772848170429916717, 1.0507009873554804934193349852946

ACTIVATIONS = [
    ("relu", tf.nn.relu, lambda v: np.maximum(v, 0), 1),
    ("relu6", tf.nn.relu6, lambda v: np.clip(v, 0, 6), 1),
    ("leaky_relu", tf.nn.leaky_relu, lambda v: np.where(v > 0, v, 0.2 * v), 1),
    ("leaky_relu_a", lambda x: tf.nn.leaky_relu(x, alpha=0.01), lambda v: np.where(v > 0, v, 0.01 * v), 1),
    ("elu", tf.nn.elu, lambda v: np.where(v > 0, v, np.expm1(v)), 1),
    ("selu", tf.nn.selu, lambda v: SELU_S * np.where(v > 0, v, SELU_A * np.expm1(v)), 1),
    ("gelu", tf.nn.gelu, lambda v: 0.5 * v * (1 + np_erf(v / np.sqrt(2))), 2),
    ("gelu_tanh", lambda x: tf.nn.gelu(x, approximate=True),
     lambda v: 0.5 * v * (1 + np.tanh(np.sqrt(2 / np.pi) * (v + 0.044715 * v ** 3))), 2),
    ("silu", tf.nn.silu, lambda v: v / (1 + np.exp(-v)), 2),
    ("swish_beta", lambda x: tf.nn.swish(x, beta=2.0), lambda v: v / (1 + np.exp(-2 * v)), 2),
    ("softsign", tf.nn.softsign, lambda v: v / (1 + np.abs(v)), 1),
]


@pytest.mark.parametrize("name,fn,ref,order", ACTIVATIONS, ids=[a[0] for a in ACTIVATIONS])
@pytest.mark.parametrize("shape", [(), (5,), (2, 3)])
def test_activation_values_and_gradients(name, fn, ref, order, shape):
    x = away_from_zero(*shape) * 3.0
    np.testing.assert_allclose(fn(x).numpy(), ref(x.numpy()), rtol=1e-6, atol=1e-7)
    assert_gradients_close(fn, [x], order=order, atol=1e-5 if "gelu" in name else 1e-6)


def test_relu_keeps_dtype_and_second_order_path():
    assert tf.nn.relu(tf.constant([-1, 2])).numpy().tolist() == [0, 2]
    assert tf.nn.relu(tf.constant([-1.0, 2.0])).dtype == tf.float32
    x = tf.constant([-1.0, 0.5, 2.0], dtype=tf.float64)
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = tf.reduce_sum(tf.nn.relu(x) * x)
        g = inner.gradient(y, x)  # 2x where x > 0
    np.testing.assert_allclose(g.numpy(), [0, 1.0, 4.0])
    np.testing.assert_allclose(outer.gradient(g, x).numpy(), [0, 2, 2])


@pytest.mark.parametrize("alpha", [0.2, 0.0, 1.0, 3.0, -0.5])
def test_leaky_relu_any_alpha_values_second_order_and_jacobian(alpha):
    x = away_from_zero(7) * 3.0
    v = x.numpy()
    a32 = float(np.float32(alpha))  # TF's alpha attr is float32 even for float64 inputs
    np.testing.assert_allclose(tf.nn.leaky_relu(x, alpha=alpha).numpy(), np.where(v > 0, v, a32 * v), rtol=1e-12)
    # x * leaky(x) has a nonzero second derivative on both sides, so this checks the grad-of-grad rule
    assert_gradients_close(lambda t: tf.nn.leaky_relu(t, alpha=alpha) * t, [x], order=2)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.nn.leaky_relu(x, alpha=alpha)
    np.testing.assert_allclose(tape.jacobian(y, x).numpy(), np.diag(np.where(v > 0, 1.0, alpha)))


def test_relu_and_leaky_relu_gradients_follow_tf_kernels_at_zero():
    x = tf.constant([0.0, -1.0, 2.0])
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        r, lk = tf.nn.relu(x), tf.nn.leaky_relu(x, alpha=0.1)
    # TF's kernels use a strict x > 0 mask: the slope at 0 is the negative side's
    np.testing.assert_allclose(tape.gradient(r, x).numpy(), [0, 0, 1])
    np.testing.assert_allclose(tape.gradient(lk, x).numpy(), [0.1, 0.1, 1], rtol=1e-6)
    assert tape.gradient(lk, x).dtype == tf.float32


def test_elu_gradient_is_finite_for_large_inputs():
    x = tf.constant([1000.0, -1000.0], dtype=tf.float64)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.nn.elu(x)
    assert np.isfinite(tape.gradient(y, x).numpy()).all()


# -- softmax family ----------------------------------------------------------------------------

@pytest.mark.parametrize("shape,axis", [((5,), -1), ((2, 3), -1), ((2, 3, 4), 1), ((3, 2), 0)])
def test_softmax_and_log_softmax(shape, axis):
    x = r(*shape)
    ref = np_softmax(x.numpy(), axis)
    np.testing.assert_allclose(tf.nn.softmax(x, axis=axis).numpy(), ref, rtol=1e-12)
    np.testing.assert_allclose(tf.nn.log_softmax(x, axis=axis).numpy(), np.log(ref), rtol=1e-12)
    w = r(*shape)  # weights make the sum non-constant, so the check is meaningful
    assert_gradients_close(lambda t: tf.nn.softmax(t, axis=axis) * w, [x], order=2)
    assert_gradients_close(lambda t: tf.nn.log_softmax(t, axis=axis) * w, [x], order=2)


def test_softmax_is_stable_for_large_logits():
    out = tf.nn.softmax(tf.constant([1000.0, 1000.0, -1000.0])).numpy()
    np.testing.assert_allclose(out, [0.5, 0.5, 0.0])
    assert np.isfinite(tf.nn.log_softmax(tf.constant([1000.0, 0.0])).numpy()).all()


def test_softmax_of_a_scalar_raises_like_tf():
    # the default/last axis reaches TF's kernel: oneDNN's Softmax (float16/32) aborts, the
    # float64 and LogSoftmax kernels raise InvalidArgumentError; other axes fail the range check
    with pytest.raises(tf.errors.AbortedError, match="Softmax"):
        tf.nn.softmax(tf.constant(1.0))
    with pytest.raises(tf.errors.AbortedError):
        tf.nn.softmax(tf.constant(1.0, tf.float16), axis=-1)
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.nn.softmax(tf.constant(1.0, tf.float64))
    with pytest.raises(tf.errors.InvalidArgumentError, match="LogSoftmax"):
        tf.nn.log_softmax(tf.constant(1.0))
    for fn in (tf.nn.softmax, tf.nn.log_softmax):
        for axis in (0, 1, -2):
            with pytest.raises(tf.errors.InvalidArgumentError, match="dim"):
                fn(tf.constant(1.0), axis=axis)


def test_softmax_jacobian_vectorized_matches_formula():
    x = r(2, 3)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.nn.softmax(x)
    jac = tape.jacobian(y, x).numpy()
    s = np_softmax(x.numpy())
    expected = np.zeros((2, 3, 2, 3))
    for b in range(2):
        expected[b, :, b, :] = np.diag(s[b]) - np.outer(s[b], s[b])
    np.testing.assert_allclose(jac, expected, atol=1e-12)


def soft_labels(*shape):
    return tf.constant(np_softmax(rng.standard_normal(shape)))


@pytest.mark.parametrize("shape,axis", [((4,), -1), ((3, 4), -1), ((2, 3, 4), 1)])
def test_softmax_cross_entropy(shape, axis):
    x, z = r(*shape), soft_labels(*shape) if axis == -1 else tf.constant(
        np_softmax(rng.standard_normal(shape), axis))
    expected = -(z.numpy() * np.log(np_softmax(x.numpy(), axis))).sum(axis)
    loss = tf.nn.softmax_cross_entropy_with_logits(labels=z, logits=x, axis=axis)
    np.testing.assert_allclose(loss.numpy(), expected, rtol=1e-12)
    assert_gradients_close(lambda t: tf.nn.softmax_cross_entropy_with_logits(z, t, axis=axis), [x], order=2)
    assert_gradients_close(lambda t: tf.nn.softmax_cross_entropy_with_logits(t, x, axis=axis), [z], order=2)


def test_softmax_cross_entropy_gradient_is_softmax_minus_labels():
    x, z = r(3, 4), soft_labels(3, 4)
    with tf.GradientTape() as tape:
        tape.watch(x)
        loss = tf.nn.softmax_cross_entropy_with_logits(z, x)
    np.testing.assert_allclose(tape.gradient(loss, x).numpy(), np_softmax(x.numpy()) - z.numpy(), atol=1e-12)
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"\[3, 4\].*SoftmaxCrossEntropyWithLogits"):
        tf.nn.softmax_cross_entropy_with_logits(soft_labels(3, 5), x)


@pytest.mark.parametrize("shape", [(4,), (3, 4), (2, 3, 4)])
def test_sparse_softmax_cross_entropy(shape):
    x = r(*shape)
    labels = tf.constant(rng.integers(0, shape[-1], size=shape[:-1]))
    xv, lv = x.numpy().reshape(-1, shape[-1]), labels.numpy().reshape(-1)
    expected = -np.log(np_softmax(xv))[np.arange(len(lv)), lv].reshape(shape[:-1])
    loss = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=x)
    np.testing.assert_allclose(loss.numpy(), expected, rtol=1e-12)
    assert_gradients_close(lambda t: tf.nn.sparse_softmax_cross_entropy_with_logits(labels, t) * 1.5,
                           [x], order=2)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(tf.nn.sparse_softmax_cross_entropy_with_logits(labels, x))
    one_hot = np.eye(shape[-1])[labels.numpy()]
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), np_softmax(x.numpy()) - one_hot, atol=1e-12)


def test_sparse_softmax_cross_entropy_jacobian():
    x = r(2, 3)
    labels = tf.constant([2, 0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.nn.sparse_softmax_cross_entropy_with_logits(labels, x)
    jac = tape.jacobian(y, x).numpy()
    probs = np_softmax(x.numpy()) - np.eye(3)[[2, 0]]
    expected = np.zeros((2, 2, 3))
    expected[0, 0], expected[1, 1] = probs[0], probs[1]
    np.testing.assert_allclose(jac, expected, atol=1e-12)


def test_sparse_softmax_cross_entropy_errors():
    logits = tf.zeros([2, 10])
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"label value of 10 .*\[0, 10\)"):
        tf.nn.sparse_softmax_cross_entropy_with_logits(tf.constant([1, 10]), logits)
    with pytest.raises(tf.errors.InvalidArgumentError, match="label value of -1"):
        tf.nn.sparse_softmax_cross_entropy_with_logits(tf.constant([-1, 0]), logits)
    with pytest.raises(ValueError, match="Rank mismatch") as info:
        tf.nn.sparse_softmax_cross_entropy_with_logits(tf.constant([[1], [2]]), logits)
    assert not isinstance(info.value, tf.errors.InvalidArgumentError)
    with pytest.raises(ValueError, match="Shape mismatch"):
        tf.nn.sparse_softmax_cross_entropy_with_logits(tf.constant([1, 2, 3]), logits)


@pytest.mark.parametrize("shape", [(), (4,), (2, 3)])
def test_sigmoid_cross_entropy(shape):
    x = r(*shape, scale=3.0)
    z = tf.constant(rng.uniform(size=shape))
    xv, zv = x.numpy(), z.numpy()
    sig = 1 / (1 + np.exp(-xv))
    expected = -(zv * np.log(sig) + (1 - zv) * np.log(1 - sig))
    np.testing.assert_allclose(tf.nn.sigmoid_cross_entropy_with_logits(labels=z, logits=x).numpy(),
                               expected, rtol=1e-10)
    assert_gradients_close(lambda a, b: tf.nn.sigmoid_cross_entropy_with_logits(a, b), [z, x], order=2)
    with pytest.raises(ValueError, match="same shape"):
        tf.nn.sigmoid_cross_entropy_with_logits(labels=tf.zeros([3]), logits=tf.zeros([2]))


def test_weighted_cross_entropy_and_log_poisson():
    x, z = r(5), tf.constant(rng.uniform(size=5))
    xv, zv = x.numpy(), z.numpy()
    sig = 1 / (1 + np.exp(-xv))
    expected = -(3.0 * zv * np.log(sig) + (1 - zv) * np.log(1 - sig))
    np.testing.assert_allclose(tf.nn.weighted_cross_entropy_with_logits(z, x, 3.0).numpy(), expected, rtol=1e-10)
    t = tf.constant([0.0, 0.5, 2.0, 5.0], dtype=tf.float64)
    c = r(4)
    tv, cv = t.numpy(), c.numpy()
    base = np.exp(cv) - cv * tv
    np.testing.assert_allclose(tf.nn.log_poisson_loss(t, c).numpy(), base)
    safe = np.maximum(tv, 1)
    stirling = np.where(tv > 1, safe * np.log(safe) - safe + 0.5 * np.log(2 * np.pi * safe), 0)
    np.testing.assert_allclose(tf.nn.log_poisson_loss(t, c, compute_full_loss=True).numpy(), base + stirling)
    assert_gradients_close(lambda a: tf.nn.log_poisson_loss(t, a, compute_full_loss=True), [c], order=2)
    assert_gradients_close(lambda a: tf.nn.weighted_cross_entropy_with_logits(z, a, 3.0), [x], order=2)


# -- bias, dropout, moments, batch norm ---------------------------------------------------------

def test_bias_add_values_gradients_and_errors():
    x, b = r(2, 3, 4), r(4)
    np.testing.assert_allclose(tf.nn.bias_add(x, b).numpy(), x.numpy() + b.numpy())
    bc = r(3)
    np.testing.assert_allclose(tf.nn.bias_add(x, bc, data_format="NCHW").numpy(),
                               x.numpy() + bc.numpy()[:, None])
    assert_gradients_close(lambda a, c: tf.nn.bias_add(a, c), [x, b], order=2)
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"\[3\] vs. \[2, 3, 4\].*BiasAdd"):
        tf.nn.bias_add(x, bc)
    with pytest.raises(tf.errors.InvalidArgumentError, match="1D"):
        tf.nn.bias_add(x, r(2, 4))


def test_dropout_scales_kept_values_and_is_seeded():
    x = tf.ones([200, 50])
    y = tf.nn.dropout(x, rate=0.25, seed=3).numpy()
    kept = y != 0
    np.testing.assert_allclose(y[kept], 1 / 0.75, rtol=1e-6)
    assert abs(kept.mean() - 0.75) < 0.02
    tf.random.set_seed(5)
    a = tf.nn.dropout(x, 0.5, seed=1).numpy()
    tf.random.set_seed(5)
    b = tf.nn.dropout(x, 0.5, seed=1).numpy()
    np.testing.assert_array_equal(a, b)
    shared = tf.nn.dropout(x, 0.5, noise_shape=[200, 1]).numpy()
    assert all(len(set(row)) == 1 for row in shared)
    assert tf.nn.dropout(x, 0.0) is x


def test_dropout_gradient_uses_the_same_mask():
    x = tf.constant(rng.standard_normal((30,)))
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.nn.dropout(x, 0.5)
    g = tape.gradient(y, x).numpy()
    np.testing.assert_allclose(g, np.where(y.numpy() != 0, 2.0, 0.0))


@pytest.mark.parametrize("rate", [1.0, -0.1, 1.5, "a"])
def test_dropout_rate_validation(rate):
    with pytest.raises(ValueError, match="rate"):
        tf.nn.dropout(tf.ones([3]), rate)


def test_dropout_rejects_integers():
    with pytest.raises(ValueError, match="floating point"):
        tf.nn.dropout(tf.constant([1, 2]), 0.5)


@pytest.mark.parametrize("axes,keepdims", [([0], False), ([0, 1], True), ([1], False)])
def test_moments(axes, keepdims):
    x = r(4, 3, 2)
    mean, var = tf.nn.moments(x, axes=axes, keepdims=keepdims)
    np.testing.assert_allclose(mean.numpy(), x.numpy().mean(tuple(axes), keepdims=keepdims))
    np.testing.assert_allclose(var.numpy(), x.numpy().var(tuple(axes), keepdims=keepdims))
    # first order only: as in TF, the mean inside the variance is a stop_gradient
    assert_gradients_close(lambda t: tf.nn.moments(t, axes=axes)[1], [x], order=1)
    assert_gradients_close(lambda t: tf.nn.moments(t, axes=axes)[0], [x], order=1)


def test_batch_normalization():
    x, mean, var, off, sc = r(4, 3), r(3), tf.constant(rng.uniform(0.5, 2, 3)), r(3), r(3)
    expected = (x.numpy() - mean.numpy()) / np.sqrt(var.numpy() + 1e-3) * sc.numpy() + off.numpy()
    np.testing.assert_allclose(tf.nn.batch_normalization(x, mean, var, off, sc, 1e-3).numpy(), expected)
    np.testing.assert_allclose(tf.nn.batch_normalization(x, mean, var, None, None, 1e-3).numpy(),
                               (x.numpy() - mean.numpy()) / np.sqrt(var.numpy() + 1e-3))
    assert_gradients_close(lambda *a: tf.nn.batch_normalization(*a, 1e-3), [x, mean, var, off, sc], order=2)


def test_compute_average_loss_and_regularization():
    loss = tf.constant([1.0, 2.0, 3.0, 6.0])
    assert tf.nn.compute_average_loss(loss).numpy() == pytest.approx(3.0)
    assert tf.nn.compute_average_loss(loss, global_batch_size=8).numpy() == pytest.approx(1.5)
    with pytest.raises(ValueError, match="at least rank 1"):
        tf.nn.compute_average_loss(tf.constant(1.0))
    w = tf.constant([1.0, 0.0, 1.0, 0.5])
    assert tf.nn.compute_average_loss(loss, sample_weight=w).numpy() == pytest.approx(7.0 / 4)
    assert tf.nn.scale_regularization_loss([tf.constant(1.0), tf.constant(2.5)]).numpy() == pytest.approx(3.5)
    per_example = tf.constant([1.0, 2.0, 3.0, 6.0], dtype=tf.float64)
    weights = tf.constant([1.0, 0.0, 1.0, 0.5], dtype=tf.float64)
    assert_gradients_close(lambda t, w: tf.nn.compute_average_loss(t, sample_weight=w, global_batch_size=8),
                           [per_example, weights])
    assert_gradients_close(lambda a, b: tf.nn.scale_regularization_loss([a, b]),
                           [tf.constant(1.0, tf.float64), tf.constant(2.5, tf.float64)])
    x = r(3, 2)
    assert tf.nn.l2_loss(x).numpy() == pytest.approx((x.numpy() ** 2).sum() / 2)
    assert_gradients_close(tf.nn.l2_loss, [x], order=2)


# -- top_k ----------------------------------------------------------------------------------------

def test_top_k_values_indices_ties_and_gradient():
    x = tf.constant([[1.0, 3.0, 3.0, 2.0], [4.0, -1.0, 0.0, 5.0]], dtype=tf.float64)
    values, indices = tf.math.top_k(x, k=2) if hasattr(tf.math, "top_k") else tf.nn.top_k(x, k=2)
    np.testing.assert_array_equal(values.numpy(), [[3, 3], [5, 4]])
    np.testing.assert_array_equal(indices.numpy(), [[1, 2], [3, 0]])
    assert indices.dtype == tf.int32
    y = r(3, 5)
    out = tf.nn.top_k(y, 3)
    np.testing.assert_allclose(out.values.numpy(), -np.sort(-y.numpy(), axis=-1)[:, :3])
    assert_gradients_close(lambda t: tf.nn.top_k(t, 3).values, [y], order=2)
    with pytest.raises(tf.errors.InvalidArgumentError, match="at least k columns. Had 5, needed 6"):
        tf.nn.top_k(y, 6)


def test_in_top_k():
    preds = tf.constant([[0.1, 0.8, 0.1], [0.3, 0.3, 0.4], [0.5, 0.2, 0.3]])
    out = tf.nn.in_top_k(tf.constant([1, 0, 1]), preds, k=1).numpy()
    np.testing.assert_array_equal(out, [True, False, False])
    out2 = tf.nn.in_top_k(tf.constant([1, 0, 2]), preds, k=2).numpy()
    np.testing.assert_array_equal(out2, [True, True, True])  # tie at the boundary counts


def test_l2_normalize_in_nn():
    x = r(2, 3)
    np.testing.assert_allclose(tf.nn.l2_normalize(x, axis=-1).numpy(),
                               x.numpy() / np.linalg.norm(x.numpy(), axis=-1, keepdims=True))


def test_leaky_relu_casts_integers_and_gelu_refuses_them_like_tf():
    y = tf.nn.leaky_relu(tf.constant([-1, 2], tf.int8))
    assert y.dtype == tf.float32
    np.testing.assert_allclose(y.numpy(), [-0.2, 2.0], rtol=1e-6)
    assert tf.nn.leaky_relu(tf.constant([-1], tf.int64), 0.5).numpy().tolist() == [-0.5]
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.nn.leaky_relu(tf.constant([True]))
    for x in (tf.constant([1, 2]), tf.constant([1], tf.uint8), tf.constant([True])):
        with pytest.raises(ValueError, match="floating point"):
            tf.nn.gelu(x)


def test_top_k_with_k_zero_has_a_zero_gradient():
    x = tf.Variable(tf.ones([2, 5]))
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(tf.math.top_k(x, k=0).values)
    assert tape.gradient(y, x).numpy().tolist() == [[0.0] * 5] * 2


def test_leaky_relu_alpha_is_a_float32_attr_like_tf():
    y = tf.nn.leaky_relu(tf.constant([-1.0], tf.float64), alpha=0.2).numpy()[0]
    assert y == -float(np.float32(0.2))


@pytest.mark.parametrize("fn", [tf.nn.relu, tf.nn.relu6, lambda t: tf.nn.leaky_relu(t, 0.2)])
def test_second_derivative_of_piecewise_linear_activations_is_zero_not_none(fn):
    x = tf.constant([0.5, -1.0, 7.0])
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = fn(x)
        g = inner.gradient(y, x)
    assert outer.gradient(g, x).numpy().tolist() == [0.0, 0.0, 0.0]


def test_nn_dtype_rules_follow_tf():
    c = tf.ones([2, 3], tf.complex64)
    for fn in (lambda: tf.nn.softmax_cross_entropy_with_logits(c, c),
               lambda: tf.nn.sparse_softmax_cross_entropy_with_logits(tf.constant([0, 1]), c),
               lambda: tf.nn.l2_loss(tf.ones([2], tf.complex64)),
               lambda: tf.math.top_k(tf.ones([4], tf.bool), 2)):
        with pytest.raises(tf.errors.InvalidArgumentError):
            fn()
    mean, var = tf.nn.moments(tf.constant([[1, 2], [4, 7]]), [0])  # integer moments, as TF
    assert mean.dtype == tf.int32 and mean.numpy().tolist() == [2, 4]
    assert var.numpy().tolist() == [2, 6]
