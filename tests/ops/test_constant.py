"""convert_to_tensor / constant / cast, checked against what TF 2.21 does."""
import numpy as np
import pytest

import minitf as tf


def test_python_ints_wrap_into_a_requested_integer_dtype():
    assert tf.constant(300, tf.int8).numpy() == 44
    assert tf.convert_to_tensor(-1, tf.uint8).numpy() == 255
    assert tf.convert_to_tensor(2**40, tf.int32).numpy() == 0
    np.testing.assert_array_equal(tf.convert_to_tensor([1, 300], tf.uint8).numpy(), [1, 44])
    # uint64 wraps the same way (TF's own result there varies: 2**64-1, a SystemError or an abort)
    assert tf.constant(-3, tf.uint64).numpy() == 2**64 - 3
    assert tf.convert_to_tensor(-1, tf.uint64).numpy() == 2**64 - 1


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


def test_cast_to_or_from_string_is_unimplemented():
    with pytest.raises(tf.errors.UnimplementedError, match="Cast string to int32"):
        tf.cast(tf.constant("3"), tf.int32)
    with pytest.raises(tf.errors.UnimplementedError, match="Cast float32 to string"):
        tf.cast(tf.constant(1.0), tf.string)
    assert tf.cast(tf.constant("a"), tf.string).numpy() == b"a"


def test_float_to_int_cast_truncates_and_wraps_like_tf():
    x = tf.constant([127.5, -129.5, 300.0, -1.0, 65504.0, np.nan, np.inf, -np.inf, 0.5, -0.7], tf.float16)
    np.testing.assert_array_equal(tf.cast(x, tf.int8).numpy(), [127, 127, 44, -1, -32, 0, 0, 0, 0, 0])
    np.testing.assert_array_equal(tf.cast(x, tf.uint8).numpy(), [127, 127, 44, 255, 224, 0, 0, 0, 0, 0])
    y = tf.constant([3e9, np.nan, -np.inf, 2.0**31, -7.9], tf.float32)
    i32 = -2**31
    np.testing.assert_array_equal(tf.cast(y, tf.int32).numpy(), [i32, i32, i32, i32, -7])
    np.testing.assert_array_equal(tf.cast(y, tf.int64).numpy(), [3000000000, -2**63, -2**63, 2**31, -7])


def test_saturate_cast_clamps_with_tfs_limits():
    x = tf.constant([127.5, -129.5, 300.0, np.inf, -np.inf, np.nan], tf.float32)
    np.testing.assert_array_equal(tf.saturate_cast(x, tf.int8).numpy(), [127, -128, 127, 127, -128, 0])
    np.testing.assert_array_equal(tf.saturate_cast(x, tf.int32).numpy()[:5],
                                  [127, -129, 300, 2147483520, -2**31])
    h = tf.saturate_cast(tf.constant([1e10, -np.inf, np.nan]), tf.float16).numpy()
    np.testing.assert_array_equal(h[:2], [65504.0, -65504.0])
    assert np.isnan(h[2])
    np.testing.assert_array_equal(tf.saturate_cast(tf.constant([-128, 127, -1], tf.int8), tf.uint8).numpy(),
                                  [0, 127, 0])
    np.testing.assert_array_equal(tf.saturate_cast(tf.constant([300, -1, 2**40], tf.int64), tf.int16).numpy(),
                                  [300, -1, 32767])
    # TF's limit for int64 -> uint64 overflows, so everything lands on 0
    np.testing.assert_array_equal(tf.saturate_cast(tf.constant([5, -5], tf.int64), tf.uint64).numpy(), [0, 0])
    np.testing.assert_allclose(tf.saturate_cast(tf.constant([1e40 + 1j]), tf.complex64).numpy(),
                               [np.finfo(np.float32).max + 1j])


def test_saturate_cast_refuses_bool_string_and_unclampable_inputs():
    with pytest.raises(TypeError):
        tf.saturate_cast(tf.constant([True]), tf.int8)
    with pytest.raises(TypeError):
        tf.saturate_cast(tf.constant([1]), tf.string)
    with pytest.raises(tf.errors.NotFoundError):
        tf.saturate_cast(tf.constant([1], tf.uint32), tf.int8)


def test_empty_list_converts_to_any_dtype():
    for dtype in (tf.bool, tf.int8, tf.uint64, tf.string):
        t = tf.convert_to_tensor([[]], dtype)
        assert t.dtype == dtype and t.shape == (1, 0)
    assert tf.logical_and([], tf.constant(True)).shape == (0,)


def test_python_values_tf_cannot_convert_raise_value_error():
    for bad in (None, [None], object(), {"a": 1}, {1}):
        with pytest.raises(ValueError, match="unsupported type"):
            tf.constant(bad)
    for mixed in ([1, None], [True, 1], ["a", 1], [True, 1.5]):
        with pytest.raises(ValueError, match="mixed types"):
            tf.constant(mixed)
    with pytest.raises(ValueError, match="non-rectangular"):
        tf.constant([[1, 2], [3]])
    with pytest.raises(ValueError, match="out of range"):
        tf.constant(1e40)  # beyond float32, the default float dtype
    assert tf.constant(1e40, tf.float64).numpy() == 1e40
    assert tf.constant([b"a", "b"]).numpy().tolist() == [b"a", b"b"]


def test_constant_and_convert_to_tensor_with_tensors_follow_tf():
    t = tf.constant([1.0, 2.0])
    with pytest.raises(TypeError, match="Expected tensor"):
        tf.constant(t, dtype=tf.int32)
    assert tf.constant(tf.Variable(1.0), tf.float64).dtype == tf.float64  # variables are cast
    with pytest.raises(ValueError):
        tf.constant([t, t])
    packed = tf.convert_to_tensor([tf.constant(3.0), 2])  # 2 takes the tensor's dtype
    assert packed.dtype == tf.float32 and packed.numpy().tolist() == [3.0, 2.0]


def test_bytes_in_lists_keep_their_trailing_nul_bytes():
    # numpy's 'S' arrays strip them; serialized protos (tf.train.Example) end in NULs often
    t = tf.constant([b"a\x00", b"\x00\x00", b"b"])
    assert t.numpy().tolist() == [b"a\x00", b"\x00\x00", b"b"]
    assert tf.constant([[b"x\x00"]]).numpy()[0, 0] == b"x\x00"


def test_a_fully_known_tensor_shape_converts_to_its_dimensions():
    # TF 2.21: int32 (int64 on request), and a ValueError for unknown dimensions
    t = tf.convert_to_tensor(tf.TensorShape([5, 8]))
    assert t.dtype == tf.int32 and t.numpy().tolist() == [5, 8]
    assert int(tf.reduce_prod(tf.TensorShape([5, 8]))) == 40  # the advanced-autodiff guide's n_params
    assert tf.convert_to_tensor(tf.TensorShape([5, 8]), dtype=tf.int64).dtype == tf.int64
    assert tf.convert_to_tensor(tf.TensorShape([])).shape == (0,)
    with pytest.raises(ValueError, match=r"partially known TensorShape \(None, 8\)"):
        tf.convert_to_tensor(tf.TensorShape([None, 8]))
