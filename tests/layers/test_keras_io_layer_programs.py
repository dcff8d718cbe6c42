"""Behaviour found by running keras-io layer examples under minitf (our own small programs)."""
import numpy as np

import minitf as tf


def test_to_categorical_of_uint8_labels_is_float64_numpy():
    # A convnet tutorial one-hot encodes uint8 MNIST labels; Keras 3 hands back float64.
    labels = np.array([3, 0, 9, 3], dtype=np.uint8)
    onehot = tf.keras.utils.to_categorical(labels, 10)
    assert isinstance(onehot, np.ndarray)
    assert onehot.dtype == np.float64 and onehot.shape == (4, 10)
    np.testing.assert_array_equal(onehot.argmax(-1), labels)
    assert onehot.sum() == 4.0
