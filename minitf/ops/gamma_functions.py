"""The log-gamma function and its derivatives (tf.math.lgamma, tf.math.digamma), written with the
input's array module's own elementwise ops (numpy has no lgamma ufunc), evaluated in float64 and
rounded to the input's dtype. lgamma's gradient is digamma; digamma's is the trigamma function
(TF's Polygamma(1, x)), kept private here as the rule's op."""
import math as _pymath

import numpy as np

from minitf.ops._core import FLOATS, Op
from minitf.ops.math_unary import _unary
from minitf.api_export import export

__all__ = ["lgamma", "digamma"]

# Lanczos approximation, g = 7, nine terms (double precision over the positive axis)
_G = 7.0
_LANCZOS = (0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313,
            -176.61502916214059, 12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6,
            1.5056327351493116e-7)
_HALF_LOG_2PI = 0.5 * _pymath.log(2 * _pymath.pi)
_SHIFT = 10  # digamma/trigamma step their argument up to >= 10 before the asymptotic series


def _sin_pi(xp, x):
    """sin(pi x) with x reduced to [-0.5, 0.5] first, exactly 0 at integers."""
    r = x - xp.round(x)
    return xp.sin(_pymath.pi * r) * xp.where(xp.round(x) % 2 == 0, 1.0, -1.0)


def _lgamma_positive(xp, x):
    """log|Gamma(x)| for x >= 0.5 (Lanczos)."""
    z = x - 1.0
    acc = xp.full(z.shape, _LANCZOS[0])
    for i, c in enumerate(_LANCZOS[1:], start=1):
        acc = acc + c / (z + i)
    t = z + _G + 0.5
    return _HALF_LOG_2PI + (z + 0.5) * xp.log(t) - t + xp.log(acc)


def _lgamma_values(xp, v):
    x = v.astype("float64")
    with np.errstate(all="ignore"):
        big = _lgamma_positive(xp, xp.where(x >= 0.5, x, 0.5))
        mirror = xp.where(x < 0.5, 1.0 - x, 0.5)
        small = _pymath.log(_pymath.pi) - xp.log(xp.abs(_sin_pi(xp, xp.where(x < 0.5, x, 0.25)))) \
            - _lgamma_positive(xp, mirror)
        out = xp.where(x >= 0.5, big, small)
        out = xp.where((x <= 0) & (x == xp.floor(x)), xp.inf, out)  # poles (and -inf)
        out = xp.where(xp.isnan(x), x, out)
        out = xp.where(x == xp.inf, xp.inf, out)
    return out.astype(v.dtype)


# Bernoulli numbers B2k / (2k) for digamma's series and B2k for trigamma's
_DIGAMMA_SERIES = (1 / 12, -1 / 120, 1 / 252, -1 / 240, 1 / 132, -691 / 32760, 1 / 12)
_TRIGAMMA_SERIES = (1 / 6, -1 / 30, 1 / 42, -1 / 30, 5 / 66, -691 / 2730, 7 / 6)


def _shifted(xp, x):
    """x stepped up by whole numbers until it is >= _SHIFT, and the steps' 1/x and 1/x^2 sums."""
    inv, inv_sq = xp.zeros(x.shape), xp.zeros(x.shape)
    for _ in range(_SHIFT):
        low = x < _SHIFT
        inv = inv + xp.where(low, 1.0 / x, 0.0)
        inv_sq = inv_sq + xp.where(low, 1.0 / (x * x), 0.0)
        x = xp.where(low, x + 1.0, x)
    return x, inv, inv_sq


def _digamma_positive(xp, x):
    x, inv, _ = _shifted(xp, x)
    w = 1.0 / (x * x)
    series, power = xp.zeros(x.shape), w
    for c in _DIGAMMA_SERIES:
        series = series + c * power
        power = power * w
    return xp.log(x) - 0.5 / x - series - inv


def _digamma_values(xp, v):
    x = v.astype("float64")
    with np.errstate(all="ignore"):
        pos = _digamma_positive(xp, xp.where(x >= 0.5, x, 1.0))
        neg_x = xp.where(x < 0.5, x, 0.25)  # psi(x) = psi(1 - x) - pi / tan(pi x)
        s = _sin_pi(xp, neg_x)
        c = _sin_pi(xp, neg_x + 0.5)
        neg = _digamma_positive(xp, 1.0 - neg_x) - _pymath.pi * c / s
        out = xp.where(x >= 0.5, pos, neg)
        out = xp.where((x <= 0) & (x == xp.floor(x)), xp.nan, out)  # poles, and -inf
        out = xp.where(x == xp.inf, xp.inf, out)
        out = xp.where(xp.isnan(x), x, out)
    return out.astype(v.dtype)


def _trigamma_positive(xp, x):
    x, _, inv_sq = _shifted(xp, x)
    w = 1.0 / (x * x)
    series, power = xp.zeros(x.shape), w / x
    for c in _TRIGAMMA_SERIES:
        series = series + c * power
        power = power * w
    return 1.0 / x + 0.5 * w + series + inv_sq


def _trigamma_values(xp, v):
    x = v.astype("float64")
    with np.errstate(all="ignore"):
        pos = _trigamma_positive(xp, xp.where(x >= 0.5, x, 1.0))
        neg_x = xp.where(x < 0.5, x, 0.25)  # psi1(x) = pi^2 / sin^2(pi x) - psi1(1 - x)
        s = _sin_pi(xp, neg_x)
        neg = (_pymath.pi ** 2) / (s * s) - _trigamma_positive(xp, 1.0 - neg_x)
        out = xp.where(x >= 0.5, pos, neg)
        out = xp.where((x <= 0) & (x == xp.floor(x)), xp.inf, out)
        out = xp.where(x == xp.inf, 0.0, out)
        out = xp.where(xp.isnan(x), x, out)
    return out.astype(v.dtype)


TRIGAMMA = Op("Polygamma", batchable=True, dtypes=("float32", "float64"))  # TF: no half kernel


def _trigamma(x):
    """psi'(x), digamma's derivative (TF's polygamma(1, x)); its own gradient is not written."""
    return _unary(TRIGAMMA, x, _trigamma_values, lambda g, x, y: None)


DIGAMMA = Op("Digamma", batchable=True, dtypes=FLOATS)


@export("math.digamma")
def digamma(x, name=None):
    """psi(x), the derivative of lgamma, elementwise (NaN at 0 and the negative integers)."""
    return _unary(DIGAMMA, x, _digamma_values, lambda g, x, y: g * _trigamma(x))


LGAMMA = Op("Lgamma", batchable=True, dtypes=FLOATS)


@export("math.lgamma")
def lgamma(x, name=None):
    """log|Gamma(x)|, elementwise (+inf at 0 and the negative integers)."""
    return _unary(LGAMMA, x, _lgamma_values, lambda g, x, y: g * digamma(x))
