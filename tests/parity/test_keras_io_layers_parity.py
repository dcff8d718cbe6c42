"""TF comparisons for behaviour found by running keras-io layer examples under minitf."""
import numpy as np
import pytest

import minitf

tf = pytest.importorskip("tensorflow")


@pytest.mark.parametrize("labels", [np.array([1, 0, 2], np.uint8), np.array([[2], [0]], np.int32),
                                    [0, 4, 1]])
def test_to_categorical_matches_keras(labels):
    ours = minitf.keras.utils.to_categorical(labels, 5)
    theirs = tf.keras.utils.to_categorical(labels, 5)
    assert ours.dtype == theirs.dtype and ours.shape == theirs.shape
    np.testing.assert_array_equal(ours, theirs)
