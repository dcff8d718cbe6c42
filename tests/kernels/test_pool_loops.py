"""The numba pooling loops (minitf/kernels/pool_loops.py) against the numpy code of
minitf.kernels.windows they stand in for: bit for bit on random, tied and special values (NaN,
+-inf, -0.0, the dtype's lowest), except the two stated exceptions: the sign of a zero maximum
where -0.0 and 0.0 tie (the loop keeps the first, as TF; numpy's choice depends on its SIMD
loop), and the sign of a NaN made from two NaNs. AvgPoolGrad takes its loop only for
overlapping windows."""
import itertools

import numpy as np
import pytest

from minitf.kernels import jit, pool_loops, windows
from minitf.ops.conv_geometry import Geometry

pytest.importorskip("numba")

KERNELS = [(1, 1), (2, 2), (3, 3), (2, 3), (3, 1)]
STRIDES = [(1, 1), (2, 2), (1, 2), (3, 3)]
SHAPES = [(1, 5, 6, 1), (3, 7, 4, 5), (2, 9, 9, 17), (1, 1, 3, 8)]
GEOMETRIES = [g for g in itertools.product(KERNELS, STRIDES, ["SAME", "VALID"], SHAPES)
              if g[2] == "SAME" or (g[0][0] <= g[3][1] and g[0][1] <= g[3][2])]
MODEL_SHAPES = [((1, 45, 45, 64), (3, 3), (2, 2), "VALID"), ((1, 20, 20, 192), (3, 3), (2, 2), "VALID"),
                ((1, 9, 9, 288), (3, 3), (2, 2), "VALID"), ((1, 9, 9, 192), (3, 3), (1, 1), "SAME"),
                ((1, 4, 4, 768), (3, 3), (1, 1), "SAME"), ((8, 28, 28, 32), (2, 2), (2, 2), "VALID"),
                ((2, 23, 23, 40), (3, 3), (2, 2), "SAME")]


@pytest.fixture
def numba_on(monkeypatch):
    def switch(on):
        monkeypatch.setattr(jit, "_found", [on])
    return switch


def _geometry(shape, k, s, padding, op="MaxPool"):
    return Geometry(shape, k[0], k[1], s, (1, 1), padding, None, op, allow_empty=True)


def _special_input(shape, dtype, rng):
    """Values from a few levels (windows hold ties), with NaN, +-inf, -0.0 and the lowest value."""
    x = rng.integers(-2, 3, shape).astype(dtype)
    pick = rng.random(shape)
    x[pick < 0.08] = np.nan
    x[(pick >= 0.08) & (pick < 0.18)] = -np.inf
    x[(pick >= 0.18) & (pick < 0.21)] = np.inf
    x[(pick >= 0.21) & (pick < 0.36)] = -0.0
    x[(pick >= 0.36) & (pick < 0.39)] = np.finfo(dtype).min
    return x


def _inputs(shape, dtype, rng):
    x = rng.standard_normal(shape).astype(dtype)
    return [x, np.maximum(x, 0), _special_input(shape, dtype, rng),
            np.where(rng.random(shape) < 0.5, -np.inf, np.nan).astype(dtype)]   # no real maximum


def _same_bits(a, b):
    """The same bits, but for a NaN's sign: where an addition meets two NaNs (an input NaN and
    the -NaN of inf + -inf), the one it keeps depends on the operand order the compiler picks
    (commuted freely, for numpy's loops as for these), so only where NaNs are is compared."""
    if a.dtype != b.dtype or a.shape != b.shape or not np.array_equal(np.isnan(a), np.isnan(b)):
        return False
    keep = ~np.isnan(a)
    return np.array_equal(a[keep].view(np.uint8), b[keep].view(np.uint8))


def _both(switch, fn, *args):
    switch(False)
    want = fn(*args)
    switch(True)
    return fn(*args), want


def _first_of_tied_zeros(x, geo):
    """The sign TF gives a zero maximum: that of the first zero met in the window, row-major."""
    xpad = np.full((x.shape[0],) + geo.padded + (x.shape[3],), -np.inf, x.dtype)
    xpad[:, geo.pt:geo.pt + geo.h, geo.pl:geo.pl + geo.w] = x
    sign = np.zeros((x.shape[0], geo.oh, geo.ow, x.shape[3]), bool)
    seen = np.zeros_like(sign)
    for a in range(geo.kh):
        for b in range(geo.kw):
            tap = xpad[:, a:a + (geo.oh - 1) * geo.sh + 1:geo.sh, b:b + (geo.ow - 1) * geo.sw + 1:geo.sw]
            new = (tap == 0) & ~seen
            sign[new] = np.signbit(tap[new])
            seen |= new
    return sign


