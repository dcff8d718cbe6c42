"""tf.function traces once per signature and runs the graph afterwards, with TF's rules."""
import numpy as np
import pytest

import minitf as tf


def test_python_side_effects_run_once_graph_effects_every_call(capsys):
    log = []

    @tf.function
    def f(x):
        log.append("traced")
        tf.print("run", x)
        return x * 2

    for _ in range(3):
        out = f(tf.constant(1.0))
    assert float(out) == 2.0
    assert log == ["traced"]
    assert capsys.readouterr().err.count("run 1") == 3


def test_retraces_by_dtype_and_shape_not_by_value():
    traces = []

    @tf.function
    def f(x):
        traces.append(x.shape)
        return x + 1

    f(tf.constant(1)), f(tf.constant(2)), f(tf.constant(1.0)), f(tf.constant([1, 2]))
    assert len(traces) == 3 and f.experimental_get_tracing_count() == 3


def test_python_values_retrace_by_value_and_objects_by_identity():
    traces = []

    @tf.function
    def f(n, obj):
        traces.append((n, obj))
        return tf.constant(n) * 2

    class Obj:
        pass
    a, b = Obj(), Obj()
    f(1, a), f(1, a), f(2, a), f(1, b), f(1.0, a)
    assert len(traces) == 3  # by value, as TF: 1.0 reuses the trace of 1
    assert int(f(1, a)) == 2 and len(traces) == 3


def test_variables_are_traced_by_spec_and_read_when_the_graph_runs():
    traces = []

    @tf.function
    def f(v):
        traces.append(1)
        return v * 2.0

    v1, v2 = tf.Variable(1.0), tf.Variable(3.0)
    assert float(f(v1)) == 2.0 and float(f(v2)) == 6.0
    v1.assign(5.0)
    assert float(f(v1)) == 10.0 and len(traces) == 1


def test_captured_variables_are_read_each_call_and_python_values_are_frozen():
    foo = 1
    var = tf.Variable(1)

    @tf.function
    def add_python():
        return 1 + foo

    @tf.function
    def add_variable():
        return 1 + var

    assert int(add_python()) == 2 and int(add_variable()) == 2
    foo = 100  # noqa: F841 (the trace froze the old value)
    var.assign(100)
    assert int(add_python()) == 2 and int(add_variable()) == 101


def test_input_signature_traces_once_for_every_length():
    traces = []

    @tf.function(input_signature=[tf.TensorSpec([None], tf.int32)])
    def f(x):
        traces.append(x.shape.as_list())
        return tf.reduce_sum(x)

    assert int(f(tf.constant([1, 2]))) == 3 and int(f(tf.constant([1, 2, 3, 4]))) == 10
    assert traces == [[None]]
    with pytest.raises(TypeError):
        f(tf.constant([[1]]))
    with pytest.raises(TypeError):
        f(tf.constant([1.0]))


def test_reduce_retracing_generalizes_the_second_trace():
    shapes = []

    @tf.function(reduce_retracing=True)
    def f(x):
        shapes.append(x.shape.as_list())
        return x

    for n in (3, 5, 7, 9):
        f(tf.zeros([n]))
    assert shapes == [[3], [None]]


def test_numpy_arguments_are_tensors_traced_by_shape_and_dtype():
    shapes = []

    @tf.function
    def f(x):
        shapes.append(x.shape.as_list())
        return x

    out = f(np.ones(3, np.float32))
    f(np.zeros(3, np.float32))
    assert isinstance(out, tf.Tensor) and shapes == [[3]]


def test_variables_only_on_the_first_trace():
    @tf.function
    def make(x):
        return tf.Variable(x)

    with pytest.raises(ValueError, match="singleton tf.Variables"):
        make(1.0)

    class Counter(tf.Module):
        def __init__(self):
            self.count = None

        @tf.function
        def __call__(self):
            if self.count is None:
                self.count = tf.Variable(0)
            return self.count.assign_add(1)

    c = Counter()
    assert [int(c()) for _ in range(3)] == [1, 2, 3]


def test_a_trace_that_creates_variables_is_traced_twice_as_in_tf():
    log = []
    layer = tf.keras.layers.Dense(2)

    @tf.function
    def f(x):
        log.append(1)
        return layer(x)

    f(tf.ones([1, 3]))
    assert len(log) == 2
    f(tf.ones([1, 3]))
    assert len(log) == 2


def test_init_scope_runs_eagerly_during_the_trace():
    v = tf.Variable(0)

    @tf.function
    def f():
        with tf.init_scope():
            v.assign_add(1)
            assert tf.executing_eagerly()
        assert not tf.executing_eagerly()
        return v.read_value()

    assert [int(f()) for _ in range(3)] == [1, 1, 1]


def test_run_functions_eagerly_turns_tracing_off():
    log = []

    @tf.function
    def f(x):
        log.append(tf.executing_eagerly())
        return x

    tf.config.run_functions_eagerly(True)
    try:
        assert tf.config.functions_run_eagerly()
        f(tf.constant(1)), f(tf.constant(1))
    finally:
        tf.config.run_functions_eagerly(False)
    f(tf.constant(1))
    assert log == [True, True, False]


def test_random_ops_draw_anew_on_every_call():
    @tf.function
    def f():
        return tf.random.uniform([4])

    assert not np.array_equal(f().numpy(), f().numpy())


def test_unused_pure_ops_do_not_run():
    @tf.function
    def f(x):
        tf.gather(x, [1])  # out of range for a 1-element x: never runs
        return x

    assert f(tf.constant([0.0])).numpy().tolist() == [0.0]


