"""Tensor: construction rules, properties, Python protocols and operators."""
import numpy as np
import pytest

import minitf as tf


def test_python_scalars_follow_tf_dtypes():
    assert tf.constant(1.5).dtype == tf.float32
    assert tf.constant(2).dtype == tf.int32
    assert tf.constant(True).dtype == tf.bool
    assert tf.constant([1, 2.5]).dtype == tf.float32
    assert tf.constant(2**40).dtype == tf.int64


def test_python_floats_past_float32_are_refused_only_when_they_round_to_inf():
    """float32's max written to 8 digits (3.4028235e38) is above the max but rounds to it, so it
    converts (TF does too); from max + half a step up the value would be inf and is refused."""
    top = float(np.finfo(np.float32).max)
    assert tf.constant([3.4028235e38, -3.4028235e38]).numpy().tolist() == [top, -top]
    assert tf.constant([float(np.nextafter(2.0 ** 128 - 2.0 ** 103, 0))]).numpy()[0] == np.float32(top)
    for value in (2.0 ** 128 - 2.0 ** 103, -1e39, 1e39):
        with pytest.raises(ValueError, match="out of range for float32.*dtype=tf.float64"):
            tf.constant([1.0, value])
    assert tf.constant(1e39, dtype=tf.float64).numpy() == 1e39


def test_numpy_arrays_keep_dtype():
    assert tf.constant(np.ones(2)).dtype == tf.float64
    assert tf.constant(np.ones(2, np.uint8)).dtype == tf.uint8
    assert tf.convert_to_tensor(np.float64(1.0)).dtype == tf.float64


def test_constant_dtype_shape_and_errors():
    t = tf.constant(0, shape=[2, 3])
    assert t.shape == (2, 3) and t.numpy().sum() == 0
    assert tf.constant([1, 2, 3, 4, 5, 6], shape=[2, 3]).numpy()[1, 0] == 4
    assert tf.constant(1, dtype=tf.float64).dtype == tf.float64
    with pytest.raises(TypeError):
        tf.constant([1, 2, 3], shape=[2, 2])
    with pytest.raises(TypeError):
        tf.constant(1.5, dtype=tf.int32)


def test_convert_to_tensor_dtype_mismatch_is_value_error():
    with pytest.raises(ValueError, match="int32"):
        tf.convert_to_tensor(tf.constant(1.0), dtype=tf.int32)


def test_repr_and_str_in_tf_form():
    assert repr(tf.constant(6.0)) == "<tf.Tensor: shape=(), dtype=float32, numpy=6.0>"
    assert repr(tf.constant([1, 2])) == \
        "<tf.Tensor: shape=(2,), dtype=int32, numpy=array([1, 2], dtype=int32)>"
    assert str(tf.constant(6.0)) == "tf.Tensor(6.0, shape=(), dtype=float32)"


def test_shape_object():
    t = tf.zeros([2, 3, 4])
    assert t.shape.as_list() == [2, 3, 4]
    assert t.shape.rank == 3 and t.ndim == 3
    assert t.shape[1] == 3 and t.shape[1:] == tf.TensorShape([3, 4])
    assert t.shape.num_elements() == 24
    assert str(tf.zeros([5]).shape) == "(5,)"


def test_numpy_and_array_protocol():
    t = tf.constant([[1.0, 2.0]])
    assert isinstance(t.numpy(), np.ndarray)
    assert isinstance(tf.constant(2.0).numpy(), np.float32)
    np.testing.assert_array_equal(np.asarray(t), [[1.0, 2.0]])


def test_scalar_python_conversions():
    assert bool(tf.constant(True)) and not bool(tf.constant(0.0))
    assert float(tf.constant(2.5)) == 2.5 and int(tf.constant(7)) == 7
    assert [10, 20, 30][tf.constant(1)] == 20
    with pytest.raises(ValueError):
        bool(tf.constant([1.0, 2.0]))
    with pytest.raises(AttributeError):  # as TF: the numpy float has no __index__
        [1, 2][tf.constant(1.0)]
    assert not bool(tf.constant([]))  # TF calls an empty tensor False


