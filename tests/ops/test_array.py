"""Shape, gather/scatter, creation, clipping and reordering ops: values against numpy,
gradients against finite differences, errors, IndexedSlices and vectorized jacobians."""
import numpy as np
import pytest

import minitf as tf
from minitf.gradient_checker import assert_gradients_close
from minitf.errors import errors
from minitf.indexed_slices import IndexedSlices

RNG = np.random.default_rng(1)


def check_grads(f, xs, order=2, rtol=1e-5, atol=1e-6):
    """The shared float64 finite-difference check, second order by default."""
    assert_gradients_close(f, [np.asarray(x, dtype=np.float64) for x in xs], order=order,
                           rtol=rtol, atol=atol)


def rand(*shape):
    return RNG.standard_normal(shape)


# -- shape ops ---------------------------------------------------------------------------

def test_expand_dims_and_squeeze():
    x = rand(2, 3)
    for axis in (0, 1, 2, -1, -3):
        assert tf.expand_dims(x, axis).shape == np.expand_dims(x, axis).shape
    assert tf.expand_dims(3.0, 0).shape == (1,)
    y = rand(1, 3, 1)
    assert tf.squeeze(y).shape == (3,)
    assert tf.squeeze(y, axis=[-1]).shape == (1, 3)
    assert tf.squeeze(y, 0).shape == (3, 1)
    with pytest.raises(errors.InvalidArgumentError, match=r"squeeze dim\[1\].*got 3.*Squeeze"):
        tf.squeeze(y, axis=1)
    with pytest.raises(errors.InvalidArgumentError, match="ExpandDims"):
        tf.expand_dims(x, 3)
    check_grads(lambda t: tf.squeeze(tf.expand_dims(t, 1) * t[:, None, :]), [rand(2, 3)])


@pytest.mark.parametrize("axis", [0, 1, -1])
def test_concat_and_split(axis):
    a, b = rand(2, 3), rand(2, 3)
    np.testing.assert_array_equal(tf.concat([a, b], axis).numpy(), np.concatenate([a, b], axis))
    parts = tf.split(tf.concat([a, b], axis), 2, axis=axis)
    np.testing.assert_array_equal(parts[1].numpy(), b)
    check_grads(lambda s, t: tf.concat([s, t * t], axis), [a, b])
    check_grads(lambda s: tf.split(s, [1, -1], axis=axis)[1] ** 2, [a])


def test_concat_errors_and_integer_tensors():
    with pytest.raises(errors.InvalidArgumentError, match=r"ConcatV2.*\[2, 3\].*\[2, 4\]|ConcatV2"):
        tf.concat([tf.zeros([2, 3]), tf.zeros([3, 4])], 0)
    with pytest.raises(errors.InvalidArgumentError, match="Split"):
        tf.split(tf.zeros([5]), 2)
    with pytest.raises(errors.InvalidArgumentError, match="SplitV"):
        tf.split(tf.zeros([5]), [2, 2])
    got = tf.concat([tf.constant([1, 2]), tf.constant([3])], 0)
    assert got.dtype == tf.int32 and got.numpy().tolist() == [1, 2, 3]


def test_tile():
    x = rand(2, 3)
    np.testing.assert_array_equal(tf.tile(x, [2, 3]).numpy(), np.tile(x, [2, 3]))
    check_grads(lambda t: tf.tile(t, [3, 2]) ** 2, [x])
    check_grads(lambda t: tf.tile(t, [2]), [rand(3)])
    with pytest.raises(errors.InvalidArgumentError, match=r"length 2.*Tile"):
        tf.tile(x, [2])


@pytest.mark.parametrize("mode", ["CONSTANT", "reflect", "Symmetric"])
def test_pad_modes(mode):
    x = rand(3, 4)
    pads = [[1, 2], [2, 1]]
    want = np.pad(x, pads, mode=mode.lower())
    np.testing.assert_array_equal(tf.pad(x, pads, mode).numpy(), want)
    check_grads(lambda t: tf.pad(t, pads, mode) ** 2, [x])


