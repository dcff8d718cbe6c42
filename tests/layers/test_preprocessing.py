"""Rescaling, Normalization, CategoryEncoding, Hashing and Discretization (numeric preprocessing)."""
import numpy as np
import pytest

import minitf as tf
from minitf import gradient_checker, layers


def test_rescaling_casts_and_scales():
    y = layers.Rescaling(1.0 / 255, offset=-0.5)(np.array([[0, 255]], "uint8"))
    assert y.dtype == tf.float32
    np.testing.assert_allclose(y.numpy(), [[-0.5, 0.5]], rtol=1e-6)


def test_normalization_fixed_statistics_and_invert():
    y = layers.Normalization(mean=3.0, variance=2.0)(np.array([[1.0], [2.0], [3.0]], "float32"))
    np.testing.assert_allclose(y.numpy(), [[-1.4142135], [-0.70710677], [0.0]], rtol=1e-6)
    inv = layers.Normalization(mean=[1.0, 2.0], variance=[4.0, 9.0], invert=True)
    np.testing.assert_allclose(inv(np.array([[1.0, 1.0]], "float32")).numpy(), [[3.0, 5.0]])
    assert inv.weights == []


def test_normalization_adapt_weights_in_keras_order():
    layer = layers.Normalization(axis=-1)
    data = np.array([[0.0, 7.0, 4.0], [2.0, 9.0, 6.0], [0.0, 7.0, 4.0], [2.0, 9.0, 6.0]], "float32")
    layer.adapt(data)
    assert [w.name for w in layer.weights] == ["mean", "variance", "count"]
    assert [w.dtype for w in layer.weights] == [tf.float32, tf.float32, tf.int64]
    assert layer.trainable_weights == []
    np.testing.assert_allclose(layer.weights[0].numpy(), [1.0, 8.0, 5.0])
    np.testing.assert_allclose(layer.weights[1].numpy(), [1.0, 1.0, 1.0])
    np.testing.assert_allclose(layer(data[:1]).numpy(), [[-1.0, -1.0, -1.0]], rtol=1e-6)