def test_len_and_iteration():
    t = tf.constant([[1, 2], [3, 4], [5, 6]])
    assert len(t) == 3
    rows = list(t)
    assert len(rows) == 3 and rows[2].numpy().tolist() == [5, 6]
    with pytest.raises(TypeError):
        len(tf.constant(1))
    with pytest.raises(TypeError):
        iter(tf.constant(1))


def test_unhashable_with_ref():
    t = tf.constant(1.0)
    with pytest.raises(TypeError, match="ref"):
        {t: 1}
    d = {t.ref(): 1}
    assert d[t.ref()] == 1 and t.ref().deref() is t


def test_arithmetic_operators_and_reflected():
    a = tf.constant([1.0, 2.0])
    np.testing.assert_allclose((a + 1).numpy(), [2, 3])
    np.testing.assert_allclose((1 - a).numpy(), [0, -1])
    np.testing.assert_allclose((2 * a).numpy(), [2, 4])
    np.testing.assert_allclose((1 / a).numpy(), [1, 0.5])
    np.testing.assert_allclose((a ** 2).numpy(), [1, 4])
    np.testing.assert_allclose((2 ** a).numpy(), [2, 4])
    np.testing.assert_allclose((-a).numpy(), [-1, -2])
    np.testing.assert_allclose(abs(-a).numpy(), [1, 2])
    np.testing.assert_allclose((a // 1.5).numpy(), [0, 1])
    np.testing.assert_allclose((a % 1.5).numpy(), [1, 0.5])
    m = tf.constant([[1.0, 2.0]])
    np.testing.assert_allclose((m @ tf.constant([[3.0], [4.0]])).numpy(), [[11.0]])
    np.testing.assert_allclose((np.array([1.0, 1.0], np.float32) + a).numpy(), [2, 3])


def test_int_true_division_gives_float64():
    r = tf.constant(1) / tf.constant(2)
    assert r.dtype == tf.float64 and float(r) == 0.5


def test_comparison_and_logic_operators():
    a = tf.constant([1, 2, 3])
    assert (a > 1).numpy().tolist() == [False, True, True]
    assert (a == 2).numpy().tolist() == [False, True, False]
    assert (a != 2).numpy().tolist() == [True, False, True]
    b = tf.constant([True, False])
    assert (b & tf.constant([True, True])).numpy().tolist() == [True, False]
    assert (~b).numpy().tolist() == [False, True]
    assert (a == None) is False  # noqa: E711


def test_mixed_dtypes_raise_invalid_argument():
    with pytest.raises(tf.errors.InvalidArgumentError, match="AddV2"):
        tf.constant(1.0) + tf.constant(1)
    # `+` converts 2.5 on its own when it cannot take int32 (then the dtypes clash) ...
    with pytest.raises(tf.errors.InvalidArgumentError, match="AddV2"):
        tf.constant(1) + 2.5
    # ... while `*` insists on the tensor's dtype, as TF does
    with pytest.raises(TypeError):
        tf.constant(1) * 2.5


def test_incompatible_shapes_raise_invalid_argument_naming_shapes():
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"\[2\] vs. \[3\]"):
        tf.constant([1.0, 2.0]) * tf.constant([1.0, 2.0, 3.0])


def test_getitem_basic_and_gradient():
    x = tf.constant(np.arange(24.0).reshape(2, 3, 4))
    np.testing.assert_array_equal(x[1, ::-1, tf.newaxis, 1:3].numpy(), x.numpy()[1, ::-1, None, 1:3])
    np.testing.assert_array_equal(x[..., -1].numpy(), x.numpy()[..., -1])
    with tf.GradientTape() as g:
        g.watch(x)
        y = tf.reduce_sum(x[:, 1:, ::2] * 3.0)
    expected = np.zeros((2, 3, 4))
    expected[:, 1:, ::2] = 3.0
    np.testing.assert_array_equal(g.gradient(y, x).numpy(), expected)


def test_is_tensor():
    assert tf.is_tensor(tf.constant(1)) and tf.is_tensor(tf.Variable(1.0))
    assert not tf.is_tensor(np.ones(2))


def test_cast_and_identity():
    x = tf.constant([1.7, -1.2])
    assert tf.cast(x, tf.int32).numpy().tolist() == [1, -1]
    with tf.GradientTape() as g:
        g.watch(x)
        y = tf.cast(tf.cast(x, tf.float64) * 2.0, tf.float32)
    gx = g.gradient(y, x)
    assert gx.dtype == tf.float32 and gx.numpy().tolist() == [2.0, 2.0]
    with tf.GradientTape() as g:
        g.watch(x)
        y = tf.identity(x) * 3.0
    assert g.gradient(y, x).numpy().tolist() == [3.0, 3.0]


def test_dtypes_objects():
    assert tf.float32.name == "float32" and tf.float32.is_floating
    assert not tf.int32.is_floating and tf.int32.is_integer
    assert tf.float64.as_numpy_dtype is np.float64
    assert tf.as_dtype("uint8") == tf.uint8 and tf.as_dtype(np.int64) == tf.int64
    assert tf.dtypes.as_dtype(float) == tf.float32
    with pytest.raises(TypeError):
        tf.as_dtype("nope")


def test_format_gives_the_numpy_text_like_tf():
    t = tf.constant([1.5, 2.0])
    assert "{}".format(t) == "[1.5 2. ]"
    assert f"{t}" == "[1.5 2. ]"
    assert f"{tf.constant(3.25)}" == "3.25"
    assert f"{tf.constant(3.25):.1f}" == "3.2"
    assert f"{tf.constant(True)}" == "True"
    assert f"{tf.constant('Gray wolf')}" == "b'Gray wolf'"
    with pytest.raises(TypeError):
        f"{t:>10}"  # numpy arrays take no format spec


def test_multiline_values_start_on_their_own_line():
    m = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    assert str(m) == "tf.Tensor(\n[[1. 2.]\n [3. 4.]], shape=(2, 2), dtype=float32)"
    assert repr(tf.constant([[1, 2], [3, 4]], tf.uint8)) == (
        "<tf.Tensor: shape=(2, 2), dtype=uint8, numpy=\narray([[1, 2],\n       [3, 4]], dtype=uint8)>")


def test_string_tensors_hold_bytes():
    t = tf.constant("Gray wolf")
    assert t.numpy() == b"Gray wolf"
    assert repr(t) == "<tf.Tensor: shape=(), dtype=string, numpy=b'Gray wolf'>"
    assert tf.constant(["a", "bc"]).numpy().tolist() == [b"a", b"bc"]
    assert tf.constant("ü").numpy() == "ü".encode("utf-8")


def test_dtype_str_and_repr_match_tf():
    assert str(tf.float32) == "<dtype: 'float32'>"
    assert repr(tf.float32) == "tf.float32"
    assert f"{tf.bool}" == "<dtype: 'bool'>"


def test_as_dtype_accepts_tf_names_and_enum_values_and_refuses_bare_python_types():
    assert tf.as_dtype("float") is tf.float32
    assert tf.as_dtype(3) is tf.int32 and tf.as_dtype(7) is tf.string
    assert tf.as_dtype("resource") is tf.resource and tf.as_dtype("variant") is tf.variant
    assert tf.as_dtype(object) is tf.string and tf.as_dtype(float) is tf.float32
    for bad in (int, str, None, 100, "int", "nope"):
        with pytest.raises(TypeError):
            tf.as_dtype(bad)


def test_dtype_sizes_and_limits_as_tf_reports_them():
    assert tf.bfloat16.size == 2
    assert tf.string.size == tf.resource.size == tf.variant.size == 0
    assert float(tf.bfloat16.max) == 3.3895313892515355e38
    with pytest.raises(TypeError):
        tf.string.min
    with pytest.raises(TypeError):
        tf.bool.max
