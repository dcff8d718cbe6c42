"""Elementwise math ops: values against numpy, gradients against finite differences (float64)."""
import math

import numpy as np
import pytest

import minitf as tf
from minitf.gradient_checker import assert_gradients_close

rng = np.random.default_rng(0)

SHAPES_UNARY = [(), (3,), (2, 3)]
BINARY_SHAPES = [((), ()), ((3,), (3,)), ((2, 3), (3,)), ((2, 1), (1, 3)), ((2, 3), ())]


def _pos(shape):
    return tf.constant(rng.uniform(0.5, 2.0, size=shape))


def _any(shape):
    return tf.constant(rng.uniform(-1.5, 1.5, size=shape))


def _away_from_zero(shape):
    v = rng.uniform(0.3, 1.5, size=shape) * rng.choice([-1, 1], size=shape)
    return tf.constant(v)


UNARY = [
    # (op, numpy reference, input maker, twice differentiable)
    (tf.negative, np.negative, _any, True),
    (tf.abs, np.abs, _away_from_zero, True),
    (tf.square, np.square, _any, True),
    (tf.sqrt, np.sqrt, _pos, True),
    (tf.math.rsqrt, lambda v: 1 / np.sqrt(v), _pos, True),
    (tf.exp, np.exp, _any, True),
    (tf.math.log, np.log, _pos, True),
    (tf.math.log1p, np.log1p, _pos, True),
    (tf.math.expm1, np.expm1, _any, True),
    (tf.sin, np.sin, _any, True),
    (tf.cos, np.cos, _any, True),
    (tf.tan, np.tan, lambda s: tf.constant(rng.uniform(-1, 1, size=s)), True),
    (tf.math.asin, np.arcsin, lambda s: tf.constant(rng.uniform(-0.8, 0.8, size=s)), True),
    (tf.math.acos, np.arccos, lambda s: tf.constant(rng.uniform(-0.8, 0.8, size=s)), True),
    (tf.math.atan, np.arctan, _any, True),
    (tf.tanh, np.tanh, _any, True),
    (tf.sinh, np.sinh, _any, True),
    (tf.cosh, np.cosh, _any, True),
    (tf.sigmoid, lambda v: 1 / (1 + np.exp(-v)), _any, True),
    (tf.math.softplus, lambda v: np.log1p(np.exp(v)), _any, True),
    (tf.math.log_sigmoid, lambda v: -np.log1p(np.exp(-v)), _any, True),
    (tf.math.erf, np.vectorize(math.erf), _any, True),
    (tf.math.reciprocal, lambda v: 1 / v, _pos, True),
]


@pytest.mark.parametrize("op,ref,make,second", UNARY, ids=[u[0].__name__ for u in UNARY])
@pytest.mark.parametrize("shape", SHAPES_UNARY)
def test_unary_values_and_gradients(op, ref, make, second, shape):
    x = make(shape)
    y = op(x)
    assert y.dtype == tf.float64 and y.shape == shape
    np.testing.assert_allclose(y.numpy(), ref(x.numpy()), rtol=1e-6, atol=1e-7)
    assert_gradients_close(op, [x], order=2 if second else 1, rtol=1e-4, atol=1e-6)


BINARY = [
    (tf.add, np.add, _any, _any),
    (tf.subtract, np.subtract, _any, _any),
    (tf.multiply, np.multiply, _any, _any),
    (tf.divide, np.divide, _any, _away_from_zero),
    (tf.pow, np.power, _pos, _any),
    (tf.maximum, np.maximum, _any, _any),
    (tf.minimum, np.minimum, _any, _any),
    (tf.math.squared_difference, lambda a, b: (a - b) ** 2, _any, _any),
    (tf.math.floormod, np.mod, _any, _away_from_zero),
    (tf.math.atan2, np.arctan2, _any, _away_from_zero),
    (tf.math.divide_no_nan, np.divide, _any, _away_from_zero),
]


@pytest.mark.parametrize("op,ref,make_a,make_b", BINARY, ids=[b[0].__name__ for b in BINARY])
@pytest.mark.parametrize("shapes", BINARY_SHAPES)
def test_binary_values_and_gradients(op, ref, make_a, make_b, shapes):
    a, b = make_a(shapes[0]), make_b(shapes[1])
    np.testing.assert_allclose(op(a, b).numpy(), ref(a.numpy(), b.numpy()), rtol=1e-6)
    order = 1 if op in (tf.maximum, tf.minimum, tf.math.floormod) else 2
    assert_gradients_close(op, [a, b], order=order, rtol=1e-4, atol=1e-6)


def test_maximum_tie_sends_gradient_to_first():
    x = tf.constant(1.0)
    y = tf.constant(1.0)
    with tf.GradientTape() as g:
        g.watch([x, y])
        z = tf.maximum(x, y)
    gx, gy = g.gradient(z, [x, y])
    assert float(gx) == 1.0 and float(gy) == 0.0


