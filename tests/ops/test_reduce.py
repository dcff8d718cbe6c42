"""Reductions, arg-reductions and scans: values against numpy, gradients against finite
differences (first and second order), errors, and vectorized jacobians."""
import numpy as np
import pytest

import minitf as tf
from minitf.gradient_checker import assert_gradients_close
from minitf.errors import errors

RNG = np.random.default_rng(0)


def check_grads(f, xs, order=2, rtol=1e-5, atol=1e-6):
    """The shared float64 finite-difference check, second order by default."""
    assert_gradients_close(f, [np.asarray(x, dtype=np.float64) for x in xs], order=order,
                           rtol=rtol, atol=atol)


def rand(*shape):
    return RNG.standard_normal(shape)


SHAPES_AXES = [((), None), ((4,), 0), ((3, 4), 1), ((3, 4), [0, 1]), ((2, 3, 4), (0, 2)),
               ((2, 3, 4), -1)]


@pytest.mark.parametrize("shape,axis", SHAPES_AXES)
@pytest.mark.parametrize("keepdims", [False, True])
@pytest.mark.parametrize("name,ref", [
    ("reduce_sum", np.sum), ("reduce_mean", np.mean), ("reduce_max", np.max), ("reduce_min", np.min),
    ("reduce_prod", np.prod), ("reduce_variance", np.var), ("reduce_std", np.std)])
def test_float_reductions_match_numpy(name, ref, shape, axis, keepdims):
    x = rand(*shape)
    np_axis = tuple(axis) if isinstance(axis, list) else axis
    got = getattr(tf.math, name)(x, axis=axis, keepdims=keepdims)
    np.testing.assert_allclose(got.numpy(), ref(x, axis=np_axis, keepdims=keepdims), rtol=1e-12)
    assert got.dtype == tf.float64


def test_logsumexp_is_stable_and_matches_numpy():
    x = rand(3, 4) * 3
    expect = np.log(np.sum(np.exp(x), axis=1))
    np.testing.assert_allclose(tf.reduce_logsumexp(x, axis=1).numpy(), expect, rtol=1e-12)
    big = np.array([1000.0, 1000.0])
    assert np.isclose(tf.reduce_logsumexp(big).numpy(), 1000.0 + np.log(2))
    assert tf.reduce_logsumexp(np.array([-np.inf, -np.inf])).numpy() == -np.inf
    assert tf.reduce_logsumexp(x, 1, keepdims=True).shape == (3, 1)


def test_axis_as_tensor_numpy_int_and_keepdims_tensor():
    x = rand(3, 4)
    np.testing.assert_allclose(tf.reduce_sum(x, tf.constant([1])).numpy(), x.sum(1))
    np.testing.assert_allclose(tf.reduce_mean(x, np.int64(0)).numpy(), x.mean(0))
    assert tf.reduce_sum(x, 0, keepdims=tf.constant(True)).shape == (1, 4)


def test_integer_and_bool_reductions():
    a = np.array([[1, 5, 3], [4, 2, 6]], dtype=np.int32)
    assert tf.reduce_max(a).dtype == tf.int32 and tf.reduce_max(a).numpy() == 6
    np.testing.assert_array_equal(tf.reduce_min(a, 1).numpy(), [1, 2])
    np.testing.assert_array_equal(tf.reduce_prod(a, 0).numpy(), [4, 10, 18])
    b = np.array([[True, False], [True, True]])
    np.testing.assert_array_equal(tf.reduce_any(b, 1).numpy(), [True, True])
    np.testing.assert_array_equal(tf.reduce_all(b, 1).numpy(), [False, True])
    assert tf.reduce_all(b).numpy() == np.False_
    assert tf.reduce_any(b, keepdims=True).shape == (1, 1)


def test_empty_max_gives_lowest_value():
    assert tf.reduce_max(np.zeros((0,), np.float32)).numpy() == -np.inf
    assert tf.reduce_min(np.zeros((2, 0), np.int32), 1).numpy().tolist() == [2 ** 31 - 1] * 2


def test_argmax_argmin():
    x = rand(3, 5)
    got = tf.argmax(x)  # axis None means 0
    assert got.dtype == tf.int64
    np.testing.assert_array_equal(got.numpy(), np.argmax(x, 0))
    np.testing.assert_array_equal(tf.math.argmin(x, 1, output_type=tf.int32).numpy(), np.argmin(x, 1))
    assert tf.math.argmin(x, 1, output_type=tf.int32).dtype == tf.int32
    np.testing.assert_array_equal(tf.argmax([1, 3, 3, 0]).numpy(), 1)  # first of ties


