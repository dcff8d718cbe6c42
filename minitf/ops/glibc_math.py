"""glibc's logf, sinf, cosf and log, evaluated over numpy arrays with glibc's own operations.

TensorFlow's Box-Muller kernels call these libm functions on Linux, and their results are not
always the correctly rounded ones, so reproducing TF's random normals bit for bit means doing the
same arithmetic as glibc: the same table lookups, the same polynomials, and the same rounding
steps. The algorithms (and their coefficient tables) are those glibc took from Arm's
optimized-routines (MIT licensed) in glibc 2.28/2.29 and still uses: logf (16-entry table,
degree-3 polynomial in double), sinf/cosf (reduction by multiples of pi/2 in double, even/odd
polynomials in double) and log (128-entry table, degree-5 polynomial; a degree-11 one near 1).

On x86-64 machines with FMA and AVX2, glibc picks builds of these functions where the compiler
fused every `a * b + c` into one multiply-add with a single rounding (read from glibc 2.36's
machine code). The functions here follow that build: steps whose error would reach the result
unscaled (logf's and log's z * invc - 1, the pi/2 reduction) are fused exactly; the polynomial
steps use plain numpy arithmetic, with a bound on how far that can be from the fused value, and
the elements whose final rounding such an error could change are recomputed with `fma`, an
exact emulation (for float32 results that never happened on TF's inputs; for log, about one
value in a thousand). `exact_fma=True` fuses everything. Whether the results agree with the
libm actually loaded is for the caller to check (minitf.ops.philox probes it once).

Against glibc 2.36 (ctypes), all 2**23 float32 inputs TF's Box-Muller gives logf (u in
[1e-7, 1)) and sinf/cosf (float32(2 * pi * u)) agree, as did 42 million Box-Muller doubles for
log; tests/ops/test_random_glibc_math.py keeps a sample, with other inputs too. sinf/cosf
arguments of magnitude 120 or more (glibc's large-argument reduction) are not implemented and
come back NaN.
"""
import numpy as np

_SPLITTER = 134217729.0  # 2**27 + 1: Veltkamp's split of a double into two 26-bit halves


def _split(a):
    """a as hi + lo, each with at most 26 significant bits (exact for |a| < 2**996)."""
    t = _SPLITTER * a
    hi = t - (t - a)
    return hi, a - hi


def _two_sum(a, b):
    """(s, e) with s = fl(a + b) and s + e == a + b exactly (Knuth)."""
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


def fma(a, b, c, b_split=None):
    """a * b + c with a single rounding, for float64 arrays (as the C fma).

    Exact for operands whose product and sum neither overflow nor fall to subnormal range:
    Dekker's exact product, Knuth's exact sum, then Boldo and Melquiond's round-to-odd step,
    which makes the final rounding see the exact value. `b_split` may give `_split(b)` when b is
    a constant used many times.
    """
    a = np.asarray(a, dtype=np.float64)
    p = a * b
    ah, al = _split(a)
    bh, bl = _split(b) if b_split is None else b_split
    e = ((ah * bh - p) + ah * bl + al * bh) + al * bl
    s, t = _two_sum(c, p)
    v, w = _two_sum(t, e)
    # Round v = fl(t + e) to odd: when inexact and even, step to the odd neighbour towards t + e.
    fix = ((v.view(np.int64) & 1) == 0) & (w != 0)
    if fix.any():
        v = np.where(fix, np.nextafter(v, np.copysign(np.inf, w)), v)
    return s + v


def _mul_add(a, b, c, b_split=None):
    """a * b + c with two roundings (the unfused build's arithmetic)."""
    return a * b + c


_CHUNK = 1 << 13  # elements per pass over large arrays: temporaries stay in cache (2-3x faster)


def _chunked(fn, x, *args):
    """fn over x (a 1-D or n-D array) in slices of `_CHUNK` elements; fn returns one array or a
    tuple of arrays shaped like its input."""
    if x.size <= _CHUNK:
        return fn(x, *args)
    flat = x.reshape(-1)
    parts = [fn(flat[lo:lo + _CHUNK], *args) for lo in range(0, flat.size, _CHUNK)]
    if isinstance(parts[0], tuple):
        return tuple(np.concatenate(column).reshape(x.shape) for column in zip(*parts))
    return np.concatenate(parts).reshape(x.shape)


