"""Tensor.set_shape (TF's eager semantics: a compatibility check) and integer indexing of string
tensors (the images tutorial's `parts[-2] == class_names`)."""
import numpy as np
import pytest

import minitf as tf


def test_set_shape_accepts_compatible_shapes():
    t = tf.constant([[1, 2, 3]])
    for shape in ([1, 3], [None, 3], (1, None), None, tf.TensorShape([1, 3])):
        assert t.set_shape(shape) is None
    assert t.shape == (1, 3)


@pytest.mark.parametrize("shape", [[2, 3], [3], [1, 3, 1]])
def test_set_shape_rejects_incompatible_shapes(shape):
    t = tf.constant([[1, 2, 3]])
    with pytest.raises(ValueError, match=r"Tensor's shape \(1, 3\) is not compatible with supplied shape"):
        t.set_shape(shape)


def test_indexing_a_string_tensor_keeps_the_string_dtype():
    parts = tf.strings.split(tf.constant("data/roses/img.jpg"), "/")
    name = parts[-2]
    assert name.dtype == tf.string and name.shape == ()
    assert name.numpy() == b"roses"
    eq = parts[-2] == np.array(["daisy", "roses", "tulips"])
    assert eq.numpy().tolist() == [False, True, False]
    assert tf.argmax(tf.cast(eq, tf.int32)).numpy() == 1


def test_indexing_numeric_tensors_keeps_their_dtype():
    assert tf.constant([1.5, 2.5])[1].dtype == tf.float32
    assert tf.constant([[1, 2]], dtype=tf.int64)[0, 1].dtype == tf.int64
