"""NumPy interop as TF's: numpy functions take tensors and variables and return ndarrays,
`ndarray <op> tensor` gives a tensor, and numpy never writes into a tensor's value.

The behaviours were read from TF 2.21 with NumPy 2 (the parity test at the end compares them
when TensorFlow is installed).
"""
import numpy as np
import pytest

import minitf as tf

CPU = "CPU:0"


def _cpu_tensor(value):
    with tf.device(CPU):
        return tf.constant(value)


def _cpu_variable(value):
    with tf.device(CPU):
        return tf.Variable(value)


MAKERS = {"tensor": _cpu_tensor, "variable": _cpu_variable}


@pytest.mark.parametrize("kind", sorted(MAKERS))
def test_ufuncs_return_ndarrays_with_numpys_promotion(kind):
    x = MAKERS[kind]([1.0, 2.0])
    a = np.ones(2)
    for result in (np.add(a, x), np.add(x, a), np.multiply(x, a)):
        assert type(result) is np.ndarray and result.dtype == np.float64
    np.testing.assert_array_equal(np.add(a, x), [2.0, 3.0])
    np.testing.assert_array_equal(np.multiply(x, a), [1.0, 2.0])
    same = np.add(x, x)
    assert type(same) is np.ndarray and same.dtype == np.float32
    np.testing.assert_array_equal(same, [2.0, 4.0])
    assert np.exp(x).dtype == np.float32 and np.isnan(x).dtype == np.bool_
    np.testing.assert_array_equal(np.maximum(x, 1.5), np.array([1.5, 2.0], np.float32))


@pytest.mark.parametrize("kind", sorted(MAKERS))
def test_reductions_and_array_functions(kind):
    x = MAKERS[kind]([1.0, 2.0])
    total, mean = np.sum(x), np.mean(x)
    assert type(total) is np.float32 and total == 3.0
    assert type(mean) is np.float32 and mean == 1.5
    assert np.add.reduce(x) == 3.0 and np.argmax(x) == 1
    both = np.concatenate([x, np.ones(2)])
    assert both.dtype == np.float64 and both.tolist() == [1.0, 2.0, 1.0, 1.0]
    assert np.stack([x, x]).shape == (2, 2) and np.stack([x, x]).dtype == np.float32
    np.testing.assert_array_equal(np.where(np.asarray(x) > 1, x, 0.0), [0.0, 2.0])
    assert np.add(1.0, MAKERS[kind](3.0)) == 4.0


@pytest.mark.parametrize("kind", sorted(MAKERS))
def test_ndarray_op_tensor_gives_a_tensor(kind):
    x = MAKERS[kind]([1.0, 2.0])
    a = np.ones(2)  # float64: the tensor's float32 wins, as in TF
    for result in (a + x, x + a, a * x, np.float32(2) * x, np.float64(2) + x, a - x, a / x):
        assert tf.is_tensor(result) and result.dtype == tf.float32
    np.testing.assert_array_equal((a + x).numpy(), [2.0, 3.0])
    np.testing.assert_array_equal((a - x).numpy(), [0.0, -1.0])
    assert (a == x).dtype == tf.bool and (a == x).numpy().tolist() == [True, False]
    assert (a < x).numpy().tolist() == [False, True]
    ints = np.ones(2, np.int32)
    assert (ints + x).dtype == tf.float32 and np.add(ints, x).dtype == np.float64
    b = a.copy()
    b += x  # numpy's in-place add defers too, so Python rebinds b to the tensor sum
    assert tf.is_tensor(b) and b.numpy().tolist() == [2.0, 3.0]
    np.testing.assert_array_equal(a, [1.0, 1.0])


def test_a_tensor_is_not_an_output_array():
    x = _cpu_tensor([1.0, 2.0])
    with pytest.raises(TypeError):
        np.add(np.ones(2), x, out=x)
    out = np.zeros(2)
    assert np.add(np.ones(2), x, out=out) is out and out.tolist() == [2.0, 3.0]


def test_asarray_of_a_tensor_is_a_read_only_view():
    x = _cpu_tensor([1.0, 2.0])
    view = np.asarray(x)
    assert view.dtype == np.float32 and not view.flags.writeable
    with pytest.raises(ValueError, match="read-only"):
        view[0] = 5.0
    assert x.numpy().tolist() == [1.0, 2.0]
    again = np.asarray(x, copy=False)
    assert not again.flags.writeable and np.shares_memory(again, view)
    assert np.array(x, copy=False).tolist() == [1.0, 2.0]
    scalar = np.asarray(_cpu_tensor(3.0))
    assert scalar.shape == () and scalar.dtype == np.float32 and not scalar.flags.writeable


def test_copies_are_writable_and_separate():
    x = _cpu_tensor([1.0, 2.0])
    copied = np.array(x)  # np.array copies by default
    assert copied.flags.writeable and copied.flags.owndata
    copied[0] = 9.0
    assert x.numpy().tolist() == [1.0, 2.0]
    converted = np.array(x, dtype=np.int32)
    assert converted.dtype == np.int32 and converted.tolist() == [1, 2] and converted.flags.writeable
    assert np.asarray(x, dtype=np.float64).dtype == np.float64


def test_dunder_array_with_numpy_2_arguments():
    x = _cpu_tensor([1.0, 2.0])
    assert not x.__array__().flags.writeable
    assert x.__array__(copy=True).flags.writeable
    assert x.__array__(np.float64).dtype == np.float64
    assert x.__array__(np.float32, copy=False).dtype == np.float32
    with pytest.raises(ValueError, match=r"copy=False.*Tensor of shape \(2,\) and dtype float32.*float64"):
        x.__array__(np.float64, copy=False)
    with pytest.raises(ValueError, match="Unable to avoid a copy"):
        np.array(x, dtype=np.float64, copy=False)


