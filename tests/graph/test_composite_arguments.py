"""RaggedTensor arguments and results of traced tf.functions, traced as TF traces them.

A ragged argument is traced as its component tensors (flat_values, then each row_splits), its
trace type is its RaggedTensorSpec, and a ragged result is returned as its components and rebuilt.
These tests check the graph is real: the Python body runs once per spec, later calls with other
values of that spec run the graph, and the results and gradients equal the eager ones.
"""
import numpy as np
import pytest

import minitf as tf
from minitf.errors import errors


def _ragged_equal(a, b):
    if isinstance(b, tf.RaggedTensor):
        assert isinstance(a, tf.RaggedTensor), a
        assert a.to_list() == b.to_list()
        assert a.dtype == b.dtype and a.ragged_rank == b.ragged_rank
    else:
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-6)


A = [[1.0, 2.0], [3.0]]
B = [[5.0], [6.0, 7.0, 8.0]]


def test_ragged_argument_traces_once_then_runs_the_graph():
    calls = []
    v = tf.Variable(3.0)

    @tf.function
    def grow(x):
        calls.append(1)
        return x * v

    first = grow(tf.ragged.constant(A))
    assert first.to_list() == [[3.0, 6.0], [9.0]]
    # same spec (2 rows, float32, ragged_rank 1), other row lengths: the graph runs, no retrace
    second = grow(tf.ragged.constant(B))
    assert second.to_list() == [[15.0], [18.0, 21.0, 24.0]]
    v.assign(2.0)  # the graph reads the variable on every call
    assert grow(tf.ragged.constant(B)).to_list() == [[10.0], [12.0, 14.0, 16.0]]
    assert len(calls) == 1
    assert grow.experimental_get_tracing_count() == 1
    concrete = grow.get_concrete_function(tf.ragged.constant(A))
    types = [op.type for op in concrete.graph.get_operations()]
    assert types.count("Placeholder") == 2 and "Mul" in types
    assert [(t.dtype, t.shape.as_list()) for t in concrete.inputs] == [(tf.float32, [None]),
                                                                       (tf.int64, [3])]
    assert isinstance(concrete.structured_outputs, tf.RaggedTensor)


@pytest.mark.parametrize("name,fn", [
    ("mul_variable", lambda x: x * 2.5),
    ("add_self", lambda x: x + x),
    ("unary", lambda x: tf.math.square(x) - 1.0),
    ("reduce_sum_axis1", lambda x: tf.reduce_sum(x, axis=1)),
    ("reduce_mean_axis1", lambda x: tf.reduce_mean(x, axis=1)),
    ("reduce_max_all", lambda x: tf.reduce_max(x)),
    ("to_tensor", lambda x: x.to_tensor()),
    ("flat_values", lambda x: x.flat_values * 2.0),
    ("row_lengths", lambda x: x.row_lengths()),
    ("slice_rows", lambda x: x[1:]),
    ("concat", lambda x: tf.concat([x, x * 2.0], axis=0)),
    ("tuple_result", lambda x: (x.to_tensor(), x * 3.0, x.row_splits)),
])
def test_traced_results_equal_eager(name, fn):
    traced = tf.function(fn)
    for value in (A, B, [[1.5], [], [2.0, -3.0]]):
        x = tf.ragged.constant(value)
        want, got = fn(x), traced(x)
        if isinstance(want, tuple):
            for w, g in zip(want, got):
                _ragged_equal(g, w)
        else:
            _ragged_equal(got, want)


def test_ragged_rank_two_argument():
    calls = []

    @tf.function
    def f(x):
        calls.append(1)
        return x * 2.0, tf.reduce_sum(x.flat_values)

    x = tf.ragged.constant([[[1.0], [2.0, 3.0]], [[4.0]]])
    out, total = f(x)
    assert out.to_list() == [[[2.0], [4.0, 6.0]], [[8.0]]] and float(total) == 10.0
    out, total = f(tf.ragged.constant([[[1.0, 1.0, 1.0]], [[], [5.0]]]))
    assert out.to_list() == [[[2.0, 2.0, 2.0]], [[], [10.0]]] and float(total) == 8.0
    assert len(calls) == 1
    inputs = f.get_concrete_function(x).inputs
    assert [t.dtype for t in inputs] == [tf.float32, tf.int64, tf.int64]