def _check_max_pool(switch, x, geo, rng):
    y, want = _both(switch, windows.max_pool, x, geo)
    zero = want == 0
    assert _same_bits(np.where(zero, 0, y), np.where(zero, 0, want))
    assert np.array_equal(y[zero], want[zero])
    assert np.array_equal(np.signbit(y[zero]), _first_of_tied_zeros(x, geo)[zero])
    winners, want = _both(switch, windows.max_pool_winners, x, want, geo)
    assert winners.dtype == np.intp and np.array_equal(winners, want)
    g = _special_input(y.shape, x.dtype, rng) if rng.random() < 0.5 else rng.standard_normal(y.shape).astype(x.dtype)
    g.reshape(-1)[::7] = -0.0
    dx, want = _both(switch, windows.max_pool_grad, g, winners, geo)
    assert _same_bits(dx, want)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_max_pool_loops_are_the_numpy_kernels(numba_on, dtype):
    rng = np.random.default_rng(0)
    for k, s, padding, shape in GEOMETRIES:
        for x in _inputs(shape, dtype, rng):
            _check_max_pool(numba_on, x, _geometry(shape, k, s, padding), rng)


@pytest.mark.parametrize("shape, k, s, padding", MODEL_SHAPES)
def test_max_pool_loops_on_model_shapes(numba_on, shape, k, s, padding):
    rng = np.random.default_rng(1)
    for x in _inputs(shape, np.float32, rng)[:3]:
        _check_max_pool(numba_on, x, _geometry(shape, k, s, padding), rng)


def test_max_pool_loops_on_explicit_padding_and_a_strided_input(numba_on):
    rng = np.random.default_rng(2)
    x = _special_input((2, 6, 11, 7), np.float32, rng)
    geo = Geometry(x.shape, 3, 2, (2, 1), (1, 1), "EXPLICIT", ((2, 1), (0, 1)), "MaxPool")
    _check_max_pool(numba_on, x, geo, rng)
    xt = _special_input((2, 7, 6, 11), np.float64, rng).transpose(0, 2, 3, 1)   # NCHW data as NHWC
    _check_max_pool(numba_on, xt, _geometry(xt.shape, (3, 3), (2, 2), "SAME"), rng)


def test_max_pool_winners_loop_for_any_pooled_values(numba_on):
    # `y` that is not the input's pooled maxima (NaN, -inf, values no element has): the loop
    # still gives the numpy code's indices
    rng = np.random.default_rng(3)
    for k, s, padding, shape in GEOMETRIES[::3]:
        geo = _geometry(shape, k, s, padding)
        x = _special_input(shape, np.float32, rng)
        y = windows.max_pool(x, geo)
        for pick in [rng.random(y.shape) < 0.3, np.ones(y.shape, bool)]:
            for value in [np.nan, -np.inf, 7.0, np.finfo(np.float32).min]:
                bent = np.where(pick, np.float32(value), y)
                winners, want = _both(numba_on, windows.max_pool_winners, x, bent, geo)
                assert np.array_equal(winners, want)


def test_max_pool_grad_loop_sums_in_output_order():
    x = np.array([[1.0, 0.0, 1.0], [0.0, 5.0, 0.0], [1.0, 0.0, 1.0]], np.float32).reshape(1, 3, 3, 1)
    geo = _geometry(x.shape, (2, 2), (1, 1), "VALID")
    winners = pool_loops.max_pool_winners(x, pool_loops.max_pool(x, geo), geo)
    g = np.array([1e8, 1.0, -1e8, 1.0], np.float32).reshape(1, 2, 2, 1)
    dx = pool_loops.max_pool_grad(g, winners, geo)
    assert dx[0, 1, 1, 0] == np.float32(np.float32(np.float32(1e8 + 1.0) - 1e8) + 1.0)
    assert np.count_nonzero(dx) == 1


def test_max_pool_grad_of_out_of_range_winners_raises_numpys_error(numba_on):
    geo = _geometry((1, 4, 4, 2), (2, 2), (2, 2), "VALID")
    g = np.ones((1, 2, 2, 2), np.float32)
    winners = np.arange(8, dtype=np.intp).reshape(g.shape)
    winners[0, 1, 1, 1] = 32
    assert pool_loops.max_pool_grad(g, winners, geo) is None
    numba_on(True)
    with pytest.raises(IndexError):
        windows.max_pool_grad(g, winners, geo)