def _const(hexstr):
    value = float.fromhex(hexstr)
    return value, _split(np.float64(value))


# -- logf ----------------------------------------------------------------------------------------

_LOGF_TABLE = np.array([[float.fromhex(v) for v in pair.split()] for pair in """
    0x1.661ec79f8f3bep+0 -0x1.57bf7808caadep-2
    0x1.571ed4aaf883dp+0 -0x1.2bef0a7c06ddbp-2
    0x1.49539f0f010bp+0 -0x1.01eae7f513a67p-2
    0x1.3c995b0b80385p+0 -0x1.b31d8a68224e9p-3
    0x1.30d190c8864a5p+0 -0x1.6574f0ac07758p-3
    0x1.25e227b0b8eap+0 -0x1.1aa2bc79c81p-3
    0x1.1bb4a4a1a343fp+0 -0x1.a4e76ce8c0e5ep-4
    0x1.12358f08ae5bap+0 -0x1.1973c5a611cccp-4
    0x1.0953f419900a7p+0 -0x1.252f438e10c1ep-5
    0x1p+0 0x0p+0
    0x1.e608cfd9a47acp-1 0x1.aa5aa5df25984p-5
    0x1.ca4b31f026aap-1 0x1.c5e53aa362eb4p-4
    0x1.b2036576afce6p-1 0x1.526e57720db08p-3
    0x1.9c2d163a1aa2dp-1 0x1.bc2860d22477p-3
    0x1.886e6037841edp-1 0x1.1058bc8a07ee1p-2
    0x1.767dcf5534862p-1 0x1.4043057b6ee09p-2
""".strip().splitlines()])
# invc split into 29 + 24 significant bits: times a float32 (24 bits) each product is exact.
_LOGF_INVC_HI = (_LOGF_TABLE[:, 0].view(np.uint64) & np.uint64(~((1 << 24) - 1) & (2**64 - 1))).view(np.float64)
_LOGF_INVC_LO = _LOGF_TABLE[:, 0] - _LOGF_INVC_HI
_LOGF_LN2 = _const("0x1.62e42fefa39efp-1")
_LOGF_A0 = _const("-0x1.00ea348b88334p-2")
_LOGF_A1 = _const("0x1.5575b0be00b6ap-2")
_LOGF_A2 = float.fromhex("-0x1.ffffef20a4123p-2")
_LOGF_OFF = 0x3F330000


_EXP64 = np.uint64(0x7FF0000000000000)
_LOW29 = np.uint64((1 << 29) - 1)
_FLT_MIN_EXP64 = np.uint64((1023 - 126) << 52)


def _to_float32(y, err):
    """float32(y), and where an error of `err` in y could change that rounding (to be redone)."""
    out = y.astype(np.float32)
    bits = y.view(np.uint64)
    # Rounding to float32 looks at the low 29 bits of the double's mantissa: the midpoint between
    # two floats is 2**28 there, so y is that many units of its last place away from it.
    exponent = bits & _EXP64
    with np.errstate(divide="ignore", invalid="ignore"):
        err_ulps = err / (exponent.view(np.float64) * 2.0 ** -52)
    from_mid = np.abs((bits & _LOW29).view(np.int64) - (1 << 28))
    # Next to a power of two the nearer midpoint can be below it (2**27 units at least), and
    # float32 subnormals round on another grid: those go to the exact evaluation too.
    doubtful = (from_mid <= err_ulps) | (err_ulps >= 2.0 ** 26) | (exponent < _FLT_MIN_EXP64)
    return out, doubtful