def test_pow_gradient_wrt_exponent_at_zero_base_is_zero():
    x = tf.constant([0.0, 2.0])
    y = tf.constant([2.0, 3.0])
    with tf.GradientTape() as g:
        g.watch(y)
        z = tf.pow(x, y)
    np.testing.assert_allclose(g.gradient(z, y).numpy(), [0.0, 8.0 * math.log(2.0)], rtol=1e-6)


def test_divide_no_nan_zero_denominator():
    z = tf.math.divide_no_nan(tf.constant([1.0, 2.0]), tf.constant([0.0, 4.0]))
    assert z.numpy().tolist() == [0.0, 0.5]


def test_integer_ops_and_errors():
    assert tf.math.floordiv(tf.constant(7), tf.constant(2)).numpy() == 3
    assert tf.math.floormod(tf.constant(-7), tf.constant(3)).numpy() == 2
    with pytest.raises(tf.errors.InvalidArgumentError, match="division by zero"):
        tf.math.floordiv(tf.constant(1), tf.constant(0))
    with pytest.raises(tf.errors.InvalidArgumentError, match="Exp"):
        tf.exp(tf.constant(1))  # TF's attr check rejects int32 for float-only ops


def test_sigmoid_and_softplus_are_stable():
    big = tf.constant([-1000.0, 1000.0])
    assert tf.sigmoid(big).numpy().tolist() == [0.0, 1.0]
    np.testing.assert_allclose(tf.math.softplus(big).numpy(), [0.0, 1000.0])


def test_clip_by_value_gradient_inside_only():
    x = tf.constant([-2.0, 0.5, 3.0])
    with tf.GradientTape() as g:
        g.watch(x)
        y = tf.clip_by_value(x, -1.0, 1.0)
    assert y.numpy().tolist() == [-1.0, 0.5, 1.0]
    assert g.gradient(y, x).numpy().tolist() == [0.0, 1.0, 0.0]


def test_add_n():
    ts = [tf.constant([1.0, 2.0]), tf.constant([3.0, 4.0]), tf.constant([5.0, 6.0])]
    assert tf.add_n(ts).numpy().tolist() == [9.0, 12.0]
    assert tf.math.add_n(ts[:1]).numpy().tolist() == [1.0, 2.0]
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.add_n([tf.constant([1.0]), tf.constant([1.0, 2.0])])
    assert_gradients_close(lambda a, b: tf.add_n([a, b, a]), [_any((2,)), _any((2,))])


def test_comparisons_and_logic():
    a, b = tf.constant([1, 2, 3]), tf.constant([3, 2, 1])
    assert tf.equal(a, b).numpy().tolist() == [False, True, False]
    assert tf.less(a, b).numpy().tolist() == [True, False, False]
    assert tf.greater_equal(a, b).numpy().tolist() == [False, True, True]
    t, f = tf.constant([True, True]), tf.constant([True, False])
    assert tf.logical_and(t, f).numpy().tolist() == [True, False]
    assert tf.math.logical_xor(t, f).numpy().tolist() == [False, True]
    assert tf.logical_not(f).numpy().tolist() == [False, True]
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.logical_and(a, b)


def test_nan_and_inf_checks():
    x = tf.constant([1.0, np.nan, np.inf])
    assert tf.math.is_nan(x).numpy().tolist() == [False, True, False]
    assert tf.math.is_finite(x).numpy().tolist() == [True, False, False]
    assert tf.math.is_inf(x).numpy().tolist() == [False, False, True]


def test_rounding_has_no_gradient():
    x = tf.constant([1.4, 2.6])
    with tf.GradientTape() as g:
        g.watch(x)
        y = tf.math.floor(x) + tf.math.ceil(x) + tf.math.round(x)
    assert y.numpy().tolist() == [4.0, 8.0]
    assert g.gradient(y, x) is None


def test_float32_results_stay_float32():
    x = tf.constant([1.0, 2.0])
    for op in (tf.exp, tf.tanh, tf.sigmoid, tf.sqrt, tf.math.erf, tf.math.softplus):
        assert op(x).dtype == tf.float32, op.__name__


def test_unary_kernels_reject_unsigned_and_bool_like_tf():
    u = tf.constant([1, 2], tf.uint8)
    b = tf.constant([True])
    for fn, x in ((tf.negative, u), (lambda t: -t, tf.constant([1], tf.uint32)), (tf.abs, u), (tf.abs, b),
                  (tf.sign, u), (tf.square, b), (lambda t: -t, b)):
        with pytest.raises(tf.errors.InvalidArgumentError, match="allowed values"):
            fn(x)
    with pytest.raises(tf.errors.InvalidArgumentError):
        ~tf.constant([1.5])
    assert tf.square(u).numpy().tolist() == [1, 4]
    assert (-tf.constant([1, 2], tf.int16)).numpy().tolist() == [-1, -2]
    assert (~b).numpy().tolist() == [False]
    np.testing.assert_allclose(tf.abs(tf.constant([3 + 4j])).numpy(), [5.0])