def test_normalization_adapt_dataset_batches_match_the_whole_array():
    data = np.random.RandomState(0).randn(37, 2, 3).astype("float32") * 3 + 1
    whole = layers.Normalization(axis=(1, 2))
    whole.adapt(data)
    batched = layers.Normalization(axis=(1, 2))
    batched.adapt(tf.data.Dataset.from_tensor_slices(data).batch(5))
    np.testing.assert_allclose(batched.weights[0].numpy(), whole.weights[0].numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(batched.weights[1].numpy(), whole.weights[1].numpy(), rtol=1e-5)
    np.testing.assert_allclose(whole.weights[0].numpy(), data.mean(axis=0), rtol=1e-5, atol=1e-6)
    # a dataset of single rank-1 samples is batched by the layer; a list of batches works too
    flat = np.random.RandomState(1).rand(300, 4)
    unbatched = layers.Normalization()
    unbatched.adapt(tf.data.Dataset.from_tensor_slices(flat))
    np.testing.assert_allclose(unbatched.weights[1].numpy(), flat.var(axis=0), rtol=1e-5)
    listed = layers.Normalization()
    listed.adapt(iter([flat[:100], flat[100:]]))
    np.testing.assert_allclose(listed.weights[0].numpy(), flat.mean(axis=0), rtol=1e-5)


def test_normalization_axis_none_and_errors():
    layer = layers.Normalization(axis=None)
    layer.adapt(np.array([1.0, 2.0, 3.0, 4.0]))
    assert layer.weights[0].shape == ()
    np.testing.assert_allclose(layer.weights[0].numpy(), 2.5)
    with pytest.raises(ValueError, match="both `mean` and `variance`"):
        layers.Normalization(mean=1.0)
    with pytest.raises(ValueError, match="adapt"):
        layers.Normalization().adapt(iter([]))
    built = layers.Normalization()
    built.build((None, 3))
    with pytest.raises(ValueError, match="incompatible shape"):
        built.adapt(np.zeros((4, 2)))


def test_normalization_gradient_is_finite_difference_exact():
    layer = layers.Normalization(mean=[1.0, -2.0], variance=[4.0, 0.25], dtype="float64")
    x = tf.constant(np.random.RandomState(0).randn(3, 2))
    theoretical, numerical = gradient_checker.compute_gradient(lambda t: layer(t), [x])
    assert gradient_checker.max_error(theoretical, numerical) < 1e-6
    np.testing.assert_allclose(theoretical[0].diagonal(), np.tile([0.5, 2.0], 3), rtol=1e-6)


def test_rescaling_gradient():
    layer = layers.Rescaling(0.5, offset=1.0, dtype="float64")
    x = tf.constant(np.random.RandomState(0).randn(2, 3))
    theoretical, numerical = gradient_checker.compute_gradient(lambda t: layer(t), [x])
    assert gradient_checker.max_error(theoretical, numerical) < 1e-6


def test_normalization_in_a_model_and_config_round_trip():
    layer = layers.Normalization(axis=-1, name="norm")
    layer.adapt(np.array([[1.0, 10.0], [3.0, 30.0]]))
    model = tf.keras.Sequential([tf.keras.Input((2,)), layer])
    y = model.predict(np.array([[2.0, 20.0]]), verbose=0)
    np.testing.assert_allclose(y, [[0.0, 0.0]], atol=1e-6)
    config = layer.get_config()
    assert config["axis"] == (-1,) and config["mean"] is None and config["invert"] is False
    clone = layers.Normalization.from_config(config)
    clone.build((None, 2))
    clone.set_weights(layer.get_weights())
    np.testing.assert_allclose(clone(np.array([[3.0, 30.0]])).numpy(), [[1.0, 1.0]], rtol=1e-6)


def test_category_encoding_modes():
    ids = np.array([[0, 1], [2, 2]])
    np.testing.assert_array_equal(layers.CategoryEncoding(4)(ids).numpy(), [[1, 1, 0, 0], [0, 0, 1, 0]])
    np.testing.assert_array_equal(layers.CategoryEncoding(4, output_mode="count")(ids).numpy(),
                                  [[1, 1, 0, 0], [0, 0, 2, 0]])
    one_hot = layers.CategoryEncoding(3, output_mode="one_hot")(np.array([[0], [2]]))
    np.testing.assert_array_equal(one_hot.numpy(), [[1, 0, 0], [0, 0, 1]])
    weighted = layers.CategoryEncoding(3, output_mode="count")(ids[:, :1] * 0 + [[1], [1]],
                                                              count_weights=np.array([[0.5], [2.0]]))
    np.testing.assert_allclose(weighted.numpy(), [[0, 0.5, 0], [0, 2.0, 0]])
    with pytest.raises(tf.errors.InvalidArgumentError, match="num_tokens=4"):
        layers.CategoryEncoding(4)(np.array([[5]]))
    with pytest.raises(ValueError, match="num_tokens"):
        layers.CategoryEncoding()


def test_hashing_matches_fingerprint_buckets():
    out = layers.Hashing(num_bins=3)(np.array([["A"], ["B"], ["C"], ["D"], ["E"]]))
    np.testing.assert_array_equal(out.numpy(), [[1], [0], [1], [1], [2]])
    masked = layers.Hashing(num_bins=3, mask_value="")(np.array([["A"], [""]]))
    assert masked.numpy()[1, 0] == 0 and masked.numpy()[0, 0] in (1, 2)
    assert layers.Hashing(num_bins=3)(np.array([[1], [2]])).dtype == tf.int64
    with pytest.raises(NotImplementedError, match="salt"):
        layers.Hashing(num_bins=3, salt=1)


def test_discretization_boundaries_and_adapt():
    layer = layers.Discretization(bin_boundaries=[0.0, 1.0, 2.0])
    np.testing.assert_array_equal(layer(np.array([[-1.5, 1.0, 3.0, 0.5]])).numpy(), [[0, 2, 3, 1]])
    learnt = layers.Discretization(num_bins=3)
    learnt.adapt(np.arange(8.0))
    np.testing.assert_allclose(learnt.bin_boundaries, [1.6666666, 4.3333335], rtol=1e-6)  # Keras' values
    batched = layers.Discretization(num_bins=5)
    batched.adapt(tf.data.Dataset.from_tensor_slices(np.array([1.0, 1, 1, 2, 5, 9])).batch(6))
    np.testing.assert_allclose(batched.bin_boundaries, [1.0, 1.0, 1.6, 4.4], rtol=1e-6)
    assert learnt.get_config()["bin_boundaries"] == learnt.bin_boundaries
    one_hot = layers.Discretization(bin_boundaries=[0.0], output_mode="one_hot")(np.array([-1.0, 1.0]))
    np.testing.assert_array_equal(one_hot.numpy(), [[1, 0], [0, 1]])


def test_normalization_exposes_mean_and_variance_as_keras():
    # tutorials/keras/regression prints normalizer.mean.numpy() after adapt
    layer = tf.keras.layers.Normalization(axis=-1)
    assert layer.mean is None and layer.variance is None
    layer.adapt(np.array([[1.0, 2.0], [3.0, 6.0], [5.0, 10.0]], np.float32))
    np.testing.assert_allclose(layer.mean.numpy(), [[3.0, 6.0]])
    np.testing.assert_allclose(layer.variance.numpy(), [[8 / 3, 32 / 3]], rtol=1e-6)
    fixed = tf.keras.layers.Normalization(mean=[1.0, 2.0], variance=[4.0, 9.0])
    fixed.build((None, 2))
    np.testing.assert_allclose(fixed.variance.numpy(), [[4.0, 9.0]])