def _logf_double(ix, f):
    """glibc's logf before its final rounding, for float32 bit patterns `ix` of positive normal
    numbers, multiply-adds done by `f`, and a bound on how far plain arithmetic's value can be
    from the fused one."""
    tmp = ix - np.uint32(_LOGF_OFF)
    i = (tmp >> np.uint32(19)) & np.uint32(15)
    k = (tmp.view(np.int32) >> np.int32(23)).astype(np.float64)
    z = (ix - (tmp & np.uint32(0xFF800000))).view(np.float32).astype(np.float64)
    # r = fma(z, invc, -1): z * invc_hi - 1 is exact (Sterbenz: z * invc is within 1/16 of 1).
    r = (z * _LOGF_INVC_HI[i] - 1.0) + z * _LOGF_INVC_LO[i]
    y0 = f(k, _LOGF_LN2[0], _LOGF_TABLE[i, 1], _LOGF_LN2[1])
    r2 = r * r
    y = f(r, _LOGF_A1[0], _LOGF_A2, _LOGF_A1[1])
    y = f(r2, _LOGF_A0[0], y, _LOGF_A0[1])
    y = f(r2, y, y0 + r)
    # Each unfused step errs by at most an ulp of its product and of its result.
    return y, 2.0 ** -50 * (np.abs(y0) + np.abs(r) + r2 + np.abs(y))


def logf(x, exact_fma=False):
    """glibc's logf of a float32 array, as float32 (the build for CPUs with FMA).

    Plain numpy arithmetic stands in for the fused multiply-adds; elements whose float32 rounding
    the difference could change are recomputed with `fma` (`exact_fma` fuses all). No input TF's
    Box-Muller can produce needs that.
    """
    x = np.asarray(x, dtype=np.float32)
    out, doubtful = _chunked(_logf, x, exact_fma)
    if doubtful.any():
        out[doubtful] = _logf(x[doubtful], True)[0]
    return out


def _logf(x, exact_fma):
    """`logf` of a float32 array and the mask of elements it must recompute exactly (none when
    `exact_fma`)."""
    ix = x.view(np.uint32).copy()
    special = (ix - np.uint32(0x00800000)) >= np.uint32(0x7F800000 - 0x00800000)
    subnormal = special & (ix < np.uint32(0x00800000)) & (ix != 0)
    if subnormal.any():
        ix[subnormal] = (x[subnormal] * np.float32(2.0 ** 23)).view(np.uint32) - np.uint32(23 << 23)
    y, err = _logf_double(ix, fma if exact_fma else _mul_add)
    out, doubtful = _to_float32(y, err)
    doubtful &= ~special | subnormal
    if special.any():
        ordinary = special & ~subnormal
        with np.errstate(invalid="ignore", divide="ignore"):
            out[ordinary] = np.log(x[ordinary])  # zeros, negatives, inf and NaN
    out[ix == 0x3F800000] = 0.0
    return out, doubtful & (not exact_fma)


# -- sinf and cosf -------------------------------------------------------------------------------

_HPI_INV = float.fromhex("0x1.45F306DC9C883p+23")  # 2/pi scaled by 2**24 (quadrant in bits 24..31)
_HPI = float.fromhex("0x1.921FB54442D18p0")
# pi/2 split so that n * _HPI_HI is exact for the quadrants n < 128 of the medium range.
_HPI_HI = float((np.float64(_HPI).view(np.uint64) & np.uint64(~((1 << 8) - 1) & (2**64 - 1))).view(np.float64))
_HPI_LO = _HPI - _HPI_HI
# The cosine polynomial (glibc negates it in quadrants 2 and 3) and the sine polynomial.
_C = [float.fromhex(h) for h in ("0x1p0", "-0x1.ffffffd0c621cp-2", "0x1.55553e1068f19p-5",
                                 "-0x1.6c087e89a359dp-10", "0x1.99343027bf8c3p-16")]
_C_SPLIT = [_split(np.float64(c)) for c in _C]
_S1, _S2, _S3 = (_const(h) for h in ("-0x1.555545995a603p-3", "0x1.1107605230bc4p-7", "-0x1.994eb3774cf24p-13"))


