"""Tests for minitf/ops/debugging.py: assertions pass silently or raise TF's error types."""
import numpy as np
import pytest

import minitf as tf
from minitf.gradient_checker import assert_gradients_close


def test_check_numerics_passes_values_and_gradients():
    x = tf.constant([1.0, 2.0], dtype=tf.float64)
    np.testing.assert_array_equal(tf.debugging.check_numerics(x, "ok").numpy(), [1, 2])
    assert_gradients_close(lambda t: tf.debugging.check_numerics(t * t, "sq"), [x], order=2)


@pytest.mark.parametrize("bad,kind", [(np.nan, "NaN"), (np.inf, "Inf")])
def test_check_numerics_raises_with_message(bad, kind):
    with pytest.raises(tf.errors.InvalidArgumentError, match=f"my tensor.*{kind}"):
        tf.debugging.check_numerics(tf.constant([1.0, bad]), "my tensor")
    with pytest.raises(tf.errors.InvalidArgumentError, match="all finite please"):
        tf.debugging.assert_all_finite(tf.constant([bad]), "all finite please")


@pytest.mark.parametrize("fn,good,bad", [
    (tf.debugging.assert_equal, ([1, 2], [1, 2]), ([1, 2], [1, 3])),
    (tf.debugging.assert_none_equal, ([1, 2], [2, 1]), ([1, 2], [2, 2])),
    (tf.debugging.assert_less, ([1, 2], [2, 3]), ([1, 3], [2, 3])),
    (tf.debugging.assert_less_equal, ([1, 2], [1, 3]), ([1, 4], [1, 3])),
    (tf.debugging.assert_greater, ([3, 4], [2, 3]), ([3, 3], [2, 3])),
    (tf.debugging.assert_greater_equal, ([3, 4], [3, 3]), ([2, 4], [3, 3])),
])
def test_comparisons_pass_and_fail(fn, good, bad):
    assert fn(tf.constant(good[0]), tf.constant(good[1])) is None
    with pytest.raises(tf.errors.InvalidArgumentError, match="custom note") as info:
        fn(tf.constant(bad[0]), tf.constant(bad[1]), message="custom note")
    assert "Condition x" in str(info.value)
    assert isinstance(info.value, ValueError)  # TF's InvalidArgumentError is a ValueError too


def test_comparison_message_summarizes_values():
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        tf.debugging.assert_equal(tf.constant([1, 2, 3, 4, 5]), tf.constant([1, 0, 3, 0, 5]), summarize=2)
    # TF's eager text: numpy's printing of the failing indices and values
    assert str(info.value) == ("Condition x == y did not hold.\nIndices of first 2 different values:\n"
                               "[[1]\n [3]]\nCorresponding x values:\n[2 4]\nCorresponding y values:\n"
                               "[0 0]\nFirst 2 elements of x:\n[1 2]\nFirst 2 elements of y:\n[1 0]")


def test_sign_assertions():
    tf.debugging.assert_positive(tf.constant([1.0, 2.0]))
    tf.debugging.assert_non_negative(tf.constant([0, 2]))
    tf.debugging.assert_negative(tf.constant([-1.0]))
    tf.debugging.assert_non_positive(tf.constant([0.0, -1.0]))
    for fn, bad in [(tf.debugging.assert_positive, [0.0]), (tf.debugging.assert_non_negative, [-1]),
                    (tf.debugging.assert_negative, [0.0]), (tf.debugging.assert_non_positive, [1.0])]:
        with pytest.raises(tf.errors.InvalidArgumentError):
            fn(tf.constant(bad))


def test_assert_near():
    tf.debugging.assert_near(tf.constant([1.0, 2.0]), tf.constant([1.0, 2.0000001]))
    tf.debugging.assert_near(tf.constant([1.0]), tf.constant([1.1]), atol=0.2)
    with pytest.raises(tf.errors.InvalidArgumentError, match="near"):
        tf.debugging.assert_near(tf.constant([1.0]), tf.constant([1.1]), message="near")


