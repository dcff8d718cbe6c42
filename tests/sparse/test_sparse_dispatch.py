"""tf.* ops given a SparseTensor: TF's zero-preserving unary ops map the values, tf.shape gives
the dense shape, and every other op refuses as TF does (lists checked against TF 2.21)."""
import numpy as np
import pytest

import minitf as tf
from minitf.gradient_checker import assert_gradients_close

MAPPED = ["abs", "negative", "sign", "square", "sqrt", "sin", "tan", "tanh", "asin", "atan", "erf"]
REFUSED = ["exp", "cos", "log1p", "expm1", "floor", "ceil", "round", "rsqrt", "reciprocal", "sigmoid",
           "sinh", "softplus", "log"]


def _st(values=(-0.5, 0.25)):
    return tf.sparse.SparseTensor([[0, 1], [1, 0]], list(values), [2, 2])


@pytest.mark.parametrize("name", MAPPED)
def test_zero_preserving_unary_ops_map_the_values(name):
    fn = getattr(tf.math, name)
    values = (0.5, 0.25) if name == "sqrt" else (-0.5, 0.25)
    out = fn(_st(values))
    assert isinstance(out, tf.SparseTensor)
    assert out.indices.numpy().tolist() == [[0, 1], [1, 0]] and out.shape == (2, 2)
    np.testing.assert_allclose(out.values.numpy(), fn(tf.constant(values)).numpy())


@pytest.mark.parametrize("name", REFUSED)
def test_other_unary_ops_refuse_as_tf_does(name):
    with pytest.raises(ValueError, match="Attempt to convert a value"):
        getattr(tf.math, name)(_st())


def test_top_level_aliases_and_binary_ops():
    assert tf.abs(_st()).values.numpy().tolist() == [0.5, 0.25]
    with pytest.raises(ValueError, match="unsupported type"):
        tf.add(_st(), 1.0)
    with pytest.raises(ValueError, match="unsupported type"):
        tf.concat([_st(), _st()], 0)


def test_shape():
    assert tf.shape(_st()).numpy().tolist() == [2, 2] and tf.shape(_st()).dtype == tf.int32
    assert tf.shape(_st(), out_type=tf.int64).dtype == tf.int64


def test_gradient_through_a_mapped_op():
    x = tf.constant([-0.5, 0.25, 1.5], dtype=tf.float64)
    sp = lambda v: tf.sparse.SparseTensor([[0], [2], [3]], v, [4])  # noqa: E731
    assert_gradients_close(lambda v: tf.sparse.to_dense(tf.math.sin(sp(v))), [x])
    assert_gradients_close(lambda v: tf.sparse.to_dense(tf.math.square(sp(v))), [x])
