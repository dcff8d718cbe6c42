"""Max/average pooling and global pooling."""
import numpy as np
import pytest

import minitf as tf
from minitf import layers


def test_max_and_average_pooling_values():
    x = np.arange(16, dtype="float32").reshape(1, 4, 4, 1)
    mx = layers.MaxPooling2D()(x).numpy()[0, :, :, 0]
    av = layers.AveragePooling2D(2)(x).numpy()[0, :, :, 0]
    np.testing.assert_array_equal(mx, [[5, 7], [13, 15]])
    np.testing.assert_allclose(av, [[2.5, 4.5], [10.5, 12.5]])


@pytest.mark.parametrize("layer,in_shape,out_shape", [
    (lambda: layers.MaxPooling2D(3, strides=2, padding="same"), (1, 7, 7, 2), (1, 4, 4, 2)),
    (lambda: layers.AveragePooling2D((2, 3)), (2, 6, 6, 1), (2, 3, 2, 1)),
    (lambda: layers.MaxPooling1D(2), (2, 7, 3), (2, 3, 3)),
    (lambda: layers.GlobalAveragePooling2D(), (2, 3, 4, 5), (2, 5)),
    (lambda: layers.GlobalMaxPooling2D(keepdims=True), (2, 3, 4, 5), (2, 1, 1, 5)),
    (lambda: layers.GlobalAveragePooling1D(), (2, 3, 4), (2, 4)),
])
def test_shapes(layer, in_shape, out_shape):
    lay = layer()
    y = lay(np.ones(in_shape, "float32"))
    assert tuple(y.shape.as_list()) == out_shape and y.dtype == tf.float32
    assert lay.compute_output_shape((None,) + in_shape[1:]).as_list() == [None, *out_shape[1:]]
    assert lay.weights == []


def test_global_pooling_values():
    x = np.random.default_rng(0).standard_normal((2, 3, 4, 5)).astype("float32")
    np.testing.assert_allclose(layers.GlobalAveragePooling2D()(x).numpy(), x.mean(axis=(1, 2)),
                               rtol=1e-5)
    np.testing.assert_allclose(layers.GlobalMaxPooling2D()(x).numpy(), x.max(axis=(1, 2)))


def test_pooling_input_gradients(input_grads_close):
    x = np.random.default_rng(2).standard_normal((1, 4, 4, 2))
    input_grads_close(layers.AveragePooling2D(2, dtype="float64"), x)
    input_grads_close(layers.MaxPooling2D(dtype="float64"), x)
    input_grads_close(layers.GlobalAveragePooling2D(dtype="float64"), x)


def test_global_average_pooling_of_integers_is_float32_and_max_keeps_dtype():
    x = np.arange(2 * 4 * 4 * 3, dtype=np.uint8).reshape(2, 4, 4, 3)
    assert tf.keras.layers.GlobalAveragePooling2D()(x).dtype == tf.float32
    assert tf.keras.layers.GlobalMaxPooling2D()(x).dtype == tf.uint8
    np.testing.assert_allclose(tf.keras.layers.GlobalAveragePooling2D()(x).numpy(),
                               x.mean(axis=(1, 2)), rtol=1e-6)


def test_average_pooling_needs_pool_size_and_max_pooling_defaults_to_2():
    # Keras 3: AveragePooling1D/2D have no default pool_size; MaxPooling1D/2D default to 2
    for cls in (layers.AveragePooling1D, layers.AveragePooling2D):
        with pytest.raises(TypeError, match="pool_size"):
            cls()
    assert layers.MaxPooling1D().pool_size == (2,)
    assert layers.MaxPooling2D().pool_size == (2, 2)


def test_unknown_padding_is_kept_and_fails_in_the_pooling_op():
    # Keras 3 accepts any padding at construction; the MaxPool/AvgPool op rejects it at call
    layer = layers.MaxPooling2D(padding="bogus")
    assert layer.get_config()["padding"] == "bogus"
    with pytest.raises(tf.errors.InvalidArgumentError, match="padding"):
        layer(np.ones((1, 4, 4, 1), "float32"))
    with pytest.raises(tf.errors.InvalidArgumentError, match="AvgPool"):
        layers.AveragePooling1D(2, padding="bogus")(np.ones((1, 4, 1), "float32"))
    assert layers.MaxPooling2D(padding="SAME")(np.ones((1, 3, 3, 1), "float32")).shape == (1, 2, 2, 1)