@pytest.mark.parametrize("exclusive", [False, True])
@pytest.mark.parametrize("reverse", [False, True])
def test_cumsum_cumprod_values(exclusive, reverse):
    x = rand(3, 4)

    def ref(v, op, axis, identity):
        if reverse:
            v = np.flip(v, axis)
        out = op(v, axis=axis)
        if exclusive:
            pad = np.full_like(np.take(out, [0], axis=axis), identity)
            out = np.concatenate([pad, np.delete(out, -1, axis=axis)], axis=axis)
        return np.flip(out, axis) if reverse else out
    for axis in (0, 1, -1):
        np.testing.assert_allclose(tf.math.cumsum(x, axis, exclusive, reverse).numpy(),
                                   ref(x, np.cumsum, axis, 0), rtol=1e-12)
        np.testing.assert_allclose(tf.math.cumprod(x, axis, exclusive, reverse).numpy(),
                                   ref(x, np.cumprod, axis, 1), rtol=1e-12)


def test_count_nonzero_and_l2_normalize():
    x = np.array([[0.0, 1.5, 0.0], [2.0, 0.0, 3.0]])
    got = tf.math.count_nonzero(x, axis=1)
    assert got.dtype == tf.int64
    np.testing.assert_array_equal(got.numpy(), [1, 2])
    assert tf.math.count_nonzero(x).numpy() == 3
    assert tf.math.count_nonzero([True, False, True], dtype=tf.int32).dtype == tf.int32
    y = rand(3, 4)
    np.testing.assert_allclose(tf.math.l2_normalize(y, axis=1).numpy(),
                               y / np.linalg.norm(y, axis=1, keepdims=True), rtol=1e-12)
    np.testing.assert_allclose(tf.math.l2_normalize(y).numpy(), y / np.linalg.norm(y), rtol=1e-12)
    assert np.all(tf.math.l2_normalize(np.zeros(3)).numpy() == 0)


@pytest.mark.parametrize("shape,axis", [((), None), ((4,), 0), ((3, 4), 1), ((2, 3, 4), (0, 2))])
@pytest.mark.parametrize("name", ["reduce_sum", "reduce_mean", "reduce_max", "reduce_min",
                                  "reduce_prod", "reduce_logsumexp", "reduce_variance", "reduce_std"])
def test_reduction_gradients(name, shape, axis):
    x = rand(*shape) + (3.0 if name == "reduce_std" and not shape else 0.0)
    if name == "reduce_std" and not shape:
        return check_grads(lambda t: tf.math.reduce_std(t + tf.constant([0.0, 1.0], tf.float64)), [x])
    fn = getattr(tf.math, name)
    check_grads(lambda t: fn(t, axis=axis), [x], order=2)
    check_grads(lambda t: fn(t, axis=axis, keepdims=True), [x], order=1)


def test_max_gradient_is_split_among_ties():
    x = tf.constant([[1.0, 3.0, 3.0], [2.0, 2.0, 2.0]], tf.float64)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_max(x, axis=1)
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), [[0, .5, .5], [1 / 3, 1 / 3, 1 / 3]])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_min(x)
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), [[1, 0, 0], [0, 0, 0]])


def test_prod_gradient_with_zeros():
    x = np.array([[0.0, 2.0, 3.0], [0.0, 0.0, 4.0], [1.0, 2.0, 3.0]])
    # First order is exact at zeros; like TF, the second order goes through cumprod's x-division.
    check_grads(lambda t: tf.reduce_prod(t, axis=1), [x], order=1)
    t = tf.constant(x)
    with tf.GradientTape() as tape:
        tape.watch(t)
        y = tf.reduce_prod(t, axis=1)
    np.testing.assert_allclose(tape.gradient(y, t).numpy(), [[6, 0, 0], [0, 0, 0], [6, 3, 2]])


@pytest.mark.parametrize("exclusive", [False, True])
@pytest.mark.parametrize("reverse", [False, True])
def test_scan_gradients(exclusive, reverse):
    x = rand(3, 4)
    check_grads(lambda t: tf.math.cumsum(t, 1, exclusive, reverse), [x], order=2)
    check_grads(lambda t: tf.math.cumprod(t, 0, exclusive, reverse), [x], order=2)


def test_l2_normalize_gradient():
    check_grads(lambda t: tf.math.l2_normalize(t, axis=-1), [rand(2, 3)], order=2)
    check_grads(lambda t: tf.math.l2_normalize(t, axis=None), [rand(4)], order=2)