def _sincos_double(y, f):
    """sin and cos of float32 `y` (|y| < 120) before the final rounding, as glibc's sinf/cosf
    evaluate them, multiply-adds done by `f`; with bounds on plain arithmetic's error."""
    x = y.astype(np.float64)
    # Below 0.75 glibc skips the reduction; the formula gives quadrant 0 there anyway.
    n = ((x * _HPI_INV).astype(np.int64) + 0x800000) >> 24
    nd = n.astype(np.float64)
    # fma(-n, pi/2, x): x - n * hi is exact (Sterbenz), n * lo too; one rounding.
    xr = (x - nd * _HPI_HI) - nd * _HPI_LO
    x2 = xr * xr
    # Odd polynomial: negating x negates every step exactly, so signs are applied at the end.
    x3 = x2 * xr
    s1 = f(x2, _S3[0], _S2[0], _S3[1])
    ps = f(x3 * x2, s1, f(x3, _S1[0], xr, _S1[1]))
    # Even polynomial: glibc negates all coefficients instead, which negates each step exactly.
    x4 = x2 * x2
    c1 = f(x2, _C[1], _C[0], _C_SPLIT[1])
    c2 = f(x2, _C[4], _C[3], _C_SPLIT[4])
    pc = f(x2 * x4, c2, f(x4, _C[2], c1, _C_SPLIT[2]))
    odd = (n & 1) == 1
    sin, cos = np.where(odd, pc, ps), np.where(odd, ps, pc)
    sin = np.where(n & 2, -sin, sin)        # quadrants 2, 3
    cos = np.where((n + 1) & 2, -cos, cos)  # quadrants 1, 2
    # Plain arithmetic errs by at most 2**-50 * (|xr| + |ps|) or 2**-50 * (1 + |pc|); both are
    # below 2**-49 as |xr| <= pi/4.
    return sin, cos, 2.0 ** -49, 2.0 ** -49


def sincosf(y, exact_fma=False):
    """glibc's sinf and cosf of a float32 array (the FMA build; plain arithmetic with checked
    roundings as in `logf`), as two float32 arrays. |y| >= 120 (glibc's large-argument
    reduction, not ported here) and non-finite values come back NaN."""
    y = np.asarray(y, dtype=np.float32)
    sin, cos, doubtful = _chunked(_sincosf, y, exact_fma)
    if doubtful.any():
        sin[doubtful], cos[doubtful] = _sincosf(y[doubtful], True)[:2]
    return sin, cos


def _sincosf(y, exact_fma):
    """`sincosf` of a float32 array and the mask of elements it must recompute exactly."""
    top = (y.view(np.uint32) >> np.uint32(20)) & np.uint32(0x7FF)
    large = top >= 0x42F  # |y| >= 120, inf or NaN
    tiny = top < 0x398    # |y| < 2**-12: sinf(y) = y, cosf(y) = 1
    any_large = large.any()
    sin64, cos64, err_s, err_c = _sincos_double(np.where(large, np.float32(0), y) if any_large else y,
                                                fma if exact_fma else _mul_add)
    sin, doubt_s = _to_float32(sin64, err_s)
    cos, doubt_c = _to_float32(cos64, err_c)
    doubtful = (doubt_s | doubt_c) & ~(large | tiny) & (not exact_fma)
    if tiny.any():
        sin[tiny], cos[tiny] = y[tiny], np.float32(1.0)
    if any_large:
        sin[large], cos[large] = np.nan, np.nan
    return sin, cos, doubtful


def sinf(y, exact_fma=False):
    """glibc's sinf of a float32 array (see `sincosf`)."""
    return sincosf(y, exact_fma)[0]


def cosf(y, exact_fma=False):
    """glibc's cosf of a float32 array (see `sincosf`)."""
    return sincosf(y, exact_fma)[1]


# -- log (double) --------------------------------------------------------------------------------

