"""convert_to_tensor / constant / cast, checked against what TF 2.21 does."""
import numpy as np
import pytest

import minitf as tf


def test_python_ints_wrap_into_a_requested_integer_dtype():
    assert tf.constant(300, tf.int8).numpy() == 44
    assert tf.convert_to_tensor(-1, tf.uint8).numpy() == 255
    assert tf.convert_to_tensor(2**40, tf.int32).numpy() == 0
    np.testing.assert_array_equal(tf.convert_to_tensor([1, 300], tf.uint8).numpy(), [1, 44])


def test_python_ints_past_int64_raise_value_error():
    for dtype in (tf.int8, tf.int64, tf.bool):
        with pytest.raises(ValueError):
            tf.convert_to_tensor(2**63, dtype)
    assert tf.convert_to_tensor(2**63, tf.float32).numpy() == np.float32(2**63)


def test_conversions_tf_refuses_raise_type_error():
    for value, dtype in [(True, tf.int8), ([True, False], tf.uint16), (2, tf.bool), (2.5, tf.int32),
                         ("a", tf.int32), (b"a", tf.float32), (1, tf.string), (1 + 2j, tf.float32)]:
        with pytest.raises(TypeError):
            tf.convert_to_tensor(value, dtype)
    assert tf.convert_to_tensor(True, tf.int32).numpy() == 1


def test_numpy_values_do_not_turn_into_strings():
    with pytest.raises(ValueError):
        tf.convert_to_tensor(np.float32(2.5), tf.string)