def test_rank_and_shape_assertions():
    x = tf.zeros([2, 3])
    tf.debugging.assert_rank(x, 2)
    tf.debugging.assert_rank_at_least(x, 1)
    tf.debugging.assert_rank_in(x, [1, 2])
    with pytest.raises(ValueError, match=r"rank 3\.  Received rank 2, shape \(2, 3\)"):
        tf.debugging.assert_rank(x, 3)
    with pytest.raises(ValueError):
        tf.debugging.assert_rank_at_least(x, 3)
    with pytest.raises(ValueError, match="Expected scalar"):
        tf.debugging.assert_scalar(x)
    y = tf.zeros([3, 4])
    tf.debugging.assert_shapes([(x, ("N", "D")), (tf.zeros([2]), ("N",))])
    tf.debugging.assert_shapes([(x, (2, ".")), (y, (..., 4))])
    with pytest.raises(ValueError):
        tf.debugging.assert_shapes([(x, ("N", "D")), (y, ("N", "D"))])
    with pytest.raises(ValueError):
        tf.debugging.assert_shapes([(x, ("N",))])


def test_type_assertions():
    tf.debugging.assert_type(tf.constant(1.0), tf.float32)
    with pytest.raises(TypeError):
        tf.debugging.assert_type(tf.constant(1), tf.float32)
    tf.debugging.assert_integer(tf.constant(1))
    with pytest.raises(TypeError):
        tf.debugging.assert_integer(tf.constant(1.0))


def test_Assert():
    assert tf.debugging.Assert(tf.constant(True), ["never shown"]) is None
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"Expected 'tf.Tensor\(False, shape=\(\), dtype=bool\)' to be true. "
                             r"Summarized data: b'value is'\n1, 2, 3, \.\.\."):
        tf.debugging.Assert(tf.constant(False), ["value is", tf.constant([1, 2, 3, 4])])
    assert tf.Assert is tf.debugging.Assert


def test_numeric_predicates():
    for name in ("is_nan", "is_inf", "is_finite"):  # tf.math only in TF 2
        assert not hasattr(tf.debugging, name) and hasattr(tf.math, name)
    assert bool(tf.math.is_non_decreasing(tf.constant([1, 1, 2])))
    assert not bool(tf.math.is_strictly_increasing(tf.constant([1, 1, 2])))
    assert tf.debugging.is_numeric_tensor(tf.constant(1))


# -- behaviour pinned against TF 2.21 -------------------------------------------------------

@pytest.mark.parametrize("fn", [tf.debugging.assert_positive, tf.debugging.assert_negative,
                                tf.debugging.assert_non_negative, tf.debugging.assert_non_positive])
def test_sign_assertions_reject_non_numeric_and_complex(fn):
    # TF converts 0 to the tensor's dtype first (TypeError for bool/string); Less has no complex kernel
    for x in (tf.constant([True]), tf.constant(False), tf.constant(["a"])):
        with pytest.raises(TypeError, match="Cannot convert 0"):
            fn(x)
    with pytest.raises(tf.errors.InvalidArgumentError, match="complex"):
        fn(tf.constant([1 + 1j]))


def test_sign_assertion_message_as_tf():
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        tf.debugging.assert_negative(tf.constant([1, 2]), message="hey")
    assert str(info.value) == ("hey.  \nCondition x < 0 did not hold element-wise:\n"
                               "x (shape=(2,) dtype=int32) = \n['1', '2']")


def test_comparisons_convert_operands_separately():
    # x and y are converted on their own, so a Python int beside a float tensor is a dtype mismatch
    with pytest.raises(tf.errors.InvalidArgumentError, match="cannot compute Less"):
        tf.debugging.assert_less(tf.constant([1.0]), 2)
    with pytest.raises(tf.errors.InvalidArgumentError, match="cannot compute Equal"):
        tf.debugging.assert_equal([1.0], [1])
    with pytest.raises(tf.errors.InvalidArgumentError, match="Incompatible shapes"):
        tf.debugging.assert_equal(tf.constant([1.0, 2.0]), tf.constant([1.0, 2.0, 3.0]))
    with pytest.raises(tf.errors.InvalidArgumentError, match="bool"):
        tf.debugging.assert_less(tf.constant([True]), tf.constant([True]))
    assert tf.debugging.assert_equal(tf.constant(["a"]), "a") is None
    assert tf.debugging.assert_equal(tf.constant([True]), tf.constant([True])) is None


@pytest.mark.parametrize("x", [tf.constant([1]), tf.constant([1], tf.uint8), tf.constant([True]),
                               tf.constant(["a"]), tf.constant([1 + 0j]), tf.constant(1)])