def test_variables_give_writable_copies():
    v = _cpu_variable([1.0, 2.0])
    array = np.asarray(v)
    assert array.flags.writeable and array.flags.owndata
    array[0] = 7.0
    assert v.numpy().tolist() == [1.0, 2.0]
    v.assign([3.0, 4.0])
    assert array.tolist() == [7.0, 2.0]
    v.scatter_nd_update([[0]], [5.0])  # an in-place update leaves earlier arrays alone too
    assert np.asarray(v).tolist() == [5.0, 4.0] and array.tolist() == [7.0, 2.0]
    with pytest.raises(ValueError, match=r"copy=False.*Variable .*assigned"):
        np.asarray(v, copy=False)
    with pytest.raises(ValueError, match="Unable to avoid a copy"):
        v.__array__(copy=False)


def test_a_view_survives_in_place_updates_of_a_variable_it_came_from():
    v = _cpu_variable([1.0, 2.0])
    read = v.value()  # a tensor sharing the variable's array
    view = np.asarray(read)
    v.scatter_nd_update([[0]], [9.0])
    assert view.tolist() == [1.0, 2.0] and read.numpy().tolist() == [1.0, 2.0]
    assert v.numpy().tolist() == [9.0, 2.0]


def test_tf_functions_accept_ndarrays():
    a = np.ones(2)
    total = tf.add(a, a)
    assert tf.is_tensor(total) and total.dtype == tf.float64 and total.numpy().tolist() == [2.0, 2.0]
    assert tf.reduce_sum(a).dtype == tf.float64 and float(tf.reduce_sum(a)) == 2.0
    assert tf.matmul(np.ones((2, 2)), np.ones((2, 2))).numpy().tolist() == [[2.0, 2.0], [2.0, 2.0]]
    assert tf.constant(np.arange(3, dtype=np.int16)).dtype == tf.int16


def test_device_values_are_copied_to_the_host(fake_gpu):
    with tf.device("GPU:0"):
        x = tf.constant([1.0, 2.0])
        v = tf.Variable([3.0, 4.0])
    assert type(x._value) is fake_gpu.ndarray
    array = np.asarray(x)
    assert type(array) is np.ndarray and array.tolist() == [1.0, 2.0]
    assert np.add(np.ones(2), x).tolist() == [2.0, 3.0]
    assert np.sum(v) == 7.0 and type(np.asarray(v)) is np.ndarray
    assert np.array(x, dtype=np.int64).tolist() == [1, 2]
    with pytest.raises(ValueError, match="must be copied to the host"):
        np.asarray(x, copy=False)
    with pytest.raises(ValueError, match="Unable to avoid a copy"):
        np.asarray(v, copy=False)


def test_same_results_as_tensorflow():
    real_tf = pytest.importorskip("tensorflow")
    cases = [
        lambda m, x: np.add(np.ones(2), x(m, [1.0, 2.0])),
        lambda m, x: np.multiply(x(m, [1.0, 2.0]), np.ones(2)),
        lambda m, x: np.add(x(m, [1.0, 2.0]), x(m, [1.0, 2.0])),
        lambda m, x: np.sum(x(m, [1.0, 2.0])),
        lambda m, x: np.mean(x(m, [1.0, 2.0])),
        lambda m, x: np.asarray(x(m, [1.0, 2.0])),
        lambda m, x: np.array(x(m, [1.0, 2.0]), dtype=np.int32),
        lambda m, x: np.ones(2) + x(m, [1.0, 2.0]),
        lambda m, x: np.float64(2) * x(m, [1.0, 2.0]),
        lambda m, x: np.ones(2) == x(m, [1.0, 2.0]),
    ]
    makers = [lambda m, v: m.constant(v), lambda m, v: m.Variable(v)]

    def summary(value):
        if hasattr(value, "numpy") and not isinstance(value, np.ndarray):
            return "tensor", value.dtype.name, value.numpy().tolist()
        return type(value).__name__, np.asarray(value).dtype.name, np.asarray(value).tolist()

    for make in makers:
        for case in cases:
            assert summary(case(tf, make)) == summary(case(real_tf, make))
        for module in (tf, real_tf):
            if make is makers[0]:
                assert not np.asarray(make(module, [1.0])).flags.writeable
            else:
                assert np.asarray(make(module, [1.0])).flags.writeable
                with pytest.raises(ValueError):
                    np.asarray(make(module, [1.0]), copy=False)


def test_numpy_gives_an_array_of_its_own_so_writing_to_it_leaves_the_tensor_unchanged():
    t = tf.constant([1.0, 2.0])
    n = t.numpy()
    assert n.flags.writeable and n.flags.owndata  # TF's numpy() is a writable copy
    n[0] = 5.0
    np.testing.assert_array_equal(t.numpy(), [1.0, 2.0])
    assert t.numpy() is not t.numpy()
    assert isinstance(tf.constant(3.0).numpy(), np.float32)


def test_array_likes_convert_as_numpy_sees_them():
    """Objects with __array__ (a pandas DataFrame, say) become tensors of numpy's array of them."""
    class Frame:
        def __array__(self, dtype=None, copy=None):
            return np.array([[1.0, 3.0], [2.0, 4.0]])

    t = tf.convert_to_tensor(Frame())
    assert t.dtype == tf.float64 and t.shape == (2, 2)
    assert tf.constant(Frame(), dtype=tf.float32).dtype == tf.float32
    assert float(tf.reduce_sum(Frame())) == 10.0
