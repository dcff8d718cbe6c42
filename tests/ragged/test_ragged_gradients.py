"""Gradients through ragged code: every op is an op on the flat values, so GradientTape agrees
with central finite differences in float64 (tf.test.compute_gradient)."""
import numpy as np
import pytest

import minitf as tf
from minitf.gradient_checker import assert_gradients_close

LENGTHS = [3, 0, 2, 1]
R = tf.RaggedTensor


def rag(x):
    return R.from_row_lengths(x, LENGTHS)


def out(value):
    """A dense tensor of any result: ragged ones give their flat values."""
    return value.flat_values if isinstance(value, R) else value


CASES = {
    "to_tensor": lambda x: rag(x).to_tensor(default_value=0.5),
    "to_tensor_cut": lambda x: rag(x).to_tensor(shape=[3, 2]),
    "from_tensor": lambda x: out(R.from_tensor(rag(x).to_tensor(), lengths=[2, 0, 1, 1])),
    "from_tensor_padding": lambda x: out(R.from_tensor(tf.reshape(x * x, [2, 3]), padding=-7.0)),
    "scalar_ops": lambda x: out(rag(x) * 3.0 + 1.0 - rag(x) / 2.0),
    "ragged_product": lambda x: out(rag(x) * rag(x) ** 2),
    "unary": lambda x: out(tf.tanh(rag(x)) + tf.exp(rag(x)) + tf.math.square(rag(x))),
    "dense_broadcast": lambda x: out(rag(x) * tf.constant([[1.0], [2.0], [3.0], [4.0]], tf.float64)),
    "reduce_sum_1": lambda x: tf.reduce_sum(rag(x) * rag(x), axis=1),
    "reduce_mean_0": lambda x: tf.reduce_mean(rag(x), axis=0),
    "reduce_max_1": lambda x: tf.reduce_max(rag(x), axis=1)[:1],
    "reduce_prod_1": lambda x: tf.reduce_prod(rag(x), axis=1),
    "reduce_all": lambda x: tf.reduce_sum(rag(x) * 2.0),
    "concat_1": lambda x: out(tf.concat([rag(x), rag(x) * x[0]], axis=1)),
    "concat_0": lambda x: out(tf.concat([rag(x), rag(x * 2.0)], axis=0)),
    "stack_1": lambda x: out(tf.stack([rag(x), rag(x) * 3.0], axis=1)),
    "getitem": lambda x: out(rag(x)[:, 1:]) * 1.0,
    "getitem_row": lambda x: rag(x)[0] * 2.0,
    "map_flat_values": lambda x: out(tf.ragged.map_flat_values(tf.sin, rag(x))),
    "gather_rows_nested": lambda x: out(R.from_row_lengths(rag(x), [2, 2])[1:]),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_gradient_matches_finite_differences(name):
    x = tf.constant(np.array([0.3, -1.2, 0.8, 1.7, -0.4, 0.9]))
    assert_gradients_close(CASES[name], [x])


def test_tape_through_ragged_to_dense_model_step():
    x = tf.Variable(np.array([1.0, 2.0, 3.0, 4.0, 5.0, 6.0]))
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(tf.reduce_mean(rag(x) * 2.0, axis=1)[::2])
    grad = tape.gradient(loss, x)
    np.testing.assert_allclose(grad.numpy(), [2 / 3, 2 / 3, 2 / 3, 1.0, 1.0, 0.0])
