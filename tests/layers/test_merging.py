"""Add, Subtract, Multiply, Average, Maximum, Minimum, Concatenate and functional forms."""
import numpy as np
import pytest

import minitf as tf
from minitf import layers


A = np.array([[1.0, -2.0, 3.0]], "float32")
B = np.array([[4.0, 5.0, -6.0]], "float32")


@pytest.mark.parametrize("cls,fn,expected", [
    (layers.Add, layers.add, A + B), (layers.Subtract, layers.subtract, A - B),
    (layers.Multiply, layers.multiply, A * B), (layers.Average, layers.average, (A + B) / 2),
    (layers.Maximum, layers.maximum, np.maximum(A, B)),
    (layers.Minimum, layers.minimum, np.minimum(A, B)),
])
def test_elementwise_merges(cls, fn, expected):
    np.testing.assert_allclose(cls()([A, B]).numpy(), expected)
    np.testing.assert_allclose(fn([A, B]).numpy(), expected)


def test_concatenate_and_errors():
    np.testing.assert_array_equal(layers.Concatenate()([A, B]).numpy(),
                                  np.concatenate([A, B], -1))
    np.testing.assert_array_equal(layers.concatenate([A, B], axis=0).numpy(),
                                  np.concatenate([A, B], 0))
    with pytest.raises(ValueError, match="Concatenate"):
        layers.Concatenate(axis=0)([np.ones((1, 2)), np.ones((1, 3))])
    with pytest.raises(ValueError, match="incompatible shapes"):
        layers.Add()([np.ones((1, 2)), np.ones((1, 3))])
    with pytest.raises(ValueError, match="list"):
        layers.Add()(A)
    with pytest.raises(ValueError, match="exactly 2"):
        layers.Subtract()([A, A, A])


def test_merge_gradients():
    import minitf as tf
    from minitf.gradient_checker import assert_gradients_close
    a = tf.constant(np.random.default_rng(0).standard_normal((2, 3)))
    b = tf.constant(np.random.default_rng(1).standard_normal((2, 3)))
    for layer in (layers.Multiply(dtype="float64"), layers.Average(dtype="float64"),
                  layers.Concatenate(dtype="float64"), layers.Maximum(dtype="float64")):
        assert_gradients_close(lambda x, y: layer([x, y]), [a, b])


def test_merge_layers_promote_integer_inputs_next_to_float_ones():
    a = np.arange(6, dtype=np.uint8).reshape(2, 3)
    b = np.ones((2, 3), np.float32)
    L = tf.keras.layers
    for layer in (L.Add(), L.Subtract(), L.Multiply(), L.Average(), L.Maximum(),
                  L.Concatenate()):
        assert layer([a, b]).dtype == tf.float32, type(layer).__name__
    assert L.Add()([a, a]).dtype == tf.uint8  # all-integer inputs keep their dtype


def test_merge_of_one_tensor_returns_it_and_ranks_expand_at_axis_1():
    # Keras 3: a one-tensor list comes back unchanged; a lower-rank input is expanded after
    # the batch axis until the ranks match, then the shapes broadcast
    L = tf.keras.layers
    for cls in (L.Add, L.Multiply, L.Average, L.Maximum, L.Minimum):
        np.testing.assert_array_equal(cls()([A]).numpy(), A)
    a = np.arange(8, dtype="float32").reshape(2, 4)
    b = np.arange(8, dtype="float32").reshape(2, 4, 1)
    out = L.Add()([a, b])
    assert out.shape == (2, 4, 4)
    np.testing.assert_array_equal(out.numpy(), a[:, None, :] + b)
    np.testing.assert_array_equal(L.subtract([b, a]).numpy(), b - a[:, None, :])
    c = np.array([10.0, 20.0], "float32")  # (2,) against (2, 3): c becomes (2, 1)
    np.testing.assert_array_equal(L.Add()([np.ones((2, 3), "float32"), c]).numpy(),
                                  1 + c[:, None] * np.ones((1, 3)))
    with pytest.raises(ValueError, match="incompatible shapes"):
        L.Add()([np.ones((2, 4)), np.ones((2, 4, 3))])  # (4,) vs (4, 3) without the batch axis
    with pytest.raises(ValueError, match="exactly 2"):
        L.Subtract()([A])


def test_merge_rejects_different_batch_sizes():
    L = tf.keras.layers
    for cls in (L.Add, L.Subtract, L.Multiply, L.Average, L.Maximum, L.Minimum):
        with pytest.raises(ValueError, match="different batch sizes"):
            cls()([np.ones((2, 3), "float32"), np.ones((1, 3), "float32")])
    assert L.Add().compute_output_shape([(None, 3), (4, 1)]) == (4, 3)


def test_concatenate_inputs_of_different_ranks_fail_in_the_concat_op():
    # Keras 3's shape check lets (2, 3) and (2,) through for axis=1 (it drops dim 1 of the
    # rank-2 shape only), so ConcatV2 rejects them with InvalidArgumentError
    L = tf.keras.layers
    with pytest.raises(tf.errors.InvalidArgumentError):
        L.Concatenate(axis=1)([np.ones((2, 3), "float32"), np.ones((2,), "float32")])
    with pytest.raises(ValueError, match="matching shapes") as info:
        L.Concatenate()([np.ones((2, 3), "float32"), np.ones((2,), "float32")])
    assert not isinstance(info.value, tf.errors.InvalidArgumentError)
    np.testing.assert_array_equal(L.Concatenate()([A]).numpy(), A)
