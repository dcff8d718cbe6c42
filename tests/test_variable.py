"""Variable: creation, reads, assignment checks, names and tape interplay."""
import numpy as np
import pytest

import minitf as tf


def test_creation_names_and_properties():
    v = tf.Variable([1.0, 2.0], name="w")
    assert v.name == "w:0" and v.trainable and v.dtype == tf.float32 and v.shape == (2,)
    assert tf.Variable(1.0).name == "Variable:0"
    assert not tf.Variable(1.0, trainable=False).trainable
    assert tf.Variable(1, dtype=tf.float64).dtype == tf.float64
    with tf.name_scope("outer"):
        assert tf.Variable(1.0, name="x").name == "outer/x:0"


def test_repr():
    assert repr(tf.Variable(1.0, name="v")) == "<tf.Variable 'v:0' shape=() dtype=float32, numpy=1.0>"


def test_usable_as_tensor_everywhere():
    v = tf.Variable([[1.0, 2.0]])
    assert (v * 2.0).numpy().tolist() == [[2.0, 4.0]]
    assert (2.0 * v).numpy().tolist() == [[2.0, 4.0]]
    assert tf.matmul(v, tf.constant([[1.0], [1.0]])).numpy().tolist() == [[3.0]]
    assert v[0, 1].numpy() == 2.0
    assert np.asarray(v).tolist() == [[1.0, 2.0]]


def test_assign_family_and_snapshots():
    v = tf.Variable([1.0, 2.0])
    before = v.read_value()
    v.assign([3.0, 4.0])
    assert v.numpy().tolist() == [3.0, 4.0]
    assert before.numpy().tolist() == [1.0, 2.0]  # earlier reads keep their value
    v.assign_add([1.0, 1.0])
    v.assign_sub(tf.constant([0.5, 0.5]))
    assert v.numpy().tolist() == [3.5, 4.5]
    assert v.assign([0.0, 0.0]) is v


def test_assign_shape_and_dtype_errors():
    v = tf.Variable([1.0, 2.0], name="w")
    with pytest.raises(ValueError, match=r"w:0.*\(3,\)|\(3,\).*w:0"):
        v.assign([1.0, 2.0, 3.0])
    with pytest.raises(ValueError):
        v.assign(tf.constant([1, 2]))


def test_numpy_returns_copy():
    v = tf.Variable([1.0])
    a = v.numpy()
    a[0] = 9.0
    assert v.numpy()[0] == 1.0


def test_unhashable_and_ref():
    v = tf.Variable(1.0)
    with pytest.raises(TypeError):
        hash(v)
    assert {v.ref(): 1}[v.ref()] == 1


def test_callable_initial_value_and_missing_value():
    assert tf.Variable(lambda: tf.ones([2])).numpy().tolist() == [1.0, 1.0]
    with pytest.raises(ValueError):
        tf.Variable(None)


def test_gradient_after_assign_uses_new_value():
    v = tf.Variable(2.0)
    v.assign(5.0)
    with tf.GradientTape() as g:
        y = v * v
    assert float(g.gradient(y, v)) == 10.0


def test_copy_of_user_array_is_independent():
    arr = np.ones(3, np.float32)
    v = tf.Variable(arr)
    v._value += 1  # in-place update (optimizer fast path) must not touch the user's array
    assert arr.tolist() == [1.0, 1.0, 1.0]


def _rows(values, indices):
    return tf.IndexedSlices(tf.constant(values), tf.constant(indices))


