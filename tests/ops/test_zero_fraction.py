"""tf.math.zero_fraction (tf.nn.zero_fraction): fractions per dtype, NaN and empty inputs."""
import numpy as np

import minitf as tf


def test_fractions():
    assert tf.nn.zero_fraction is tf.math.zero_fraction
    y = tf.math.zero_fraction([0, 1, 0, 2])
    assert y.dtype == tf.float32 and y.shape == () and y.numpy() == 0.5
    # -0 counts as zero, NaN does not; float32(2) / float32(3) as TF divides
    got = tf.math.zero_fraction(tf.constant([0.0, -0.0, np.nan], tf.float16)).numpy()
    assert got == np.float32(2) / np.float32(3)
    assert tf.math.zero_fraction([True, False]).numpy() == 0.5
    assert tf.math.zero_fraction(tf.constant(["", "a"])).numpy() == 0.5


def test_empty_is_nan():
    assert np.isnan(tf.math.zero_fraction(tf.zeros([2, 0])).numpy())