_LOG_TABLE = np.array([[float.fromhex(v) for v in pair.split()] for pair in """
    0x1.734f0c3e0de9fp+0 -0x1.7cc7f79e69000p-2
    0x1.713786a2ce91fp+0 -0x1.76feec20d0000p-2
    0x1.6f26008fab5a0p+0 -0x1.713e31351e000p-2
    0x1.6d1a61f138c7dp+0 -0x1.6b85b38287800p-2
    0x1.6b1490bc5b4d1p+0 -0x1.65d5590807800p-2
    0x1.69147332f0cbap+0 -0x1.602d076180000p-2
    0x1.6719f18224223p+0 -0x1.5a8ca86909000p-2
    0x1.6524f99a51ed9p+0 -0x1.54f4356035000p-2
    0x1.63356aa8f24c4p+0 -0x1.4f637c36b4000p-2
    0x1.614b36b9ddc14p+0 -0x1.49da7fda85000p-2
    0x1.5f66452c65c4cp+0 -0x1.445923989a800p-2
    0x1.5d867b5912c4fp+0 -0x1.3edf439b0b800p-2
    0x1.5babccb5b90dep+0 -0x1.396ce448f7000p-2
    0x1.59d61f2d91a78p+0 -0x1.3401e17bda000p-2
    0x1.5805612465687p+0 -0x1.2e9e2ef468000p-2
    0x1.56397cee76bd3p+0 -0x1.2941b3830e000p-2
    0x1.54725e2a77f93p+0 -0x1.23ec58cda8800p-2
    0x1.52aff42064583p+0 -0x1.1e9e129279000p-2
    0x1.50f22dbb2bddfp+0 -0x1.1956d2b48f800p-2
    0x1.4f38f4734ded7p+0 -0x1.141679ab9f800p-2
    0x1.4d843cfde2840p+0 -0x1.0edd094ef9800p-2
    0x1.4bd3ec078a3c8p+0 -0x1.09aa518db1000p-2
    0x1.4a27fc3e0258ap+0 -0x1.047e65263b800p-2
    0x1.4880524d48434p+0 -0x1.feb224586f000p-3
    0x1.46dce1b192d0bp+0 -0x1.f474a7517b000p-3
    0x1.453d9d3391854p+0 -0x1.ea4443d103000p-3
    0x1.43a2744b4845ap+0 -0x1.e020d44e9b000p-3
    0x1.420b54115f8fbp+0 -0x1.d60a22977f000p-3
    0x1.40782da3ef4b1p+0 -0x1.cc00104959000p-3
    0x1.3ee8f5d57fe8fp+0 -0x1.c202956891000p-3
    0x1.3d5d9a00b4ce9p+0 -0x1.b81178d811000p-3
    0x1.3bd60c010c12bp+0 -0x1.ae2c9ccd3d000p-3
    0x1.3a5242b75dab8p+0 -0x1.a45402e129000p-3
    0x1.38d22cd9fd002p+0 -0x1.9a877681df000p-3
    0x1.3755bc5847a1cp+0 -0x1.90c6d69483000p-3
    0x1.35dce49ad36e2p+0 -0x1.87120a645c000p-3
    0x1.34679984dd440p+0 -0x1.7d68fb4143000p-3
    0x1.32f5cceffcb24p+0 -0x1.73cb83c627000p-3
    0x1.3187775a10d49p+0 -0x1.6a39a9b376000p-3
    0x1.301c8373e3990p+0 -0x1.60b3154b7a000p-3
    0x1.2eb4ebb95f841p+0 -0x1.5737d76243000p-3
    0x1.2d50a0219a9d1p+0 -0x1.4dc7b8fc23000p-3
    0x1.2bef9a8b7fd2ap+0 -0x1.4462c51d20000p-3
    0x1.2a91c7a0c1babp+0 -0x1.3b08abc830000p-3
    0x1.293726014b530p+0 -0x1.31b996b490000p-3
    0x1.27dfa5757a1f5p+0 -0x1.2875490a44000p-3
    0x1.268b39b1d3bbfp+0 -0x1.1f3b9f879a000p-3
    0x1.2539d838ff5bdp+0 -0x1.160c8252ca000p-3
    0x1.23eb7aac9083bp+0 -0x1.0ce7f57f72000p-3
    0x1.22a012ba940b6p+0 -0x1.03cdc49fea000p-3
    0x1.2157996cc4132p+0 -0x1.f57bdbc4b8000p-4
    0x1.201201dd2fc9bp+0 -0x1.e370896404000p-4
    0x1.1ecf4494d480bp+0 -0x1.d17983ef94000p-4
    0x1.1d8f5528f6569p+0 -0x1.bf9674ed8a000p-4
    0x1.1c52311577e7cp+0 -0x1.adc79202f6000p-4
    0x1.1b17c74cb26e9p+0 -0x1.9c0c3e7288000p-4
    0x1.19e010c2c1ab6p+0 -0x1.8a646b372c000p-4
    0x1.18ab07bb670bdp+0 -0x1.78d01b3ac0000p-4
    0x1.1778a25efbcb6p+0 -0x1.674f145380000p-4
    0x1.1648d354c31dap+0 -0x1.55e0e6d878000p-4
    0x1.151b990275fddp+0 -0x1.4485cdea1e000p-4
    0x1.13f0ea432d24cp+0 -0x1.333d94d6aa000p-4
    0x1.12c8b7210f9dap+0 -0x1.22079f8c56000p-4
    0x1.11a3028ecb531p+0 -0x1.10e4698622000p-4
    0x1.107fbda8434afp+0 -0x1.ffa6c6ad20000p-5
    0x1.0f5ee0f4e6bb3p+0 -0x1.dda8d4a774000p-5
    0x1.0e4065d2a9fcep+0 -0x1.bbcece4850000p-5
    0x1.0d244632ca521p+0 -0x1.9a1894012c000p-5
    0x1.0c0a77ce2981ap+0 -0x1.788583302c000p-5
    0x1.0af2f83c636d1p+0 -0x1.5715e67d68000p-5
    0x1.09ddb98a01339p+0 -0x1.35c8a49658000p-5
    0x1.08cabaf52e7dfp+0 -0x1.149e364154000p-5
    0x1.07b9f2f4e28fbp+0 -0x1.e72c082eb8000p-6
    0x1.06ab58c358f19p+0 -0x1.a55f152528000p-6
    0x1.059eea5ecf92cp+0 -0x1.63d62cf818000p-6
    0x1.04949cdd12c90p+0 -0x1.228fb8caa0000p-6
    0x1.038c6c6f0ada9p+0 -0x1.c317b20f90000p-7
    0x1.02865137932a9p+0 -0x1.419355daa0000p-7
    0x1.0182427ea7348p+0 -0x1.81203c2ec0000p-8
    0x1.008040614b195p+0 -0x1.0040979240000p-9
    0x1.fe01ff726fa1ap-1 0x1.feff384900000p-9
    0x1.fa11cc261ea74p-1 0x1.7dc41353d0000p-7
    0x1.f6310b081992ep-1 0x1.3cea3c4c28000p-6
    0x1.f25f63ceeadcdp-1 0x1.b9fc114890000p-6
    0x1.ee9c8039113e7p-1 0x1.1b0d8ce110000p-5
    0x1.eae8078cbb1abp-1 0x1.58a5bd001c000p-5
    0x1.e741aa29d0c9bp-1 0x1.95c8340d88000p-5
    0x1.e3a91830a99b5p-1 0x1.d276aef578000p-5
    0x1.e01e009609a56p-1 0x1.07598e598c000p-4
    0x1.dca01e577bb98p-1 0x1.253f5e30d2000p-4
    0x1.d92f20b7c9103p-1 0x1.42edd8b380000p-4
    0x1.d5cac66fb5ccep-1 0x1.606598757c000p-4
    0x1.d272caa5ede9dp-1 0x1.7da76356a0000p-4
    0x1.cf26e3e6b2ccdp-1 0x1.9ab434e1c6000p-4
    0x1.cbe6da2a77902p-1 0x1.b78c7bb0d6000p-4
    0x1.c8b266d37086dp-1 0x1.d431332e72000p-4
    0x1.c5894bd5d5804p-1 0x1.f0a3171de6000p-4
    0x1.c26b533bb9f8cp-1 0x1.067152b914000p-3
    0x1.bf583eeece73fp-1 0x1.147858292b000p-3
    0x1.bc4fd75db96c1p-1 0x1.2266ecdca3000p-3
    0x1.b951e0c864a28p-1 0x1.303d7a6c55000p-3
    0x1.b65e2c5ef3e2cp-1 0x1.3dfc33c331000p-3
    0x1.b374867c9888bp-1 0x1.4ba366b7a8000p-3
    0x1.b094b211d304ap-1 0x1.5933928d1f000p-3
    0x1.adbe885f2ef7ep-1 0x1.66acd2418f000p-3
    0x1.aaf1d31603da2p-1 0x1.740f8ec669000p-3
    0x1.a82e63fd358a7p-1 0x1.815c0f51af000p-3
    0x1.a5740ef09738bp-1 0x1.8e92954f68000p-3
    0x1.a2c2a90ab4b27p-1 0x1.9bb3602f84000p-3
    0x1.a01a01393f2d1p-1 0x1.a8bed1c2c0000p-3
    0x1.9d79f24db3c1bp-1 0x1.b5b515c01d000p-3
    0x1.9ae2505c7b190p-1 0x1.c2967ccbcc000p-3
    0x1.9852ef297ce2fp-1 0x1.cf635d5486000p-3
    0x1.95cbaeea44b75p-1 0x1.dc1bd3446c000p-3
    0x1.934c69de74838p-1 0x1.e8c01b8cfe000p-3
    0x1.90d4f2f6752e6p-1 0x1.f5509c0179000p-3
    0x1.8e6528effd79dp-1 0x1.00e6c121fb800p-2
    0x1.8bfce9fcc007cp-1 0x1.071b80e93d000p-2
    0x1.899c0dabec30ep-1 0x1.0d46b9e867000p-2
    0x1.87427aa2317fbp-1 0x1.13687334bd000p-2
    0x1.84f00acb39a08p-1 0x1.1980d67234800p-2
    0x1.82a49e8653e55p-1 0x1.1f8ffe0cc8000p-2
    0x1.8060195f40260p-1 0x1.2595fd7636800p-2
    0x1.7e22563e0a329p-1 0x1.2b9300914a800p-2
    0x1.7beb377dcb5adp-1 0x1.3187210436000p-2
    0x1.79baa679725c2p-1 0x1.377266dec1800p-2
    0x1.77907f2170657p-1 0x1.3d54ffbaf3000p-2
    0x1.756cadbd6130cp-1 0x1.432eee32fe000p-2
""".strip().splitlines()])  # invc = 1/c and log(c) for the 128 subintervals of [0x1.6p-1, 0x1.6p0]
_LOG_INVC_SPLIT = _split(_LOG_TABLE[:, 0])
_LN2HI = float.fromhex("0x1.62e42fefa3800p-1")
_LN2LO = _const("0x1.ef35793c76730p-45")
_LOG_A = [_const(h) for h in ("-0x1.0000000000001p-1", "0x1.555555551305bp-2", "-0x1.fffffffeb459p-3",
                              "0x1.999b324f10111p-3", "-0x1.55575e506c89fp-3")]
