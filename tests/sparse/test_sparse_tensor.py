"""SparseTensor itself: construction, parts and dtypes, repr, and the operators TF defines on it.
Expected values and messages were taken from TF 2.21."""
import numpy as np
import pytest

import minitf as tf


def _st():
    return tf.sparse.SparseTensor(indices=[[0, 3], [2, 4]], values=[10, 20], dense_shape=[3, 10])


def test_parts_dtypes_and_shape():
    st = _st()
    assert st.indices.dtype == tf.int64 and st.dense_shape.dtype == tf.int64
    assert st.dtype == tf.int32 and st.values.dtype == tf.int32
    assert st.shape == tf.TensorShape([3, 10]) and st.get_shape().as_list() == [3, 10]
    assert st.indices.numpy().tolist() == [[0, 3], [2, 4]]
    assert tf.sparse.SparseTensor is tf.SparseTensor
    assert tf.is_tensor(st)
    assert st.consumers() == []


def test_repr_is_tfs():
    expected = ("SparseTensor(indices=tf.Tensor(\n[[0 3]\n [2 4]], shape=(2, 2), dtype=int64), "
                "values=tf.Tensor([10 20], shape=(2,), dtype=int32), "
                "dense_shape=tf.Tensor([ 3 10], shape=(2,), dtype=int64))")
    assert repr(_st()) == expected and str(_st()) == expected


def test_empty_values_default_to_float32():
    st = tf.sparse.SparseTensor(np.zeros((0, 2), np.int64), [], [3, 3])
    assert st.dtype == tf.float32 and st.indices.shape == (0, 2)


@pytest.mark.parametrize("indices, values, shape, error, text", [
    ([[1], [0]], [1, 2, 3], [3], ValueError, "Dimensions 2 and 3 are not compatible"),
    ([1, 0], [1, 2], [3], ValueError, "Shape (2,) must have rank 2"),
    ([[1], [0]], [1, 2], [3, 3], ValueError, "Dimensions 1 and 2 are not compatible"),
    ([[1.5], [0]], [1, 2], [3], TypeError, "Cannot convert [[1.5], [0]] to EagerTensor of dtype int64"),
    ([[1], [0]], [[1], [2]], [3], ValueError, "Shape (2, 1) must have rank 1"),
])
def test_constructor_errors(indices, values, shape, error, text):
    with pytest.raises(error, match=None) as info:
        tf.sparse.SparseTensor(indices, values, shape)
    assert text in str(info.value)


def test_with_values_and_from_value():
    st = _st()
    new = st.with_values(tf.constant([1.0, 2.0]))
    assert new.dtype == tf.float32 and new.indices is st.indices
    with pytest.raises(ValueError, match="Dimensions 2 and 3 are not compatible"):
        st.with_values(tf.constant([1.0, 2.0, 3.0]))
    assert tf.SparseTensor.from_value(st) is st
    with pytest.raises(TypeError, match="neither a SparseTensor nor SparseTensorValue"):
        tf.SparseTensor.from_value(np.array([1, 2]))


def test_mul_and_div_act_on_stored_values():
    u = tf.sparse.SparseTensor([[1, 0], [0, 2], [0, 1]], [1.0, 2.0, 3.0], [2, 3])
    assert (u * 2).values.numpy().tolist() == [2.0, 4.0, 6.0]
    assert (u * np.float64(2)).dtype == tf.float32
    assert (u * tf.constant([1.0, 2.0, 3.0])).values.numpy().tolist() == [1.0, 6.0, 6.0]
    assert (u / 2).values.numpy().tolist() == [0.5, 1.0, 1.5]
    assert (u * 2).indices.numpy().tolist() == [[1, 0], [0, 2], [0, 1]]


def test_cwise_errors_are_tfs():
    u = tf.sparse.SparseTensor([[1, 0], [0, 2], [0, 1]], [1.0, 2.0, 3.0], [2, 3])
    with pytest.raises(tf.errors.InvalidArgumentError, match="broadcasts dense to sparse only; got "
                                                               r"incompatible shapes: \[2,3\] vs. \[2\]"):
        u * tf.constant([1.0, 2.0])
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"\[2,3\] vs. \[2,2,3\]"):
        u * tf.ones([2, 2, 3])
    with pytest.raises(tf.errors.InvalidArgumentError, match="cannot divide by zero"):
        u / 0.0
    with pytest.raises(ValueError, match="y: Tensor conversion requested dtype float32"):
        u * tf.constant(2)


@pytest.mark.parametrize("expr", [
    lambda s: -s, lambda s: abs(s), lambda s: s + s, lambda s: s + 1, lambda s: 2 * s, lambda s: s - s,
    lambda s: s ** 2, lambda s: s[0], lambda s: len(s)])
def test_operators_tf_does_not_define_are_type_errors(expr):
    with pytest.raises(TypeError):
        expr(_st())


def test_no_implicit_densifying():
    with pytest.raises(ValueError, match="(?s)Attempt to convert a value .* with an unsupported type"):
        tf.convert_to_tensor(_st())
    with pytest.raises(ValueError, match="unsupported type"):
        tf.reduce_sum(_st())
    with pytest.raises(ValueError, match="unsupported type"):
        _st() * _st()


def test_passes_through_nest_and_function_as_a_leaf():
    st = _st()
    assert tf.nest.flatten(st) == [st]
    assert tf.nest.map_structure(lambda x: x, {"a": st})["a"] is st

    @tf.function
    def f(x, y):
        return tf.sparse.sparse_dense_matmul(x, y)

    b = tf.sparse.to_dense(tf.sparse.transpose(st))
    assert f(st, b).numpy().tolist() == [[100, 0, 0], [0, 0, 0], [0, 0, 400]]


def test_eager_only_attributes():
    with pytest.raises(AttributeError, match="Tensor.op is undefined"):
        _st().op
    with pytest.raises(AttributeError, match="Tensor.graph is undefined"):
        _st().graph


def test_sparse_tensor_spec_value_type_batching_and_compatibility():
    spec = tf.SparseTensorSpec([None, 4], tf.int32)
    assert spec.value_type is tf.SparseTensor
    assert repr(spec._unbatch()) == "SparseTensorSpec(TensorShape([4]), tf.int32)"
    assert repr(spec._batch(3)) == "SparseTensorSpec(TensorShape([3, None, 4]), tf.int32)"
    assert spec.is_compatible_with(tf.sparse.from_dense([[1, 2, 3, 4]]))
    assert not spec.is_compatible_with(tf.sparse.eye(3, dtype=tf.int32))
    assert tf.SparseTensorSpec.from_value(tf.sparse.eye(3)) == tf.SparseTensorSpec([3, 3], tf.float32)
    with pytest.raises(ValueError, match="rank >= 1"):
        tf.SparseTensorSpec([], tf.int32)._unbatch()