def test_loops_leave_other_arrays_to_numpy(numba_on):
    numba_on(True)
    geo = _geometry((1, 4, 4, 3), (2, 2), (2, 2), "VALID")
    for x in [np.ones((1, 4, 4, 3), np.float16), np.ones((1, 4, 4, 3), np.int32),
              np.ones((1, 4, 4, 3), np.complex64), np.ones((1, 4, 4, 3), np.float32)[:, :, :, :0]]:
        assert not pool_loops.fits(geo, x)
    x = np.ones((1, 4, 4, 3), np.float32)
    assert pool_loops.fits(geo, x) and not pool_loops.fits(geo, x, x.astype(np.float64))
    assert not pool_loops.fits(_geometry((1, 2, 2, 3), (3, 3), (1, 1), "VALID"), x)   # empty output
    numba_on(False)
    assert not pool_loops.fits(geo, x)


def _overlapping(geo):
    return geo.sh < geo.kh or geo.sw < geo.kw


def _check_avg_pool(switch, monkeypatch, x, geo, g):
    """The loops give the numpy code's separable sums bit for bit (AvgPoolGrad's loop: for
    overlapping windows, the only ones it is given); returns the forward's loop and numpy
    results."""
    y, default_y = _both(switch, windows.avg_pool, x, geo)
    switch(False)
    sums_y, sums_dx = windows.avg_pool(x, geo), windows.avg_pool_grad(g, geo)
    assert _same_bits(y, sums_y)
    if _overlapping(geo):
        switch(True)
        dx = pool_loops.avg_pool_grad(g, geo, windows._valid_counts(geo, np, g.dtype))
        assert _same_bits(dx, sums_dx)
    return y, default_y


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_avg_pool_loops_are_the_numpy_sums(numba_on, monkeypatch, dtype):
    rng = np.random.default_rng(4)
    for k, s, padding, shape in GEOMETRIES:
        geo = _geometry(shape, k, s, padding, "AvgPool")
        g_shape = (shape[0], geo.oh, geo.ow, shape[3])
        x, g = rng.standard_normal(shape).astype(dtype), rng.standard_normal(g_shape).astype(dtype)
        got, want = _check_avg_pool(numba_on, monkeypatch, x, geo, g)
        assert _same_bits(got, want)
        _check_avg_pool(numba_on, monkeypatch, _special_input(shape, dtype, rng),
                        geo, _special_input(g_shape, dtype, rng))


@pytest.mark.parametrize("shape, k, s, padding", MODEL_SHAPES + [((1, 35, 35, 24), (3, 3), (1, 1), "SAME")])
def test_avg_pool_loops_on_model_shapes(numba_on, monkeypatch, shape, k, s, padding):
    rng = np.random.default_rng(5)
    geo = _geometry(shape, k, s, padding, "AvgPool")
    x = rng.standard_normal(shape).astype(np.float32)
    g = rng.standard_normal((shape[0], geo.oh, geo.ow, shape[3])).astype(np.float32)
    got, want = _check_avg_pool(numba_on, monkeypatch, x, geo, g)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)


def test_avg_pool_grad_takes_the_loop_for_overlapping_windows(numba_on, monkeypatch):
    rng = np.random.default_rng(7)
    calls = []
    original = pool_loops.avg_pool_grad
    monkeypatch.setattr(pool_loops, "avg_pool_grad", lambda *a: calls.append(a[1]) or original(*a))
    for shape, k, s, padding, routed in [((2, 23, 23, 6), (3, 3), (1, 1), "SAME", True),
                                         ((1, 21, 22, 5), (3, 2), (2, 1), "VALID", True),
                                         ((2, 24, 24, 6), (2, 2), (2, 2), "VALID", False),
                                         ((1, 9, 9, 6), (3, 3), (1, 1), "SAME", True)]:
        geo = _geometry(shape, k, s, padding, "AvgPool")
        g = _special_input((shape[0], geo.oh, geo.ow, shape[3]), np.float64, rng)
        del calls[:]
        dx, want = _both(numba_on, windows.avg_pool_grad, g, geo)
        assert _same_bits(dx, want) and bool(calls) == routed


def test_avg_pool_loop_matches_tf_as_closely_as_the_numpy_sums(numba_on):
    # both are the same separable sums (bit for bit above); against TF's AvgPool they are
    # within a few float32 rounding steps
    tf = pytest.importorskip("tensorflow")
    rng = np.random.default_rng(6)
    for shape, k, s, padding in [m for m in MODEL_SHAPES if m[0][1] * m[0][2] <= 400] + \
            [((2, 7, 4, 5), (3, 3), (1, 1), "SAME"), ((3, 5, 6, 9), (2, 3), (1, 2), "VALID")]:
        geo = _geometry(shape, k, s, padding, "AvgPool")
        x = rng.standard_normal(shape).astype(np.float32)
        want = tf.nn.avg_pool2d(tf.constant(x), [1, k[0], k[1], 1], [1, s[0], s[1], 1], padding).numpy()
        for on in (False, True):
            numba_on(on)
            np.testing.assert_allclose(windows.avg_pool(x, geo), want, rtol=2e-6, atol=2e-6)