def test_errors_name_op_and_shapes():
    x = tf.zeros([2, 3])
    with pytest.raises(errors.InvalidArgumentError, match=r"Invalid reduction dimension \(2.*Max"):
        tf.reduce_max(x, axis=2)
    with pytest.raises(errors.InvalidArgumentError, match="Sum"):
        tf.reduce_sum(x, axis=-3)
    with pytest.raises(errors.InvalidArgumentError, match=r"bool.*float32.*Any"):
        tf.reduce_any(x)
    with pytest.raises(errors.InvalidArgumentError, match="ArgMax"):
        tf.argmax(x, axis=5)
    with pytest.raises(errors.InvalidArgumentError, match="Cumsum"):
        tf.math.cumsum(x, axis=2)
    with pytest.raises(TypeError, match="real or complex"):
        tf.math.reduce_variance(tf.constant([1, 2]))
    assert isinstance(errors.InvalidArgumentError(None, None, ""), ValueError)


ALL_REDUCTIONS = [tf.reduce_sum, tf.reduce_mean, tf.reduce_max, tf.reduce_min, tf.reduce_prod,
                  tf.reduce_logsumexp, tf.math.reduce_variance, tf.math.reduce_std,
                  tf.math.count_nonzero, tf.math.reduce_euclidean_norm]


@pytest.mark.parametrize("fn", ALL_REDUCTIONS + [tf.reduce_any, tf.reduce_all])
def test_bad_axes_raise_invalid_argument_like_tf(fn):
    x = tf.constant([[True, False], [True, True]]) if fn in (tf.reduce_any, tf.reduce_all) \
        else tf.constant([[1.0, 2.0], [3.0, 4.0]])
    scalar = x[0, 0]
    for bad in ([0, 0], [1, -1], tf.constant([0, 0]), 2, -3, [0.5], tf.constant(0.0)):
        with pytest.raises(errors.InvalidArgumentError):
            fn(x, bad)
    with pytest.raises(errors.InvalidArgumentError, match="duplicate"):
        fn(x, [0, 0], keepdims=True)
    for bad in (0, -1, [0], tf.constant(0, tf.int64)):  # a scalar has no axis at all
        with pytest.raises(errors.InvalidArgumentError, match=r"0 dimension"):
            fn(scalar, bad)
    with pytest.raises(TypeError):
        fn(x, 1.0)
    # a 2-d axis tensor is flattened, a bool axis counts as an int, [] reduces nothing
    assert fn(x, tf.constant([[0]])).shape == (2,)
    assert fn(x, [True]).shape == (2,)
    assert fn(x, []).shape == (2, 2)


def test_scan_axis_must_be_a_scalar_int():
    x = tf.zeros([2, 3])
    with pytest.raises(errors.InvalidArgumentError, match="scalar"):
        tf.math.cumsum(x, [0])
    with pytest.raises(TypeError):
        tf.math.cumsum(x, 1.0)


def test_euclidean_norm_values_and_dtypes():
    x = tf.constant([[3.0, 4.0], [0.0, 0.0]])
    np.testing.assert_allclose(tf.math.reduce_euclidean_norm(x).numpy(), 5.0)
    np.testing.assert_allclose(tf.math.reduce_euclidean_norm(x, 1).numpy(), [5.0, 0.0])
    assert tf.math.reduce_euclidean_norm(x, 1, keepdims=True).shape == (2, 1)
    # integers stay integer: squares summed in the input type (wrapping), root truncated
    r = tf.math.reduce_euclidean_norm(tf.constant([[1, 2], [3, 4]]), 0)
    assert r.dtype == tf.int32 and r.numpy().tolist() == [3, 4]
    assert tf.math.reduce_euclidean_norm(tf.constant([100, 100], tf.int8)).numpy() == 5
    c = tf.math.reduce_euclidean_norm(tf.constant([[3 + 4j, 1j]]), 1)
    assert c.dtype == tf.complex128
    np.testing.assert_allclose(c.numpy(), [np.sqrt(26.0)])
    assert tf.math.reduce_euclidean_norm(tf.zeros([0, 3]), 0).numpy().tolist() == [0.0, 0.0, 0.0]
    with pytest.raises(errors.InvalidArgumentError):
        tf.math.reduce_euclidean_norm(tf.constant([True]))
    assert not hasattr(tf, "reduce_euclidean_norm")  # tf.math only, as in TF


