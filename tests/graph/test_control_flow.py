"""tf.cond, tf.while_loop and tf.switch_case inside traced functions: sub-graphs traced once."""
import numpy as np
import pytest

import minitf as tf


def test_cond_traces_both_branches_once_and_runs_one():
    log = []

    @tf.function
    def f(x):
        def positive():
            log.append("true")
            return x * 2

        def negative():
            log.append("false")
            return -x
        return tf.cond(x > 0, positive, negative)

    assert [float(f(tf.constant(v))) for v in (3.0, -4.0, 1.0)] == [6.0, 4.0, 2.0]
    assert sorted(log) == ["false", "true"]


def test_cond_branches_must_agree():
    @tf.function
    def structure(x):
        return tf.cond(x > 0, lambda: (x, x), lambda: x)

    with pytest.raises(ValueError, match="same number, type, and overall structure"):
        structure(tf.constant(1.0))

    @tf.function
    def dtypes(x):
        return tf.cond(x > 0, lambda: x, lambda: tf.cast(x, tf.int32))

    with pytest.raises(TypeError, match="different dtypes"):
        dtypes(tf.constant(1.0))


def test_cond_output_shape_keeps_what_the_branches_agree_on():
    shapes = []

    @tf.function
    def f(x):
        out = tf.cond(x[0] > 0, lambda: tf.zeros([2, 3]), lambda: tf.ones([4, 3]))
        shapes.append(out.shape.as_list())
        return out

    assert f(tf.constant([1.0])).shape == (2, 3) and f(tf.constant([-1.0])).shape == (4, 3)
    assert shapes == [[None, 3]]


def test_while_loop_body_traced_once_and_runs_until_the_condition_fails():
    traces = []

    @tf.function
    def f(n):
        def body(i, total):
            traces.append(1)
            return i + 1, total + i
        return tf.while_loop(lambda i, total: i < n, body, [tf.constant(0), tf.constant(0)])

    assert [int(t) for t in f(tf.constant(5))] == [5, 10]
    assert [int(t) for t in f(tf.constant(100))] == [100, 4950]
    assert len(traces) == 1


def test_while_loop_maximum_iterations_and_captured_tensors():
    @tf.function
    def f(x, step):
        return tf.while_loop(lambda v: v < 1000.0, lambda v: v + step, [x], maximum_iterations=3)

    assert float(f(tf.constant(0.0), tf.constant(2.0))[0]) == 6.0


def test_while_loop_shape_change_needs_an_invariant():
    @tf.function
    def grow(x):
        return tf.while_loop(lambda v: tf.size(v) < 8, lambda v: tf.concat([v, v], 0), [x])

    with pytest.raises(ValueError, match="shape_invariants"):
        grow(tf.ones([1]))

    @tf.function
    def grow_with_invariant(x):
        return tf.while_loop(lambda v: tf.size(v) < 8, lambda v: tf.concat([v, v], 0), [x],
                             shape_invariants=[tf.TensorShape([None])])

    assert grow_with_invariant(tf.ones([1]))[0].shape == (8,)


def test_gradients_flow_through_cond_and_while():
    x = tf.Variable(3.0)

    @tf.function
    def f():
        with tf.GradientTape() as tape:
            y = tf.cond(x > 0, lambda: x * x, lambda: -x)
            z = tf.while_loop(lambda i, acc: i < 3, lambda i, acc: (i + 1, acc * x), [0, y])[1]
        return tape.gradient(z, x)

    # z = x^2 * x^3 = x^5, dz/dx = 5 x^4
    assert float(f()) == pytest.approx(5 * 3.0 ** 4)


def test_switch_case_and_case():
    @tf.function
    def pick(i, x):
        return tf.switch_case(i, [lambda: x, lambda: x * 10, lambda: x * 100])

    assert [float(pick(tf.constant(i), tf.constant(1.0))) for i in (0, 1, 2, 7)] == [1, 10, 100, 100]

    @tf.function
    def first_true(x):
        return tf.case([(x < 0, lambda: tf.constant(-1)), (x > 10, lambda: tf.constant(1))],
                       default=lambda: tf.constant(0))

    assert [int(first_true(tf.constant(v))) for v in (-5, 50, 5)] == [-1, 1, 0]


def test_stateful_ops_inside_branches_are_kept():
    v = tf.Variable(0)

    @tf.function
    def f(flag):
        tf.cond(flag, lambda: v.assign_add(1), lambda: v.assign_add(10))
        return tf.constant(0)

    f(tf.constant(True)), f(tf.constant(False))
    assert int(v.numpy()) == 11


def test_matches_eager_results():
    rng = np.random.default_rng(0)
    xs = [tf.constant(rng.normal(size=(3,)).astype(np.float32)) for _ in range(4)]

    def program(x):
        def body(i, acc):
            return i + 1, tf.cond(tf.reduce_sum(acc) > 0, lambda: acc * 0.5, lambda: acc + 1.0)
        return tf.while_loop(lambda i, acc: i < 4, body, [0, x])[1]

    traced = tf.function(program)
    for x in xs:
        np.testing.assert_array_equal(traced(x).numpy(), program(x).numpy())
