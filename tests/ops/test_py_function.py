"""tf.py_function (tensors in, differentiable) and tf.numpy_function (arrays in, no gradient)."""
import numpy as np
import pytest

import minitf as tf
from minitf.gradient_checker import assert_gradients_close

X = [1.0, 2.0]


def test_py_function_single_and_list_tout():
    x = tf.constant(X)
    y = tf.py_function(lambda a: a * 2, [x], tf.float32)
    assert isinstance(y, tf.Tensor) and y.numpy().tolist() == [2.0, 4.0]
    ys = tf.py_function(lambda a: (a * 2, a), [x], [tf.float32, tf.float32])
    assert isinstance(ys, list) and [t.numpy().tolist() for t in ys] == [[2.0, 4.0], X]
    assert tf.py_function(lambda a: None, [x], []) == []


def test_py_function_gets_tensors_and_converts_results():
    seen = []
    y = tf.py_function(lambda a, b: seen.append(type(a)) or a + b, [tf.constant(X), 1.0], tf.float32)
    assert seen == [tf.Tensor] and y.numpy().tolist() == [2.0, 3.0]
    z = tf.py_function(lambda a: np.array([1, 2]), [tf.constant(X)], tf.float32)
    assert z.dtype == tf.float32 and z.numpy().tolist() == X
    assert tf.py_function(lambda a: 3, [tf.constant(X)], "float32").dtype == tf.float32
    assert tf.py_function(lambda a: [1.5, 2.5], [tf.constant(X)], tf.float32).numpy() == 1.5


def test_py_function_is_differentiable():
    v = tf.Variable(X)
    x = tf.constant([3.0, -1.0])
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = tf.py_function(lambda a, b: a * a * b, [v, x], tf.float32)
    assert tape.gradient(y, v).numpy().tolist() == [6.0, -4.0]
    assert tape.gradient(y, x).numpy().tolist() == [1.0, 4.0]


def test_py_function_errors():
    x = tf.constant(X)
    with pytest.raises(tf.errors.InvalidArgumentError, match="float64"):
        tf.py_function(lambda a: tf.cast(a, tf.float64), [x], tf.float32)
    with pytest.raises(tf.errors.InvalidArgumentError, match="returns 0 values, but expects to see 1"):
        tf.py_function(lambda a: None, [x], tf.float32)
    with pytest.raises(tf.errors.InvalidArgumentError, match="returns 1 values, but expects to see 2"):
        tf.py_function(lambda a: (a,), [x], [tf.float32, tf.float32])
    with pytest.raises(tf.errors.InvalidArgumentError, match="ValueError: bad"):
        tf.py_function(lambda a: (_ for _ in ()).throw(ValueError("bad")), [x], tf.float32)
    with pytest.raises(tf.errors.UnknownError, match="KeyError"):
        tf.py_function(lambda a: {}["k"], [x], tf.float32)
    with pytest.raises(TypeError, match="Missing required argument: 'Tout'"):
        tf.py_function(lambda a: a, [x], None)
    with pytest.raises(TypeError, match="Missing argument `inp`"):
        tf.py_function(lambda a: a, None, tf.float32)


def test_decorator_form():
    @tf.py_function(Tout=tf.float32)
    def double(a):
        return a * 2

    assert double(tf.constant(X)).numpy().tolist() == [2.0, 4.0]

    @tf.numpy_function(Tout=tf.float32)
    def plus_one(a):
        assert isinstance(a, np.ndarray)
        return a + 1

    assert plus_one(tf.constant(X)).numpy().tolist() == [2.0, 3.0]


def test_numpy_function_passes_arrays():
    seen = []

    def f(a, s):
        seen.extend([type(a), type(s)])
        return a * 2

    y = tf.numpy_function(f, [tf.constant(X), tf.constant("s")], tf.float32)
    assert seen == [np.ndarray, np.ndarray] and y.numpy().tolist() == [2.0, 4.0]


def test_numpy_function_eager_results_as_tf():
    """Eagerly TF converts the results as they are: Tout is not checked."""
    x = tf.constant(X)
    assert tf.numpy_function(lambda a: a.astype(np.float64), [x], tf.float32).dtype == tf.float64
    assert tf.numpy_function(lambda a: 3, [x], tf.int64).dtype == tf.int32
    pair = tf.numpy_function(lambda a: (a, a), [x], [tf.float32, tf.float32])
    assert isinstance(pair, list) and len(pair) == 2
    assert tf.numpy_function(lambda a: None, [x], []) is None
    with pytest.raises(KeyError):
        tf.numpy_function(lambda a: {}["k"], [x], tf.float32)


def test_numpy_function_has_no_gradient():
    v = tf.Variable(X)
    with tf.GradientTape() as tape:
        y = tf.numpy_function(lambda a: a * a, [v], tf.float32)
    assert y.numpy().tolist() == [1.0, 4.0]
    assert tape.gradient(y, v) is None


def test_py_function_gradient_matches_finite_differences():
    x = np.random.default_rng(1).uniform(0.5, 2.0, (2, 3))
    assert_gradients_close(lambda t: tf.py_function(lambda a: tf.sin(a) * a, [t], tf.float64), [x], order=1)