@pytest.mark.parametrize("shape,axis,keepdims", [((), None, False), ((3,), 0, False), ((2, 3), 1, True),
                                                  ((2, 3, 4), [0, 2], False), ((2, 3), None, True)])
def test_euclidean_norm_gradient(shape, axis, keepdims):
    x = rand(*shape) + 0.5
    check_grads(lambda t: tf.math.reduce_euclidean_norm(t, axis, keepdims=keepdims), [x])


def test_euclidean_norm_gradient_at_zero_is_nan_like_tf():
    v = tf.Variable([[3.0, 4.0], [0.0, 0.0]])
    with tf.GradientTape() as g:
        y = tf.math.reduce_euclidean_norm(v, 1)
    grad = g.gradient(y, v).numpy()
    np.testing.assert_allclose(grad[0], [0.6, 0.8], rtol=1e-6)
    assert np.isnan(grad[1]).all()


@pytest.mark.parametrize("fn", [
    lambda t: tf.math.reduce_euclidean_norm(t, 1),
    lambda t: tf.reduce_max(t * t, axis=1),
    lambda t: tf.reduce_prod(t, axis=0, keepdims=True),
    lambda t: tf.reduce_logsumexp(t, axis=-1),
    lambda t: tf.math.cumsum(t, 1, exclusive=True),
    lambda t: tf.math.cumprod(t, 0, reverse=True),
    lambda t: tf.math.reduce_std(t, 0),
])
def test_jacobian_pfor_matches_loop(fn):
    x = tf.constant(rand(3, 4))
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = fn(x)
    fast = tape.jacobian(y, x, experimental_use_pfor=True)
    slow = tape.jacobian(y, x, experimental_use_pfor=False)
    np.testing.assert_allclose(fast.numpy(), slow.numpy(), rtol=1e-12, atol=1e-14)
    assert fast.shape == tuple(y.shape) + (3, 4)


def test_batchable_ops_take_the_vectorized_path():
    from minitf.tape import path_is_batchable
    x = tf.constant(rand(3, 4))
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = tf.math.cumprod(tf.reduce_max(x, 0, keepdims=True) * tf.reduce_prod(x, 1, keepdims=True), 1)
    assert path_is_batchable(tape._records, [y], [x])


@pytest.mark.parametrize("fn", [tf.reduce_sum, tf.reduce_mean, tf.reduce_max, tf.reduce_min, tf.reduce_prod])
def test_arithmetic_reductions_have_no_bool_kernel(fn):
    with pytest.raises(errors.InvalidArgumentError, match="bool"):
        fn(tf.constant([[True, False]]), 0)
    with pytest.raises(errors.InvalidArgumentError, match="bool"):
        fn(tf.constant(True))
    assert tf.reduce_any(tf.constant([True, False])).numpy()


def test_variance_checks_axes_before_the_integer_type_error():
    with pytest.raises(errors.InvalidArgumentError, match="reduction dimension"):
        tf.math.reduce_variance(tf.constant([1, 2]), 5)
    with pytest.raises(errors.InvalidArgumentError, match="reduction dimension"):
        tf.math.reduce_std(tf.constant(4), axis=0)
    with pytest.raises(TypeError):
        tf.math.reduce_std(tf.constant([1, 2]))


def test_reduce_any_all_of_non_bool_with_list_axes_is_a_value_error_like_tf():
    with pytest.raises(ValueError):
        tf.reduce_all(tf.constant([1]), [])
    with pytest.raises(ValueError):
        tf.reduce_any(tf.constant([1.0]), [0])
    with pytest.raises(errors.InvalidArgumentError):
        tf.reduce_any(tf.constant([1.0]), 0)


def test_integer_mean_truncates_toward_zero_like_tf():
    assert tf.reduce_mean(tf.constant([[-2, -4, 3, -2]]), axis=1).numpy().tolist() == [-1]
    assert tf.reduce_mean(tf.constant([7, 0]), axis=0).numpy() == 3


def test_prod_gradient_of_an_empty_tensor_is_empty():
    x = tf.Variable(tf.zeros([0, 2, 2]))
    with tf.GradientTape() as tape:
        y = tf.reduce_prod(x)
    assert tape.gradient(y, x).shape == (0, 2, 2)


def test_second_derivative_of_prod_over_no_axes_is_zero_like_tf():
    x = tf.constant(0.5)
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = tf.reduce_prod(x)
        g = inner.gradient(y, x)
    assert g.numpy() == 1.0
    assert outer.gradient(g, x).numpy() == 0.0