_LOG_B = [_const(h) for h in (
    "-0x1p-1", "0x1.5555555555577p-2", "-0x1.ffffffffffdcbp-3", "0x1.999999995dd0cp-3",
    "-0x1.55555556745a7p-3", "0x1.24924a344de3p-3", "-0x1.fffffa4423d65p-4", "0x1.c7184282ad6cap-4",
    "-0x1.999eb43b068ffp-4", "0x1.78182f7afd085p-4", "-0x1.5521375d145cdp-4")]
_LOG_OFF = 0x3FE6000000000000
_LOG_NEAR_LO = 0x3FEE000000000000   # 1 - 2**-4
_LOG_NEAR_HI = 0x3FF1090000000000   # 1 + 0x1.09p-4


def _log_near_one(r, f):
    """glibc's log(1 + r) for |r| < 0x1.09p-4 as (hi, t, err): the result is fl(hi + t), with
    multiply-adds done by `f`; err bounds how far plain arithmetic's t is from the fused one."""
    b = [c for c, _ in _LOG_B]

    def g(a, j, c):
        return f(a, b[j], c, _LOG_B[j][1])

    r2 = r * r
    r3 = r * r2
    p1 = g(r2, 3, g(r, 2, b[1]))
    p4 = g(r2, 6, g(r, 5, b[4]))
    p7 = g(r3, 10, g(r2, 9, g(r, 8, b[7])))
    p1 = f(f(p7, r3, p4), r3, p1)
    # r = rhi + rlo with rhi of 26 bits, so rhi * rhi and the products by -0.5 are exact.
    w = r * 2.0 ** 27
    rhi = (r + w) - w
    rlo = r - rhi
    half_rhi2 = rhi * rhi * b[0]
    hi = r + half_rhi2
    lo = (r - hi) + half_rhi2
    lo = f(b[0] * rlo, rhi + r, lo)
    t = f(p1, r3, lo)
    return hi, t, 2.0 ** -50 * (np.abs(r3) + np.abs(t) + np.abs(lo) + np.abs(rlo * r))


