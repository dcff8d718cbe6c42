"""The runtime operators of converted code (`ag__.*`), called directly: Python values run
Python control flow; tensors stage `tf.cond` / `tf.while_loop` (recorded here to check what is
staged and with which arguments)."""
import numpy as np
import pytest

import minitf as tf
from minitf.autograph import operators_builtins as builtins_ops
from minitf.autograph import operators_control_flow as cf
from minitf.autograph import operators_data
from minitf.autograph import operators_logical as logical
from minitf.autograph.function_scope import (STANDARD_OPTIONS, ConversionOptions, Feature,
                                             FunctionScope, Status, control_status_ctx)
from minitf.autograph.operators_variables import Undefined, UndefinedReturnValue, ld, ldu
from minitf.ops import control_flow


@pytest.fixture
def staged(monkeypatch):
    """Record the conds and while loops the operators stage (and still run them eagerly)."""
    calls = []
    real_cond, real_while = control_flow.cond, control_flow.while_loop

    def cond(pred, true_fn, false_fn, name=None):
        calls.append("cond")
        return real_cond(pred, true_fn, false_fn)

    def while_loop(cond_fn, body, loop_vars, **kwargs):
        calls.append(("while_loop", len(loop_vars), tuple(sorted(kwargs))))
        return real_while(cond_fn, body, loop_vars, **kwargs)
    monkeypatch.setattr(control_flow, "cond", cond)
    monkeypatch.setattr(control_flow, "while_loop", while_loop)
    return calls


class State:
    """get_state/set_state over named values, as converted code builds them."""

    def __init__(self, **values):
        self.names = tuple(values)
        self.values = dict(values)

    def get(self):
        return tuple(self.values[n] for n in self.names)

    def set(self, values):
        self.values.update(zip(self.names, values))


# -- if ----------------------------------------------------------------------------------------

def test_if_stmt_python_condition_runs_one_block(staged):
    ran = []
    cf.if_stmt(0, lambda: ran.append("body"), lambda: ran.append("else"), None, None, (), 0)
    cf.if_stmt([1], lambda: ran.append("body"), lambda: ran.append("else"), None, None, (), 0)
    assert ran == ["else", "body"] and staged == []


def test_if_stmt_tensor_condition_stages_cond_over_the_outputs(staged):
    s = State(y=1, z=5)

    def body():
        s.values["y"] = s.values["y"] + 10
        s.values["z"] = 0

    cf.if_stmt(tf.constant(True), body, lambda: None, s.get, s.set, s.names, 1)
    # only the first `nouts` names are outputs; the others keep their value from before
    assert staged == ["cond"] and s.values == {"y": 11, "z": 5}


def test_if_stmt_without_outputs_gets_a_dummy_one(staged):
    ran = []
    cf.if_stmt(tf.constant(False), lambda: ran.append(1), lambda: ran.append(2),
               lambda: (), lambda v: None, (), 0)
    assert ran == [2] and staged == ["cond"]


# -- while -------------------------------------------------------------------------------------

def test_while_stmt_python_condition_is_a_python_loop(staged):
    s = State(i=0)
    tests = []

    def test():
        tests.append(s.values["i"])
        return s.values["i"] < 3

    def body():
        s.values["i"] += 1
    cf.while_stmt(test, body, s.get, s.set, s.names, {})
    assert s.values["i"] == 3 and tests == [0, 1, 2, 3] and staged == []


def test_while_stmt_tensor_condition_stages_one_loop_and_tests_once_per_iteration(staged):
    s = State(i=0)
    n = tf.constant(3)
    tests = []

    def test():
        tests.append(int(s.values["i"]))
        return s.values["i"] < n

    def body():
        s.values["i"] += 1
    cf.while_stmt(test, body, s.get, s.set, s.names, {"maximum_iterations": 10})
    assert staged == [("while_loop", 1, ("maximum_iterations",))]
    assert int(s.values["i"]) == 3 and isinstance(s.values["i"], tf.Tensor)
    assert tests == [0, 1, 2, 3]  # the first test's value is reused, not computed twice


def test_while_stmt_maximum_iterations_from_set_loop_options():
    s = State(i=0)
    cf.while_stmt(lambda: s.values["i"] < tf.constant(100),
                  lambda: s.values.update(i=s.values["i"] + 1), s.get, s.set, s.names,
                  {"maximum_iterations": 4})
    assert int(s.values["i"]) == 4


def test_while_stmt_shape_invariants_allow_a_growing_variable():
    v = tf.constant([0])
    s = State(v=v, i=0)

    def body():
        s.values["v"] = tf.concat([s.values["v"], [s.values["i"]]], 0)
        s.values["i"] += 1
    cf.while_stmt(lambda: s.values["i"] < tf.constant(3), body, s.get, s.set, s.names,
                  {"shape_invariants": [(v, tf.TensorShape([None]))]})
    assert s.values["v"].numpy().tolist() == [0, 0, 1, 2]
    with pytest.raises(ValueError, match="'v' has shape \\(1,\\) before the loop, but shape "
                                         "\\(2,\\) after one iteration"):
        s2 = State(v=tf.constant([0]), i=0)
        cf.while_stmt(lambda: s2.values["i"] < tf.constant(3),
                      lambda: s2.values.update(v=tf.concat([s2.values["v"], [1]], 0)),
                      s2.get, s2.set, s2.names, {})