def test_pad_constant_value_and_errors():
    got = tf.pad([[1, 2]], [[0, 0], [1, 1]], constant_values=7)
    assert got.numpy().tolist() == [[7, 1, 2, 7]] and got.dtype == tf.int32
    with pytest.raises(errors.InvalidArgumentError, match="MirrorPad"):
        tf.pad(tf.zeros([2]), [[2, 0]], "REFLECT")
    with pytest.raises(errors.InvalidArgumentError, match="Pad"):
        tf.pad(tf.zeros([2, 2]), [[1, 1]])
    with pytest.raises(ValueError, match="mode"):
        tf.pad(tf.zeros([2]), [[1, 1]], "WRAP")


def test_pad_default_fills_with_the_dtypes_zero():
    # TF runs the Pad op (no fill value) for any non-tensor scalar equal to zero
    assert tf.pad(tf.constant([True]), [[1, 1]]).numpy().tolist() == [False, True, False]
    assert tf.pad(tf.constant([[True]]), [[0, 1], [1, 0]]).numpy().tolist() == [[False, True], [False, False]]
    assert tf.pad(tf.constant([False]), [[1, 0]], constant_values=True).numpy().tolist() == [True, False]
    assert tf.pad(tf.constant(["a"]), [[1, 1]]).numpy().tolist() == [b"", b"a", b""]
    assert tf.pad(tf.constant(["a"]), [[0, 1]], constant_values="x").numpy().tolist() == [b"a", b"x"]
    assert tf.pad(tf.constant([3]), [[1, 0]], constant_values=0.0).numpy().tolist() == [0, 3]
    assert not np.signbit(tf.pad(tf.constant([1.0]), [[1, 0]], constant_values=-0.0).numpy()[0])
    assert np.signbit(tf.pad(tf.constant([1.0]), [[1, 0]], constant_values=tf.constant(-0.0)).numpy()[0])
    with pytest.raises(TypeError):
        tf.pad(tf.constant([True]), [[1, 1]], constant_values=1)  # a nonzero int is not a bool
    with pytest.raises(errors.InvalidArgumentError, match="PadV2"):
        tf.pad(tf.constant([True]), [[1, 1]], constant_values=tf.constant(0))


# -- gather / scatter ---------------------------------------------------------------------

@pytest.mark.parametrize("axis", [0, 1, -1])
def test_gather_values_and_gradients(axis):
    x = rand(3, 4)
    idx = np.array([[2, 0], [1, 2]])
    np.testing.assert_array_equal(tf.gather(x, idx, axis=axis).numpy(), np.take(x, idx, axis=axis))
    check_grads(lambda t: tf.gather(t, idx, axis=axis) ** 2, [x])


def test_gather_batch_dims():
    x = rand(2, 3, 4)
    idx = np.array([[0, 2], [1, 1]])
    got = tf.gather(x, idx, axis=1, batch_dims=1)
    want = np.stack([np.take(x[b], idx[b], axis=0) for b in range(2)])
    np.testing.assert_array_equal(got.numpy(), want)
    got = tf.gather(x, idx, axis=2, batch_dims=1)
    want = np.stack([np.take(x[b], idx[b], axis=1) for b in range(2)])
    np.testing.assert_array_equal(got.numpy(), want)
    check_grads(lambda t: tf.gather(t, idx, axis=2, batch_dims=1) ** 2, [x])


def test_gather_gradient_is_indexed_slices_on_variables():
    v = tf.Variable(np.arange(8.0).reshape(4, 2))
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(tf.gather(v, [[3, 0], [3, 3]]) * 2.0)
    g = tape.gradient(y, v)
    assert isinstance(g, IndexedSlices)
    assert tuple(g.dense_shape) == (4, 2)
    assert g.values.shape == (4, 2) and g.indices.numpy().tolist() == [3, 0, 3, 3]
    np.testing.assert_array_equal(tf.convert_to_tensor(g).numpy(), [[2, 2], [0, 0], [0, 0], [6, 6]])
    t = tf.constant(np.arange(8.0).reshape(4, 2))
    with tf.GradientTape() as tape:
        tape.watch(t)
        y = tf.reduce_sum(tf.gather(t, [1, 1]))
    dense = tape.gradient(y, t)
    assert not isinstance(dense, IndexedSlices)
    np.testing.assert_array_equal(dense.numpy(), [[0, 0], [2, 2], [0, 0], [0, 0]])


