"""What a traced function does at the edges of minitf's graphs: host-computing ops become nodes
that compute on every run, results a graph value cannot carry are refused with a clear error
(never frozen at their traced values), and probes learn the output structure of ops whose
example values are invalid."""
import numpy as np
import pytest

import minitf as tf


def test_an_op_computing_on_the_host_is_a_node_that_runs_each_call():
    f = tf.function(lambda labels, logits: tf.nn.ctc_loss(labels, logits, tf.constant([1]), tf.constant([3]),
                                                          logits_time_major=False, blank_index=0))
    rng = np.random.default_rng(0)
    for _ in range(2):
        logits = tf.constant(rng.standard_normal((1, 3, 3)).astype("float32"))
        labels = tf.constant([[1]])
        eager = tf.nn.ctc_loss(labels, logits, tf.constant([1]), tf.constant([3]), logits_time_major=False,
                               blank_index=0)
        np.testing.assert_array_equal(f(labels, logits).numpy(), eager.numpy())
    assert f.experimental_get_tracing_count() == 1


def test_a_sparse_result_is_refused_not_frozen():
    f = tf.function(lambda x, n: tf.nn.ctc_beam_search_decoder(x, n, beam_width=3))
    x = tf.constant(np.random.default_rng(0).standard_normal((4, 1, 3)).astype("float32"))
    with pytest.raises(NotImplementedError, match="returns a SparseTensor.*run_functions_eagerly"):
        f(x, tf.constant([4]))


def test_a_ragged_tensor_built_inside_names_the_limit_and_the_ways_around():
    f = tf.function(lambda v, n: tf.RaggedTensor.from_row_lengths(v, n))
    with pytest.raises(NotImplementedError, match="cannot be recorded.*Pass such values as arguments"):
        f(tf.constant([1.0, 2.0, 3.0]), tf.constant([2, 1]))


def test_numpy_of_a_graph_tensor_is_tfs_attribute_error():
    @tf.function
    def f(x):
        return x.numpy()
    with pytest.raises(AttributeError, match="no attribute 'numpy'"):
        f(tf.constant(1.0))


def test_constant_of_a_graph_tensor_is_its_value_each_run():
    f = tf.function(lambda x: tf.constant(x) * 2)
    assert f(tf.constant(1.0)).numpy() == 2.0 and f(tf.constant(4.0)).numpy() == 8.0


def test_normalization_adapts_on_every_run_of_the_graph():
    layer = tf.keras.layers.Normalization()
    f = tf.function(lambda x: (layer.adapt(x), layer(x))[1])
    first = np.array([[1.0, 2.0], [3.0, 6.0]], "float32")
    second = first * 10
    for data in (first, second):
        reference = tf.keras.layers.Normalization()
        reference.adapt(data)
        np.testing.assert_allclose(f(tf.constant(data)).numpy(), reference(data).numpy(), rtol=1e-6)
    np.testing.assert_allclose(np.ravel(layer.adapt_mean.numpy()), second.mean(axis=0), rtol=1e-6)


def test_lookup_layers_adapt_when_the_graph_runs():
    layer = tf.keras.layers.StringLookup()
    f = tf.function(lambda x: (layer.adapt(x), layer(x))[1])
    assert f(tf.constant(["b", "a", "b"])).numpy().tolist() == [1, 2, 1]
    assert layer.get_vocabulary() == ["[UNK]", "b", "a"]


def test_an_op_failing_on_its_examples_still_has_its_output_structure():
    f = tf.function(lambda x: tf.linalg.lu(x).lu)  # zeros are singular: the probe draws normals
    with pytest.raises(tf.errors.InvalidArgumentError, match="node lu"):
        f(tf.zeros((2, 2)))
    np.testing.assert_allclose(f(tf.constant([[1.0, 2.0], [3.0, 4.0]])).numpy(), [[3, 4], [1 / 3, 2 / 3]],
                               rtol=1e-6)


def test_a_static_shape_error_is_raised_while_tracing():
    calls = []

    @tf.function
    def f(x):
        calls.append(1)
        return tf.linalg.lu(x)
    with pytest.raises(tf.errors.InvalidArgumentError, match="must be square"):
        f(tf.ones((2, 3)))
    assert calls == [1]


def test_unknown_sizes_that_meet_a_constant_take_its_size_as_tf_infers():
    mean = tf.Variable(np.arange(9, dtype="float32"))
    shapes = []

    @tf.function(input_signature=[tf.TensorSpec([None, None], tf.float32)])
    def features(x):  # guide/core/quickstart_core's export: 6 columns + a one-hot of 3
        origin = tf.one_hot(tf.cast(x[:, -1], tf.int32) - 1, 3)
        y = tf.concat([x[:, :-1], origin], axis=1) - mean
        shapes.append(y.shape.as_list())
        return y
    assert features(tf.ones((4, 7))).shape == (4, 9)
    assert shapes == [[None, 9]]
    with pytest.raises(tf.errors.InvalidArgumentError, match="Incompatible shapes"):
        features(tf.ones((4, 5)))


def test_get_concrete_function_takes_specs_that_fit_the_input_signature():
    f = tf.function(lambda x: x * 2, input_signature=[tf.TensorSpec([None, 3], tf.float32)])
    concrete = f.get_concrete_function()
    assert f.get_concrete_function(tf.TensorSpec([None, 3], tf.float32)) is concrete
    assert f.get_concrete_function(tf.TensorSpec([2, 3], tf.float32)) is concrete
    with pytest.raises(TypeError, match="does not fit"):
        f.get_concrete_function(tf.TensorSpec([2, 4], tf.float32))


@pytest.mark.parametrize("layer", [lambda: tf.keras.layers.Reshape((16,)), lambda: tf.keras.layers.Reshape((-1, 2)),
                                   lambda: tf.keras.layers.Flatten()])
def test_reshaping_layers_keep_an_unknown_batch_size(layer):
    model = tf.keras.Sequential([tf.keras.Input((4, 4, 1)), layer(), tf.keras.layers.Dense(2)])
    f = tf.function(lambda x: model(x), input_signature=[tf.TensorSpec([None, 4, 4, 1])])
    assert f.get_concrete_function().structured_outputs.shape.as_list()[0] is None
    x = np.random.default_rng(0).random((3, 4, 4, 1)).astype("float32")
    np.testing.assert_allclose(f(x).numpy(), model(x).numpy(), rtol=1e-6)
