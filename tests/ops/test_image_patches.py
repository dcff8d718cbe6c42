"""tf.image.extract_patches: patch layout, padding and rates, empty and refused windows, gradients
(float64 finite differences, first and second order), and use inside tf.function."""
import numpy as np
import pytest

import minitf as tf
from minitf.gradient_checker import assert_gradients_close


def _patches(x, size, stride=(1, 1), rate=(1, 1), padding="VALID"):
    return tf.image.extract_patches(x, sizes=[1, *size, 1], strides=[1, *stride, 1], rates=[1, *rate, 1],
                                    padding=padding)


def _reference(x, size, stride, rate):
    """The VALID patches by explicit loops over windows, taps and channels."""
    n, h, w, c = x.shape
    kh, kw = size
    oh = (h - (kh - 1) * rate[0] - 1) // stride[0] + 1
    ow = (w - (kw - 1) * rate[1] - 1) // stride[1] + 1
    out = np.zeros((n, oh, ow, kh * kw * c), x.dtype)
    for i in range(oh):
        for j in range(ow):
            window = [x[:, i * stride[0] + a * rate[0], j * stride[1] + b * rate[1], :]
                      for a in range(kh) for b in range(kw)]
            out[:, i, j] = np.concatenate(window, axis=-1)
    return out


@pytest.mark.parametrize("size, stride, rate", [((2, 2), (2, 2), (1, 1)), ((3, 2), (1, 2), (2, 1)),
                                                ((1, 1), (3, 3), (1, 1)), ((2, 3), (2, 1), (1, 2))])
def test_valid_patches_are_the_windows_row_major(size, stride, rate):
    x = np.random.default_rng(0).integers(-9, 9, size=(2, 7, 8, 3)).astype(np.float32)
    np.testing.assert_array_equal(_patches(x, size, stride, rate).numpy(), _reference(x, size, stride, rate))


def test_same_padding_is_zeros_around_the_image():
    x = np.arange(1, 26, dtype=np.float32).reshape(1, 5, 5, 1)
    same = _patches(x, (3, 3), (2, 2), padding="SAME")
    assert same.shape == (1, 3, 3, 9)
    padded = np.pad(x, [(0, 0), (1, 1), (1, 1), (0, 0)])
    np.testing.assert_array_equal(same.numpy(), _reference(padded, (3, 3), (2, 2), (1, 1)))


def test_dtypes_empty_outputs_and_refusals():
    ints = _patches(np.arange(9, dtype=np.int64).reshape(1, 3, 3, 1), (2, 2))
    assert ints.dtype == tf.int64 and ints.numpy()[0, 0, 0].tolist() == [0, 1, 3, 4]
    assert _patches(np.ones((1, 2, 1, 1), np.float32), (2, 1), (2, 1), (2, 1)).shape == (1, 0, 1, 2)
    with pytest.raises(tf.errors.InvalidArgumentError, match="negative"):
        _patches(np.ones((1, 3, 3, 1), np.float32), (5, 5))
    with pytest.raises(tf.errors.UnimplementedError, match="across space"):
        tf.image.extract_patches(np.ones((1, 3, 3, 1)), [2, 1, 1, 1], [1, 1, 1, 1], [1, 1, 1, 1], "VALID")
    with pytest.raises(tf.errors.InvalidArgumentError, match="minimum 4"):
        tf.image.extract_patches(np.ones((1, 3, 3, 1)), [1, 2, 2], [1, 1, 1, 1], [1, 1, 1, 1], "VALID")
    with pytest.raises(tf.errors.InvalidArgumentError, match="4-dim"):
        tf.image.extract_patches(np.ones((3, 3, 1)), [1, 2, 2, 1], [1, 1, 1, 1], [1, 1, 1, 1], "VALID")
    with pytest.raises(tf.errors.InvalidArgumentError, match="padding"):
        _patches(np.ones((1, 3, 3, 1)), (2, 2), padding="same")


@pytest.mark.parametrize("padding", ["VALID", "SAME"])
def test_gradients_against_finite_differences(padding):
    x = tf.constant(np.random.default_rng(1).normal(size=(1, 4, 5, 2)))
    assert_gradients_close(lambda v: _patches(v, (2, 2), (1, 2), (2, 1), padding) ** 2, [x], order=2)


def test_traced_with_an_unknown_batch():
    @tf.function(input_signature=[tf.TensorSpec([None, 6, 6, 3])])
    def patches(images):
        return _patches(images, (3, 3), (3, 3))

    x = np.random.default_rng(2).normal(size=(2, 6, 6, 3)).astype(np.float32)
    assert patches.get_concrete_function().structured_outputs.shape.as_list() == [None, 2, 2, 27]
    np.testing.assert_array_equal(patches(x).numpy(), _patches(x, (3, 3), (3, 3)).numpy())