def test_gradients_through_flat_values_under_an_outer_tape():
    v = tf.Variable(1.5)

    def body(x):
        return tf.reduce_sum(tf.reduce_sum(x * v, axis=1) ** 2) + tf.reduce_sum(x.flat_values)

    traced = tf.function(body)
    x = tf.ragged.constant([[1.0, -2.0], [0.5], [3.0, 0.0, 2.0]])
    grads = []
    for fn in (body, traced):
        with tf.GradientTape() as tape:
            tape.watch(x.flat_values)
            y = fn(x)
        grads.append(tape.gradient(y, [x.flat_values, v]))
    (gx_eager, gv_eager), (gx, gv) = grads
    np.testing.assert_allclose(gx.numpy(), gx_eager.numpy(), rtol=1e-6)
    np.testing.assert_allclose(float(gv), float(gv_eager), rtol=1e-6)
    # d/dx of sum_rows((1.5 * rowsum)^2) + sum(x): 2 * 1.5^2 * rowsum + 1
    rowsums = np.repeat([-1.0, 0.5, 5.0], [2, 1, 3])
    np.testing.assert_allclose(gx.numpy(), 2 * 2.25 * rowsums + 1.0, rtol=1e-6)


def test_retracing_follows_the_ragged_spec():
    calls = []

    @tf.function
    def f(x):
        calls.append(x.dtype)
        return x * 2

    f(tf.ragged.constant([[1.0, 2.0], [3.0]]))
    f(tf.ragged.constant([[4.0], [5.0, 6.0, 7.0]]))  # same spec
    assert len(calls) == 1
    f(tf.ragged.constant([[1, 2], [3]]))  # another dtype
    assert len(calls) == 2
    f(tf.ragged.constant([[[1.0]], [[2.0, 3.0]]]))  # another ragged_rank
    assert len(calls) == 3
    f(tf.ragged.constant([[1.0], [2.0], [3.0]]))  # another number of rows (TF: [3, None])
    assert len(calls) == 4
    f(tf.ragged.constant([[9.0], [8.0, 7.0]]))  # back to the first spec: its trace
    assert len(calls) == 4
    assert "RaggedTensorSpec(TensorShape([2, None]), tf.float32, 1, tf.int64)" in \
        f.pretty_printed_concrete_signatures()


def test_reduce_retracing_relaxes_the_number_of_rows():
    calls = []

    @tf.function(reduce_retracing=True)
    def f(x):
        calls.append(1)
        return x + 1.0

    f(tf.ragged.constant([[1.0], [2.0]]))
    f(tf.ragged.constant([[1.0]]))
    assert f(tf.ragged.constant([[1.0], [2.0, 3.0], []])).to_list() == [[2.0], [3.0, 4.0], []]
    assert len(calls) == 2


def test_input_signature_with_a_ragged_tensor_spec():
    calls = []

    @tf.function(input_signature=[tf.RaggedTensorSpec(shape=[None, None], dtype=tf.float32)])
    def f(x):
        calls.append(1)
        return tf.reduce_sum(x, axis=1), x * 2.0

    sums, doubled = f(tf.ragged.constant(A))
    assert sums.numpy().tolist() == [3.0, 3.0] and doubled.to_list() == [[2.0, 4.0], [6.0]]
    sums, doubled = f(tf.ragged.constant([[1.0], [], [2.0, 2.0]]))
    assert sums.numpy().tolist() == [1.0, 0.0, 4.0]
    assert len(calls) == 1
    with pytest.raises(TypeError, match="Can not cast"):
        f(tf.ragged.constant([[1, 2]]))
    concrete = f.get_concrete_function()
    assert concrete.structured_input_signature == (
        (tf.RaggedTensorSpec([None, None], tf.float32, 1, tf.int64),), {})
    assert [t.shape.as_list() for t in concrete.inputs] == [[None], [None]]


def test_get_concrete_function_of_a_spec_has_a_graph():
    @tf.function
    def f(x):
        return x.to_tensor(default_value=-1.0)

    spec = tf.RaggedTensorSpec(shape=[None, None, 2], dtype=tf.float32, ragged_rank=1)
    concrete = f.get_concrete_function(spec)
    assert [(t.dtype, t.shape.as_list()) for t in concrete.inputs] == [(tf.float32, [None, 2]),
                                                                       (tf.int64, [None])]
    x = tf.ragged.constant([[[1.0, 2.0]], [[3.0, 4.0], [5.0, 6.0]]], ragged_rank=1)
    assert concrete(x).numpy().tolist() == [[[1.0, 2.0], [-1.0, -1.0]], [[3.0, 4.0], [5.0, 6.0]]]
    with pytest.raises(TypeError, match="Can not cast"):
        concrete(tf.ragged.constant([[1.0]]))
    int32_splits = f.get_concrete_function(
        tf.RaggedTensorSpec([None, None], tf.float32, row_splits_dtype=tf.int32))
    assert [t.dtype for t in int32_splits.inputs] == [tf.float32, tf.int32]


