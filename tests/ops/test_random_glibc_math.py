"""glibc's logf, sinf/cosf and log ported to numpy (minitf.ops.glibc_math) against the libm loaded.

A one-off exhaustive run compared all 2**23 Box-Muller inputs of logf (u in [1e-7, 1)) and of
sinf/cosf (float32(2 * pi * u)) with glibc 2.36's FMA build, and 42 million doubles of Box-Muller's
log, without a difference; these tests keep a sample of that comparison.
"""
import math
import random
from fractions import Fraction

import numpy as np
import pytest

from minitf.ops import glibc_math, philox

LIBM = philox._LIBM
needs_glibc = pytest.mark.skipif(LIBM is None or not philox.ported_libm(),
                                 reason="the loaded libm is not the glibc build the port follows")


def _words(n, seed):
    rng = np.random.default_rng(seed)
    edges = np.array([0, 1, 2, 3, (1 << 22), (1 << 23) - 2, (1 << 23) - 1], dtype=np.uint32)
    return np.concatenate([edges, rng.integers(0, 1 << 23, n, dtype=np.uint32)])


def _box_muller_inputs(words):
    u = philox.uint32_to_float(words)
    return np.maximum(u, np.float32(1.0e-7)), (2.0 * np.pi * u.astype(np.float64)).astype(np.float32)


def _bits(values):
    return np.asarray(values, dtype=np.float32).view(np.uint32).tolist()


def _libm_float(fn, x):
    return _bits([fn(v) for v in x.tolist()])


@needs_glibc
@pytest.mark.parametrize("exact_fma", [False, True])
def test_logf_sincosf_match_libm_on_sampled_box_muller_inputs(exact_fma):
    u1, v1 = _box_muller_inputs(_words(20000, 1))
    assert _bits(glibc_math.logf(u1, exact_fma)) == _libm_float(LIBM.logf, u1)
    sin, cos = glibc_math.sincosf(v1, exact_fma)
    assert _bits(sin) == _libm_float(LIBM.sinf, v1)
    assert _bits(cos) == _libm_float(LIBM.cosf, v1)
    assert _bits(glibc_math.sinf(v1[:50])) == _bits(sin[:50]) and _bits(glibc_math.cosf(v1[:50])) == _bits(cos[:50])


@needs_glibc
def test_float32_functions_match_libm_off_the_box_muller_grid():
    rng = np.random.default_rng(2)
    x = np.concatenate([rng.uniform(-119.9, 119.9, 20000), rng.uniform(-1, 1, 2000) * 2.0 ** -12,
                        [0.75, -0.75, np.nextafter(0.75, 0), np.pi / 4, 3 * np.pi / 4, 5 * np.pi / 4]])
    x = x.astype(np.float32)
    sin, cos = glibc_math.sincosf(x)
    assert _bits(sin) == _libm_float(LIBM.sinf, x) and _bits(cos) == _libm_float(LIBM.cosf, x)
    pos = np.concatenate([np.abs(x), rng.uniform(0, 1e30, 2000).astype(np.float32),
                          np.array([1e-45, 1e-40, 1.17e-38, 3.4e38, 1.0], dtype=np.float32)]).astype(np.float32)
    pos = pos[pos > 0]
    assert _bits(glibc_math.logf(pos)) == _libm_float(LIBM.logf, pos)


def test_float32_special_values():
    out = glibc_math.logf(np.array([0.0, -0.0, -1.0, np.inf, -np.inf, np.nan, 1.0], dtype=np.float32))
    assert out.dtype == np.float32
    assert out[[0, 1, 3, 6]].tolist() == [-np.inf, -np.inf, np.inf, 0.0] and np.isnan(out[[2, 4, 5]]).all()
    sin, cos = glibc_math.sincosf(np.array([0.0, -0.0, 1e-30, 120.0, np.inf, np.nan], dtype=np.float32))
    assert _bits(sin[:3]) == _bits([0.0, -0.0, 1e-30]) and cos[:3].tolist() == [1.0, 1.0, 1.0]
    assert np.isnan(sin[3:]).all() and np.isnan(cos[3:]).all()  # glibc's large reduction is not ported


