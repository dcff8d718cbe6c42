"""SparseTensor inputs to Keras models (guide/sparse_tensor): Dense multiplies them with a
sparse-dense product, as Keras 3's ops.matmul does on TF; fit/evaluate/predict cut sparse arrays
into batches by rows; tf.cast casts a SparseTensor's (or RaggedTensor's) values."""
import numpy as np
import pytest

import minitf as tf


def sparse_data():
    return tf.sparse.SparseTensor(indices=[(0, 0), (0, 1), (0, 2), (4, 3), (5, 0), (5, 1)],
                                  values=[1, 1, 1, 1, 1, 1], dense_shape=(6, 4))


def test_cast_of_composites():
    cast = tf.cast(sparse_data(), tf.float32)
    assert isinstance(cast, tf.SparseTensor) and cast.dtype == tf.float32
    assert cast.indices.numpy().tolist() == sparse_data().indices.numpy().tolist()
    rt = tf.cast(tf.ragged.constant([[1], [2, 3]]), tf.float64)
    assert rt.dtype == tf.float64 and rt.to_list() == [[1.0], [2.0, 3.0]]
    with pytest.raises(ValueError, match="unsupported type"):
        tf.cast(object(), tf.float32)


def test_dense_on_a_sparse_input_is_the_dense_product():
    x = tf.keras.Input(shape=(4,), sparse=True)
    model = tf.keras.Model(x, tf.keras.layers.Dense(4)(x))
    out = model(sparse_data())
    dense = tf.sparse.to_dense(tf.cast(sparse_data(), tf.float32))
    expected = model(dense)
    assert out.dtype == tf.float32 and out.shape == (6, 4)
    np.testing.assert_allclose(out.numpy(), expected.numpy(), rtol=1e-6)
    assert not out.numpy()[1:4].any()
    predicted = model.predict(sparse_data(), batch_size=4, verbose=0)
    np.testing.assert_allclose(predicted, expected.numpy(), rtol=1e-6)


def test_fit_on_sparse_inputs_trains_the_kernel():
    x = tf.keras.Input(shape=(4,), sparse=True)
    layer = tf.keras.layers.Dense(1)
    model = tf.keras.Model(x, layer(x))
    model.compile(optimizer="sgd", loss="mse")
    before = layer.kernel.numpy().copy()
    y = np.arange(6, dtype=np.float32).reshape(6, 1)
    history = model.fit(sparse_data(), y, batch_size=4, epochs=2, shuffle=True, verbose=0)
    assert len(history.history["loss"]) == 2 and not np.allclose(layer.kernel.numpy(), before)
    assert np.isfinite(model.evaluate(sparse_data(), y, batch_size=3, verbose=0))


def test_compare_with_tensorflow():
    tf_ref = pytest.importorskip("tensorflow")
    kernel = np.arange(8, dtype=np.float32).reshape(4, 2) / 8

    def run(lib):
        sp = lib.sparse.SparseTensor(indices=[(0, 0), (0, 1), (4, 3), (5, 1)], values=[1, 2, 3, 4],
                                     dense_shape=(6, 4))
        x = lib.keras.Input(shape=(4,), sparse=True)
        layer = lib.keras.layers.Dense(2, kernel_initializer=lib.keras.initializers.Constant(kernel))
        model = lib.keras.Model(x, layer(x))
        return [model(sp).numpy().tolist(), model.predict(sp, batch_size=4, verbose=0).tolist(),
                lib.cast(sp, lib.float16).values.numpy().tolist()]
    assert run(tf) == run(tf_ref)