def test_ragged_inside_structures():
    @tf.function
    def f(d):
        return {"scaled": d["rt"] * d["k"], "rows": [d["rt"].row_lengths()]}

    out = f({"rt": tf.ragged.constant(A), "k": tf.constant(2.0)})
    assert out["scaled"].to_list() == [[2.0, 4.0], [6.0]]
    assert out["rows"][0].numpy().tolist() == [2, 1]


def test_notebook_module_saves_and_loads(tmp_path):
    class CustomModule(tf.Module):
        def __init__(self, variable_value):
            super().__init__()
            self.v = tf.Variable(variable_value)

        @tf.function
        def grow(self, x):
            return x * self.v

    module = CustomModule(100.0)
    module.grow.get_concrete_function(tf.RaggedTensorSpec(shape=[None, None], dtype=tf.float32))
    tf.saved_model.save(module, str(tmp_path))
    imported = tf.saved_model.load(str(tmp_path))
    out = imported.grow(tf.ragged.constant([[1.0, 4.0, 3.0], [2.0]]))
    assert isinstance(out, tf.RaggedTensor)
    assert out.to_list() == [[100.0, 400.0, 300.0], [200.0]]
    concrete = imported.grow.concrete_functions[0]
    assert concrete.structured_input_signature == (
        (tf.RaggedTensorSpec([None, None], tf.float32, 1, tf.int64),), {})
    assert [s.dtype for s in concrete.inputs] == [tf.float32, tf.int64]


def test_ragged_op_recorded_whole_is_not_exported(tmp_path):
    class Module(tf.Module):
        @tf.function(input_signature=[tf.RaggedTensorSpec([None, None], tf.float32)])
        def rowsum(self, x):
            return tf.reduce_sum(x, axis=1)

    module = Module()
    assert module.rowsum(tf.ragged.constant(A)).numpy().tolist() == [3.0, 3.0]
    with pytest.raises(errors.UnimplementedError, match="takes a RaggedTensor"):
        tf.saved_model.save(module, str(tmp_path))


def test_ragged_built_from_dense_values_inside_is_still_refused():
    @tf.function
    def f(values, splits):
        return tf.RaggedTensor.from_row_splits(values * 2.0, splits)

    with pytest.raises(NotImplementedError, match="ragged and sparse tensors built inside"):
        f(tf.constant([1.0, 2.0, 3.0]), tf.constant([0, 2, 3], tf.int64))


def test_a_function_of_ragged_arguments_the_graph_cannot_hold_runs_eagerly():
    # ops needing the ragged tensor's values on the host while tracing (a ragged tensor built
    # inside, Python iteration over rows) make minitf run the function eagerly, as it ran every
    # function of ragged arguments before; TF 2.21 traces these
    calls = []

    @tf.function
    def rebuilt(x):
        calls.append(1)
        return tf.RaggedTensor.from_row_splits(x.flat_values * 2.0, x.row_splits)

    @tf.function
    def row_sums(x):
        total = tf.constant(0.0)
        for row in x:
            total += tf.reduce_sum(row)
        return total

    assert rebuilt(tf.ragged.constant(A)).to_list() == [[2.0, 4.0], [6.0]]
    assert rebuilt(tf.ragged.constant(B)).to_list() == [[10.0], [12.0, 14.0, 16.0]]
    assert len(calls) == 3  # the failed trace, then two eager calls
    assert rebuilt.experimental_get_tracing_count() == 0
    concrete = rebuilt.get_concrete_function(tf.RaggedTensorSpec([None, None], tf.float32))
    assert concrete(tf.ragged.constant([[1.0]])).to_list() == [[2.0]]
    with pytest.raises(TypeError, match="Can not cast"):
        concrete(tf.ragged.constant([[1]]))
    assert float(row_sums(tf.ragged.constant(B))) == 26.0
