"""The pooling kernels (minitf.kernels.windows) against direct float64 loops over the windows.

The references spell out TF's CPU rules: MaxPool starts each window at the dtype's lowest value
and takes an element only when it is greater (NaN never wins; a window of -inf or NaN gives
lowest); MaxPoolGrad sends each window's gradient to where TF's scan of its real elements in
row-major order ends (start at the first, move to any later one greater than the current);
MaxPoolGradGrad, its adjoint, reads that element (0 when no element equals the maximum; TF's
reads the first element equal to the maximum, which differs when the window starts with NaN);
AvgPool averages the real elements only. The last tests compare with TF itself.
"""
import itertools

import numpy as np
import pytest

from minitf.kernels import jit, windows
from minitf.ops.conv_geometry import Geometry

KERNELS = [(1, 1), (2, 2), (3, 3), (2, 3), (3, 1)]
STRIDES = [(1, 1), (2, 2), (3, 3), (1, 2)]
SHAPES = [(1, 5, 6, 1), (3, 7, 4, 5), (1, 4, 4, 5)]
GEOMETRIES = list(itertools.product(KERNELS, STRIDES, ["SAME", "VALID"], SHAPES))


def _geometry(shape, k, s, padding, op="MaxPool"):
    return Geometry(shape, k[0], k[1], s, (1, 1), padding, None, op, allow_empty=True)


def _windows(geo):
    """(i, j, [(row, col) of each real element in row-major order]) for every output window."""
    for i in range(geo.oh):
        for j in range(geo.ow):
            yield i, j, [(geo.sh * i + a - geo.pt, geo.sw * j + b - geo.pl)
                         for a in range(geo.kh) for b in range(geo.kw)
                         if 0 <= geo.sh * i + a - geo.pt < geo.h and 0 <= geo.sw * j + b - geo.pl < geo.w]


def _lowest(dtype):
    return np.finfo(dtype).min if dtype.kind == "f" else np.iinfo(dtype).min


def reference_max_pool(x, geo, g, u):
    """TF's MaxPool, MaxPoolGrad (of upstream `g`, summed in float64) and its adjoint
    MaxPoolGradGrad (of `u`), window by window."""
    n, h, w, c = x.shape
    y = np.empty((n, geo.oh, geo.ow, c), dtype=x.dtype)
    dx = np.zeros(x.shape, dtype=np.float64)
    gg = np.zeros(y.shape, dtype=np.float64)
    for i, j, cells in _windows(geo):
        for b in range(n):
            for ch in range(c):
                values = [x[b, r, q, ch] for r, q in cells]
                best = _lowest(x.dtype)
                for v in values:
                    if v > best:
                        best = v
                y[b, i, j, ch] = best
                acc, arg = values[0], 0
                for k, v in enumerate(values[1:], 1):
                    if acc < v:
                        acc, arg = v, k
                dx[(b,) + cells[arg] + (ch,)] += float(g[b, i, j, ch])
                if any(v == best for v in values):
                    gg[b, i, j, ch] = float(u[(b,) + cells[arg] + (ch,)])
    return y, dx, gg


def reference_avg_pool(x, geo, g):
    """AvgPool (mean of the real elements) and AvgPoolGrad of `g`, in float64."""
    x64, g64 = x.astype(np.float64), g.astype(np.float64)
    n, h, w, c = x.shape
    y = np.zeros((n, geo.oh, geo.ow, c))
    dx = np.zeros(x.shape)
    for i, j, cells in _windows(geo):
        rows, cols = [r for r, _ in cells], [q for _, q in cells]
        y[:, i, j] = x64[:, rows, cols].mean(axis=1)
        for r, q in cells:
            dx[:, r, q] += g64[:, i, j] / len(cells)
    return y, dx


def _tied_input(shape, dtype, rng, specials=True):
    """Values from a handful of levels (so windows hold ties), with NaN, +-inf and -0.0 mixed in
    for floats."""
    dtype = np.dtype(dtype)
    if dtype.kind == "u":
        return rng.integers(0, 3, shape).astype(dtype)
    x = rng.integers(-2, 3, shape).astype(dtype)
    if dtype.kind == "f" and specials:
        pick = rng.random(shape)
        x[pick < 0.06] = np.nan
        x[(pick >= 0.06) & (pick < 0.12)] = -np.inf
        x[(pick >= 0.12) & (pick < 0.15)] = np.inf
        x[(pick >= 0.15) & (pick < 0.3)] = -0.0
    if dtype.kind == "i":
        x[rng.random(shape) < 0.1] = np.iinfo(dtype).min  # ties with the padding's value
    return x


