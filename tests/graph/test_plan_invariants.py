"""Values a compiled plan computes from variables alone (minitf/graph/compiler/invariants.py)
run once per set of variable versions: every way a variable can change (assign, in-place
optimizer updates, scatters, restoring) must show in the next call, and the plan must keep
no reference to a variable's own buffer (that would make every in-place update copy it)."""
import numpy as np
import pytest

import minitf as tf
from minitf.graph.compiler import plan as plans
from minitf.graph.compiler.invariants import variable_invariants
from minitf.graph.compiler.record_run import Program
from minitf.graph.compiler.recording import Reg


def _plan_of(fn):
    (concrete,) = fn._concrete_functions()
    (entry,) = concrete._plans.entries.values()
    assert entry.plan is not None, entry.reason
    return entry


def _interpreted(fn, *args):
    old = plans.set_enabled(False)
    try:
        return fn(*args).numpy()
    finally:
        plans.set_enabled(old)


def _bn_model(seed=0):
    rng = np.random.default_rng(seed)
    model = tf.keras.Sequential([tf.keras.Input((6, 6, 3)),
                                 tf.keras.layers.Conv2D(8, 3, use_bias=False),
                                 tf.keras.layers.BatchNormalization(),
                                 tf.keras.layers.ReLU(),
                                 tf.keras.layers.Flatten(),
                                 tf.keras.layers.Dense(4)])
    bn = model.layers[1]
    bn.moving_mean.assign(rng.normal(size=8).astype(np.float32))
    bn.moving_variance.assign(rng.uniform(0.5, 2.0, size=8).astype(np.float32))
    bn.gamma.assign(rng.normal(size=8).astype(np.float32))
    bn.beta.assign(rng.normal(size=8).astype(np.float32))
    return model, bn


def _image(seed):
    return tf.constant(np.random.default_rng(seed).normal(size=(2, 6, 6, 3)).astype(np.float32))


def _warm(model):
    @tf.function
    def infer(x):
        return model(x, training=False)
    for i in range(3):
        infer(_image(i))
    return infer


def test_inference_keeps_batch_norm_vectors_and_matches_the_interpreter():
    model, _ = _bn_model()
    infer = _warm(model)
    source = _plan_of(infer).source
    assert "_V[0]" in source and "._version" in source
    for i in range(3, 6):
        x = _image(i)
        np.testing.assert_array_equal(infer(x).numpy(), _interpreted(infer, x))


@pytest.mark.parametrize("change", ["assign", "assign_sub", "scatter", "optimizer", "set_weights"])
def test_every_kind_of_write_shows_in_the_next_call(change):
    model, bn = _bn_model()
    infer = _warm(model)
    x = _image(9)
    before = infer(x).numpy()
    if change == "assign":
        bn.moving_variance.assign(bn.moving_variance.numpy() * 3.0)
    elif change == "assign_sub":
        bn.moving_mean.assign_sub(np.full(8, 0.5, np.float32))
    elif change == "scatter":
        bn.beta.scatter_nd_update([[2]], [7.0])
    elif change == "optimizer":  # an in-place update of gamma, outside the traced function
        optimizer = tf.keras.optimizers.SGD(1.0)
        optimizer.apply_gradients([(tf.ones_like(bn.gamma), bn.gamma)])
    else:
        weights = model.get_weights()
        model.set_weights([w * 0.5 for w in weights])
    after = infer(x).numpy()
    assert not np.array_equal(after, before)
    np.testing.assert_array_equal(after, _interpreted(infer, x))


def test_the_plan_holds_no_variable_buffer_between_calls():
    model, bn = _bn_model()
    infer = _warm(model)
    infer(_image(4))
    buffer = bn.gamma._value
    address = buffer.__array_interface__["data"][0]
    del buffer
    tf.keras.optimizers.SGD(0.1).apply_gradients([(tf.ones_like(bn.gamma), bn.gamma)])
    # updated in place: nothing else held the array, so no copy was made first
    assert bn.gamma._value.__array_interface__["data"][0] == address


