"""Common-subexpression elimination in compiled plans (minitf/graph/compiler/cse.py): a repeated
pure step is computed once, and never where the value it would share can change in between."""
import numpy as np
import pytest

import minitf as tf
from minitf.graph.compiler import plan as plans
from minitf.graph.compiler.cse import common_subexpressions
from minitf.graph.compiler.record_run import Program
from minitf.graph.compiler.recording import Reg


def _program(steps, outputs):
    return Program(list(steps), outputs, [], [], 32)


def _calls(program, fn):
    return [s for s in program.steps if s[0] == "call" and s[1] is fn]


# -- the pass on hand-made programs --------------------------------------------------------

def test_a_repeated_ufunc_is_computed_once_and_its_readers_renamed():
    steps = [("input", 0, 0),
             ("call", np.greater, (Reg(0), 0.0), {}, 1),
             ("call", np.multiply, (Reg(0), Reg(1)), {}, 2),
             ("call", np.greater, (Reg(0), 0.0), {}, 3),
             ("call", np.multiply, (Reg(2), Reg(3)), {}, 4),
             ("guard", "bool", Reg(3), True)]
    program = common_subexpressions(_program(steps, [("tensor", 4)]))
    assert len(_calls(program, np.greater)) == 1
    assert program.steps[3] == ("call", np.multiply, (Reg(2), Reg(1)), {}, 4)
    assert program.steps[4] == ("guard", "bool", Reg(1), True)


def test_a_step_repeating_a_repeated_step_collapses_too():
    steps = [("input", 0, 0),
             ("call", np.exp, (Reg(0),), {}, 1),
             ("call", np.exp, (Reg(0),), {}, 2),
             ("call", np.negative, (Reg(1),), {}, 3),
             ("call", np.negative, (Reg(2),), {}, 4),
             ("call", np.add, (Reg(3), Reg(4)), {}, 5)]
    program = common_subexpressions(_program(steps, [("tensor", 5)]))
    assert [s[1] for s in program.steps[1:]] == [np.exp, np.negative, np.add]
    assert program.steps[-1][2] == (Reg(3), Reg(3))


@pytest.mark.parametrize("writer", ["out", "view", "host"])
def test_values_written_in_between_are_not_shared(writer):
    steps = [("input", 0, 0), ("call", np.exp, (Reg(0),), {}, 1)]
    if writer == "out":  # the input changes between the two exps
        steps.append(("call", np.subtract, (Reg(0), 1.0), {"out": (Reg(0),)}, 2))
    elif writer == "view":  # ... through a view of it
        steps.append(("method", "reshape", Reg(0), ((-1,),), {}, 2))
        steps.append(("call", np.subtract, (Reg(2), 1.0), {"out": (Reg(2),)}, 3))
    else:  # ... or a host step is given it
        steps.append(("host", 0, (), (("tensor", 0),), ()))
    steps.append(("call", np.exp, (Reg(0),), {}, 9))
    steps.append(("call", np.add, (Reg(1), Reg(9)), {}, 10))
    program = common_subexpressions(_program(steps, [("tensor", 10)]))
    assert program.steps == steps


def test_a_result_written_later_is_not_shared():
    steps = [("input", 0, 0),
             ("call", np.exp, (Reg(0),), {}, 1),
             ("call", np.exp, (Reg(0),), {}, 2),
             ("call", np.add, (Reg(2), 1.0), {"out": (Reg(2),)}, 3),
             ("call", np.add, (Reg(1), Reg(2)), {}, 4)]
    program = common_subexpressions(_program(steps, [("tensor", 4)]))
    assert program.steps == steps


def test_writing_into_a_fresh_buffer_does_not_taint_what_it_was_computed_from():
    steps = [("input", 0, 0),
             ("call", np.greater, (Reg(0), 0.0), {}, 1),
             ("call", np.empty_like, (Reg(0),), {}, 2),
             ("call", np.multiply, (Reg(0), 0.5), {"out": (Reg(2),)}, 3),
             ("call", np.greater, (Reg(0), 0.0), {}, 4),
             ("call", np.where, (Reg(4), Reg(0), Reg(3)), {}, 5)]
    program = common_subexpressions(_program(steps, [("tensor", 1), ("tensor", 5)]))
    assert len(_calls(program, np.greater)) == 1
    assert program.steps[-1][2] == (Reg(1), Reg(0), Reg(3))


@pytest.mark.parametrize("a, b", [(0.0, -0.0), (1, 1.0), (np.float32(2), np.float64(2)), (True, 1)])
def test_constants_that_differ_in_sign_or_type_are_different(a, b):
    steps = [("input", 0, 0),
             ("call", np.add, (Reg(0), a), {}, 1),
             ("call", np.add, (Reg(0), b), {}, 2),
             ("call", np.multiply, (Reg(1), Reg(2)), {}, 3)]
    assert common_subexpressions(_program(steps, [("tensor", 3)])).steps == steps


def test_outputs_and_impure_calls_are_kept():
    steps = [("input", 0, 0),
             ("call", np.exp, (Reg(0),), {}, 1),
             ("call", np.exp, (Reg(0),), {}, 2),           # an output of the program
             ("call", np.empty_like, (Reg(0),), {}, 3),
             ("call", np.empty_like, (Reg(0),), {}, 4)]    # new uninitialised memory each time
    program = common_subexpressions(_program(steps, [("tensor", 1), ("tensor", 2),
                                                     ("tensor", 3), ("tensor", 4)]))
    assert program.steps == steps


# -- plans of real functions ----------------------------------------------------------------

def _entry(fn):
    (concrete,) = fn._concrete_functions()
    (entry,) = concrete._plans.entries.values()
    assert entry.plan is not None, entry.reason
    return entry


def _two_tape_step():
    """Two tapes over one forward pass (as a GAN step writes it): each gradient recomputes
    the activations' masks."""
    rng = np.random.default_rng(0)
    w = tf.Variable(rng.normal(size=(32, 32)).astype(np.float32))
    v = tf.Variable(rng.normal(size=(32, 32)).astype(np.float32))

    @tf.function
    def step(x):
        with tf.GradientTape() as t1, tf.GradientTape() as t2:
            h = tf.nn.relu(tf.matmul(x, w))
            y = tf.nn.leaky_relu(tf.matmul(h, v), 0.3)
            a, b = tf.reduce_sum(y * y), tf.reduce_mean(y)
        return t1.gradient(a, [w, v]), t2.gradient(b, [w, v])
    return step


def _run(step, x, cse):
    old = plans._CSE[0]
    plans._CSE[0] = cse
    try:
        for _ in range(3):
            out = step(x)
        return _entry(step), [[g.numpy() for g in gs] for gs in out]
    finally:
        plans._CSE[0] = old


def test_two_tapes_share_their_masks_and_match_the_plan_without_cse():
    x = tf.constant(np.random.default_rng(1).normal(size=(64, 32)).astype(np.float32))
    entry_off, off = _run(_two_tape_step(), x, False)
    entry_on, on = _run(_two_tape_step(), x, True)
    assert len(entry_on.program.steps) < len(entry_off.program.steps)
    for gs_on, gs_off in zip(on, off):
        for a, b in zip(gs_on, gs_off):
            np.testing.assert_array_equal(a, b)
    old = plans.set_enabled(False)
    try:
        interpreted = [[g.numpy() for g in gs] for gs in _two_tape_step()(x)]
    finally:
        plans.set_enabled(old)
    for gs_on, gs_int in zip(on, interpreted):
        for a, b in zip(gs_on, gs_int):
            np.testing.assert_array_equal(a, b)
