"""Tensor indexing (`t[...]`): values against numpy for every kind of index, gradients (first
and second order), errors, and vectorized jacobians."""
import numpy as np
import pytest

import minitf as tf
from minitf.gradient_checker import assert_gradients_close
from minitf import backend
from minitf.errors import errors

RNG = np.random.default_rng(2)


def check_grads(f, xs, order=2, rtol=1e-5, atol=1e-6):
    """The shared float64 finite-difference check, second order by default."""
    assert_gradients_close(f, [np.asarray(x, dtype=np.float64) for x in xs], order=order,
                           rtol=rtol, atol=atol)


X = RNG.standard_normal((3, 4, 5))

KEYS = [
    1, -1, (0, 2), (slice(None), 1), slice(1, None), slice(None, None, -1), (slice(None, None, -2), 0),
    (Ellipsis, 2), (Ellipsis, slice(3, 0, -1)), (1, Ellipsis), (None, 1), (slice(None), None, -2),
    (Ellipsis, None), (2, 3, 4), (slice(-2, None), slice(None, 1), slice(4, 0, -2)), (0, Ellipsis, None, 1),
]


@pytest.mark.parametrize("key", KEYS, ids=[repr(k) for k in KEYS])
def test_values_match_numpy(key):
    got = tf.constant(X)[key]
    np.testing.assert_array_equal(got.numpy(), X[key])
    assert got.dtype == tf.float64
    # an array of the tensor's own module (numpy or cupy), never a numpy scalar
    assert backend.array_module(got._value) is backend.array_module(tf.constant(X)._value)
    assert not isinstance(got._value, np.generic)


@pytest.mark.parametrize("key", KEYS[::2], ids=[repr(k) for k in KEYS[::2]])
def test_gradients(key):
    x = X[:2, :3, :4]
    check_grads(lambda t: t[key] * t[key], [x], order=2)


def test_scalar_tensor_and_numpy_int_indices():
    t = tf.constant(X)
    i = tf.constant(2)
    np.testing.assert_array_equal(t[i].numpy(), X[2])
    np.testing.assert_array_equal(t[tf.constant(1, tf.int64), np.int32(3)].numpy(), X[1, 3])
    np.testing.assert_array_equal(t[:, tf.constant(1):tf.constant(4):tf.constant(2)].numpy(), X[:, 1:4:2])
    v = tf.Variable(X)
    np.testing.assert_array_equal(v[i, tf.newaxis].numpy(), X[2, None])
    check_grads(lambda s: s[tf.constant(1), ::-1] ** 2, [X[:2, :3]])


def test_gradient_through_variable_index():
    v = tf.Variable(np.arange(6.0).reshape(2, 3))
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(v[1, ::-2] * 2.0)
    np.testing.assert_array_equal(tape.gradient(y, v).numpy(), [[0, 0, 0], [2, 0, 2]])


def test_integer_tensors_index_without_gradient():
    t = tf.constant([[1, 2], [3, 4]])
    assert t[1, 0].numpy() == 3 and t[1, 0].dtype == tf.int32
    assert t[::-1, -1].numpy().tolist() == [4, 2]


def test_errors():
    t = tf.constant(X)
    with pytest.raises(errors.InvalidArgumentError, match=r"\[3, 4, 5\].*StridedSlice"):
        t[3]
    with pytest.raises(errors.InvalidArgumentError, match="StridedSlice"):
        t[0, 0, 0, 0]
    with pytest.raises(errors.InvalidArgumentError, match="step cannot be zero"):
        t[::0]
    with pytest.raises(TypeError, match="valid indices"):
        t[1.5]
    with pytest.raises(TypeError, match="valid indices"):
        t[tf.constant([0, 1])]
    with pytest.raises(TypeError, match="valid indices"):
        t[tf.constant(1.0)]


@pytest.mark.parametrize("key", [(1,), (slice(None, None, -1), 2), (Ellipsis, None, slice(1, 3)),
                                 (tf.constant(0), slice(None, None, -2))])
def test_jacobian_pfor_matches_loop(key):
    x = tf.constant(RNG.standard_normal((3, 4)))
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x[key] ** 2
    fast = tape.jacobian(y, x, experimental_use_pfor=True)
    slow = tape.jacobian(y, x, experimental_use_pfor=False)
    np.testing.assert_allclose(fast.numpy(), slow.numpy())
    assert fast.shape == tuple(y.shape) + (3, 4)


def test_index_forms_follow_tf():
    x = tf.reshape(tf.range(24), [2, 3, 4])
    assert x[[0, 1]].numpy().tolist() == [4, 5, 6, 7]  # a list reads like a tuple
    assert x[np.array(1)].shape == (3, 4)
    assert x[0, True].shape == (4,)  # a bool inside a tuple is an integer
    m = x[tf.constant([True, False])]  # a bool key is a boolean mask
    assert m.shape == (1, 3, 4)
    assert x[np.array([False, True])].numpy()[0, 0, 0] == 12
    with pytest.raises(ValueError, match="scalar"):
        x[True]
    with pytest.raises(tf.errors.InvalidArgumentError):
        x[[True, False]]
    with pytest.raises(TypeError):
        x[np.array([0, 1])]