def test_more_kernel_dtype_checks_follow_tf():
    i8, u8, b = tf.constant([3, 1], tf.int8), tf.constant([3, 1], tf.uint8), tf.constant([True, False])
    c = tf.constant([1 + 1j])
    for fn in (lambda: tf.sqrt(u8), lambda: tf.sigmoid(i8), lambda: tf.math.squared_difference(u8, u8),
               lambda: tf.math.xlogy(i8, i8), lambda: tf.math.atan2(i8, i8), lambda: tf.floor(i8),
               lambda: tf.math.is_nan(i8), lambda: tf.round(b), lambda: tf.clip_by_value(b, b, b),
               lambda: tf.bitwise.bitwise_and(b, b), lambda: tf.bitwise.bitwise_or(tf.constant([1.0]), 1.0),
               lambda: tf.nn.relu(b), lambda: tf.nn.relu(c), lambda: tf.nn.softmax(tf.constant([1j])),
               lambda: tf.argmax(c), lambda: tf.math.cumsum(b)):
        with pytest.raises(tf.errors.InvalidArgumentError):
            fn()
    with pytest.raises(tf.errors.NotFoundError):
        tf.math.reciprocal(tf.constant([2]))  # declared for int32 but no kernel
    with pytest.raises(tf.errors.NotFoundError):
        tf.math.floordiv(c, c)
    with pytest.raises(tf.errors.NotFoundError):
        tf.round(c)
    assert tf.round(u8) is u8  # integers round to themselves
    r = tf.math.divide_no_nan(tf.constant([4, 1]), tf.constant([2, 0]))
    assert r.dtype == tf.float64 and r.numpy().tolist() == [2.0, 0.0]
    assert tf.math.divide_no_nan(i8, i8).dtype == tf.float32
    with pytest.raises(TypeError):
        tf.math.divide_no_nan(b, b)


def test_logical_ops_convert_python_values_to_bool_like_tf():
    b, i = tf.constant([True, False]), tf.constant([1, 2])
    for fn in (tf.logical_and, tf.logical_or, tf.math.logical_xor):
        with pytest.raises(TypeError):
            fn(1, b)
        with pytest.raises(TypeError):
            fn(b, 1)
        with pytest.raises(tf.errors.InvalidArgumentError, match="input #0"):
            fn(i, b)
        with pytest.raises(tf.errors.InvalidArgumentError):
            fn(b, tf.constant([True, False, True]))
    assert tf.logical_and(True, b).numpy().tolist() == [True, False]
    with pytest.raises(TypeError):
        tf.math.logical_not(1)


def test_rint_and_divide_no_nan_dtypes_follow_tf():
    assert tf.math.rint(tf.constant([2.5, -0.5])).numpy().tolist() == [2.0, -0.0]
    with pytest.raises(tf.errors.NotFoundError):
        tf.math.rint(tf.constant([1.5], tf.float16))
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.math.rint(tf.constant([1, 2]))
    with pytest.raises(TypeError):
        tf.math.divide_no_nan(tf.constant([1, 2]), tf.constant([1.0, 2.0]))


def test_logical_ops_convert_every_input_before_checking_dtypes():
    with pytest.raises(TypeError):
        tf.logical_and(tf.constant([1, 2]), 1)  # 1 -> bool fails before int32 is rejected


def test_erf_is_accurate_to_float64_rounding():
    x = np.concatenate([np.linspace(-8.0, 8.0, 4001), [0.0, 1e-300, 0.5, 4.0, 30.5, np.inf, -np.inf]])
    got = tf.math.erf(tf.constant(x)).numpy()
    ref = np.array([math.erf(v) for v in x])
    np.testing.assert_allclose(got, ref, rtol=1e-15, atol=1e-300)
    assert np.isnan(tf.math.erf(tf.constant([np.nan])).numpy()[0])
    assert tf.math.erf(tf.constant([0.5], tf.float32)).dtype == tf.float32


def test_bitwise_shape_mismatch_and_divide_no_nan_python_x():
    with pytest.raises(tf.errors.InvalidArgumentError, match="Incompatible shapes"):
        tf.bitwise.bitwise_or(tf.ones([2, 3], tf.int32), tf.ones([0], tf.int32))
    r = tf.math.divide_no_nan(1, tf.constant([2.0, 0.0], tf.float64))  # 1 takes y's dtype
    assert r.dtype == tf.float64 and r.numpy().tolist() == [0.5, 0.0]


def test_atan2_shape_mismatch_is_invalid_argument():
    with pytest.raises(tf.errors.InvalidArgumentError, match="Incompatible shapes"):
        tf.math.atan2(tf.ones([4, 2, 3]), tf.ones([3, 4]))


def test_logical_ops_convert_every_input_when_one_is_a_python_value():
    """As TF: beside a Python value, a non-bool tensor fails bool conversion (ValueError); two
    tensors reach the kernel's dtype check (InvalidArgumentError)."""
    ints, bools = tf.constant([1, 0]), tf.constant([True, False])
    for fn in (tf.math.logical_and, tf.math.logical_or, tf.math.logical_xor):
        with pytest.raises(ValueError, match="conversion requested dtype bool"):
            fn(ints, [True, False])
        with pytest.raises(TypeError):
            fn(bools, [1, 0])
        with pytest.raises(tf.errors.InvalidArgumentError):
            fn(ints, bools)
        assert fn(bools, [True, True]).dtype == tf.bool