def _log_main(ix, f):
    """glibc's log away from 1 for the bit patterns `ix` of positive normal doubles, as
    `_log_near_one` returns it."""
    tmp = ix - np.uint64(_LOG_OFF)
    i = ((tmp >> np.uint64(45)) & np.uint64(127)).astype(np.intp)
    kd = (tmp.view(np.int64) >> np.int64(52)).astype(np.float64)
    z = (ix - (tmp & np.uint64(0xFFF << 52))).view(np.float64)
    # k * ln2hi + log(c) is exact by the table's construction.
    w = kd * _LN2HI + _LOG_TABLE[i, 1]
    # r = fma(z, invc, -1) exactly either way, as its error would reach the result unscaled:
    # z * invc is within 2**-7 of 1, so fl(z * invc) - 1 is exact (Sterbenz) and only the
    # product's own rounding error (Dekker) remains to be added, with the one rounding.
    p = z * _LOG_TABLE[i, 0]
    zh, zl = _split(z)
    ih, il = _LOG_INVC_SPLIT[0][i], _LOG_INVC_SPLIT[1][i]
    r = (p - 1.0) + (((zh * ih - p) + zh * il + zl * ih) + zl * il)
    hi = r + w
    lo = f(kd, _LN2LO[0], (w - hi) + r, _LN2LO[1])
    a = [c for c, _ in _LOG_A]
    r2 = r * r
    r3 = r * r2
    poly = f(r2, f(r, a[4], a[3], _LOG_A[4][1]), f(r, a[2], a[1], _LOG_A[2][1]))
    t = f(r3, poly, f(r2, a[0], lo, _LOG_A[0][1]))
    return hi, t, 2.0 ** -50 * (np.abs(lo) + r2 + np.abs(t) + np.abs(kd) * 2.0 ** -44)