def test_a_step_that_writes_variables_keeps_nothing():
    model, _ = _bn_model()
    optimizer = tf.keras.optimizers.SGD(0.01)

    @tf.function
    def train(x):
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(model(x, training=False))
        optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables),
                                      model.trainable_variables))
        return loss

    for i in range(4):
        train(_image(i))
    assert "_V[0]" not in _plan_of(train).source


def test_variables_passed_as_arguments_are_read_on_every_call():
    a = tf.Variable(np.arange(6, dtype=np.float32))
    b = tf.Variable(np.arange(6, dtype=np.float32) * -2.0)

    @tf.function
    def f(v, x):
        return x * tf.sqrt(tf.abs(v) + 1.0)

    x = tf.constant(np.ones(6, np.float32))
    for _ in range(3):
        f(a, x)
    np.testing.assert_array_equal(f(b, x).numpy(), np.sqrt(np.abs(b.numpy()) + 1.0))
    np.testing.assert_array_equal(f(a, x).numpy(), np.sqrt(np.abs(a.numpy()) + 1.0))


def test_the_variable_version_counts_every_write():
    v = tf.Variable(np.zeros(3, np.float32))
    versions = [v._version]
    v.assign([1.0, 2.0, 3.0])
    versions.append(v._version)
    v.assign_add([1.0, 1.0, 1.0])
    versions.append(v._version)
    v.scatter_nd_add([[0]], [5.0])
    versions.append(v._version)
    tf.keras.optimizers.SGD(1.0).apply_gradients([(tf.ones_like(v), v)])
    versions.append(v._version)
    assert versions == sorted(set(versions))  # strictly increasing


# -- the analysis on hand-made programs ----------------------------------------------------

def _program(steps, outputs):
    return Program(list(steps), outputs, [], [], 16)


def test_analysis_moves_variable_only_ufuncs_to_the_front():
    v = tf.Variable(np.ones(3, np.float32))
    steps = [("input", 0, 0),
             ("read", v, 1),
             ("call", np.sqrt, (Reg(1),), {}, 2),
             ("call", np.multiply, (Reg(0), Reg(2)), {}, 3)]
    program, invariants = variable_invariants(_program(steps, [("tensor", 3)]), set(), {3})
    assert invariants is not None
    assert [s[0] for s in program.steps] == ["read", "call", "input", "call"]
    assert program.steps[1][1] is np.sqrt
    assert (invariants.reads, invariants.steps, invariants.kept) == (1, 1, [2])
    assert invariants.variables == [v]


@pytest.mark.parametrize("writer", ["out", "view"])
def test_analysis_refuses_values_written_later(writer):
    v = tf.Variable(np.ones(3, np.float32))
    steps = [("input", 0, 0), ("read", v, 1), ("call", np.sqrt, (Reg(1),), {}, 2)]
    if writer == "out":  # a later step adds into the kept result itself
        steps.append(("call", np.add, (Reg(2), Reg(0)), {"out": Reg(2)}, 3))
    else:  # ... or into a view of it
        steps.append(("method", "reshape", Reg(2), ((3,),), {}, 4))
        steps.append(("call", np.add, (Reg(4), Reg(0)), {"out": Reg(4)}, 3))
    program, invariants = variable_invariants(_program(steps, [("tensor", 3)]), set(), {3})
    assert invariants is None and program.steps == steps


def test_analysis_leaves_views_of_variables_and_remapped_variables_alone():
    v = tf.Variable(np.ones(3, np.float32))
    view = [("read", v, 1), ("method", "reshape", Reg(1), ((3, 1),), {}, 2)]
    assert variable_invariants(_program(view, [("tensor", 2)]), set(), {2})[1] is None
    remapped = [("read", v, 1), ("call", np.sqrt, (Reg(1),), {}, 2)]
    assert variable_invariants(_program(remapped, [("tensor", 2)]), {v._id}, {2})[1] is None
