"""Concrete functions and graphs: what a trace shows, and calling it directly."""
import pytest

import minitf as tf


@tf.function
def double(a):
    return a + a


def test_concrete_function_signature_and_calls():
    cf = double.get_concrete_function(tf.constant("a"))
    assert cf(tf.constant("a")).numpy() == b"aa" and cf(a=tf.constant("b")).numpy() == b"bb"
    assert str(cf.function_type) == ("(a: TensorSpec(shape=(), dtype=tf.string, name=None)) -> "
                                     "TensorSpec(shape=(), dtype=tf.string, name=None)")
    assert str(cf) == ("ConcreteFunction Input Parameters:\n"
                       "  a (POSITIONAL_OR_KEYWORD): TensorSpec(shape=(), dtype=tf.string, name=None)\n"
                       "Output Type:\n  TensorSpec(shape=(), dtype=tf.string, name=None)\n"
                       "Captures:\n  None")
    with pytest.raises(tf.errors.InvalidArgumentError, match="was expected to be a string tensor"):
        cf(tf.constant(1))


def test_a_spec_reuses_a_matching_trace():
    traces = []

    @tf.function
    def f(x):
        traces.append(1)
        return x

    f.get_concrete_function(tf.constant("a"))
    f.get_concrete_function(tf.TensorSpec([], tf.string))
    assert len(traces) == 1


def test_graph_nodes_have_tf_names_types_and_inputs():
    graph = double.get_concrete_function(tf.constant("a")).graph
    nodes = [(n.input, n.name, n.op) for n in graph.as_graph_def().node]
    assert nodes == [([], "a", "Placeholder"), (["a", "a"], "add", "AddV2"),
                     (["add"], "Identity", "Identity")]
    op = graph.get_operation_by_name("add")
    assert [t.name for t in op.inputs] == ["a:0", "a:0"] and op.outputs[0].name == "add:0"
    assert graph.get_tensor_by_name("add:0") is op.outputs[0]


def test_literal_parameters_are_part_of_the_trace():
    @tf.function
    def power(a, b):
        return a ** b

    square = power.get_concrete_function(a=tf.TensorSpec(None, tf.float32), b=2)
    assert "b (POSITIONAL_OR_KEYWORD): Literal[2]" in str(square)
    assert float(square(tf.constant(10.0))) == 100.0
    with pytest.raises(TypeError, match="Literal"):
        square(tf.constant(10.0), b=3)


def test_structured_signature_outputs_and_variables():
    v = tf.Variable(2.0)

    @tf.function
    def f(d, items):
        return {"sum": d["x"] * v + items[0]}

    cf = f.get_concrete_function({"x": tf.constant(1.0), "k": 3}, [tf.constant(2.0)])
    args, kwargs = cf.structured_input_signature
    assert args[0] == {"x": tf.TensorSpec([], tf.float32, "d_x"), "k": 3}
    assert args[1] == [tf.TensorSpec([], tf.float32, "items_0")] and kwargs == {}
    assert [t.name for t in cf.inputs] == ["d:0", "items:0"]
    assert cf.variables == (v,) and cf.trainable_variables == (v,)
    assert set(cf.structured_outputs) == {"sum"}
    assert float(cf({"x": tf.constant(3.0), "k": 3}, [tf.constant(1.0)])["sum"]) == 7.0


def test_pretty_printed_concrete_signatures_lists_every_trace():
    @tf.function
    def relu(x):
        return tf.maximum(0.0, x)

    relu(tf.constant(1.0)), relu(tf.constant([1.0, -1.0]))
    text = relu.pretty_printed_concrete_signatures()
    assert text.count("Input Parameters:") == 2
    assert "TensorSpec(shape=(2,), dtype=tf.float32, name=None)" in text


def test_inference_fn_takes_flat_tensors():
    atomic = double.get_concrete_function(tf.constant(1)).inference_fn
    assert int(atomic(tf.constant(4))) == 8


def test_unknown_dimensions_while_tracing():
    shapes = {}

    @tf.function(input_signature=[tf.TensorSpec([None, 3])])
    def f(x):
        y = tf.matmul(x, tf.ones([3, 2]))
        shapes["y"] = y.shape.as_list()
        shapes["sum"] = tf.reduce_sum(y, axis=0).shape.as_list()
        shapes["shape"] = tf.shape(x).shape.as_list()
        return y

    assert f(tf.ones([4, 3])).shape == (4, 2)
    assert shapes == {"y": [None, 2], "sum": [2], "shape": [2]}


def test_types_namespace():
    assert issubclass(tf.TensorSpec, tf.types.experimental.TraceType)
    assert isinstance(double, tf.types.experimental.PolymorphicFunction)
    assert isinstance(double.get_concrete_function(tf.constant(1)),
                      tf.types.experimental.ConcreteFunction)


def test_a_declared_spec_name_names_the_input_as_in_tf():
    f = tf.function(lambda x, y: x, input_signature=[tf.TensorSpec([None], tf.float32, name="inp"),
                                                     tf.TensorSpec([2])])
    concrete = f.get_concrete_function()
    args, _ = concrete.structured_input_signature
    assert [a.name for a in args] == ["inp", "y"]
    assert [t.name for t in concrete.inputs] == ["inp:0", "y:0"]
    assert "x (POSITIONAL_OR_KEYWORD): TensorSpec(shape=(None,), dtype=tf.float32, name='inp')" \
        in concrete.pretty_printed_signature()