def _check_max_pool(x, geo, rng, tolerance):
    y = windows.max_pool(x, geo)
    g = rng.standard_normal(y.shape).astype(x.dtype if x.dtype.kind == "f" else np.float32)
    u = rng.standard_normal(x.shape).astype(g.dtype)
    ref_y, ref_dx, ref_gg = reference_max_pool(x, geo, g, u)
    assert y.dtype == x.dtype and y.shape == ref_y.shape
    np.testing.assert_array_equal(y, ref_y)
    winners = windows.max_pool_winners(x, y, geo)
    assert winners.shape == y.shape
    dx = windows.max_pool_grad(g, winners, geo)
    assert dx.dtype == g.dtype and dx.shape == x.shape
    np.testing.assert_allclose(dx, ref_dx, rtol=tolerance, atol=tolerance)
    gg = windows.max_pool_grad_grad(u, winners, geo)
    assert gg.dtype == u.dtype and gg.shape == y.shape
    np.testing.assert_array_equal(gg, ref_gg.astype(u.dtype))


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
def test_max_pool_kernels_follow_tf_rules_on_ties_nan_and_infinities(dtype):
    rng = np.random.default_rng(0)
    tolerance = 2e-2 if dtype == "float16" else 1e-6
    for k, s, padding, shape in GEOMETRIES:
        _check_max_pool(_tied_input(shape, dtype, rng), _geometry(shape, k, s, padding), rng, tolerance)


@pytest.mark.parametrize("dtype", ["int32", "int64", "int8", "uint8", "int16"])
def test_max_pool_kernels_on_integers_never_pick_the_padding(dtype):
    rng = np.random.default_rng(1)
    for k, s, padding, shape in GEOMETRIES:
        _check_max_pool(_tied_input(shape, dtype, rng), _geometry(shape, k, s, padding), rng, 1e-6)


def test_max_pool_kernels_on_random_data_and_every_path():
    # many channels take the one-reduction forward; small C and large outputs the per-tap one
    rng = np.random.default_rng(2)
    for shape, k, s, padding in [((1, 9, 9, 160), (3, 3), (2, 2), "VALID"),
                                 ((2, 9, 8, 130), (3, 3), (1, 1), "SAME"),
                                 ((1, 45, 45, 4), (3, 3), (2, 2), "VALID"),
                                 ((2, 12, 12, 3), (2, 2), (2, 2), "SAME"),
                                 ((1, 30, 31, 2), (3, 2), (3, 1), "SAME")]:
        x = rng.standard_normal(shape).astype(np.float32)
        _check_max_pool(x, _geometry(shape, k, s, padding), rng, 1e-5)
        _check_max_pool(np.maximum(x, 0), _geometry(shape, k, s, padding), rng, 1e-5)  # zeros tie


def test_max_pool_winners_without_cached_bases(monkeypatch):
    monkeypatch.setattr(windows, "_BASES_CACHED_UP_TO", 0)
    rng = np.random.default_rng(3)
    for k, s, padding, shape in GEOMETRIES[::3]:
        _check_max_pool(_tied_input(shape, "float32", rng), _geometry(shape, k, s, padding), rng, 1e-6)


def test_max_pool_winners_take_a_wide_image():
    # offsets past 255 weigh in uint16
    rng = np.random.default_rng(4)
    shape = (1, 3, 300, 2)
    _check_max_pool(_tied_input(shape, "float32", rng), _geometry(shape, (2, 3), (1, 2), "SAME"), rng, 1e-6)


def test_max_pool_on_windows_of_only_minus_inf_or_nan():
    x = np.array([-np.inf, -np.inf, np.nan, np.nan, np.nan, 1.0, -np.inf, np.nan], np.float32)
    x = x.reshape(1, 1, 8, 1)
    geo = _geometry(x.shape, (1, 2), (1, 2), "VALID")
    y = windows.max_pool(x, geo)
    lowest = np.finfo(np.float32).min
    np.testing.assert_array_equal(y.ravel(), [lowest, lowest, 1.0, lowest])
    winners = windows.max_pool_winners(x, y, geo)
    g = np.array([1.0, 2.0, 3.0, 4.0], np.float32).reshape(y.shape)
    # each window's gradient goes to its first element (the scan never moves off it), except
    # [nan, 1] whose first element is NaN: that keeps it too
    np.testing.assert_array_equal(windows.max_pool_grad(g, winners, geo).ravel(), [1, 0, 2, 0, 3, 0, 4, 0])
    u = np.arange(1.0, 9.0, dtype=np.float32).reshape(x.shape)
    # no element equals the maximum (lowest) in three windows: 0 there, as TF; [nan, 1] reads
    # its gradient's element (TF's MaxPoolGradGrad reads the 1 instead)
    np.testing.assert_array_equal(windows.max_pool_grad_grad(u, winners, geo).ravel(), [0, 0, 5, 0])


