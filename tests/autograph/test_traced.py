"""Converted code traced by `tf.function` (with autograph=False here: the test converts): a
tensor-dependent loop is one loop node whose body is traced once, a tensor `if` is one node
with both branches traced, Python control flow is unrolled, and the results match eager."""
import pytest

import minitf as tf
from minitf.autograph import api, operators_control_flow
from minitf.graph.func_graph import FuncGraph
from minitf.recording import thread_state

TRACES = []


def loop_over_rows(x):
    s = 0.0
    for v in x:
        TRACES.append("loop body")
        if v > 0:
            s += v
    return s


def doubling(n):
    i = 0
    p = 1
    while i < n:
        TRACES.append("while body")
        p = p * 2
        i += 1
    return p


def unrolled(x):
    for i in range(3):
        TRACES.append("python body")
        x = x + i
    return x


def branches(x):
    if x > 0:
        TRACES.append("true branch")
        y = x * 2
    else:
        TRACES.append("false branch")
        y = -x
    return y


def breaks_out(x):
    s = 0.0
    for v in x:
        if v < 0:
            break
        s += v
    return s


def defines_in_loop(n):
    i = 0
    while i < n:
        last = i * 10
        i += 1
    return last


def _traced(fn, *specs):
    TRACES.clear()
    function = tf.function(api.convert(fn), autograph=False)
    concrete = function.get_concrete_function(*specs)
    return function, [op.type for op in concrete.graph.get_operations()]


def _loops(op_types):
    return [t for t in op_types if "While" in t]


def test_tensor_loop_is_one_node_with_its_body_traced_once():
    function, ops = _traced(loop_over_rows, tf.TensorSpec([None], tf.float32))
    assert len(_loops(ops)) == 1 and TRACES == ["loop body"]
    x = tf.constant([float(v % 7 - 3) for v in range(100)])
    assert float(function(x)) == float(loop_over_rows(x))
    assert TRACES.count("loop body") == 101  # one trace + 100 eager iterations of the original


def test_tensor_while_loop_is_one_node():
    function, ops = _traced(doubling, tf.TensorSpec([], tf.int32))
    assert len(_loops(ops)) == 1 and TRACES == ["while body"]
    assert int(function(tf.constant(10))) == 1024 and int(function(tf.constant(0))) == 1


def test_python_loop_is_unrolled():
    function, ops = _traced(unrolled, tf.TensorSpec([], tf.float32))
    assert not _loops(ops) and TRACES == ["python body"] * 3
    assert float(function(tf.constant(1.0))) == 4.0


def test_tensor_if_traces_both_branches_into_one_node():
    function, ops = _traced(branches, tf.TensorSpec([], tf.float32))
    assert sorted(TRACES) == ["false branch", "true branch"]
    assert float(function(tf.constant(3.0))) == 6.0 and float(function(tf.constant(-3.0))) == 3.0


def test_break_in_a_tensor_loop():
    function, ops = _traced(breaks_out, tf.TensorSpec([None], tf.float32))
    assert len(_loops(ops)) == 1
    assert float(function(tf.constant([1.0, 2.0, -1.0, 5.0]))) == 3.0


def test_loop_defined_variable_with_a_scratch_graph(monkeypatch):
    """With a scratch graph registered (the tracer's job), a variable first set in the loop
    starts as zeros of its type, and zero iterations is TF's runtime error."""
    monkeypatch.setattr(operators_control_flow, "_scratch_graph",
                        [lambda: FuncGraph("scratch", parent=thread_state.graph).building()])
    function, ops = _traced(defines_in_loop, tf.TensorSpec([], tf.int32))
    assert len(_loops(ops)) == 1
    assert int(function(tf.constant(3))) == 20
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="loop must iterate at least once to initialize last"):
        function(tf.constant(0))


@tf.autograph.experimental.do_not_convert
def left_unconverted(x):
    if x > 0:
        return x
    return -x


def python_loop_breaking_on_a_tensor(x):
    s = 0.0
    for i in range(3):
        if x > i:
            break
        s += 1.0
    return s


def test_unconverted_code_hits_operator_not_allowed_while_tracing():
    function = tf.function(api.convert(left_unconverted), autograph=False)
    with pytest.raises(tf.errors.OperatorNotAllowedInGraphError,
                       match="Using a symbolic `tf.Tensor` as a Python `bool` is not allowed"):
        function(tf.constant(1.0))


def test_python_loop_cannot_break_on_a_tensor_condition():
    function = tf.function(api.convert(python_loop_breaking_on_a_tensor), autograph=False)
    with pytest.raises(NotImplementedError, match="break and return statements which depend on a "
                                                  "TF condition are not supported in Python for "
                                                  "loops. Did you intend to make it a TF loop"):
        function(tf.constant(1.0))
    # eagerly the condition has a value: Python semantics
    for x in (1.0, 1.5, -1.0):
        expected = python_loop_breaking_on_a_tensor(tf.constant(x))
        assert api.convert(python_loop_breaking_on_a_tensor)(tf.constant(x)) == expected
