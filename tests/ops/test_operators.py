"""Python operators on tensors and variables, checked against what TF 2.21 does."""
import numpy as np
import pytest

import minitf as tf


def _check(t, dtype, value):
    assert t.dtype == dtype
    np.testing.assert_allclose(t.numpy(), value)


def test_python_scalar_left_of_variable_takes_variable_dtype():
    v = tf.Variable(2.0)
    _check(2 * v, tf.float32, 4.0)
    _check(1 / v, tf.float32, 0.5)
    _check(1 - v, tf.float32, -1.0)
    _check(2 ** v, tf.float32, 4.0)
    _check(2 // v, tf.float32, 1.0)
    _check([1, 2] * v, tf.float32, [2.0, 4.0])
    v64 = tf.Variable(2.0, dtype=tf.float64)
    _check(1.0 - v64, tf.float64, -1.0)
    _check(1 - v64, tf.float64, -1.0)
    _check(v64 - 1, tf.float64, 1.0)
    _check(True ** tf.Variable(3), tf.int32, 1)


def test_gen_ops_give_a_python_scalar_the_variable_dtype():
    v64 = tf.Variable(2.0, dtype=tf.float64)
    _check(tf.multiply(2, v64), tf.float64, 4.0)
    _check(tf.subtract(1, v64), tf.float64, -1.0)
    _check(tf.maximum(2.5, v64), tf.float64, 2.5)
    _check(tf.divide(1, v64), tf.float64, 0.5)


def test_add_and_truediv_convert_their_first_argument_alone():
    v = tf.Variable(2.0)
    _check(tf.add(v, 2), tf.float32, 4.0)
    _check(tf.add(1.5, 2), tf.float32, 3.5)
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.add(2, v)  # 2 becomes int32 before it sees the variable
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.add(1, 2.5)
    with pytest.raises(TypeError):
        tf.math.truediv(2, v)
    with pytest.raises(TypeError):
        tf.constant(1.0) / tf.constant(1.0, tf.float64)
    with pytest.raises(TypeError):
        tf.constant(True) / tf.constant(True)


def test_mixed_tensor_and_variable_dtypes_raise_invalid_argument():
    with pytest.raises(tf.errors.InvalidArgumentError, match="AddV2"):
        tf.constant(1) + tf.Variable(2.0)
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.Variable(2.0) + tf.Variable(2.0, dtype=tf.float64)
    with pytest.raises(ValueError):
        tf.subtract([1, 2], tf.Variable(2.0))


def test_python_float_with_integer_tensor_is_a_type_error_except_for_add():
    vi = tf.Variable(3)
    with pytest.raises(TypeError):
        2.5 * vi
    with pytest.raises(TypeError):
        vi * 2.5
    with pytest.raises(TypeError):
        tf.multiply(2, 2.5)
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.constant(2, tf.int8) + 1.5


def test_string_operand_of_a_numeric_add_raises_invalid_argument():
    t = tf.constant(1)
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.add(t, "3")
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.add("3", t)
    with pytest.raises(tf.errors.InvalidArgumentError):
        t + "3"
    assert tf.add(tf.constant("a"), "b").numpy() == b"ab"


def test_python_ints_wrap_into_narrow_integer_tensors():
    assert (tf.constant(2, tf.uint8) * 300).numpy() == 88
    assert (300 * tf.constant(2, tf.uint8)).numpy() == 88
    assert tf.multiply(tf.constant(3, tf.int8), 300).numpy() == -124
    assert (2 ** 40 + tf.constant(2)).numpy() == 2


def test_kernels_without_bool_or_unsigned_support_raise_invalid_argument():
    tb = tf.constant(True)
    for fn in (lambda: tb + tb, lambda: tb - tb, lambda: tf.multiply(tb, tb), lambda: tb ** tb,
               lambda: tf.math.floordiv(tb, tb), lambda: tf.math.less(tb, tb),
               lambda: tf.constant(200, tf.uint8) ** 2):
        with pytest.raises(tf.errors.InvalidArgumentError, match="not in the list of allowed values"):
            fn()
    with pytest.raises(TypeError):
        tf.constant(3, tf.int8) * True  # a Python bool does not convert to int8
    with pytest.raises(TypeError):
        tb ** 2  # nor a Python int to bool


def test_star_on_bool_tensors_multiplies_as_int32():
    tb = tf.constant(True)
    _check(tb * 2, tf.bool, True)
    _check(tf.constant(3.0) * tb, tf.bool, True)
    _check(tf.Variable(2.0) * tb, tf.bool, True)
    _check(tb * tb, tf.bool, True)


def test_failed_operator_lets_the_python_operand_try():
    # TF hands a failed `tensor * list` to list.__rmul__, which repeats the list
    assert tf.constant(3) * [1.5, 2.0] == [1.5, 2.0] * 3


def test_eq_raises_on_dtype_or_conversion_errors_and_is_false_on_shape_mismatch():
    t = tf.constant([1, 0])
    assert (t == None) is False  # noqa: E711
    assert (t != None) is True  # noqa: E711
    assert not (t == [1, 2, 3]).numpy()
    assert (t != [1, 2, 3]).numpy()
    assert (t == tf.constant([1, 2, 3])).shape == ()
    with pytest.raises(tf.errors.InvalidArgumentError):
        t == tf.constant([1.0, 0.0])
    for other in ("a", 1.5, [1.5, 2]):
        with pytest.raises(TypeError):
            t == other
    assert (t == 1).numpy().tolist() == [True, False]


def test_numpy_operands_take_the_tensor_dtype():
    t8 = tf.constant([1, 0], tf.int8)
    r = t8 + np.array([1.5, 2.5])
    assert r.dtype == tf.int8 and r.numpy().tolist() == [2, 2]
    assert (tf.constant([1, 0], tf.uint8) + np.int64(3)).numpy().tolist() == [4, 3]
    assert tf.add(tf.Variable([1, 0], dtype=tf.int16), np.float64(2.0)).dtype == tf.int16
