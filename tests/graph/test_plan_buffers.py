"""The memory plan of compiled plans (minitf/graph/compiler/buffers.py): large ufunc results go
into buffers a plan keeps from call to call, shared by values that are never alive together,
and a buffer anything else still holds (a kept output, a view of it, a tensor stored by an
effect) is never written: the call takes a fresh one."""
import numpy as np
import pytest

import minitf as tf
from minitf.graph.compiler import buffers
from minitf.graph.compiler import plan as plans


@pytest.fixture(autouse=True)
def _unfused(monkeypatch):
    """These tests are about the buffers of ufunc steps: no fused chains (fusion.py) in between."""
    monkeypatch.setattr(plans, "_FUSION", [False])


def _plan_of(fn):
    (concrete,) = fn._concrete_functions()
    (entry,) = concrete._plans.entries.values()
    assert entry.plan is not None, entry.reason
    return entry


def _big(seed, shape=(96, 128)):
    return tf.constant(np.random.default_rng(seed).normal(size=shape).astype(np.float32))


def test_outputs_kept_by_the_caller_are_never_overwritten():
    @tf.function
    def f(x):
        return tf.nn.relu(x * 2.0) + 1.0

    inputs = [_big(i) for i in range(6)]
    outputs = [f(x) for x in inputs]  # every output kept
    entry = _plan_of(f)
    assert "_B[" in entry.source  # the results are big enough for kept buffers
    for x, y in zip(inputs, outputs):
        np.testing.assert_array_equal(y.numpy(), np.maximum(x.numpy() * 2.0, 0) + 1.0)
    assert len({id(y._value) for y in outputs}) == len(outputs)


def test_a_dropped_output_buffer_is_reused():
    @tf.function
    def f(x):
        return x * 3.0

    x = _big(0)
    for _ in range(3):
        f(x)
    first = f(x)._value
    address = first.__array_interface__["data"][0]
    del first
    again = f(x)
    assert again._value.__array_interface__["data"][0] == address
    np.testing.assert_array_equal(again.numpy(), x.numpy() * 3.0)


def test_views_of_outputs_and_stored_tensors_keep_their_values():
    kept = []

    def store(t):
        kept.append(t)

    @tf.function
    def f(x):
        y = x * 2.0 + 1.0
        tf.py_function(store, [y], [])  # an effect that keeps the tensor it is given
        return tf.reshape(y, [-1]), tf.transpose(y * 3.0)

    inputs = [_big(i) for i in range(5)]
    results = [f(x) for x in inputs]
    assert "_B[" in _plan_of(f).source
    for x, (flat, transposed), stored in zip(inputs, results, kept[-5:]):
        want = x.numpy() * 2.0 + 1.0
        np.testing.assert_array_equal(flat.numpy(), want.reshape(-1))
        np.testing.assert_array_equal(transposed.numpy(), (want * 3.0).T)
        np.testing.assert_array_equal(np.asarray(stored), want)


def test_training_step_equals_the_interpreter_and_shares_buffers():
    def build():
        tf.keras.utils.set_random_seed(0)
        model = tf.keras.Sequential([tf.keras.layers.Input((64,)),
                                     tf.keras.layers.Dense(256, activation="relu"),
                                     tf.keras.layers.Dense(256, activation="relu"),
                                     tf.keras.layers.Dense(4)])
        opt = tf.keras.optimizers.Adam(1e-2)
        x, y = _big(1, (128, 64)), tf.constant(np.arange(128) % 4)
        loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)

        @tf.function
        def step():
            with tf.GradientTape() as tape:
                loss = loss_fn(y, model(x, training=True))
            grads = tape.gradient(loss, model.trainable_variables)
            opt.apply_gradients(zip(grads, model.trainable_variables))
            return loss
        return step, model

    results = {}
    for use_plans in (True, False):
        old = plans.set_enabled(use_plans)
        try:
            step, model = build()
            losses = [float(step()) for _ in range(6)]
            results[use_plans] = losses, [v.numpy() for v in model.variables]
        finally:
            plans.set_enabled(old)
        if use_plans:
            entry = _plan_of(step)
    assert results[True][0] == results[False][0]
    for a, b in zip(results[True][1], results[False][1]):
        np.testing.assert_array_equal(a, b)
    kept = entry.plan.__globals__["_B"]
    recycled = entry.source.count("out=_b)")
    assert recycled > len(kept) >= 2  # values never alive together share a buffer


def test_small_results_and_other_calls_get_no_buffer():
    steps = [("call", np.add, ("a", "b"), {}, 0),            # small
             ("call", np.add, ("a", "b"), {}, 1),            # big: kept
             ("call", np.add, ("a", "b"), {"out": ("c",)}, 2),  # writes into its own out
             ("call", np.concatenate, (("a", "b"),), {}, 3)]  # not a ufunc
    big = (np.ndarray, np.dtype(np.float32), (256, 256))
    types = {0: (np.ndarray, np.dtype(np.float32), (4,)), 1: big, 2: big, 3: big}
    used = [set()] * 4
    defined = [{f"r{i}"} for i in range(4)]
    slots, kinds = buffers.plan_buffers(steps, types, {0, 1, 2, 3}, used, defined, {})
    assert slots == {1: 0} and kinds == [((256, 256), np.dtype(np.float32))]
    # a result that was not C-contiguous (a ufunc of transposed inputs) keeps its own layout
    assert buffers.plan_buffers(steps, types, {0, 2, 3}, used, defined, {}) == ({}, [])
    # keywords that change the result's layout or type leave the call alone
    ordered = [("call", np.add, ("a", "b"), {"order": "F"}, 1)]
    assert buffers.plan_buffers(ordered, {1: big}, {1}, [set()], [{"r1"}], {}) == ({}, [])


@pytest.mark.parametrize("view_first", [True, False])
def test_a_view_keeps_its_buffer_alive(view_first):
    # step 1 makes r1 = view of r0; r0's buffer must not go to step 2 while r1 is read at step 3
    big = (np.ndarray, np.dtype(np.float32), (256, 256))
    steps = [("call", np.add, ("a", "b"), {}, 0),
             ("method", "reshape", "r0", ((-1,),), {}, 1) if view_first else
             ("call", np.negative, ("r0",), {}, 1),
             ("call", np.add, ("a", "b"), {}, 2),
             ("call", np.add, ("r1", "r2"), {}, 3)]
    types = {0: big, 1: (np.ndarray, np.dtype(np.float32), (65536,)), 2: big, 3: big}
    used = [set(), {"r0"}, set(), {"r1", "r2"}]
    defined = [{"r0"}, {"r1"}, {"r2"}, {"r3"}]
    last_use = {"r0": 1, "r1": 3, "r2": 3, "r3": 4}
    slots, _ = buffers.plan_buffers(steps, types, {0, 1, 2, 3}, used, defined, last_use)
    if view_first:
        assert slots[0] != slots[2]
    else:
        assert slots[0] == slots[2]  # r1 is a fresh array: r0 is dead after step 1


def test_a_transposed_result_keeps_its_layout_and_its_sums():
    # x.T * 2 is F-ordered in the interpreter; a C-ordered kept buffer would change the order
    # in which the reduction below adds (and so its last bits)
    @tf.function
    def f(x):
        return tf.reduce_sum(tf.transpose(x) * 2.0, axis=1)

    x = _big(3, (512, 96))
    got = [f(x).numpy() for _ in range(4)]
    old = plans.set_enabled(False)
    try:
        want = f(x).numpy()
    finally:
        plans.set_enabled(old)
    for value in got:
        np.testing.assert_array_equal(value, want)
