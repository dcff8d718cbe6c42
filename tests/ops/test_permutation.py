"""tf.math.invert_permutation: inverse values, dtypes and TF's errors."""
import numpy as np
import pytest

import minitf as tf


def test_inverse_and_dtypes():
    y = tf.math.invert_permutation([3, 4, 0, 2, 1])
    assert y.dtype == tf.int32
    np.testing.assert_array_equal(y.numpy(), [2, 4, 3, 0, 1])
    assert tf.math.invert_permutation(tf.constant([1, 0], tf.int64)).dtype == tf.int64
    empty = tf.math.invert_permutation([])
    assert empty.shape == (0,) and empty.dtype == tf.int32


@pytest.mark.parametrize("bad,match", [([0, 0], "duplicated"), ([1, 2], "not between 0 and 2"),
                                       ([-1, 0], "not between"), ([[0]], "1D"), ([0.0, 1.0], "float32")])
def test_errors(bad, match):
    with pytest.raises(tf.errors.InvalidArgumentError, match=match):
        tf.math.invert_permutation(bad)
