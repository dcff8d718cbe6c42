"""tf.nn.conv3d, conv3d_transpose, max_pool3d, avg_pool3d: values against loop references,
adjointness, float64 finite-difference gradients (first and second order), dtypes and errors."""
import itertools

import numpy as np
import pytest

import minitf as tf
from minitf.errors import errors
from minitf.gradient_checker import assert_gradients_close
from minitf.ops import pool3d

RNG = np.random.default_rng(3)


def rand(*shape, dtype=np.float64):
    return RNG.standard_normal(shape).astype(dtype)


def same_pads(size, k, stride, dilation):
    out = -(-size // stride)
    total = max((out - 1) * stride + (k - 1) * dilation + 1 - size, 0)
    return total // 2, total - total // 2


def _pads(padding, spatial, k, s, d):
    if padding == "VALID":
        return [(0, 0)] * 3
    return [same_pads(n, kk, ss, dd) for n, kk, ss, dd in zip(spatial, k, s, d)]


def _windows(x, k, s, d, pads, fill):
    """Yield (tap, view [N, OD, OH, OW, C]) of the padded input for every tap of the window."""
    xp = np.pad(x, [(0, 0)] + list(pads) + [(0, 0)], constant_values=fill)
    out = [(xp.shape[i + 1] - (k[i] - 1) * d[i] - 1) // s[i] + 1 for i in range(3)]
    for tap in itertools.product(*(range(kk) for kk in k)):
        idx = tuple(slice(t * dd, t * dd + (o - 1) * ss + 1, ss) for t, dd, o, ss in zip(tap, d, out, s))
        yield tap, xp[(slice(None),) + idx]


def ref_conv3d(x, w, s, padding, d=(1, 1, 1)):
    k = w.shape[:3]
    y = 0
    for tap, view in _windows(x, k, s, d, _pads(padding, x.shape[1:4], k, s, d), 0.0):
        y = y + view @ w[tap]
    return y


def ref_pool3d(x, k, s, padding, kind):
    pads = _pads(padding, x.shape[1:4], k, s, (1, 1, 1))
    views = [v for _, v in _windows(x, k, s, (1, 1, 1), pads, np.nan)]
    stack = np.stack(views)
    return np.nanmax(stack, axis=0) if kind == "max" else np.nanmean(stack, axis=0)


# -- values ------------------------------------------------------------------------------------

CONV_CASES = list(itertools.product(
    [(1, 5, 6, 4, 3), (2, 4, 3, 5, 2)],
    [(3, 3, 3), (2, 1, 3), (1, 1, 1)],
    [(1, 1, 1), (2, 2, 1), (3, 1, 2)],
    ["SAME", "VALID"],
))


@pytest.mark.parametrize("shape,k,s,padding", CONV_CASES)
def test_conv3d_matches_loop_reference(shape, k, s, padding):
    x, w = rand(*shape), rand(*k, shape[4], 4)
    y = tf.nn.conv3d(x, w, [1, *s, 1], padding)
    np.testing.assert_allclose(y.numpy(), ref_conv3d(x, w, s, padding), rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("d,padding", [((2, 1, 2), "VALID"), ((1, 2, 1), "SAME"), ((2, 2, 2), "SAME")])
def test_conv3d_dilations_match_reference(d, padding):
    x, w = rand(2, 6, 5, 6, 2), rand(2, 3, 2, 2, 3)
    y = tf.nn.conv3d(x, w, [1, 1, 1, 1, 1], padding, dilations=[1, *d, 1])
    np.testing.assert_allclose(y.numpy(), ref_conv3d(x, w, (1, 1, 1), padding, d), rtol=1e-10, atol=1e-10)


def test_conv3d_channels_first_and_float32():
    x, w = rand(2, 4, 5, 3, 3, dtype=np.float32), rand(2, 2, 2, 3, 5, dtype=np.float32)
    y = tf.nn.conv3d(np.transpose(x, (0, 4, 1, 2, 3)), w, (1, 1, 2, 1, 1), "SAME", data_format="NCDHW")
    assert y.dtype == tf.float32 and y.shape == (2, 5, 2, 5, 3)
    expect = ref_conv3d(x.astype(np.float64), w.astype(np.float64), (2, 1, 1), "SAME")
    np.testing.assert_allclose(np.transpose(y.numpy(), (0, 2, 3, 4, 1)), expect, rtol=1e-5, atol=1e-5)


def test_conv3d_float16_accumulates_in_float32():
    x, w = rand(1, 4, 4, 4, 8, dtype=np.float16), rand(3, 3, 3, 8, 2, dtype=np.float16)
    y = tf.nn.conv3d(x, w, [1, 1, 1, 1, 1], "SAME")
    assert y.dtype == tf.float16
    expect = ref_conv3d(x.astype(np.float32), w.astype(np.float32), (1, 1, 1), "SAME").astype(np.float16)
    np.testing.assert_array_equal(y.numpy(), expect)


@pytest.mark.parametrize("out_shape,s,padding", [([2, 6, 5, 7, 3], (2, 2, 2), "SAME"),
                                                 ([2, 7, 6, 8, 3], (2, 2, 2), "VALID"),
                                                 ([2, 3, 3, 4, 3], (1, 1, 1), "SAME")])
def test_conv3d_transpose_is_adjoint_of_conv3d(out_shape, s, padding):
    w = rand(3, 2, 3, 3, 4)
    x = rand(*out_shape)
    y = tf.nn.conv3d(x, w, [1, *s, 1], padding)
    g = rand(*y.shape)
    back = tf.nn.conv3d_transpose(g, w, out_shape, list(s), padding)
    assert back.shape == tuple(out_shape)
    np.testing.assert_allclose(np.sum(y.numpy() * g), np.sum(x * back.numpy()), rtol=1e-10)


def test_conv3d_transpose_strides_forms_and_channels_first():
    g, w = rand(1, 2, 3, 2, 4), rand(2, 2, 2, 3, 4)
    a = tf.nn.conv3d_transpose(g, w, [1, 4, 6, 4, 3], 2, "SAME")
    b = tf.nn.conv3d_transpose(g, w, tf.constant([1, 4, 6, 4, 3]), [1, 2, 2, 2, 1], "SAME")
    c = tf.nn.conv3d_transpose(np.transpose(g, (0, 4, 1, 2, 3)), w, [1, 3, 4, 6, 4], [2, 2, 2], "SAME",
                               data_format="NCDHW")
    np.testing.assert_array_equal(a.numpy(), b.numpy())
    np.testing.assert_allclose(np.transpose(c.numpy(), (0, 2, 3, 4, 1)), a.numpy(), rtol=1e-12)


POOL_CASES = list(itertools.product([(2, 5, 4, 6, 2)], [(2, 2, 2), (3, 1, 2), (1, 1, 1)],
                                    [(1, 1, 1), (2, 2, 2), (2, 1, 3)], ["SAME", "VALID"]))


@pytest.mark.parametrize("shape,k,s,padding", POOL_CASES)
@pytest.mark.parametrize("kind", ["max", "avg"])
def test_pool3d_matches_reference(shape, k, s, padding, kind):
    x = rand(*shape, dtype=np.float32)
    fn = tf.nn.max_pool3d if kind == "max" else tf.nn.avg_pool3d
    y = fn(x, list(k), list(s), padding)
    np.testing.assert_allclose(y.numpy(), ref_pool3d(x.astype(np.float64), k, s, padding, kind), rtol=1e-6, atol=1e-6)


def test_pool3d_channels_first_int_ksize_and_empty_output():
    x = rand(1, 3, 4, 4, 4, dtype=np.float32)
    y = tf.nn.max_pool3d(x, 2, 2, "VALID", data_format="NCDHW")
    expect = np.transpose(ref_pool3d(np.transpose(x, (0, 2, 3, 4, 1)), (2, 2, 2), (2, 2, 2), "VALID", "max"),
                          (0, 4, 1, 2, 3))
    np.testing.assert_allclose(y.numpy(), expect)
    assert tf.nn.avg_pool3d(x, [4, 1, 1], 1, "VALID").shape == (1, 0, 4, 4, 4)


def test_max_pool3d_gradient_goes_to_every_tied_maximum():
    x = tf.constant(np.array([1, 3, 3, 0, 2, 3, 1, 1], np.float32).reshape(1, 2, 2, 2, 1))
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.nn.max_pool3d(x, 2, 2, "VALID")
    np.testing.assert_array_equal(tape.gradient(y, x).numpy().ravel(), [0, 1, 1, 0, 0, 1, 0, 0])
    ones = tf.ones((1, 3, 3, 3, 1))
    with tf.GradientTape() as tape:
        tape.watch(ones)
        y = tf.nn.max_pool3d(ones, 2, 1, "VALID")
    counts = tape.gradient(y, ones).numpy().reshape(3, 3, 3)
    np.testing.assert_array_equal(counts[1, 1], [4, 8, 4])  # each window credits all its 8 ties
    assert counts[0, 0, 0] == 1 and counts.sum() == 64


def test_avg_pool3d_same_averages_real_elements_only():
    x = tf.constant(np.arange(27, dtype=np.float32).reshape(1, 3, 3, 3, 1))
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.nn.avg_pool3d(x, 2, 2, "SAME")
    np.testing.assert_allclose(y.numpy().ravel(), [6.5, 8, 11, 12.5, 20, 21.5, 24.5, 26])
    g = tape.gradient(y, x).numpy().ravel()
    assert g[0] == 0.125 and g[26] == 1.0 and g[8] == 0.5


# -- gradients (float64 central differences) -----------------------------------------------------

@pytest.mark.parametrize("s,padding,d", [((1, 1, 1), "SAME", (1, 1, 1)), ((2, 1, 2), "SAME", (1, 1, 1)),
                                         ((1, 1, 1), "VALID", (2, 1, 1))])
def test_conv3d_gradients_second_order(s, padding, d):
    x, w = rand(1, 4, 3, 4, 2), rand(2, 2, 2, 2, 2)
    assert_gradients_close(lambda a, b: tf.nn.conv3d(a, b, [1, *s, 1], padding, dilations=[1, *d, 1]),
                           [x, w], order=2)


def test_conv3d_channels_first_gradients():
    x, w = rand(1, 2, 3, 3, 3), rand(2, 1, 2, 2, 2)
    assert_gradients_close(lambda a, b: tf.nn.conv3d(a, b, [1, 1, 1, 2, 1], "SAME", data_format="NCDHW"),
                           [x, w])


@pytest.mark.parametrize("out_shape,s,padding", [([1, 4, 3, 5, 2], 2, "SAME"), ([1, 5, 4, 5, 2], [2, 1, 2], "VALID")])
def test_conv3d_transpose_gradients_second_order(out_shape, s, padding):
    w = rand(2, 2, 2, 2, 3)
    x = tf.zeros(out_shape, dtype=tf.float64)
    g = rand(*tf.nn.conv3d(x, w, [1, *([s] * 3 if isinstance(s, int) else s), 1], padding).shape)
    assert_gradients_close(lambda a, b: tf.nn.conv3d_transpose(a, b, out_shape, s, padding), [g, w], order=2)


@pytest.mark.parametrize("k,s,padding", [((2, 2, 2), (2, 2, 2), "SAME"), ((3, 2, 1), (1, 1, 1), "SAME"),
                                         ((2, 2, 2), (1, 2, 1), "VALID")])
def test_max_pool3d_gradients_second_order(k, s, padding):
    """MaxPool3D rejects float64 as TF does, so the rule is checked on the op's float64 core."""
    x = RNG.permutation(60).reshape(1, 3, 5, 2, 2).astype(np.float64)  # distinct values: no ties

    def f(a):
        geo = pool3d.geometry(a, list(k), list(s), padding, "NDHWC", "MaxPool3D")
        return pool3d._max_pool3d_ndhwc(a, geo) ** 2
    assert_gradients_close(f, [x], order=2)
    np.testing.assert_allclose(f(tf.constant(x)).numpy(), ref_pool3d(x, k, s, padding, "max") ** 2)


@pytest.mark.parametrize("k,s,padding", [((2, 2, 2), (2, 2, 2), "SAME"), ((3, 2, 1), (1, 1, 1), "SAME"),
                                         ((2, 2, 2), (1, 2, 1), "VALID")])
def test_avg_pool3d_gradients_second_order(k, s, padding):
    x = rand(1, 3, 5, 2, 2)
    assert_gradients_close(lambda a: tf.nn.avg_pool3d(a, list(k), list(s), padding) ** 2, [x], order=2)


# -- dtypes and errors -----------------------------------------------------------------------------

def test_conv3d_argument_errors_follow_tf():
    x, w = np.ones((1, 3, 3, 3, 2), np.float32), np.ones((2, 2, 2, 2, 1), np.float32)
    with pytest.raises(TypeError, match="Expected list for 'strides'"):
        tf.nn.conv3d(x, w, 1, "SAME")
    with pytest.raises(TypeError, match="Expected list for 'dilations'"):
        tf.nn.conv3d(x, w, [1] * 5, "SAME", dilations=2)
    with pytest.raises(errors.InvalidArgumentError, match="5 dimensions"):
        tf.nn.conv3d(x, w, [1, 1, 1], "SAME")
    with pytest.raises(errors.UnimplementedError, match="batch and depth"):
        tf.nn.conv3d(x, w, [2, 1, 1, 1, 1], "SAME")
    with pytest.raises(errors.InvalidArgumentError, match="dilations in the batch"):
        tf.nn.conv3d(x, w, [1] * 5, "SAME", dilations=[1, 1, 1, 1, 2])
    with pytest.raises(errors.InvalidArgumentError, match="strides must be > 0"):
        tf.nn.conv3d(x, w, [1, 0, 1, 1, 1], "SAME")
    with pytest.raises(errors.InvalidArgumentError, match='"same".*SAME'):
        tf.nn.conv3d(x, w, [1] * 5, "same")
    with pytest.raises(TypeError, match="padding"):
        tf.nn.conv3d(x, w, [1] * 5, [[0, 0]] * 5)
    with pytest.raises(errors.InvalidArgumentError, match='"NHWC"'):
        tf.nn.conv3d(x, w, [1] * 5, "SAME", data_format="NHWC")
    with pytest.raises(errors.InvalidArgumentError, match=r"same depth: 2 vs 3.*Conv3D"):
        tf.nn.conv3d(x, np.ones((2, 2, 2, 3, 1), np.float32), [1] * 5, "SAME")
    with pytest.raises(errors.InvalidArgumentError, match="filter must be 5-dimensional"):
        tf.nn.conv3d(x, w[0], [1] * 5, "SAME")
    with pytest.raises(errors.InvalidArgumentError, match="float64|double"):
        tf.nn.conv3d(x, w.astype(np.float64), [1] * 5, "SAME")
    with pytest.raises(errors.InvalidArgumentError, match="int32"):
        tf.nn.conv3d(x.astype(np.int32), w.astype(np.int32), [1] * 5, "SAME")
    with pytest.raises(errors.InvalidArgumentError, match="negative"):
        tf.nn.conv3d(x, np.ones((4, 1, 1, 2, 1), np.float32), [1] * 5, "VALID")


def test_conv3d_transpose_and_pool_errors_follow_tf():
    g, w = np.ones((1, 2, 2, 2, 4), np.float32), np.ones((2, 2, 2, 3, 4), np.float32)
    with pytest.raises(ValueError, match="strides should be of length 1, 3 or 5"):
        tf.nn.conv3d_transpose(g, w, [1, 4, 4, 4, 3], [2, 2], "SAME")
    with pytest.raises(errors.InvalidArgumentError, match="same depth"):
        tf.nn.conv3d_transpose(g, w, [1, 4, 4, 4, 5], 2, "SAME")
    with pytest.raises(errors.InvalidArgumentError, match="doesn't match computed"):
        tf.nn.conv3d_transpose(g, w, [1, 9, 4, 4, 3], 2, "SAME")
    with pytest.raises(errors.InvalidArgumentError, match="batch and depth"):
        tf.nn.conv3d_transpose(g, w, [1, 4, 4, 4, 3], [1, 2, 2, 2, 2], "SAME")
    x = np.ones((1, 3, 3, 3, 2), np.float32)
    with pytest.raises(ValueError, match="ksize should be of length 1, 3 or 5"):
        tf.nn.max_pool3d(x, [2, 2], 1, "VALID")
    with pytest.raises(errors.UnimplementedError, match="batch dimension"):
        tf.nn.max_pool3d(x, [2, 1, 1, 1, 1], 1, "VALID")
    with pytest.raises(errors.UnimplementedError, match="depth dimension"):
        tf.nn.avg_pool3d(x, 1, [1, 1, 1, 1, 2], "VALID")
    with pytest.raises(errors.InvalidArgumentError, match="float64"):
        tf.nn.max_pool3d(x.astype(np.float64), 2, 1, "VALID")
    with pytest.raises(errors.InvalidArgumentError, match="int32"):
        tf.nn.avg_pool3d(x.astype(np.int32), 2, 1, "VALID")
    with pytest.raises(errors.InvalidArgumentError, match="5-dimensional"):
        tf.nn.max_pool3d(x[0], 2, 1, "VALID")
    with pytest.raises(TypeError, match="padding"):
        tf.nn.avg_pool3d(x, 2, 1, [[0, 0]] * 5)
    assert tf.nn.avg_pool3d(x.astype(np.float64), 2, 1, "VALID").dtype == tf.float64
    assert tf.nn.max_pool3d(x.astype(np.float16), 2, 1, "SAME").dtype == tf.float16
