"""Eager control flow: cond, case, switch_case, while_loop, map_fn, scan, foldl, foldr,
vectorized_map — results and errors as TF 2.21 gives them eagerly, and gradients through them."""
import numpy as np
import pytest

import minitf as tf
from minitf.errors import errors
from minitf.gradient_checker import assert_gradients_close


def test_cond_runs_one_branch_and_returns_its_result():
    calls = []
    assert tf.cond(tf.constant(True), lambda: calls.append("t") or 1, lambda: calls.append("f") or 2) == 1
    assert calls == ["t"]
    assert tf.cond(False, lambda: 1, lambda: 2) == 2
    assert tf.cond(tf.constant(1), lambda: 1, lambda: 2) == 1
    with pytest.raises(TypeError, match="'true_fn' argument required"):
        tf.cond(True, None, lambda: 1)
    with pytest.raises(ValueError, match="more than one element"):
        tf.cond(tf.constant([True, False]), lambda: 1, lambda: 2)


def test_gradients_flow_through_the_branch_taken():
    x = tf.Variable(3.0)
    with tf.GradientTape() as tape:
        y = tf.cond(x > 2.0, lambda: x * x, lambda: x * 10.0)
    assert float(tape.gradient(y, x)) == 6.0


def test_case_and_switch_case():
    assert tf.case([(tf.constant(False), lambda: 1), (tf.constant(True), lambda: 2)]) == 2
    assert tf.case([(tf.constant(False), lambda: 1)], default=lambda: 5) == 5
    with pytest.raises(errors.InvalidArgumentError, match="None of conditions evaluated as True"):
        tf.case([(tf.constant(False), lambda: 1)])
    with pytest.raises(errors.InvalidArgumentError, match="exclusive"):
        tf.case([(tf.constant(True), lambda: 1), (tf.constant(True), lambda: 2)], exclusive=True)
    fns = [lambda: 10, lambda: 20]
    assert tf.switch_case(tf.constant(1), fns) == 20
    assert tf.switch_case(tf.constant(7), fns) == 20  # out of range: the last branch
    assert tf.switch_case(tf.constant(-1), fns, default=lambda: 99) == 99
    assert tf.switch_case(tf.constant(0), {0: lambda: 1, 1: lambda: 2}, default=lambda: 9) == 1
    with pytest.raises(TypeError, match="'branch_index' must be a Tensor"):
        tf.switch_case(1, fns)


def test_while_loop():
    out = tf.while_loop(lambda i: i < 3, lambda i: (i + 1,), [0])
    assert isinstance(out, tuple) and int(out[0]) == 3
    i, j = tf.while_loop(lambda i, j: i < 3, lambda i, j: (i + 1, j * 2), (0, 1.0), maximum_iterations=2)
    assert (int(i), float(j)) == (2, 4.0) and j.dtype == tf.float32
    with pytest.raises(ValueError, match="structures don.t have the same"):
        tf.while_loop(lambda i: i < 3, lambda i: (i + 1, 1), [0])
    with pytest.raises(ValueError, match="'loop_vars' must be provided"):
        tf.while_loop(lambda: True, lambda: (), [])
    x = tf.Variable(1.5)
    with tf.GradientTape() as tape:
        _, y = tf.while_loop(lambda k, v: k < 3, lambda k, v: (k + 1, v * x), (0, tf.constant(1.0)))
    assert abs(float(tape.gradient(y, x)) - 3 * 1.5 ** 2) < 1e-6  # d x^3 / dx


def test_map_fn():
    np.testing.assert_array_equal(tf.map_fn(lambda x: x * 2, tf.constant([1, 2, 3])).numpy(), [2, 4, 6])
    with pytest.raises(errors.InvalidArgumentError, match="TensorArray dtype is int32"):
        tf.map_fn(lambda x: tf.cast(x, tf.float32), tf.constant([1, 2, 3]))
    out = tf.map_fn(lambda x: tf.cast(x, tf.float32), tf.constant([1, 2, 3]), fn_output_signature=tf.float32)
    assert out.dtype == tf.float32
    a, b = tf.map_fn(lambda p: (p[0] + p[1], p[0] * p[1]), (tf.constant([1, 2]), tf.constant([3, 4])))
    np.testing.assert_array_equal(a.numpy(), [4, 6])
    np.testing.assert_array_equal(b.numpy(), [3, 8])
    with pytest.raises(ValueError, match="structures don.t have the same"):
        tf.map_fn(lambda p: p[0] + p[1], (tf.constant([1, 2]), tf.constant([3, 4])))
    with pytest.raises(ValueError, match="1\\+ dimensional"):
        tf.map_fn(lambda x: x, tf.constant(3))
    np.testing.assert_array_equal(tf.vectorized_map(lambda x: x * 2, tf.constant([[1, 2], [3, 4]])).numpy(),
                                  [[2, 4], [6, 8]])
    w = tf.Variable([1.0, 2.0])
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(tf.map_fn(lambda r: r * w, tf.constant([[1.0, 1.0], [2.0, 3.0]])))
    np.testing.assert_array_equal(tape.gradient(y, w).numpy(), [3.0, 4.0])


def test_scan_and_folds():
    np.testing.assert_array_equal(tf.scan(lambda a, x: a + x, tf.constant([1, 2, 3])).numpy(), [1, 3, 6])
    np.testing.assert_array_equal(
        tf.scan(lambda a, x: a + x, tf.constant([1, 2, 3]), initializer=10, reverse=True).numpy(), [16, 15, 13])
    assert int(tf.foldl(lambda a, x: a - x, tf.constant([1, 2, 3]))) == -4
    assert int(tf.foldr(lambda a, x: a - x, tf.constant([1, 2, 3]), initializer=10)) == 4
    assert int(tf.foldr(lambda a, x: a - x, tf.constant([1, 2, 3]))) == 0  # 3 - 2 - 1


def test_gradients_match_finite_differences():
    x = np.random.default_rng(0).uniform(0.5, 1.5, (3, 2))
    checks = [
        lambda t: tf.cond(tf.reduce_sum(t) > 0, lambda: t * t, lambda: t * 3.0),
        lambda t: tf.switch_case(tf.constant(1), [lambda: t * 2.0, lambda: tf.sin(t)]),
        lambda t: tf.while_loop(lambda i, v: i < 3, lambda i, v: (i + 1, v * t), (0, tf.ones_like(t)))[1],
        lambda t: tf.map_fn(lambda r: r * tf.reduce_sum(r), t),
        lambda t: tf.scan(lambda a, r: a * r + 1.0, t),
        lambda t: tf.foldr(lambda a, r: a * 0.5 + r * r, t),
    ]
    for fn in checks:
        assert_gradients_close(fn, [x], order=2)