def test_gather_errors():
    with pytest.raises(errors.InvalidArgumentError, match=r"5 is not in \[0, 3\).*GatherV2"):
        tf.gather(tf.zeros([3, 2]), [0, 5])
    with pytest.raises(errors.InvalidArgumentError, match="GatherV2"):
        tf.gather(tf.zeros([3, 2]), [-1])
    with pytest.raises(errors.InvalidArgumentError, match="GatherV2"):
        tf.gather(tf.zeros([3, 2]), [0], axis=2)


def test_gather_nd_and_scatter_nd():
    x = rand(3, 4, 2)
    idx = np.array([[0, 1], [2, 3], [0, 1]])
    np.testing.assert_array_equal(tf.gather_nd(x, idx).numpy(), x[idx[:, 0], idx[:, 1]])
    np.testing.assert_array_equal(tf.gather_nd(x, [[1]]).numpy(), x[[1]])
    check_grads(lambda t: tf.gather_nd(t, idx) ** 2, [x])
    bidx = np.array([[[1], [0]], [[2], [2]], [[3], [0]]])
    got = tf.gather_nd(x, bidx, batch_dims=1)
    np.testing.assert_array_equal(got.numpy(), np.stack([x[b][bidx[b][:, 0]] for b in range(3)]))
    upd = rand(3, 2)
    out = tf.scatter_nd(idx, upd, [3, 4, 2])
    want = np.zeros((3, 4, 2))
    np.add.at(want, (idx[:, 0], idx[:, 1]), upd)
    np.testing.assert_allclose(out.numpy(), want)
    check_grads(lambda u: tf.scatter_nd(idx, u * u, [3, 4, 2]), [upd])
    with pytest.raises(errors.InvalidArgumentError, match="GatherNd"):
        tf.gather_nd(x, [[3, 0]])
    with pytest.raises(errors.InvalidArgumentError, match=r"updates.*ScatterNd"):
        tf.scatter_nd(idx, rand(2, 2), [3, 4, 2])


def test_tensor_scatter_nd_update_add_sub():
    t, u = rand(4, 3), rand(2, 3)
    idx = np.array([[3], [1]])
    want = t.copy()
    want[[3, 1]] = u
    np.testing.assert_array_equal(tf.tensor_scatter_nd_update(t, idx, u).numpy(), want)
    want = t.copy()
    want[[3, 1]] += u
    np.testing.assert_allclose(tf.tensor_scatter_nd_add(t, idx, u).numpy(), want)
    want = t.copy()
    want[[3, 1]] -= u
    np.testing.assert_allclose(tf.tensor_scatter_nd_sub(t, idx, u).numpy(), want)
    check_grads(lambda a, b: tf.tensor_scatter_nd_update(a * a, idx, b * b), [t, u])
    check_grads(lambda a, b: tf.tensor_scatter_nd_add(a, idx, b) ** 2, [t, u])


def test_boolean_mask():
    x = rand(3, 4)
    m = np.array([True, False, True])
    np.testing.assert_array_equal(tf.boolean_mask(x, m).numpy(), x[m])
    m2 = np.array([False, True, True, False])
    np.testing.assert_array_equal(tf.boolean_mask(x, m2, axis=1).numpy(), x[:, m2])
    mm = x > 0
    np.testing.assert_array_equal(tf.boolean_mask(x, mm).numpy(), x[mm])
    check_grads(lambda t: tf.boolean_mask(t, m2, axis=1) ** 2, [x])
    with pytest.raises(ValueError, match="incompatible"):
        tf.boolean_mask(x, [True, False])


# -- creation --------------------------------------------------------------------------------

def test_one_hot():
    got = tf.one_hot([0, 2, -1, 3], 3)
    assert got.dtype == tf.float32
    np.testing.assert_array_equal(got.numpy(), [[1, 0, 0], [0, 0, 1], [0, 0, 0], [0, 0, 0]])
    got = tf.one_hot([[1, 0]], 2, on_value=5, off_value=-1, axis=0)
    assert got.dtype == tf.int32 and got.shape == (2, 1, 2)
    np.testing.assert_array_equal(got.numpy()[:, 0, :], [[-1, 5], [5, -1]])
    assert tf.one_hot([1], 2, dtype=tf.float64).dtype == tf.float64


