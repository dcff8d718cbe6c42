"""Special functions missing from some array modules, written with the array module's own ops."""

# W. J. Cody's rational approximations (SPECFUN CALERF), accurate to float64 rounding.
_A = (3.16112374387056560e00, 1.13864154151050156e02, 3.77485237685302021e02,
      3.20937758913846947e03, 1.85777706184603153e-1)
_B = (2.36012909523441209e01, 2.44024637934444173e02, 1.28261652607737228e03,
      2.84423683343917062e03)
_C = (5.64188496988670089e-1, 8.88314979438837594e00, 6.61191906371416295e01,
      2.98635138197400131e02, 8.81952221241769090e02, 1.71204761263407058e03,
      2.05107837782607147e03, 1.23033935479799725e03, 2.15311535474403846e-8)
_D = (1.57449261107098347e01, 1.17693950891312499e02, 5.37181101862009858e02,
      1.62138957456669019e03, 3.29079923573345963e03, 4.36261909014324716e03,
      3.43936767414372164e03, 1.23033935480374942e03)
_P = (3.05326634961232344e-1, 3.60344899949804439e-1, 1.25781726111229246e-1,
      1.60837851487422766e-2, 6.58749161529837803e-4, 1.63153871373020978e-2)
_Q = (2.56852019228982242e00, 1.87295284992346725e00, 5.27905102951428412e-1,
      6.05183413124413191e-2, 2.33520497626869185e-3)
_INV_SQRT_PI = 5.6418958354775628695e-1


def _exp_neg_square(xp, y):
    """exp(-y*y), split as Cody does so the rounding of y*y does not cost accuracy."""
    ysq = xp.trunc(y * 16.0) / 16.0
    return xp.exp(-ysq * ysq) * xp.exp(-(y - ysq) * (y + ysq))


def _erf_small(xp, xs):
    """erf(x) for |x| <= 0.5 (Cody's first approximation), float64."""
    ysq = xs * xs
    num, den = _A[4] * ysq, ysq
    for i in range(3):
        num, den = (num + _A[i]) * ysq, (den + _B[i]) * ysq
    return xs * (num + _A[3]) / (den + _B[3])


def _erfc_tail(xp, y):
    """erfc(y) for y >= 0.5 (Cody's second and third approximations), float64."""
    # 0.5 < y <= 4 (each branch sees only inputs in its own range, so none overflows)
    ym = xp.clip(y, 0.5, 4.0)
    num, den = _C[8] * ym, ym
    for i in range(7):
        num, den = (num + _C[i]) * ym, (den + _D[i]) * ym
    mid = _exp_neg_square(xp, ym) * ((num + _C[7]) / (den + _D[7]))
    # y > 4; erfc(30) already underflows, so clamping there keeps infinities finite
    yl = xp.clip(y, 4.0, 30.0)
    inv = 1.0 / (yl * yl)
    num, den = _P[5] * inv, inv
    for i in range(4):
        num, den = (num + _P[i]) * inv, (den + _Q[i]) * inv
    large = _exp_neg_square(xp, yl) * ((_INV_SQRT_PI - inv * (num + _P[4]) / (den + _Q[4])) / yl)
    return xp.where(y <= 4.0, mid, large)


def erf(xp, x):
    """The error function on any array module, to float64 rounding accuracy.

    Cody's three rational approximations (|x| <= 0.5, <= 4, beyond), evaluated in float64 on
    every element and selected with `where`, so numpy and cupy give the same values.
    """
    x64 = x.astype("float64")
    y = xp.abs(x64)
    small = _erf_small(xp, xp.where(y <= 0.5, x64, 0.0))
    outer = (0.5 - _erfc_tail(xp, y)) + 0.5
    outer = xp.where(x64 < 0, -outer, outer)
    out = xp.where(y <= 0.5, small, outer)
    out = xp.where(x64 != x64, x64, out)  # NaN stays NaN
    return out.astype(x.dtype)


def erfc(xp, x):
    """The complementary error function 1 - erf(x) on any array module, accurate in the tail
    (no cancellation: erfc(10) is 2.1e-45, not 0), by the same approximations as `erf`."""
    x64 = x.astype("float64")
    y = xp.abs(x64)
    tail = _erfc_tail(xp, y)
    outer = xp.where(x64 < 0, 2.0 - tail, tail)
    out = xp.where(y <= 0.5, 1.0 - _erf_small(xp, xp.where(y <= 0.5, x64, 0.0)), outer)
    out = xp.where(x64 != x64, x64, out)  # NaN stays NaN
    return out.astype(x.dtype)