def test_while_stmt_without_state_still_loops(staged):
    v = tf.Variable(0)
    cf.while_stmt(lambda: v < tf.constant(4), lambda: v.assign_add(1), lambda: (),
                  lambda values: None, (), {})
    assert int(v.numpy()) == 4 and staged[0][0] == "while_loop"


def test_python_loop_whose_condition_turns_symbolic_is_an_error():
    not_allowed = cf._NOT_ALLOWED

    class Symbolic:
        def __bool__(self):
            raise not_allowed("symbolic")
    values = iter([True, Symbolic()])
    with pytest.raises(NotImplementedError, match="The condition of while loop started as "
                                                  "non-Tensor, then changed to Tensor"):
        cf.while_stmt(lambda: next(values), lambda: None, lambda: (), lambda v: None, (), {})


# -- for ---------------------------------------------------------------------------------------

def _loop(iterable, extra_test=None, total=0):
    s = State(total=total)
    seen = []

    def body(element):
        seen.append(element)
        s.values["total"] = s.values["total"] + element
    cf.for_stmt(iterable, extra_test, body, s.get, s.set, s.names, {"iterate_names": "x"})
    return s.values["total"], seen


def test_for_stmt_python_iterable(staged):
    assert _loop([1, 2, 3]) == (6, [1, 2, 3]) and staged == []


def test_for_stmt_tensor_loops_over_the_first_dimension(staged):
    total, seen = _loop(tf.constant([[1, 2], [3, 4], [5, 6]]), total=tf.zeros([2], tf.int32))
    assert staged[0][:2] == ("while_loop", 2)  # the row index and the state
    assert [row.numpy().tolist() for row in seen] == [[1, 2], [3, 4], [5, 6]]
    assert total.numpy().tolist() == [9, 12]


def test_for_stmt_extra_test_stops_a_tensor_loop():
    flags = {"stop": False}

    def extra_test():
        return not flags["stop"]
    s = State(total=0)

    def body(element):
        s.values["total"] = s.values["total"] + element
        flags["stop"] = bool(element >= 2)
    cf.for_stmt(tf.constant([1, 2, 3, 4]), extra_test, body, s.get, s.set, s.names, {})
    assert int(s.values["total"]) == 3


class _RangeTensor(tf.Tensor):
    """An eager tensor carrying a traced range's node (op type Range, three inputs)."""

    def __init__(self, start, limit, delta):
        super().__init__(np.arange(start, limit, delta, dtype=np.int32))
        self.fake_op = type("Op", (), {"type": "Range", "inputs": [
            tf.constant(start), tf.constant(limit), tf.constant(delta)]})()

    @property
    def op(self):
        return self.fake_op


def test_for_stmt_over_a_range_node_counts_with_start_limit_delta(staged, monkeypatch):
    read = []
    monkeypatch.setattr(tf.Tensor, "__getitem__", lambda self, i: read.append(i))
    total, seen = _loop(_RangeTensor(2, 11, 3))
    assert read == []  # the range is never indexed
    assert [int(x) for x in seen] == [2, 5, 8] and int(total) == 15
    total, seen = _loop(_RangeTensor(5, 0, -2))
    assert [int(x) for x in seen] == [5, 3, 1]


def test_for_stmt_dataset_and_iterator_iterate_in_python(staged):
    ds = tf.data.Dataset.range(4)
    total, seen = _loop(ds)
    assert int(total) == 6 and len(seen) == 4 and staged == []
    total, _ = _loop(iter(tf.data.Dataset.from_tensor_slices([1.0, 2.0])))
    assert float(total) == 3.0
    assert operators_data.is_dataset(ds) and not operators_data.is_dataset([1])


def test_for_over_distributed_dataset_refuses_break():
    strategy = tf.distribute.MirroredStrategy(["/cpu:0"])
    dist = strategy.experimental_distribute_dataset(tf.data.Dataset.range(4).batch(2))
    assert operators_data.is_distributed(dist)
    total, seen = _loop(dist)
    assert len(seen) == 2
    with pytest.raises(NotImplementedError, match="break and return statements are not yet "
                                                  "supported in for ... in distributed input"):
        _loop(dist, extra_test=lambda: True)


def test_registered_for_loop_runs_first():
    class Stream(list):
        pass
    ran = []
    cf.register_for_loop(Stream, lambda it, *rest: ran.append(list(it)))
    try:
        _loop(Stream([1, 2]))
    finally:
        cf._for_loop_registry.pop(0)
    assert ran == [[1, 2]]


# -- logical, conditional expressions ----------------------------------------------------------

