"""float16 GEMMs on the CPU compute in float32 and round the result (numpy has no half BLAS; TF's
CPU kernels give the same numbers): values, gradients' dtypes, and that they are not 100x slower."""
import time

import numpy as np
import pytest

import minitf as tf


def _half(shape, seed):
    return np.random.default_rng(seed).normal(size=shape).astype(np.float16)


def test_matmul_of_float16_is_the_float32_product_rounded():
    a, b = _half((16, 40), 0), _half((40, 8), 1)
    c = tf.matmul(a, b)
    assert c.dtype == tf.float16
    np.testing.assert_array_equal(c.numpy(), (a.astype(np.float32) @ b.astype(np.float32)).astype(np.float16))


@pytest.mark.parametrize("op", ["conv2d", "depthwise_conv2d"])
def test_convolutions_of_float16_are_the_float32_results_rounded(op):
    x = _half((2, 7, 7, 4), 2)
    w = _half((3, 3, 4, 3 if op == "conv2d" else 1), 3)
    strides = 1 if op == "conv2d" else [1, 1, 1, 1]
    fn = getattr(tf.nn, op)
    wv = tf.Variable(w)
    with tf.GradientTape() as tape:
        y = fn(x, wv, strides, "SAME")
        total = tf.reduce_sum(y)
    gw = tape.gradient(total, wv)
    want = fn(x.astype(np.float32), w.astype(np.float32), strides, "SAME").numpy().astype(np.float16)
    assert y.dtype == tf.float16 and gw.dtype == tf.float16
    np.testing.assert_array_equal(y.numpy(), want)


def test_a_float16_matmul_costs_about_what_float32_does():
    times = {}
    for dtype in (np.float32, np.float16):
        a, b = tf.constant(_half((128, 512), 4).astype(dtype)), tf.constant(_half((512, 256), 5).astype(dtype))
        tf.matmul(a, b)
        best = float("inf")
        for _ in range(5):
            start = time.perf_counter()
            tf.matmul(a, b)
            best = min(best, time.perf_counter() - start)
        times[dtype] = best
    assert times[np.float16] < 10 * times[np.float32] + 0.01  # numpy's own float16 GEMM: ~100x
