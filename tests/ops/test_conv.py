"""tf.nn convolution and pooling: values against loop-based references, gradients, errors."""
import itertools

import numpy as np
import pytest

import minitf as tf
from minitf.errors import errors
from minitf.gradient_checker import assert_gradients_close

RNG = np.random.default_rng(0)


def rand(*shape, dtype=np.float64):
    return RNG.standard_normal(shape).astype(dtype)


# -- slow references ---------------------------------------------------------------------------

def same_pads(size, k, stride, dilation):
    out = -(-size // stride)
    total = max((out - 1) * stride + (k - 1) * dilation + 1 - size, 0)
    return total // 2, total - total // 2


def pads_for(padding, h, w, kh, kw, s, d):
    if padding == "SAME":
        return same_pads(h, kh, s[0], d[0]) + same_pads(w, kw, s[1], d[1])
    if padding == "VALID":
        return 0, 0, 0, 0
    return tuple(padding[1]) + tuple(padding[2])


def window_positions(h, w, kh, kw, s, d, pads):
    """For every output (i, j): the list of (row, col, tap_a, tap_b) it reads (rows may be padding)."""
    pt, pb, pl, pr = pads
    oh = (h + pt + pb - (kh - 1) * d[0] - 1) // s[0] + 1
    ow = (w + pl + pr - (kw - 1) * d[1] - 1) // s[1] + 1
    for i in range(oh):
        for j in range(ow):
            yield i, j, [(i * s[0] + a * d[0] - pt, j * s[1] + b * d[1] - pl, a, b)
                         for a in range(kh) for b in range(kw)], (oh, ow)


def ref_conv2d(x, w, s, padding, d):
    n, h, wd, c = x.shape
    kh, kw, _, f = w.shape
    pads = pads_for(padding, h, wd, kh, kw, s, d)
    outs = {}
    for i, j, taps, (oh, ow) in window_positions(h, wd, kh, kw, s, d, pads):
        acc = np.zeros((n, f))
        for r, col, a, b in taps:
            if 0 <= r < h and 0 <= col < wd:
                acc += x[:, r, col, :] @ w[a, b]
        outs[i, j] = acc
    y = np.zeros((n, oh, ow, f))
    for (i, j), v in outs.items():
        y[:, i, j] = v
    return y


def ref_depthwise(x, w, s, padding, d):
    n, h, wd, c = x.shape
    kh, kw, _, m = w.shape
    pads = pads_for(padding, h, wd, kh, kw, s, d)
    res = {}
    for i, j, taps, (oh, ow) in window_positions(h, wd, kh, kw, s, d, pads):
        acc = np.zeros((n, c, m))
        for r, col, a, b in taps:
            if 0 <= r < h and 0 <= col < wd:
                acc += x[:, r, col, :, None] * w[a, b]
        res[i, j] = acc.reshape(n, c * m)
    y = np.zeros((n, oh, ow, c * m))
    for (i, j), v in res.items():
        y[:, i, j] = v
    return y


def ref_pool(x, k, s, padding, kind):
    n, h, wd, c = x.shape
    pads = pads_for(padding, h, wd, k[0], k[1], s, (1, 1))
    res = {}
    for i, j, taps, (oh, ow) in window_positions(h, wd, k[0], k[1], s, (1, 1), pads):
        vals = [x[:, r, col] for r, col, _, _ in taps if 0 <= r < h and 0 <= col < wd]
        res[i, j] = np.max(vals, axis=0) if kind == "max" else np.mean(vals, axis=0)
    y = np.zeros((n, oh, ow, c))
    for (i, j), v in res.items():
        y[:, i, j] = v
    return y


# -- conv2d values -----------------------------------------------------------------------------

CONV_CASES = list(itertools.product(
    [(1, 7, 6, 3), (2, 5, 8, 1)],          # input shapes (odd/even, 1 or 3 channels)
    [(3, 3), (2, 1), (1, 1)],              # kernel sizes
    [(1, 1), (2, 2), (2, 3)],              # strides
    ["SAME", "VALID"],
    [(1, 1), (2, 1)],                      # dilations
))


@pytest.mark.parametrize("shape,k,s,padding,d", CONV_CASES)
def test_conv2d_matches_loop_reference(shape, k, s, padding, d):
    if (k[0] - 1) * d[0] + 1 > shape[1] and padding == "VALID":
        pytest.skip("window larger than input")
    x = rand(*shape)
    w = rand(k[0], k[1], shape[3], 4)
    y = tf.nn.conv2d(x, w, list(s), padding, dilations=list(d))
    np.testing.assert_allclose(y.numpy(), ref_conv2d(x, w, s, padding, d), rtol=1e-10, atol=1e-10)


def test_conv2d_explicit_padding_and_stride_forms():
    x, w = rand(2, 6, 5, 2), rand(3, 2, 2, 3)
    pad = [[0, 0], [2, 1], [0, 3], [0, 0]]
    expected = ref_conv2d(x, w, (2, 1), pad, (1, 1))
    for strides in ([2, 1], [1, 2, 1, 1]):
        np.testing.assert_allclose(tf.nn.conv2d(x, w, strides, pad).numpy(), expected, atol=1e-10)
    np.testing.assert_allclose(tf.nn.conv2d(x, w, 1, "SAME").numpy(),
                               tf.nn.conv2d(x, w, [1], "SAME").numpy())


def test_conv2d_float32_dtype_and_nchw():
    x, w = rand(2, 5, 5, 3, dtype=np.float32), rand(3, 3, 3, 2, dtype=np.float32)
    y = tf.nn.conv2d(x, w, 1, "SAME")
    assert y.dtype == tf.float32
    np.testing.assert_allclose(y.numpy(), ref_conv2d(x.astype(np.float64), w, (1, 1), "SAME", (1, 1)),
                               rtol=1e-4, atol=1e-4)
    y_nchw = tf.nn.conv2d(np.transpose(x, (0, 3, 1, 2)), w, [1, 1, 2, 2], "SAME", data_format="NCHW")
    np.testing.assert_allclose(np.transpose(y_nchw.numpy(), (0, 2, 3, 1)),
                               tf.nn.conv2d(x, w, 2, "SAME").numpy(), rtol=1e-5)


def test_conv1d_and_convolution():
    x, w = rand(2, 9, 3), rand(3, 3, 4)
    y = tf.nn.conv1d(x, w, stride=2, padding="SAME")
    ref = ref_conv2d(x[:, None], w[None], (1, 2), "SAME", (1, 1))[:, 0]
    np.testing.assert_allclose(y.numpy(), ref, atol=1e-10)
    np.testing.assert_allclose(tf.nn.convolution(x, w, strides=2, padding="SAME").numpy(), ref, atol=1e-10)
    x4, w4 = rand(1, 5, 5, 2), rand(2, 2, 2, 3)
    np.testing.assert_allclose(tf.nn.convolution(x4, w4).numpy(),
                               ref_conv2d(x4, w4, (1, 1), "VALID", (1, 1)), atol=1e-10)


# -- transposed and depthwise convolution -----------------------------------------------------

@pytest.mark.parametrize("in_shape,k,s,padding", [
    ((2, 7, 6, 3), (3, 3), (2, 2), "SAME"), ((1, 8, 8, 2), (2, 2), (2, 2), "VALID"),
    ((1, 5, 7, 2), (3, 2), (1, 1), "SAME"), ((1, 9, 9, 1), (3, 3), (3, 2), "VALID")])
def test_conv2d_transpose_is_adjoint_of_conv2d(in_shape, k, s, padding):
    w = rand(k[0], k[1], in_shape[3], 4)
    x = rand(*in_shape)
    y = tf.nn.conv2d(x, w, list(s), padding)
    g = rand(*y.shape)
    back = tf.nn.conv2d_transpose(g, w, list(in_shape), list(s), padding)
    assert back.shape == in_shape
    # <conv(x), g> == <x, conv_transpose(g)>
    np.testing.assert_allclose(np.sum(y.numpy() * g), np.sum(x * back.numpy()), rtol=1e-10)


def test_conv2d_transpose_rejects_inconsistent_output_shape():
    g, w = rand(1, 5, 5, 4), rand(3, 3, 2, 4)
    with pytest.raises(errors.InvalidArgumentError, match="Conv2DBackpropInput"):
        tf.nn.conv2d_transpose(g, w, [1, 20, 20, 2], 2, "SAME")


@pytest.mark.parametrize("s,padding,d", [((1, 1), "SAME", (1, 1)), ((2, 2), "VALID", (1, 1)),
                                         ((1, 1), "SAME", (2, 2)), ((2, 1), "SAME", (1, 1))])
def test_depthwise_conv2d_matches_reference(s, padding, d):
    x, w = rand(2, 7, 6, 3), rand(3, 2, 3, 2)
    y = tf.nn.depthwise_conv2d(x, w, [1, s[0], s[1], 1], padding, dilations=list(d))
    np.testing.assert_allclose(y.numpy(), ref_depthwise(x, w, s, padding, d), atol=1e-10)


def test_separable_conv2d():
    x, dw, pw = rand(1, 6, 6, 2), rand(3, 3, 2, 2), rand(1, 1, 4, 5)
    y = tf.nn.separable_conv2d(x, dw, pw, [1, 1, 1, 1], "SAME")
    mid = ref_depthwise(x, dw, (1, 1), "SAME", (1, 1))
    np.testing.assert_allclose(y.numpy(), mid @ pw[0, 0], atol=1e-10)


# -- pooling -----------------------------------------------------------------------------------

@pytest.mark.parametrize("kind", ["max", "avg"])
@pytest.mark.parametrize("shape,k,s,padding", [
    ((2, 7, 6, 3), (2, 2), (2, 2), "SAME"), ((1, 7, 7, 2), (3, 3), (2, 2), "SAME"),
    ((1, 6, 5, 1), (3, 2), (1, 2), "VALID"), ((2, 5, 5, 2), (3, 3), (1, 1), "SAME")])
def test_pools_match_reference(kind, shape, k, s, padding):
    x = rand(*shape)
    fn = tf.nn.max_pool2d if kind == "max" else tf.nn.avg_pool2d
    np.testing.assert_allclose(fn(x, list(k), list(s), padding).numpy(),
                               ref_pool(x, k, s, padding, kind), atol=1e-12)


def test_max_pool_negative_inputs_ignore_same_padding_and_int_dtype():
    x = -np.abs(rand(1, 3, 3, 1)) - 1
    y = tf.nn.max_pool2d(x, 2, 2, "SAME")
    assert np.all(y.numpy() < 0)
    xi = np.arange(16, dtype=np.int32).reshape(1, 4, 4, 1)
    yi = tf.nn.max_pool2d(xi, 2, 2, "VALID")
    assert yi.dtype == tf.int32
    np.testing.assert_array_equal(yi.numpy()[0, :, :, 0], [[5, 7], [13, 15]])


def test_explicit_padding_max_pool_and_rank_dispatch():
    x = rand(1, 4, 4, 1)
    pad = [[0, 0], [1, 1], [1, 0], [0, 0]]
    ref = ref_pool(x, (2, 2), (2, 2), pad, "max")
    np.testing.assert_allclose(tf.nn.max_pool2d(x, 2, 2, pad).numpy(), ref)
    with pytest.raises(TypeError):
        tf.nn.avg_pool2d(x, 2, 2, pad)
    x3 = rand(2, 7, 3)
    y = tf.nn.max_pool(x3, 2, 2, "SAME")
    np.testing.assert_allclose(y.numpy(), ref_pool(x3[:, None], (1, 2), (1, 2), "SAME", "max")[:, 0])
    np.testing.assert_allclose(tf.nn.avg_pool(x, 2, 1, "VALID").numpy(),
                               ref_pool(x, (2, 2), (1, 1), "VALID", "avg"))
    np.testing.assert_allclose(tf.nn.pool(x, [2, 2], "AVG", strides=[2, 2], padding="SAME").numpy(),
                               ref_pool(x, (2, 2), (2, 2), "SAME", "avg"))


def test_max_pool_gradient_routes_to_first_maximum_and_second_order_gathers():
    x = tf.constant(np.array([[1., 3.], [3., 0.]]).reshape(1, 2, 2, 1))
    g_up = tf.constant(np.array([[[[2.0]]]]))
    with tf.GradientTape() as outer:
        outer.watch(g_up)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = tf.nn.max_pool2d(x, 2, 2, "VALID")
        dx = inner.gradient(y, x, output_gradients=g_up)
        probe = tf.constant(np.array([10., 20., 30., 40.]).reshape(1, 2, 2, 1))
        s = tf.reduce_sum(dx * probe)
    np.testing.assert_array_equal(dx.numpy().ravel(), [0, 2, 0, 0])   # tie: first max wins
    np.testing.assert_array_equal(outer.gradient(s, g_up).numpy().ravel(), [20.0])


@pytest.mark.parametrize("k,s,padding", [(2, 2, "VALID"), (3, 1, "SAME"), (3, 2, "SAME"), (2, 3, "VALID")])
def test_max_pool_gradient_with_many_ties_matches_first_max_routing(k, s, padding):
    # values from {0, 1, 2}: most windows hold several maxima, and windows overlap when s < k
    xv = RNG.integers(0, 3, (2, 7, 6, 3)).astype(np.float32)
    g_up = RNG.standard_normal(tf.nn.max_pool2d(xv, k, s, padding).shape).astype(np.float32)
    x = tf.constant(xv)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.nn.max_pool2d(x, k, s, padding)
    dx = tape.gradient(y, x, output_gradients=tf.constant(g_up)).numpy()
    pt, _, pl, _ = pads_for(padding, 7, 6, k, k, (s, s), (1, 1))
    expect = np.zeros_like(xv)
    for n, i, j, c in itertools.product(*map(range, g_up.shape)):
        rows = range(max(i * s - pt, 0), min(i * s - pt + k, 7))
        cols = range(max(j * s - pl, 0), min(j * s - pl + k, 6))
        window = [(r, q) for r in rows for q in cols]  # row-major: the order TF scans a window
        r, q = max(window, key=lambda rq: (xv[n, rq[0], rq[1], c], -window.index(rq)))
        expect[n, r, q, c] += g_up[n, i, j, c]
    np.testing.assert_allclose(dx, expect, rtol=1e-6, atol=1e-6)
    np.testing.assert_array_equal(y.numpy(), ref_pool(xv, (k, k), (s, s), padding, "max"))


# -- gradients ---------------------------------------------------------------------------------

@pytest.mark.parametrize("s,padding,d", [((1, 1), "SAME", (1, 1)), ((2, 2), "SAME", (1, 1)),
                                         ((1, 2), "VALID", (2, 1))])
def test_conv2d_gradients_second_order(s, padding, d):
    x, w = rand(1, 5, 4, 2), rand(2, 2, 2, 2)
    assert_gradients_close(lambda a, b: tf.nn.conv2d(a, b, list(s), padding, dilations=list(d)),
                           [x, w], order=2)


def test_conv2d_transpose_gradients_second_order():
    g, w = rand(1, 3, 3, 2), rand(3, 3, 2, 2)
    assert_gradients_close(lambda a, b: tf.nn.conv2d_transpose(a, b, [1, 5, 6, 2], 2, "SAME"),
                           [g, w], order=2)


def test_depthwise_gradients_second_order():
    x, w = rand(1, 4, 4, 2), rand(2, 2, 2, 2)
    assert_gradients_close(lambda a, b: tf.nn.depthwise_conv2d(a, b, [1, 2, 2, 1], "SAME"),
                           [x, w], order=2)


def test_conv1d_gradients():
    assert_gradients_close(lambda a, b: tf.nn.conv1d(a, b, 2, "SAME"), [rand(2, 5, 2), rand(3, 2, 2)])


@pytest.mark.parametrize("fn", [tf.nn.max_pool2d, tf.nn.avg_pool2d])
@pytest.mark.parametrize("k,s,padding", [(2, 2, "SAME"), (3, 1, "SAME"), (2, 1, "VALID")])
def test_pool_gradients(fn, k, s, padding):
    x = RNG.permutation(30).reshape(1, 5, 3, 2).astype(np.float64)  # distinct values: no ties
    assert_gradients_close(lambda a: fn(a, k, s, padding) ** 2, [x], order=2)


# -- errors ------------------------------------------------------------------------------------

def test_channel_mismatch_names_op_and_shapes():
    with pytest.raises(errors.InvalidArgumentError, match=r"3 vs 2.*\[1, 5, 5, 3\].*\[3, 3, 2, 4\].*Conv2D"):
        tf.nn.conv2d(np.ones((1, 5, 5, 3), np.float32), np.ones((3, 3, 2, 4), np.float32), 1, "SAME")
    with pytest.raises(errors.InvalidArgumentError, match="DepthwiseConv2dNative"):
        tf.nn.depthwise_conv2d(np.ones((1, 5, 5, 3)), np.ones((3, 3, 2, 1)), [1, 1, 1, 1], "SAME")


def test_bad_arguments():
    x, w = np.ones((1, 5, 5, 3), np.float32), np.ones((3, 3, 3, 4), np.float32)
    with pytest.raises(errors.UnimplementedError, match="batch and depth"):
        tf.nn.conv2d(x, w, [2, 1, 1, 1], "SAME")
    with pytest.raises(ValueError, match="4-D"):
        tf.nn.conv2d(np.ones((5, 5, 3), np.float32), w, 1, "SAME")
    with pytest.raises(ValueError, match="padding"):
        tf.nn.conv2d(x, w, 1, "FULL")
    with pytest.raises(errors.InvalidArgumentError, match="negative"):
        tf.nn.conv2d(x, np.ones((7, 7, 3, 1), np.float32), 1, "VALID")
    with pytest.raises(errors.InvalidArgumentError, match="float64"):
        tf.nn.conv2d(x, w.astype(np.float64), 1, "SAME")


@pytest.mark.parametrize("op", [
    lambda p: tf.nn.conv2d(tf.ones([1, 4, 4, 1]), tf.ones([3, 3, 1, 1]), 1, p),
    lambda p: tf.nn.conv1d(tf.ones([1, 4, 1]), tf.ones([3, 1, 1]), 1, p),
    lambda p: tf.nn.convolution(tf.ones([1, 4, 4, 1]), tf.ones([3, 3, 1, 1]), padding=p),
    lambda p: tf.nn.depthwise_conv2d(tf.ones([1, 4, 4, 1]), tf.ones([3, 3, 1, 1]), [1, 1, 1, 1], p),
    lambda p: tf.nn.separable_conv2d(tf.ones([1, 4, 4, 1]), tf.ones([3, 3, 1, 1]), tf.ones([1, 1, 1, 1]),
                                     [1, 1, 1, 1], p),
    lambda p: tf.nn.conv2d_transpose(tf.ones([1, 4, 4, 1]), tf.ones([3, 3, 1, 1]),
                                     [1, 6, 6, 1] if p == "VALID" else [1, 4, 4, 1], 1, p),
    lambda p: tf.nn.max_pool2d(tf.ones([1, 4, 4, 1]), 2, 2, p),
    lambda p: tf.nn.avg_pool2d(tf.ones([1, 4, 4, 1]), 2, 2, p),
    lambda p: tf.nn.max_pool(tf.ones([1, 4, 4, 1]), 2, 2, p),
    lambda p: tf.nn.max_pool1d(tf.ones([1, 4, 1]), 2, 2, p),
    lambda p: tf.nn.avg_pool1d(tf.ones([1, 4, 1]), 2, 2, p),
    lambda p: tf.nn.pool(tf.ones([1, 4, 4, 1]), [2, 2], "MAX", padding=p),
])
def test_nn_padding_is_case_sensitive_like_tf(op):
    op("SAME")
    op("VALID")
    for bad in ("same", "valid", "Same", "FULL"):
        with pytest.raises(tf.errors.InvalidArgumentError, match="allowed values"):
            op(bad)


def test_padding_that_is_not_a_string_or_list_is_a_type_error():
    with pytest.raises(TypeError):
        tf.nn.conv2d(tf.ones([1, 4, 4, 1]), tf.ones([3, 3, 1, 1]), 1, 3)


def test_conv_and_pool_dtypes_follow_tf():
    x8, k8 = tf.ones([1, 4, 4, 1], tf.int8), tf.ones([3, 3, 1, 1], tf.int8)
    for fn in (lambda: tf.nn.conv2d(x8, k8, 1, "SAME"),
               lambda: tf.nn.depthwise_conv2d(tf.ones([1, 4, 4, 1], tf.int32), tf.ones([3, 3, 1, 1], tf.int32),
                                              [1, 1, 1, 1], "SAME"),
               lambda: tf.nn.avg_pool2d(tf.ones([1, 4, 4, 1], tf.int32), 2, 2, "VALID"),
               lambda: tf.nn.max_pool2d(tf.ones([1, 4, 4, 1], tf.bool), 2, 2, "VALID")):
        with pytest.raises(errors.InvalidArgumentError, match="allowed values"):
            fn()
    # Conv2D (and conv1d through it) has an int32 kernel
    y = tf.nn.conv2d(tf.ones([1, 4, 4, 1], tf.int32), tf.ones([3, 3, 1, 1], tf.int32), 1, "SAME")
    assert y.dtype == tf.int32 and y.numpy()[0, 1, 1, 0] == 9
    assert tf.nn.conv1d(tf.ones([1, 4, 1], tf.int32), tf.ones([3, 1, 1], tf.int32), 1, "SAME").numpy()[
        0, :, 0].tolist() == [2, 3, 3, 2]


@pytest.mark.parametrize("fn", [tf.nn.avg_pool2d, tf.nn.max_pool2d])
@pytest.mark.parametrize("k,s,out_shape", [
    (3, 1, (1, 0, 1, 2)),          # window one larger than the height: empty height
    ([3, 1], 1, (1, 0, 3, 2)),
    ([1, 4], 1, (1, 2, 0, 2)),
    (5, 3, (1, 0, 0, 2)),          # (2 - 5 + 3) / 3 truncates to 0
    ([7, 1], [3, 1], (1, 0, 3, 2)),
])
def test_valid_pool_with_window_larger_than_input_is_empty(fn, k, s, out_shape):
    # TF computes (size - k + stride) / stride in C integer division: down to 0 is an empty output
    x = tf.Variable(np.ones((1, 2, 3, 2), np.float32))
    with tf.GradientTape() as tape:
        y = fn(x, k, s, "VALID")
        loss = tf.reduce_sum(y)
    assert y.shape == out_shape and y.dtype == tf.float32
    np.testing.assert_array_equal(tape.gradient(loss, x).numpy(), np.zeros((1, 2, 3, 2)))


def test_valid_pool_empty_output_in_1d_nchw_and_layers():
    x3 = np.ones((1, 2, 2), np.float32)
    assert tf.nn.avg_pool1d(x3, 3, 1, "VALID").shape == (1, 0, 2)
    assert tf.nn.max_pool1d(x3.astype(np.float64), 3, 1, "VALID").shape == (1, 0, 2)
    x4 = np.ones((1, 2, 3, 2), np.float32)
    assert tf.nn.avg_pool2d(x4, 3, 1, "VALID", data_format="NCHW").shape == (1, 2, 1, 0)
    assert tf.nn.avg_pool(x4, 3, 2, "VALID").shape == (1, 0, 1, 2)
    assert tf.nn.pool(x4, [3, 3], "AVG", padding="VALID").shape == (1, 0, 1, 2)
    assert tf.keras.layers.AveragePooling1D(4)(x3).shape == (1, 0, 2)
    assert tf.keras.layers.AveragePooling2D(3)(x4).shape == (1, 0, 1, 2)
    assert tf.keras.layers.AveragePooling2D(3, data_format="channels_first")(x4).shape == (1, 2, 1, 0)


def test_valid_pool_window_two_strides_past_the_input_raises():
    x = np.ones((1, 2, 3, 2), np.float32)
    for fn in (tf.nn.avg_pool2d, tf.nn.max_pool2d):
        with pytest.raises(errors.InvalidArgumentError, match="negative: -1"):
            fn(x, 4, 1, "VALID")
        with pytest.raises(errors.InvalidArgumentError, match="negative: -1"):
            fn(x, [8, 1], [3, 1], "VALID")