def test_range_linspace_eye():
    assert tf.range(5).dtype == tf.int32 and tf.range(5).numpy().tolist() == [0, 1, 2, 3, 4]
    np.testing.assert_allclose(tf.range(1.0, 2.0, 0.25).numpy(), [1, 1.25, 1.5, 1.75])
    assert tf.range(1.0, 2.0, 0.25).dtype == tf.float32
    assert tf.range(10, 0, -3).numpy().tolist() == [10, 7, 4, 1]
    assert tf.range(3, dtype=tf.float64).dtype == tf.float64
    assert tf.range(tf.constant(4, tf.int64)).dtype == tf.int64
    with pytest.raises(errors.InvalidArgumentError, match="delta != 0"):
        tf.range(0, 5, 0)
    np.testing.assert_allclose(tf.linspace(0.0, 1.0, 5).numpy(), np.linspace(0, 1, 5))
    assert tf.linspace(tf.constant(0.0, tf.float64), 1.0, 3).dtype == tf.float64
    np.testing.assert_array_equal(tf.eye(2, 3).numpy(), np.eye(2, 3))
    e = tf.eye(2, batch_shape=[3], dtype=tf.int32)
    assert e.shape == (3, 2, 2) and e.dtype == tf.int32 and e.numpy()[2].tolist() == [[1, 0], [0, 1]]


def test_shape_size_rank():
    x = tf.zeros([2, 3, 4])
    assert tf.shape(x).dtype == tf.int32 and tf.shape(x).numpy().tolist() == [2, 3, 4]
    assert tf.shape(x, out_type=tf.int64).dtype == tf.int64
    assert tf.size(x).numpy() == 24 and tf.size(x).dtype == tf.int32
    assert tf.rank(x).numpy() == 3 and tf.rank(3.0).numpy() == 0
    assert tf.shape(5.0).shape == (0,)


# -- clipping ----------------------------------------------------------------------------------

def test_clip_by_norm():
    x = np.array([[3.0, 4.0], [0.3, 0.4]])
    np.testing.assert_allclose(tf.clip_by_norm(x, 1.0).numpy(), x / np.linalg.norm(x))
    np.testing.assert_allclose(tf.clip_by_norm(x, 1.0, axes=[1]).numpy(), [[0.6, 0.8], [0.3, 0.4]])
    np.testing.assert_array_equal(tf.clip_by_norm(np.zeros(3), 1.0).numpy(), np.zeros(3))
    check_grads(lambda t: tf.clip_by_norm(t, 1.0, axes=[1]), [x])  # one row clipped, one not


def test_global_norm_and_clip_by_global_norm():
    a, b = rand(2, 3), rand(4)
    norm = np.sqrt(np.sum(a ** 2) + np.sum(b ** 2))
    from minitf.ops.clip import global_norm  # TF exposes it as tf.linalg.global_norm
    assert np.isclose(global_norm([a, None, b]).numpy(), norm)
    sl = IndexedSlices(tf.constant(b[:2].reshape(1, 2)), tf.constant([1]), (3, 2))
    clipped, gn = tf.clip_by_global_norm([a, None, sl], 0.5)
    want_norm = np.sqrt(np.sum(a ** 2) + np.sum(b[:2] ** 2))
    assert np.isclose(gn.numpy(), want_norm)
    assert clipped[1] is None and isinstance(clipped[2], IndexedSlices)
    np.testing.assert_allclose(clipped[0].numpy(), a * 0.5 / want_norm)
    np.testing.assert_allclose(clipped[2].values.numpy(), b[:2].reshape(1, 2) * 0.5 / want_norm)
    same, _ = tf.clip_by_global_norm([a], 1e6)
    np.testing.assert_allclose(same[0].numpy(), a)
    nan, _ = tf.clip_by_global_norm([np.array([np.inf, 1.0])], 1.0)
    assert np.all(np.isnan(nan[0].numpy()))
    with pytest.raises(TypeError):
        tf.clip_by_global_norm(tf.constant(a), 1.0)


# -- reordering -------------------------------------------------------------------------------