@needs_glibc
@pytest.mark.parametrize("exact_fma", [False, True])
def test_log_matches_libm_on_sampled_doubles(exact_fma):
    rng = np.random.default_rng(3)
    man = rng.integers(0, 1 << 52, 20000, dtype=np.uint64)
    near_one = (1 << 52) - rng.integers(1, 1 << 48, 5000, dtype=np.uint64)
    u = (np.concatenate([man, near_one]) | np.uint64(1023 << 52)).view(np.float64) - 1.0
    u = np.concatenate([np.maximum(u, 1.0e-7), [float.fromhex(h) for h in philox._PROBE_LOG],
                        rng.uniform(0, 1e300, 500), [5e-324, 1e-310, 2.0, 0.9375, 1.0 + 0x109 / 2 ** 12, 1.0]])
    assert glibc_math.log(u, exact_fma).tolist() == [math.log(v) for v in u.tolist()]
    # the plain evaluation leaves a few elements to the exact one, which they exercise here
    doubtful = glibc_math._log(u, exact_fma)[1]
    assert not doubtful.any() if exact_fma else 0 < doubtful.sum() < u.size // 100


def test_log_special_values():
    with np.errstate(invalid="ignore", divide="ignore"):
        out = glibc_math.log(np.array([0.0, -0.0, -2.0, np.inf, -np.inf, np.nan, 1.0]))
    assert out[[0, 1, 3, 6]].tolist() == [-np.inf, -np.inf, np.inf, 0.0] and np.isnan(out[[2, 4, 5]]).all()


def test_fma_rounds_once():
    rng = random.Random(4)
    cases = [(1.0 + 2.0 ** -52, 1.0 - 2.0 ** -52, -1.0), (0.1, 10.0, -1.0), (3.0, 1.0 / 3.0, -1.0),
             (1.0 + 2.0 ** -30, 1.0 + 2.0 ** -30, -(1.0 + 2.0 ** -29)), (2.0 ** 500, 2.0 ** 400, 1.0)]
    for _ in range(3000):
        a, b = rng.uniform(-4, 4), rng.uniform(-4, 4)
        near_cancel = -a * b * (1 + rng.choice([0.0, 2.0 ** -53, -2.0 ** -52, 1e-9]))
        c = near_cancel if rng.random() < 0.5 else rng.uniform(-8, 8)
        cases.append((a, b, c))
    a, b, c = (np.array(column) for column in zip(*cases))
    expected = [float(Fraction(x) * Fraction(y) + Fraction(z)) for x, y, z in cases]
    assert glibc_math.fma(a, b, c).tolist() == expected


@needs_glibc
def test_normal_draws_use_the_port_and_match_the_libm_route(monkeypatch):
    ported = philox.normal(5, (6, 7), 3000, "float32"), philox.normal(5, (6, 7), 3000, "float64")
    monkeypatch.setattr(philox, "_PORT_MATCHES_LIBM", False)
    via_libm = philox.normal(5, (6, 7), 3000, "float32"), philox.normal(5, (6, 7), 3000, "float64")
    assert [p.tobytes() for p in ported] == [v.tobytes() for v in via_libm]


def test_float32_rounding_check_flags_values_near_a_midpoint():
    lo = np.float32(1.5)
    mid = (float(lo) + float(np.nextafter(lo, np.float32(2)))) / 2
    y = np.array([mid, np.nextafter(mid, 0), mid + 2.0 ** -45, 1.5, 2.0 + 2.0 ** -40, -mid, 1e-40, 3.0])
    _, doubtful = glibc_math._to_float32(y, 2.0 ** -44)
    assert doubtful.tolist() == [True, True, True, False, False, True, True, False]
    # just above a power of two the midpoint below is the nearer one
    _, doubtful = glibc_math._to_float32(np.array([2.0 + 2.0 ** -40]), 2.0 ** -23)
    assert doubtful.tolist() == [True]