def test_check_numerics_needs_a_float_kernel(x):
    with pytest.raises(tf.errors.InvalidArgumentError, match="not in the list of allowed values"):
        tf.debugging.check_numerics(x, "m")
    with pytest.raises(tf.errors.InvalidArgumentError, match="not in the list of allowed values"):
        tf.debugging.assert_all_finite(x, "m")


def test_check_numerics_names_inf_before_nan():
    with pytest.raises(tf.errors.InvalidArgumentError, match="m : Tensor had Inf and NaN values"):
        tf.debugging.check_numerics(tf.constant([np.nan, np.inf]), "m")


def test_assert_all_finite_returns_its_input():
    y = tf.debugging.assert_all_finite([1.0, 2.0], "m")
    assert y.dtype == tf.float32 and y.numpy().tolist() == [1.0, 2.0]
    assert_gradients_close(lambda t: tf.debugging.assert_all_finite(t * t, "sq"),
                           [tf.constant([1.0, 2.0], tf.float64)])


def test_assert_near_dtypes_as_tf():
    for x in (tf.constant([1]), tf.constant([True]), tf.constant([1], tf.uint8), tf.constant(["a"])):
        with pytest.raises(ValueError, match="not inexact"):
            tf.debugging.assert_near(x, x)
    # y (and the tolerances) are converted to x's dtype
    with pytest.raises(ValueError, match="Tensor conversion requested dtype int32"):
        tf.debugging.assert_near(tf.constant([1]), tf.constant([1.0]))
    with pytest.raises(ValueError, match="Tensor conversion requested dtype float32"):
        tf.debugging.assert_near(tf.constant([1.0]), tf.constant([1]))
    with pytest.raises(ValueError, match="Tensor conversion requested dtype float32"):
        tf.debugging.assert_near(tf.constant([1.0]), tf.constant([1.0]), atol=tf.constant(1.0, tf.float64))
    assert tf.debugging.assert_near(tf.constant([1.0]), 1) is None
    assert tf.debugging.assert_near(tf.constant([1 + 1j]), tf.constant([1 + 1j])) is None
    assert tf.debugging.assert_near(tf.constant([], tf.float32), tf.constant([], tf.float32)) is None
    with pytest.raises(tf.errors.InvalidArgumentError, match="Incompatible shapes"):
        tf.debugging.assert_near(tf.constant([1.0, 2.0]), tf.constant([1.0, 2.0, 3.0]))


def test_assert_near_is_strict_and_fails_on_nan():
    # |x - y| < atol + rtol * |y|: equal values fail with zero tolerances, as in TF
    with pytest.raises(tf.errors.InvalidArgumentError, match="to be true"):
        tf.debugging.assert_near(tf.constant([1.0]), tf.constant([1.0]), rtol=0.0, atol=0.0)
    with pytest.raises(tf.errors.InvalidArgumentError, match="not equal to tolerance"):
        tf.debugging.assert_near(tf.constant([1.0]), tf.constant([1.5]), rtol=0.0, atol=0.5)
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.debugging.assert_near(tf.constant([np.nan]), tf.constant([np.nan]))


def test_Assert_uses_python_truth_value():
    for cond in (1, 1.0, tf.constant(1), np.array([True]), [True], tf.constant([True]), [False]):
        assert tf.debugging.Assert(cond, ["x"]) is None
    with pytest.raises(ValueError, match="ambiguous"):
        tf.debugging.Assert(tf.constant([True, False]), ["x"])
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"Expected 'tf.Tensor\(0, shape=\(\), dtype=int32\)' to be true"):
        tf.debugging.Assert(tf.constant(0), ["x"])
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        tf.debugging.Assert(False, ["x", tf.constant([1, 2, 3, 4]), tf.constant(2.5), "y"], summarize=2)
    assert str(info.value) == "Expected 'False' to be true. Summarized data: b'x'\n1, 2, ...\n2.5\nb'y'"


def test_rank_assertions_check_the_rank_argument():
    x = tf.constant([1.0])
    with pytest.raises(TypeError, match="tf.int32; got tf.float32"):
        tf.debugging.assert_rank(x, 1.0)
    with pytest.raises(TypeError, match="tf.int32; got tf.int64"):
        tf.debugging.assert_rank_at_least(x, tf.constant(1, tf.int64))
    with pytest.raises(ValueError, match="Rank must be a scalar"):
        tf.debugging.assert_rank(x, [1])
    with pytest.raises(ValueError, match=r"must have rank in \(2, 3\)\.  Received rank 1, shape \(1,\)"):
        tf.debugging.assert_rank_in(x, (2, 3))
    assert tf.debugging.assert_rank(x, tf.constant(1)) is None