def test_roll_and_reverse():
    x = rand(3, 4)
    np.testing.assert_array_equal(tf.roll(x, 1, 0).numpy(), np.roll(x, 1, 0))
    np.testing.assert_array_equal(tf.roll(x, [1, -2], [0, 1]).numpy(), np.roll(x, [1, -2], [0, 1]))
    np.testing.assert_array_equal(tf.reverse(x, [1]).numpy(), x[:, ::-1])
    np.testing.assert_array_equal(tf.reverse(x, [0, -1]).numpy(), x[::-1, ::-1])
    check_grads(lambda t: tf.roll(t, [1, -2], [0, 1]) * t, [x])
    check_grads(lambda t: tf.reverse(t, [1]) * t, [x])


def test_sort_and_argsort():
    x = rand(3, 5)
    np.testing.assert_array_equal(tf.sort(x).numpy(), np.sort(x, -1))
    np.testing.assert_array_equal(tf.sort(x, axis=0, direction="DESCENDING").numpy(), -np.sort(-x, 0))
    got = tf.argsort([3, 1, 3, 2], direction="DESCENDING", stable=True)
    assert got.dtype == tf.int32 and got.numpy().tolist() == [0, 2, 3, 1]
    assert tf.argsort([3, 1, 3, 2], stable=True).numpy().tolist() == [1, 3, 0, 2]
    check_grads(lambda t: tf.sort(t, axis=0) * tf.range(3.0, dtype=tf.float64)[:, None], [x])
    with pytest.raises(ValueError, match="direction"):
        tf.sort(x, direction="UP")


def test_repeat_meshgrid_sequence_mask():
    assert tf.repeat([1, 2], 2).numpy().tolist() == [1, 1, 2, 2]
    x = rand(2, 3)
    np.testing.assert_array_equal(tf.repeat(x, [1, 2], axis=0).numpy(), np.repeat(x, [1, 2], 0))
    np.testing.assert_array_equal(tf.repeat(x, 2).numpy(), np.repeat(x, 2))
    check_grads(lambda t: tf.repeat(t, [2, 0, 1], axis=1) ** 2, [x])
    gx, gy = tf.meshgrid([1, 2, 3], [4, 5])
    nx, ny = np.meshgrid([1, 2, 3], [4, 5])
    np.testing.assert_array_equal(gx.numpy(), nx)
    np.testing.assert_array_equal(gy.numpy(), ny)
    ix, iy = tf.meshgrid([1, 2, 3], [4, 5], indexing="ij")
    np.testing.assert_array_equal(iy.numpy(), np.meshgrid([1, 2, 3], [4, 5], indexing="ij")[1])
    m = tf.sequence_mask([1, 3, 0], 4)
    assert m.dtype == tf.bool
    np.testing.assert_array_equal(m.numpy(), [[1, 0, 0, 0], [1, 1, 1, 0], [0, 0, 0, 0]])
    assert tf.sequence_mask([2, 1]).shape == (2, 2)
    assert tf.sequence_mask([2], 3, dtype=tf.float32).dtype == tf.float32


def test_unique_and_identity_n():
    y, idx = tf.unique([4, 1, 4, 2, 1])
    assert y.numpy().tolist() == [4, 1, 2] and idx.numpy().tolist() == [0, 1, 0, 2, 1]
    assert idx.dtype == tf.int32
    with pytest.raises(errors.InvalidArgumentError, match="1D"):
        tf.unique([[1]])
    a, b = tf.identity_n([tf.constant(1.0), tf.constant([2, 3])])
    assert a.numpy() == 1.0 and b.numpy().tolist() == [2, 3]