def test_and_or_are_lazy_on_python_values():
    log = []

    def second():
        log.append("second")
        return "b"
    assert logical.and_(lambda: 0, second) == 0 and log == []
    assert logical.and_(lambda: 1, second) == "b" and log == ["second"]
    assert logical.or_(lambda: "a", second) == "a" and log == ["second"]
    assert logical.or_(lambda: "", second) == "b"
    assert logical.not_(0) is True and logical.not_([1]) is False


def test_and_or_not_on_tensors_stage_conds(staged):
    t, f = tf.constant(True), tf.constant(False)
    assert bool(logical.and_(lambda: t, lambda: f)) is False
    assert bool(logical.or_(lambda: f, lambda: t)) is True
    assert staged == ["cond", "cond"]
    assert logical.not_(t).numpy() == np.False_ and logical.not_(tf.Variable(False)).numpy()
    assert logical.eq(tf.constant(2), 2).numpy() and logical.eq("a", "a") is True
    assert logical.not_eq(tf.constant(2), 3).numpy()


def test_if_exp(staged):
    assert logical.if_exp(True, lambda: 1, lambda: 2, "c") == 1 and staged == []
    assert int(logical.if_exp(tf.constant(False), lambda: 1, lambda: tf.constant(2), "c")) == 2
    assert staged == ["cond"]


def test_assert_stmt():
    logical.assert_stmt(True, lambda: "unused")
    with pytest.raises(AssertionError, match="^message$"):
        logical.assert_stmt(0, lambda: "message")
    with pytest.raises(tf.errors.InvalidArgumentError, match="tensor message"):
        logical.assert_stmt(tf.constant(False), lambda: "tensor message")
    with pytest.raises(ValueError, match="must be a callable"):
        logical.assert_stmt(True, "not callable")


# -- variables and function scopes -------------------------------------------------------------

def test_undefined_values():
    u = Undefined("y")
    assert repr(u) == "y" and u.some_attribute is u and u[3] is u
    with pytest.raises(UnboundLocalError, match="^'y' is used before assignment$"):
        ld(u)
    assert ld(5) == 5
    assert isinstance(ldu(lambda: {}["k"], "d['k']"), Undefined)
    assert ldu(lambda: 3, "x") == 3


def test_function_scope_return_value_and_status():
    options = ConversionOptions(recursive=True, user_requested=True)
    with FunctionScope("f", "fscope", options) as scope:
        assert control_status_ctx().status == Status.ENABLED
        assert scope.callopts == STANDARD_OPTIONS.call_options().__class__(
            recursive=True, user_requested=False, optional_features=Feature.ALL)
    assert control_status_ctx().status == Status.UNSPECIFIED
    assert scope.ret(UndefinedReturnValue(), False) is None and scope.ret(3, True) == 3


def test_conversion_options_as_generated_code():
    import ast
    assert ast.unparse(STANDARD_OPTIONS.to_ast()) == "ag__.STD"
    options = ConversionOptions(recursive=True, user_requested=True, optional_features=None)
    assert ast.unparse(options.to_ast()) == (
        "ag__.ConversionOptions(recursive=True, user_requested=True, optional_features=(), "
        "internal_convert_user_code=True)")
    assert options.call_options() == STANDARD_OPTIONS
    assert options.uses("LISTS") is False
    assert ConversionOptions(optional_features=Feature.ALL).uses(Feature.LISTS)
    assert set(Feature.all_but(Feature.LISTS)) == set(Feature.all()) - {Feature.LISTS, Feature.ALL}


# -- builtins ----------------------------------------------------------------------------------

def test_builtin_overloads():
    overload = builtins_ops.overload_of
    assert overload(len)(tf.constant([[1], [2], [3]])) == 3
    with pytest.raises(ValueError, match="len requires a non-scalar tensor, got one of shape "
                                         "\\[\\]"):
        overload(len)(tf.constant(1))
    assert overload(range)(tf.constant(4)).numpy().tolist() == [0, 1, 2, 3]
    assert overload(range)(tf.constant(-2)).numpy().tolist() == []
    assert overload(range)(1, tf.constant(0)).numpy().tolist() == []
    assert overload(range)(3) == range(3) and overload(range)(1, 7, 2) == range(1, 7, 2)
    assert overload(abs)(tf.constant(-2.5)).numpy() == 2.5
    assert overload(int)(tf.constant(2.7)).dtype == tf.int32 and overload(int)("11", 2) == 3
    assert overload(float)(tf.constant(2)).dtype == tf.float32
    ds = overload(enumerate)(tf.data.Dataset.from_tensor_slices([5, 6]), 1)
    assert [(int(i), int(v)) for i, v in ds] == [(1, 5), (2, 6)]
    assert list(overload(enumerate)("ab")) == [(0, "a"), (1, "b")]
    assert overload(sorted)([3, 1], reverse=True) == [3, 1]
    assert overload(min) is min  # TF overloads only its list of builtins
    with pytest.raises(ValueError, match="invalid keyword arguments"):
        overload(print)("x", color="red")