def test_assert_scalar_returns_none():
    assert tf.debugging.assert_scalar(tf.constant(1.0)) is None
    with pytest.raises(ValueError, match=r"saw shape: \(1,\)\."):
        tf.debugging.assert_scalar([1.0])


def test_assert_shapes_follows_tf_rules():
    a = tf.debugging.assert_shapes
    # a scalar counts as one dimension of size 1, so specs of length 0 or 1 accept rank 0 or 1
    assert a([(tf.zeros((1,)), ())]) is None
    with pytest.raises(ValueError, match=r"must have rank in \(0, 1\)"):
        a([(tf.zeros((2, 3)), (3,))])
    with pytest.raises(ValueError, match="dimension 0 must have size 2.  Received size 1"):
        a([(tf.zeros(()), (2,))])
    # Ellipsis or '*' only first; the string '...' is an ordinary symbol
    assert a([(tf.zeros((4, 2, 3)), (..., 2, 3)), (tf.zeros((5, 2, 3)), ("*", "N", 3)),
              (tf.zeros((2,)), ("N",))]) is None
    with pytest.raises(ValueError, match="only allowed as the first entry"):
        a([(tf.zeros((4, 2, 3)), (2, ..., 3))])
    with pytest.raises(ValueError, match="must have rank 3"):
        a([(tf.zeros((4, 2, 3, 1)), ("...", 2, 3))])
    with pytest.raises(ValueError, match="rank at least 3"):
        a([(tf.zeros((3, 4)), ("*", "N", "M", 3))])
    with pytest.raises(ValueError, match=r"Specified by tensor shape=\(2, 3\) dtype=float32 dimension 0"):
        a([(tf.zeros((2, 3)), ("N", "Q")), (tf.zeros((3,)), ("N",))])
    # entries int() accepts are explicit sizes; None specs are skipped; TensorShape specs work
    assert a([(tf.zeros((2,)), ("2",)), (tf.zeros((3, 2)), tf.TensorShape([None, 2])), (tf.zeros(5), None)]) is None
    with pytest.raises(ValueError, match="Specified shape must be an iterable"):
        a([(tf.constant(1.0), 1)])


def test_type_assertion_messages_as_tf():
    with pytest.raises(TypeError, match='Expected "x" to be integer type.  Found: tensor of dtype '
                                        "<dtype: 'bool'>"):
        tf.debugging.assert_integer(tf.constant([True]))
    tf.debugging.assert_integer(tf.constant([1], tf.uint8))
    with pytest.raises(TypeError, match="tensor must be of type tf.int32; got tf.float32"):
        tf.debugging.assert_type([1.0], tf.int32)
    with pytest.raises(TypeError, match=r"to be iterable.  Found: <class 'int'>"):
        tf.debugging.assert_proper_iterable(5)
    with pytest.raises(TypeError, match='"proper" iterable'):
        tf.debugging.assert_proper_iterable(np.zeros(2))
    tf.debugging.assert_proper_iterable({1})


def test_is_numeric_tensor_only_for_tensors():
    assert not tf.debugging.is_numeric_tensor(tf.Variable(1.0))
    assert not tf.debugging.is_numeric_tensor([1.0])
    assert not tf.debugging.is_numeric_tensor(tf.constant([True]))
    assert tf.debugging.is_numeric_tensor(tf.constant([1 + 0j]))


def test_monotonic_predicates_live_in_tf_math_only():
    assert not hasattr(tf.debugging, "is_non_decreasing")
    assert not hasattr(tf.debugging, "is_strictly_increasing")
    assert not hasattr(tf, "is_non_decreasing")
    with pytest.raises(TypeError, match="Expected x to be numeric"):
        tf.math.is_non_decreasing(tf.constant([True, False]))
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.math.is_strictly_increasing(tf.constant([1 + 0j, 2 + 0j]))
    for x, nd, si in [([], True, True), (1.0, True, True), ([1, 2, 2], True, False), ([[1, 2], [3, 4]], True, True)]:
        assert bool(tf.math.is_non_decreasing(x)) is nd
        assert bool(tf.math.is_strictly_increasing(x)) is si