@pytest.mark.parametrize("fn", [
    lambda t: tf.concat([t, t * t], 1),
    lambda t: tf.split(t, [1, 3], 1)[1] * 2.0,
    lambda t: tf.tile(t, [2, 1]),
    lambda t: tf.pad(t, [[1, 0], [0, 2]]),
    lambda t: tf.pad(t, [[1, 1], [2, 1]], "REFLECT"),
    lambda t: tf.gather(t, [2, 0, 2]),
    lambda t: tf.gather(t, [[1], [3]], axis=1),
    lambda t: tf.gather_nd(t, [[0, 1], [2, 3]]),
    lambda t: tf.gather_nd(t, [[1], [3], [0]], batch_dims=1),
    lambda t: tf.scatter_nd([[1], [0]], t[:2], [3, 4]),
    lambda t: tf.tensor_scatter_nd_update(t, [[1]], t[:1] * 3.0),
    lambda t: tf.roll(t, 1, 1) + tf.reverse(t, [0]),
    lambda t: tf.sort(t, axis=1),
    lambda t: tf.expand_dims(tf.squeeze(t[:1]), 0),
    lambda t: tf.boolean_mask(t, [True, False, True]),
])
def test_jacobian_pfor_matches_loop(fn):
    x = tf.constant(rand(3, 4))
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = fn(x)
    fast = tape.jacobian(y, x, experimental_use_pfor=True)
    slow = tape.jacobian(y, x, experimental_use_pfor=False)
    np.testing.assert_allclose(fast.numpy(), slow.numpy(), rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("fn", [
    lambda t: tf.tile(t * t, [2, 3]),
    lambda t: tf.pad(t * t, [[1, 0], [0, 2]]),
    lambda t: tf.gather_nd(t * t, [[1], [3], [0]], batch_dims=1),
])
def test_hessian_through_gradient_ops_matches_loop(fn):
    # the gradient rules of tile and pad record TileGrad / PadGrad: batched cotangents flow through
    # them when the jacobian of a gradient is vectorized
    x = tf.constant(rand(3, 4))
    with tf.GradientTape(persistent=True) as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = tf.reduce_sum(fn(x) * tf.constant(rand(*fn(x).shape)))
        g = inner.gradient(y, x)
    fast = outer.jacobian(g, x, experimental_use_pfor=True)
    slow = outer.jacobian(g, x, experimental_use_pfor=False)
    np.testing.assert_allclose(fast.numpy(), slow.numpy(), rtol=1e-12, atol=1e-14)
    assert np.abs(fast.numpy()).sum() > 0


def test_gather_second_order_through_variable():
    v = tf.Variable(rand(4, 2))
    with tf.GradientTape() as outer:
        with tf.GradientTape() as inner:
            y = tf.reduce_sum(tf.gather(v, [1, 1, 3]) ** 3)
        g = tf.convert_to_tensor(inner.gradient(y, v))
        z = tf.reduce_sum(g)
    h = outer.gradient(z, v)
    want = np.zeros((4, 2))
    w = v.numpy()
    want[1] = 2 * 6 * w[1]
    want[3] = 6 * w[3]
    np.testing.assert_allclose(tf.convert_to_tensor(h).numpy(), want)


def test_gather_index_and_axis_dtypes_follow_tf():
    x = tf.constant([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    for dtype in (tf.int16, tf.int32, tf.int64):
        assert tf.gather(x, tf.constant([1, 0], dtype)).numpy()[0].tolist() == [4.0, 5.0, 6.0]
    for bad in (tf.constant([0, 1], tf.int8), tf.constant([0, 1], tf.uint8), tf.constant([0, 1], tf.uint16),
                tf.constant([0.0, 1.0]), [0.0, 1.0], [True], []):
        with pytest.raises(errors.InvalidArgumentError, match="Tindices"):
            tf.gather(x, bad)
    with pytest.raises(errors.InvalidArgumentError, match="Taxis"):
        tf.gather(x, [0], axis=1.0)
    with pytest.raises(errors.InvalidArgumentError, match="not in"):
        tf.gather(x, [0, 2])
    assert tf.gather(x, [0], axis=tf.constant(1, tf.int64)).shape == (2, 1)


def test_one_hot_index_depth_and_value_dtypes_follow_tf():
    for dtype in (tf.uint8, tf.int8, tf.int32, tf.int64):
        assert tf.one_hot(tf.constant([0, 1], dtype), 3).shape == (2, 3)
    for bad in (tf.constant([0, 1], tf.int16), tf.constant([0, 1], tf.uint16), tf.constant([0.0]), [0.0, 1.0]):
        with pytest.raises(errors.InvalidArgumentError, match="TI"):
            tf.one_hot(bad, 3)
    assert tf.one_hot([True], 3).numpy().tolist() == [[0.0, 1.0, 0.0]]  # Python bools count as ints
    with pytest.raises(TypeError):
        tf.one_hot([0, 1], 3.0)
    with pytest.raises(ValueError):
        tf.one_hot([0, 1], tf.constant(3, tf.int64))
    # on/off values decide the dtype; they must agree with each other and with dtype=
    assert tf.one_hot([0], 2, on_value=5).dtype == tf.int32
    assert tf.one_hot([0], 2, off_value=-1.0).dtype == tf.float32
    assert tf.one_hot([0], 2, on_value=5, dtype=tf.float32).numpy().tolist() == [[5.0, 0.0]]
    assert tf.one_hot([0], 2, on_value=True, off_value=False).dtype == tf.bool
    with pytest.raises(TypeError, match="off_value"):
        tf.one_hot([0], 2, on_value=5, off_value=1.0)
    with pytest.raises(TypeError, match="dtype parameter"):
        tf.one_hot([0], 2, on_value=tf.constant(5, tf.int64), dtype=tf.int32)
    with pytest.raises(TypeError, match="dtype parameter"):
        tf.one_hot([0], 2, on_value=5.0, dtype=tf.int32)
    with pytest.raises(TypeError):
        tf.one_hot([0], 2, dtype=tf.bool)  # the default on_value 1 does not convert to bool


def test_reshape_sizes_follow_tf():
    x = tf.constant([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    for bad, match in (([-1, -1], "Only one input size may be -1"), ([-2, 3], "must be non-negative"),
                       ([4, 2], "6 values"), ([-1, 4], "multiple of 4"), ([2, 3.0], "Tshape"),
                       ([[2, 3]], "1-D"), (tf.constant([6.0]), "Tshape"), (tf.constant([[6]]), "1-D")):
        with pytest.raises(errors.InvalidArgumentError, match=match):
            tf.reshape(x, bad)
    with pytest.raises(ValueError):
        tf.reshape(x, [True, 6])
    e = tf.zeros([0, 3])
    # with a zero-size target dimension, -1 is inferred from the input's non-zero sizes
    assert tf.reshape(e, [-1, 0]).shape == (3, 0)
    assert tf.reshape(e, [0, -1]).shape == (0, 3)
    assert tf.reshape(e, [3, -1]).shape == (3, 0)
    assert tf.reshape(e, [-1]).shape == (0,)
    assert tf.reshape(x, tf.constant([3, 2], tf.int64)).shape == (3, 2)
    assert tf.reshape(x, [-1, tf.constant(3)]).shape == (2, 3)


def test_concat_edge_cases_follow_tf():
    x = tf.constant([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    # one value comes back as it is, whatever the axis (even a scalar)
    assert tf.concat([x], 5).shape == (2, 3)
    assert tf.concat(x, 0).shape == (2, 3)
    assert tf.concat([tf.constant(1.0)], 0).numpy() == 1.0
    with pytest.raises(errors.InvalidArgumentError):
        tf.concat([], 0)
    with pytest.raises(errors.InvalidArgumentError):
        tf.concat([x, x], 2)
    with pytest.raises(errors.InvalidArgumentError):
        tf.concat([x, x], -3)
    with pytest.raises(TypeError):
        tf.concat([x, x], 1.0)
    with pytest.raises(TypeError):
        tf.concat([x], 1.0)
    # Python values take the dtype of the tensors beside them
    y = tf.concat([[[1, 2, 3]], x], 0)
    assert y.dtype == tf.float32 and y.numpy()[0].tolist() == [1.0, 2.0, 3.0]
    with pytest.raises(errors.InvalidArgumentError):
        tf.concat([x, tf.ones([2, 3], tf.float64)], 0)


def test_stack_unstack_edge_cases_follow_tf():
    x = tf.constant([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    e = tf.stack([])
    assert e.dtype == tf.float32 and e.shape == (0,)
    assert tf.stack([x, [[1, 2, 3], [4, 5, 6]]]).dtype == tf.float32  # lists take the tensor dtype
    for axis in (3, -4):
        with pytest.raises(ValueError, match="not in range"):
            tf.stack([x, x], axis)
    with pytest.raises(ValueError, match="not in range"):
        tf.unstack(tf.constant([1, 2]), axis=1)
    with pytest.raises(errors.InvalidArgumentError):
        tf.unstack(x, num=3)


def test_pad_reverse_roll_repeat_where_scatter_errors_follow_tf():
    x = tf.constant([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    s = tf.constant(2.0)
    for bad in ([], [1, 1, 1, 1], [[1, 1, 1], [1, 1, 1]]):
        with pytest.raises(errors.InvalidArgumentError, match="matrix with 2 columns"):
            tf.pad(x, bad)
    with pytest.raises(errors.InvalidArgumentError, match="matrix with 2 columns"):
        tf.pad(s, [])
    with pytest.raises(errors.InvalidArgumentError, match="Tpaddings"):
        tf.pad(x, [[1.0, 1], [1, 1]])
    # TF hands back scalars and empty tensors from reverse without looking at the axes
    assert tf.reverse(s, [5]).numpy() == 2.0
    assert tf.reverse(tf.zeros([1, 0, 3]), [-4, 2]).shape == (1, 0, 3)
    with pytest.raises(errors.InvalidArgumentError):
        tf.reverse(x, [2])
    with pytest.raises(errors.InvalidArgumentError, match="1-D or higher"):
        tf.roll(s, 0, 0)
    with pytest.raises(ValueError, match="out of bounds"):
        tf.repeat(tf.constant([1, 2]), 3, 1)
    with pytest.raises(ValueError, match="not compatible"):
        tf.repeat(x, [1, 2, 3], axis=0)
    with pytest.raises(errors.InvalidArgumentError, match="Unhandled input dimensions"):
        tf.where(tf.constant(True))
    with pytest.raises(errors.InvalidArgumentError, match="input #2"):
        tf.tensor_scatter_nd_update(x, [[0]], tf.ones([1, 3], tf.float64))
    with pytest.raises(errors.InvalidArgumentError, match="Tindices"):
        tf.tensor_scatter_nd_update(x, [[0.0]], tf.ones([1, 3]))


def test_transpose_stack_one_hot_error_order_follows_tf():
    x = tf.ones([3, 4])
    with pytest.raises(errors.InvalidArgumentError, match="out of range"):
        tf.transpose(x, [3, 0])
    assert tf.transpose(x, [-1, 0]).shape == (4, 3)
    with pytest.raises(IndexError):
        tf.stack([], 1)
    # one_hot checks on/off/dtype agreement before the indices' dtype
    with pytest.raises(TypeError, match="dtype parameter"):
        tf.one_hot(tf.constant([1.5]), 2, on_value=1.0, dtype=tf.bool)


def test_filled_tensors_and_range_follow_tf():
    assert tf.zeros([2], tf.string).numpy().tolist() == [b"", b""]
    assert tf.zeros_like(tf.constant("ab")).numpy() == b""
    with pytest.raises(TypeError):
        tf.ones([2], tf.string)
    with pytest.raises(errors.InvalidArgumentError):
        tf.ones_like(tf.constant("ab"))
    for fn in (lambda: tf.zeros([-1]), lambda: tf.fill([-1], 1)):
        with pytest.raises(errors.InvalidArgumentError, match="must be >= 0"):
            fn()
    with pytest.raises(TypeError):
        tf.zeros([2.5])
    assert tf.fill([2], "a").numpy().tolist() == [b"a", b"a"]
    with pytest.raises(errors.InvalidArgumentError):
        tf.range(5, dtype=tf.uint8)
    with pytest.raises(tf.errors.NotFoundError):
        tf.range(5, dtype=tf.int16)
    with pytest.raises(TypeError):
        tf.range(1.5, dtype=tf.int32)
    assert tf.range(tf.constant(2.5), dtype=tf.int32).numpy().tolist() == [0, 1]
    assert tf.range(3, dtype=tf.float16).dtype == tf.float16


def test_sort_and_clip_by_norm_dtypes_follow_tf():
    for fn in (tf.sort, tf.argsort):
        with pytest.raises(errors.InvalidArgumentError):
            fn(tf.ones([4], tf.bool))
        with pytest.raises(errors.InvalidArgumentError):
            fn(tf.ones([4], tf.complex64))
    with pytest.raises(errors.InvalidArgumentError):
        tf.clip_by_norm(tf.ones([3], tf.int32), 1.0)


def test_a_shape_list_may_hold_integer_scalars_of_any_integer_dtype():
    n64, n32 = tf.constant(3, tf.int64), tf.constant(2, tf.int32)
    assert tf.ones([n64, 1]).shape == (3, 1) and tf.zeros([n64, n32]).shape == (3, 2)
    assert tf.fill([n64, 2], 1.0).shape == (3, 2)