def test_scatter_methods_match_tf():
    # The sequence (and results) of a TF 2.21 session; each method returns the variable.
    v = tf.Variable([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    assert v.scatter_add(_rows([[1.0, 1.0], [2.0, 2.0]], [0, 0])) is v  # repeats add up
    assert v.numpy().tolist() == [[4.0, 5.0], [3.0, 4.0], [5.0, 6.0]]
    v.scatter_nd_add([[1, 1], [1, 1]], [10.0, 10.0])
    assert v.numpy().tolist() == [[4.0, 5.0], [3.0, 24.0], [5.0, 6.0]]
    v.scatter_nd_update([[2]], [[0.0, 0.0]])
    v.scatter_update(_rows([7.0, 7.0], 1))
    assert v.numpy().tolist() == [[4.0, 5.0], [7.0, 7.0], [0.0, 0.0]]
    v.scatter_max(_rows([[9.0, 0.0]], [0]))
    v.scatter_mul(_rows([[2.0, 2.0]], [0]))
    assert v.numpy().tolist() == [[18.0, 10.0], [7.0, 7.0], [0.0, 0.0]]
    v.scatter_div(_rows([[2.0, 2.0]], [0]))
    v.scatter_min(_rows([[0.0, 0.0]], [0]))
    v.scatter_sub(_rows([[1.0, 1.0]], [1]))
    v.scatter_nd_sub([[0, 0]], [1.0])
    assert v.numpy().tolist() == [[-1.0, 0.0], [6.0, 6.0], [0.0, 0.0]]
    v.scatter_nd_max([[2, 1]], [3.0])
    v.scatter_nd_min([[1, 0]], [-2.0])
    assert v.numpy().tolist() == [[-1.0, 0.0], [-2.0, 6.0], [0.0, 3.0]]


def test_scatter_errors_match_tf_types():
    v = tf.Variable([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    with pytest.raises(TypeError, match="IndexedSlices"):
        v.scatter_add([1.0])
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"indices\[0\] = 5 is not in \[0, 3\)"):
        v.scatter_add(_rows([[1.0, 1.0]], [5]))
    with pytest.raises(tf.errors.InvalidArgumentError, match="does not index into shape"):
        v.scatter_nd_add([[5]], [[1.0, 1.0]])
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"updates of shape \(1,\)"):
        v.scatter_nd_add([[0]], [1.0])
    with pytest.raises(ValueError):
        v.scatter_add(tf.IndexedSlices(tf.constant([[1, 1]]), tf.constant([0])))
    assert v.numpy().tolist() == [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]


@pytest.mark.parametrize("update", [
    lambda v: v.assign_add([[1.0, 1.0], [1.0, 1.0]]),
    lambda v: v.assign_sub([[1.0, 1.0], [1.0, 1.0]]),
    lambda v: v.assign([[0.0, 0.0], [0.0, 0.0]]),
    lambda v: v.scatter_add(_rows([[1.0, 1.0]], [1])),
    lambda v: v.scatter_sub(_rows([[1.0, 1.0]], [0])),
    lambda v: v.scatter_update(_rows([[9.0, 9.0]], [0])),
    lambda v: v.scatter_nd_update([[0, 1]], [9.0]),
    lambda v: v.scatter_nd_add([[1]], [[1.0, 1.0]]),
])
def test_reads_keep_their_values_across_updates(update):
    v = tf.Variable([[1.0, 2.0], [3.0, 4.0]])
    reads = [v.value(), v.read_value(), tf.identity(v), tf.reshape(v, [4]), v[1]]
    host = np.asarray(v)
    with tf.GradientTape(persistent=True) as tape:
        y = v * 1.0
    update(v)
    assert v.numpy().tolist() != [[1.0, 2.0], [3.0, 4.0]]
    for r in reads[:3]:
        assert r.numpy().tolist() == [[1.0, 2.0], [3.0, 4.0]]
    assert reads[3].numpy().tolist() == [1.0, 2.0, 3.0, 4.0]
    assert reads[4].numpy().tolist() == [3.0, 4.0]
    assert host.tolist() == [[1.0, 2.0], [3.0, 4.0]]
    assert y.numpy().tolist() == [[1.0, 2.0], [3.0, 4.0]]
    assert tape.gradient(y, v).numpy().tolist() == [[1.0, 1.0], [1.0, 1.0]]


def test_in_place_update_without_outstanding_reads_keeps_the_buffer():
    v = tf.Variable([1.0, 2.0])
    buffer_id = id(v._value)
    v.value()  # a read that is dropped at once
    v.scatter_nd_add([[0]], [1.0])
    assert id(v._value) == buffer_id and v.numpy().tolist() == [2.0, 2.0]
    kept = v.value()
    v.scatter_nd_add([[0]], [1.0])
    assert id(v._value) != buffer_id and kept.numpy().tolist() == [2.0, 2.0]


def test_equality_is_elementwise_as_in_tf2():
    a, b = tf.Variable([1.0, 2.0]), tf.Variable([1.0, 3.0])
    eq, ne = a == b, a != b
    assert isinstance(eq, tf.Tensor) and eq.dtype == tf.bool
    assert eq.numpy().tolist() == [True, False] and ne.numpy().tolist() == [False, True]
    assert (a == a).numpy().tolist() == [True, True]
    assert (a != 1.0).numpy().tolist() == [False, True]
    assert (1.0 == a).numpy().tolist() == [True, False]
    assert (a == [1, 2]).numpy().tolist() == [True, True]
    assert (a == np.array([1, 2])).numpy().tolist() == [True, True]
    assert (a == tf.constant([[1.0], [2.0]])).numpy().tolist() == [[True, False], [False, True]]
    # Shapes that do not broadcast give a scalar bool tensor instead of an error.
    assert (a == tf.Variable([1.0, 2.0, 3.0])).numpy() is np.False_
    assert (a != tf.constant([1.0, 2.0, 3.0])).numpy() is np.True_
    with pytest.raises(tf.errors.InvalidArgumentError):
        a == tf.constant(1)  # noqa: B015 (dtype mismatch, as TF)
    with pytest.raises(TypeError):
        tf.Variable(1) == 1.5  # noqa: B015
    with pytest.raises(ValueError):
        a == None  # noqa: B015,E711
    with pytest.raises(ValueError, match="ambiguous"):
        a in [b]  # noqa: B015 (membership asks bool() of an elementwise result)
    assert a in [a]  # identity comes first in Python's `in`


def test_hash_raises_and_ref_is_the_key():
    v = tf.Variable([1.0, 2.0])
    with pytest.raises(TypeError, match=r"unhashable.*ref\(\)"):
        hash(v)
    with pytest.raises(TypeError):
        {v}  # noqa: B018
    assert v.ref().deref() is v
    assert v.ref() == v.ref() and v.ref() != tf.Variable([1.0, 2.0]).ref()
    assert {v.ref(): "x"}[v.ref()] == "x"