def test_stateful_ops_run_in_program_order():
    v = tf.Variable(1.0)

    @tf.function
    def f():
        a = v.read_value()
        v.assign(a * 3.0)
        b = v.read_value()
        v.assign_add(1.0)
        return a, b, v.read_value()

    assert [float(t) for t in f()] == [1.0, 3.0, 4.0]
    assert [float(t) for t in f()] == [4.0, 12.0, 13.0]


def test_py_function_runs_each_call():
    calls = []

    def py_plus(x, y):
        calls.append(1)
        return x + y

    @tf.function
    def f(x, y):
        return tf.py_function(py_plus, [x, y], Tout=tf.float32)

    assert float(f(tf.constant(1.0), tf.constant(2.0))) == 3.0
    assert float(f(tf.constant(1.0), tf.constant(5.0))) == 6.0
    assert len(calls) == 2


def test_graph_tensors_refuse_what_needs_a_value():
    seen = {}

    @tf.function
    def f(x):
        with pytest.raises(tf.errors.OperatorNotAllowedInGraphError):
            bool(x > 0)
        with pytest.raises(tf.errors.OperatorNotAllowedInGraphError):
            iter(x)
        with pytest.raises(AttributeError, match="'SymbolicTensor' object has no attribute 'numpy'"):
            x.numpy()
        with pytest.raises(NotImplementedError, match="symbolic tf.Tensor"):
            np.asarray(x)
        seen["str"], seen["repr"] = str(x), repr(x)
        return x

    f(tf.constant([1.0, 2.0]))
    assert seen["str"] == 'Tensor("x:0", shape=(2,), dtype=float32)'
    assert seen["repr"] == "<tf.Tensor 'x:0' shape=(2,) dtype=float32>"


def test_a_leaked_graph_tensor_is_out_of_scope():
    leaked = []

    @tf.function
    def f(a):
        leaked.append(a + 1)
        return a

    f(tf.constant(1))
    with pytest.raises(AttributeError):
        leaked[0].numpy()

    @tf.function
    def g(b):
        return b + leaked[0]

    with pytest.raises(TypeError, match="out of scope"):
        g(tf.constant(2))


def test_runtime_errors_name_the_graph_node():
    @tf.function
    def f(x, i):
        return tf.gather(x, i)

    with pytest.raises(tf.errors.InvalidArgumentError, match=r"\{\{node gather\}\}"):
        f(tf.constant([1.0, 2.0]), tf.constant([5]))


def test_functions_called_while_tracing_are_part_of_the_graph():
    @tf.function
    def inner(x):
        return x * 2

    @tf.function
    def outer(x):
        return inner(x) + 1

    assert float(outer(tf.constant(3.0))) == 7.0
    ops = [op.type for op in outer.get_concrete_function(tf.constant(3.0)).graph.get_operations()]
    assert ops.count("Mul") == 1 and inner.experimental_get_tracing_count() == 0


def test_keyword_and_positional_calls_share_a_trace():
    traces = []

    @tf.function
    def f(a, b=2):
        traces.append(1)
        return a * b

    f(tf.constant(1), 2), f(a=tf.constant(1)), f(tf.constant(1), b=2)
    assert len(traces) == 1


def test_outputs_keep_their_structure_and_python_numbers_become_tensors():
    @tf.function
    def f(x):
        return {"double": x * 2, "pair": (x, 1), "none": None}

    out = f(tf.constant(2))
    assert int(out["double"]) == 4 and int(out["pair"][0]) == 2 and out["none"] is None
    assert isinstance(out["pair"][1], tf.Tensor) and out["pair"][1].dtype == tf.int32


def test_frequent_retracing_warns_as_tf(caplog):
    @tf.function
    def f(x):
        return x

    with caplog.at_level("WARNING", logger="minitf"):
        for n in range(6):
            f(tf.zeros([n + 1]))
    assert any("triggered tf.function retracing" in r.getMessage() for r in caplog.records)


def test_methods_trace_per_instance():
    class M(tf.Module):
        def __init__(self, k):
            self.k = k

        @tf.function
        def scale(self, x):
            return x * self.k

    a, b = M(2.0), M(3.0)
    assert float(a.scale(tf.constant(1.0))) == 2.0 and float(b.scale(tf.constant(1.0))) == 3.0
    assert a.scale is a.scale


@pytest.mark.parametrize("compiled", [True, False])
def test_gradients_reach_a_watched_constant_through_ops_folded_while_tracing(compiled):
    # the ops on the captured constant run while tracing (folded), yet each run's tape sees them
    from minitf.graph.compiler import plan
    image = tf.constant(np.linspace(-1.0, 1.0, 12, dtype=np.float32).reshape(2, 2, 3))
    w = tf.Variable(tf.fill([1, 2, 2, 3], 0.5))

    def step(with_variable):
        with tf.GradientTape() as tape:
            tape.watch(image)
            batch = tf.expand_dims(image * 2.0, 0)
            loss = tf.reduce_sum(tf.square(batch) * w) if with_variable else tf.reduce_sum(tf.square(batch))
        return tape.gradient(loss, image)

    old = plan.set_enabled(compiled)
    try:
        for with_variable in (True, False):
            traced = tf.function(lambda: step(with_variable))
            want = step(with_variable).numpy()
            for _ in range(4):
                np.testing.assert_allclose(traced().numpy(), want, rtol=1e-6)
    finally:
        plan.set_enabled(old)
