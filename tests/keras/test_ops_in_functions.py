"""keras.ops inside tf.function: ops that compute on the host become one node of the graph,
run on every call with that call's values (not the values seen while tracing)."""
import numpy as np
import pytest

import minitf as tf
from minitf import keras


def test_a_host_computing_op_runs_on_every_call():
    f = tf.function(lambda x: keras.ops.unique(x))
    np.testing.assert_array_equal(f(tf.constant([3, 1, 3, 2])).numpy(), [1, 2, 3])
    np.testing.assert_array_equal(f(tf.constant([9, 9, 4, 0])).numpy(), [0, 4, 9])
    assert f.experimental_get_tracing_count() == 1


def test_the_nodes_of_a_half_run_op_are_dropped():
    # digitize casts float16 to float32 (a node) before it reads values on the host
    f = tf.function(lambda x: keras.ops.digitize(x, [0.0, 1.5, 3.0]))
    graph = f.get_concrete_function(tf.TensorSpec([4], tf.float16)).graph
    assert [op.name for op in graph.get_operations()] == ["x", "digitize", "Identity"]
    np.testing.assert_array_equal(f(tf.constant([-1.0, 1.0, 2.0, 4.0], tf.float16)).numpy(), [0, 1, 2, 3])


def test_switch_on_a_scalar_tensor_is_a_cond_in_graphs():
    f = tf.function(lambda c, a, b: keras.backend.switch(c, a, b))
    a, b = tf.constant([1.0, 2.0]), tf.constant([3.0, 4.0])
    np.testing.assert_array_equal(f(tf.constant(True), a, b).numpy(), [1.0, 2.0])
    np.testing.assert_array_equal(f(tf.constant(False), a, b).numpy(), [3.0, 4.0])
    assert f.experimental_get_tracing_count() == 1


def test_convert_to_numpy_of_a_graph_tensor_raises_as_tf():
    f = tf.function(lambda x: keras.ops.convert_to_numpy(x))
    with pytest.raises(NotImplementedError, match="Cannot convert a symbolic tf.Tensor"):
        f(tf.constant(1.0))