def test_max_pool_gradient_sums_overlapping_windows_in_output_order():
    x = np.array([[1.0, 0.0, 1.0], [0.0, 5.0, 0.0], [1.0, 0.0, 1.0]], np.float32).reshape(1, 3, 3, 1)
    geo = _geometry(x.shape, (2, 2), (1, 1), "VALID")  # every window's maximum is the centre
    winners = windows.max_pool_winners(x, windows.max_pool(x, geo), geo)
    g = np.array([1e8, 1.0, -1e8, 1.0], np.float32).reshape(1, 2, 2, 1)
    dx = windows.max_pool_grad(g, winners, geo)
    assert dx[0, 1, 1, 0] == np.float32(np.float32(np.float32(1e8 + 1.0) - 1e8) + 1.0)
    assert np.count_nonzero(dx) == 1


def test_disjoint_window_scatter_adds_like_add_at():
    # the device path of MaxPoolGrad: windows that cannot overlap, one gather-add-scatter a set
    rng = np.random.default_rng(5)
    for k, s, padding, shape in GEOMETRIES:
        geo = _geometry(shape, k, s, padding)
        x = _tied_input(shape, "float64", rng, specials=False)
        winners = windows.max_pool_winners(x, windows.max_pool(x, geo), geo)
        g = rng.standard_normal(winners.shape)
        dx = np.zeros(x.size)
        windows._add_at_by_disjoint_windows(dx, winners, g, geo)
        expected = np.zeros(x.size)
        np.add.at(expected, winners.ravel(), g.ravel())
        np.testing.assert_allclose(dx, expected, rtol=1e-12, atol=1e-12)


def test_max_pool_of_an_empty_output():
    x = np.ones((2, 2, 2, 3), np.float32)
    geo = _geometry(x.shape, (3, 3), (1, 1), "VALID")
    y = windows.max_pool(x, geo)
    assert y.shape == (2, 0, 0, 3)
    winners = windows.max_pool_winners(x, y, geo)
    np.testing.assert_array_equal(windows.max_pool_grad(y, winners, geo), np.zeros(x.shape, np.float32))
    assert windows.max_pool_grad_grad(x, winners, geo).shape == (2, 0, 0, 3)


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
def test_avg_pool_kernels_average_the_real_elements(dtype):
    rng = np.random.default_rng(6)
    tolerance = 3e-3 if dtype == "float16" else 1e-6 if dtype == "float32" else 1e-12
    for k, s, padding, shape in GEOMETRIES:
        geo = _geometry(shape, k, s, padding, "AvgPool")
        x = rng.standard_normal(shape).astype(dtype)
        g = rng.standard_normal((shape[0], geo.oh, geo.ow, shape[3])).astype(dtype)
        ref_y, ref_dx = reference_avg_pool(x, geo, g)
        y, dx = windows.avg_pool(x, geo), windows.avg_pool_grad(g, geo)
        assert y.dtype == x.dtype and dx.dtype == g.dtype and dx.shape == x.shape
        np.testing.assert_allclose(y, ref_y, rtol=tolerance, atol=tolerance)
        np.testing.assert_allclose(dx, ref_dx, rtol=tolerance, atol=tolerance)


@pytest.mark.parametrize("numba", [True, False])
@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_an_inf_reaches_only_the_windows_that_hold_it(numba, dtype, monkeypatch):
    """TF 2.21: one inf in a 9x9 image (3x3 'SAME', stride 1) makes 9 outputs inf and none NaN,
    forward and backward (a pool computed as products with zero weights would give NaN)."""
    monkeypatch.setattr(jit, "_found", [numba and jit.available()])
    x = np.ones((1, 9, 9, 2), dtype)
    x[0, 4, 4, 0] = np.inf
    geo = _geometry(x.shape, (3, 3), (1, 1), "SAME", "AvgPool")
    for out in (windows.avg_pool(x, geo), windows.avg_pool_grad(x, geo)):
        assert np.isinf(out).sum() == 9 and not np.isnan(out).any()
        expected = np.zeros((9, 9), bool)
        expected[3:6, 3:6] = True
        np.testing.assert_array_equal(np.isinf(out[0, :, :, 0]), expected)


# -- TF itself (runs in CI's TF phase) ------------------------------------------------------

