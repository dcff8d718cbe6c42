"""tf.TensorArray (eager): write/read/stack/unstack/gather/scatter/split/concat, errors, gradients."""
import numpy as np
import pytest

import minitf as tf
from minitf.gradient_checker import assert_gradients_close


def test_write_read_stack_size():
    ta = tf.TensorArray(tf.float32, size=0, dynamic_size=True, clear_after_read=False)
    assert ta.write(0, 10) is ta  # eagerly the array changes in place and returns itself
    ta = ta.write(1, 20).write(2, 30)
    assert ta.read(1).numpy() == 20.0 and ta.read(1).dtype == tf.float32
    assert ta.stack().numpy().tolist() == [10.0, 20.0, 30.0]
    assert ta.gather([2, 0]).numpy().tolist() == [30.0, 10.0]
    assert ta.size().numpy() == 3 and ta.size().dtype == tf.int32
    assert ta.element_shape == tf.TensorShape([])


def test_unwritten_elements_read_as_zeros():
    ta = tf.TensorArray(tf.int32, size=2, element_shape=[2])
    np.testing.assert_array_equal(ta.stack().numpy(), np.zeros((2, 2), np.int32))
    assert tf.TensorArray(tf.float32, size=0, element_shape=[3]).stack().shape == (0, 3)


def test_unstack_scatter_split_concat():
    ta = tf.TensorArray(tf.float32, size=2).unstack([[1.0, 2.0], [3.0, 4.0]])
    assert ta.read(1).numpy().tolist() == [3.0, 4.0]
    ta = tf.TensorArray(tf.float32, size=3).scatter([2, 0], [[1.0, 2.0], [3.0, 4.0]])
    assert ta.stack().numpy().tolist() == [[3.0, 4.0], [0.0, 0.0], [1.0, 2.0]]
    ta = tf.TensorArray(tf.float32, size=2, clear_after_read=False).split([1.0, 2.0, 3.0], [1, 2])
    assert ta.read(1).numpy().tolist() == [2.0, 3.0]
    assert ta.concat().numpy().tolist() == [1.0, 2.0, 3.0]


def test_errors():
    ta = tf.TensorArray(tf.float32, size=3)
    with pytest.raises(tf.errors.OutOfRangeError, match="not resizeable"):
        ta.write(3, 1.0)
    with pytest.raises(tf.errors.OutOfRangeError, match="array size is: 3"):
        ta.read(5)
    with pytest.raises(tf.errors.OutOfRangeError, match="negative"):
        ta.read(-1)
    with pytest.raises(tf.errors.InvalidArgumentError, match="dtype is float32 but Op is trying to write"):
        ta.write(0, tf.constant(1))
    ta.write(0, 1.5).read(0)
    with pytest.raises(tf.errors.InvalidArgumentError, match="clear_after_read"):
        ta.read(0)
    with pytest.raises(ValueError, match="Incompatible shape"):
        tf.TensorArray(tf.float32, size=2).write(0, [1.0]).write(1, [1.0, 2.0])
    with pytest.raises(ValueError, match="Cannot unstack 2 tensors"):
        tf.TensorArray(tf.float32, size=1).unstack([1.0, 2.0])
    with pytest.raises(tf.errors.InvalidArgumentError, match="sum of lengths"):
        tf.TensorArray(tf.float32, size=2).split([1.0, 2.0, 3.0], [1, 1])
    with pytest.raises(tf.errors.InvalidArgumentError, match="scalar shape at index 0"):
        tf.TensorArray(tf.float32, size=1).write(0, 1.0).concat()
    with pytest.raises(ValueError, match="Size must be declared"):
        tf.TensorArray(tf.float32)


def test_stack_of_written_tensors_is_differentiable():
    x = tf.Variable([1.0, 2.0])
    with tf.GradientTape() as tape:
        ta = tf.TensorArray(tf.float32, size=2)
        ta = ta.write(0, x * 2.0).write(1, x * x)
        y = tf.reduce_sum(ta.stack() * tf.constant([[1.0, 1.0], [3.0, 3.0]]))
    assert tape.gradient(y, x).numpy().tolist() == [8.0, 14.0]


def test_gradients_match_finite_differences():
    def f(x):
        ta = tf.TensorArray(tf.float64, size=0, dynamic_size=True, clear_after_read=False)
        ta = ta.unstack(x * x)
        ta = ta.write(3, ta.read(0) * ta.read(2))
        return tf.concat([ta.stack(), ta.gather([1, 3])], 0)
    assert_gradients_close(f, [tf.constant(np.random.default_rng(0).normal(size=(3, 2)))])