def _log_parts(ix, x, near, f):
    hi, t, err = _log_main(ix, f)
    if near.any():
        hi[near], t[near], err[near] = _log_near_one(x[near] - 1.0, f)
    return hi, t, err


def log(x, exact_fma=False):
    """glibc's log of a float64 array (the build for CPUs with FMA).

    As in `logf`, plain arithmetic stands in for most fused multiply-adds, and the elements
    whose final rounding that could change (about one in a thousand) are recomputed with exact
    `fma` (`exact_fma` fuses all).
    """
    x = np.asarray(x, dtype=np.float64)
    out, doubtful = _chunked(_log, x, exact_fma)
    if doubtful.any():
        out[doubtful] = _log(x[doubtful], True)[0]
    return out


def _log(x, exact_fma):
    """`log` of a float64 array and the mask of elements it must recompute exactly (none when
    `exact_fma`)."""
    ix = x.view(np.uint64).copy()
    special = ((ix >> np.uint64(48)) - np.uint64(0x0010)) >= np.uint64(0x7FF0 - 0x0010)
    subnormal = special & (ix < np.uint64(1 << 52)) & (ix != 0)
    if subnormal.any():
        ix[subnormal] = (x[subnormal] * 2.0 ** 52).view(np.uint64) - np.uint64(52 << 52)
    near = (ix - np.uint64(_LOG_NEAR_LO)) < np.uint64(_LOG_NEAR_HI - _LOG_NEAR_LO)
    hi, t, err = _log_parts(ix, x, near, fma if exact_fma else _mul_add)
    out, e = _two_sum(hi, t)
    # Safe where hi + t stays on its side of the midpoint between out and its neighbour.
    with np.errstate(invalid="ignore"):
        half_gap = 0.5 * np.abs(np.nextafter(out, np.copysign(np.inf, e)) - out)
        doubtful = (np.abs(e) + err >= half_gap) & ~special & (not exact_fma)
    out[x == 1.0] = 0.0
    if special.any():
        ordinary = special & ~subnormal
        with np.errstate(invalid="ignore", divide="ignore"):
            out[ordinary] = np.log(x[ordinary])  # zeros, negatives, inf and NaN
    return out, doubtful