def _tf_max_pool(tf, x, k, s, padding, g, u):
    from tensorflow.python.ops import gen_nn_ops
    ksize, strides = [1, k[0], k[1], 1], [1, s[0], s[1], 1]
    xt = tf.constant(x)
    y = tf.nn.max_pool2d(xt, ksize, strides, padding)
    dx = gen_nn_ops.max_pool_grad(xt, y, tf.constant(g), ksize, strides, padding)
    gg = gen_nn_ops.max_pool_grad_grad(xt, y, tf.constant(u), ksize, strides, padding)
    return y.numpy(), dx.numpy(), gg.numpy()


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_max_pool_kernels_match_tf_on_ties_nan_and_infinities(dtype):
    tf = pytest.importorskip("tensorflow")
    rng = np.random.default_rng(8)
    for k, s, padding, shape in GEOMETRIES[::2]:
        geo = _geometry(shape, k, s, padding)
        if geo.oh == 0 or geo.ow == 0:
            continue
        x = _tied_input(shape, dtype, rng)
        y = windows.max_pool(x, geo)
        g = rng.standard_normal(y.shape).astype(dtype)
        u = rng.standard_normal(x.shape).astype(dtype)
        tf_y, tf_dx, tf_gg = _tf_max_pool(tf, x, k, s, padding, g, u)
        winners = windows.max_pool_winners(x, y, geo)
        np.testing.assert_array_equal(y, tf_y)
        np.testing.assert_allclose(windows.max_pool_grad(g, winners, geo), tf_dx, rtol=1e-5, atol=1e-5)
        # TF's MaxPoolGradGrad reads the first element equal to the maximum, not MaxPoolGrad's
        # winner: they differ where a window's first real element is NaN, left out here
        nan_first = np.zeros(y.shape, bool)
        for i, j, cells in _windows(geo):
            nan_first[:, i, j] = np.isnan(x[:, cells[0][0], cells[0][1]])
        gg = windows.max_pool_grad_grad(u, winners, geo)
        np.testing.assert_array_equal(gg[~nan_first], tf_gg[~nan_first])


def test_avg_pool_kernels_match_tf():
    tf = pytest.importorskip("tensorflow")
    rng = np.random.default_rng(9)
    for k, s, padding, shape in GEOMETRIES[::2]:
        geo = _geometry(shape, k, s, padding, "AvgPool")
        if geo.oh == 0 or geo.ow == 0:
            continue
        x = rng.standard_normal(shape).astype(np.float32)
        g = rng.standard_normal((shape[0], geo.oh, geo.ow, shape[3])).astype(np.float32)
        ksize, strides = [1, k[0], k[1], 1], [1, s[0], s[1], 1]
        tf_y = tf.nn.avg_pool2d(tf.constant(x), ksize, strides, padding).numpy()
        tf_dx = tf.raw_ops.AvgPoolGrad(orig_input_shape=list(shape), grad=tf.constant(g), ksize=ksize,
                                       strides=strides, padding=padding).numpy()
        np.testing.assert_allclose(windows.avg_pool(x, geo), tf_y, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(windows.avg_pool_grad(g, geo), tf_dx, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("numba", [True, False])
def test_avg_pool_kernels_match_tf_on_infinities_and_nan(numba, monkeypatch):
    """inf, -inf and NaN reach exactly the outputs TF 2.21 gives them (no 0 * inf spreading)."""
    tf = pytest.importorskip("tensorflow")
    monkeypatch.setattr(jit, "_found", [numba and jit.available()])
    rng = np.random.default_rng(10)
    for k, s, padding, shape in GEOMETRIES[::2]:
        geo = _geometry(shape, k, s, padding, "AvgPool")
        if geo.oh == 0 or geo.ow == 0:
            continue
        x = rng.standard_normal(shape).astype(np.float32)
        g = rng.standard_normal((shape[0], geo.oh, geo.ow, shape[3])).astype(np.float32)
        for v in (x, g):
            flat = v.reshape(-1)
            flat[rng.choice(flat.size, size=min(3, flat.size), replace=False)] = [np.inf, -np.inf, np.nan][:min(3, flat.size)]
        ksize, strides = [1, k[0], k[1], 1], [1, s[0], s[1], 1]
        tf_y = tf.nn.avg_pool2d(tf.constant(x), ksize, strides, padding).numpy()
        tf_dx = tf.raw_ops.AvgPoolGrad(orig_input_shape=list(shape), grad=tf.constant(g), ksize=ksize,
                                       strides=strides, padding=padding).numpy()
        with np.errstate(invalid="ignore", over="ignore"):
            y, dx = windows.avg_pool(x, geo), windows.avg_pool_grad(g, geo)
        np.testing.assert_allclose(y, tf_y, rtol=1e-5, atol=1e-6)  # NaN and inf where TF's are
        np.testing.assert_allclose(dx, tf_dx, rtol=1e-5, atol=1e-6)
