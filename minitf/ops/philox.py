"""TensorFlow's counter-based Philox4x32-10 generator and its distributions, vectorised in numpy.

Every random number in TF's stateless ops and `tf.random.Generator` comes from the same recipe,
reproduced here bit for bit:

* Philox4x32-10 maps a 128-bit counter (four uint32 words, low word first) and a 64-bit key (two
  uint32 words) to four uint32 outputs; the key is stored as one uint64 (low word first) and the
  counter as two uint64 words.
* An output of n values is cut into groups of `k` values (4 floats, or 2 doubles / 64-bit ints);
  group `g` is made from the block at `counter + g`. Truncated normals draw a variable number of
  samples, so group `g` starts at block `counter + g * 256 * k / 4` and reads single uint32 samples
  from there on.
* Uniform floats put random mantissa bits under the exponent of 1.0 and subtract 1; normals use
  Box-Muller on pairs of uniforms (float32 arithmetic for half/bfloat16/float32, float64 for
  double); integers in [lo, hi) take the sample modulo hi - lo.

Box-Muller's results depend on how glibc's logf/sincosf (and log for doubles) round, which is
not always to nearest. minitf evaluates glibc's own algorithms over whole arrays
(minitf.ops.glibc_math) once a probe has shown that they agree with the libm loaded; otherwise
it calls that libm element by element for the values where rounding is in doubt (see
`FALLBACK_EXACT_LIMIT`), or, without a libm, rounds numpy's float64 results.
"""
import ctypes
import ctypes.util
import math
import sys

import numpy as np

from minitf.kernels import jit
from minitf.ops import glibc_math

_M0 = np.uint64(0xD2511F53)
_M1 = np.uint64(0xCD9E8D57)
_W0 = 0x9E3779B9
_W1 = 0xBB67AE85
_MASK32 = 0xFFFFFFFF
_MASK64 = (1 << 64) - 1
_SHIFT32 = np.uint64(32)

# Truncated normals reserve this many samples per output value (TF's kReservedSamplesPerOutput).
RESERVED_SAMPLES_PER_OUTPUT = 256


def _words(value):
    """A uint64 split into its (low, high) uint32 halves."""
    value &= _MASK64
    return value & _MASK32, value >> 32


def counters(counter, n, start=0, step=1):
    """The four uint32 counter words of blocks `start, start + step, ...` (n of them) after the
    128-bit `counter`, given as two uint64 words (low first); carries run into the high word."""
    lo = int(counter[0]) & _MASK64
    hi = int(counter[1]) & _MASK64
    offsets = np.arange(n, dtype=np.uint64) * np.uint64(step) + np.uint64(start & _MASK64)
    low = offsets + np.uint64(lo)  # wraps modulo 2**64, as the C++ counter does
    high = np.full(n, hi, dtype=np.uint64) + (low < offsets).astype(np.uint64)
    return [low.astype(np.uint32), (low >> _SHIFT32).astype(np.uint32),
            high.astype(np.uint32), (high >> _SHIFT32).astype(np.uint32)]


def philox(key, words):
    """Philox4x32-10 of the counter words [c0, c1, c2, c3] (uint32 arrays) under the uint64 `key`;
    returns the four uint32 output words as arrays."""
    k0, k1 = _words(int(key))
    c0, c1, c2, c3 = words
    for round_ in range(10):
        if round_:
            k0 = (k0 + _W0) & _MASK32
            k1 = (k1 + _W1) & _MASK32
        p0 = c0.astype(np.uint64) * _M0
        p1 = c2.astype(np.uint64) * _M1
        c0, c1, c2, c3 = ((p1 >> _SHIFT32).astype(np.uint32) ^ c1 ^ np.uint32(k0), p1.astype(np.uint32),
                          (p0 >> _SHIFT32).astype(np.uint32) ^ c3 ^ np.uint32(k1), p0.astype(np.uint32))
    return [c0, c1, c2, c3]


_CHUNK = 1 << 13  # blocks per pass: keeps a round's temporaries in cache (about twice as fast)
# From this many blocks on, numba's loop (when installed) replaces the numpy rounds: 0.56 ms
# instead of 8.5 ms for 200,704 blocks (a Dropout mask of 64x14x14x64), the same bits.
_LOOP_MIN_BLOCKS = 256
_loops = {}  # name -> the numba-compiled loop


def stream(key, counter, n, start=0):
    """The four uint32 output words of blocks start .. start + n - 1 after `counter`, as arrays."""
    if n >= _LOOP_MIN_BLOCKS and jit.available():
        out = blocks(key, counter, n, start)
        return [out[:, 0], out[:, 1], out[:, 2], out[:, 3]]
    if n <= _CHUNK:
        return philox(key, counters(counter, n, start))
    out = [np.empty(n, dtype=np.uint32) for _ in range(4)]
    for lo in range(0, n, _CHUNK):
        hi = min(n, lo + _CHUNK)
        for dst, src in zip(out, philox(key, counters(counter, hi - lo, start + lo))):
            dst[lo:hi] = src
    return out


def blocks(key, counter, n, start=0):
    """An [n, 4] uint32 array: the Philox outputs of blocks start .. start + n - 1."""
    if n <= 0:
        return np.zeros((0, 4), dtype=np.uint32)
    if n >= _LOOP_MIN_BLOCKS and jit.available():
        out = np.empty((n, 4), dtype=np.uint32)
        k0, k1 = _words(int(key))
        _compiled_loop(_blocks_loop)(np.uint64(k0), np.uint64(k1), np.uint64(int(counter[0]) & _MASK64),
                 np.uint64(int(counter[1]) & _MASK64), np.uint64(start & _MASK64), out)
        return out
    return np.stack(stream(key, counter, n, start), axis=1)


def _compiled_loop(fn):
    loop = _loops.get(fn.__name__)
    if loop is None:
        loop = _loops[fn.__name__] = jit.compiled(fn)
    return loop


def _blocks_loop(k0, k1, lo, hi, start, out):
    """`blocks` as one loop (compiled by numba; every operand uint64, so nothing leaves the
    unsigned integers): block i's 128-bit counter is (hi, lo) + start + i, then ten rounds.
    Blocks go through in chunks whose four words are kept in four separate arrays, a layout
    the compiler vectorises (about 7x faster than writing each block's row in turn), and are
    then interleaved into `out`."""
    mask, shift = np.uint64(_MASK32), np.uint64(32)
    m0, m1, w0, w1 = np.uint64(0xD2511F53), np.uint64(0xCD9E8D57), np.uint64(_W0), np.uint64(_W1)
    one, zero = np.uint64(1), np.uint64(0)
    n = out.shape[0]
    chunk = 512
    w0s, w1s = np.empty(chunk, np.uint32), np.empty(chunk, np.uint32)
    w2s, w3s = np.empty(chunk, np.uint32), np.empty(chunk, np.uint32)
    for base in range(0, n, chunk):
        m = min(chunk, n - base)
        first = start + np.uint64(base)
        for j in range(m):
            offset = first + np.uint64(j)
            low = offset + lo
            high = hi + (one if low < offset else zero)
            c0, c1, c2, c3 = low & mask, low >> shift, high & mask, high >> shift
            a0, a1 = k0, k1
            for round_ in range(10):
                if round_:
                    a0 = (a0 + w0) & mask
                    a1 = (a1 + w1) & mask
                p0 = c0 * m0
                p1 = c2 * m1
                c0, c1, c2, c3 = (p1 >> shift) ^ c1 ^ a0, p1 & mask, (p0 >> shift) ^ c3 ^ a1, p0 & mask
            w0s[j], w1s[j], w2s[j], w3s[j] = np.uint32(c0), np.uint32(c1), np.uint32(c2), np.uint32(c3)
        for j in range(m):
            out[base + j, 0] = w0s[j]
            out[base + j, 1] = w1s[j]
            out[base + j, 2] = w2s[j]
            out[base + j, 3] = w3s[j]


def skip(counter, delta):
    """The two-word counter advanced by `delta` blocks (128-bit arithmetic, as PhiloxRandom.Skip)."""
    value = (int(counter[0]) & _MASK64) | ((int(counter[1]) & _MASK64) << 64)
    value = (value + int(delta)) & ((1 << 128) - 1)
    return value & _MASK64, value >> 64


# -- bits to numbers ----------------------------------------------------------------------------

def uint32_to_float(x):
    """Floats in [0, 1) from the low 23 bits of each uint32 (TF's Uint32ToFloat)."""
    if x.size >= 4 * _LOOP_MIN_BLOCKS and x.ndim == 1 and jit.available():
        out = np.empty(x.shape, np.float32)
        _compiled_loop(_unit_float_loop)(np.ascontiguousarray(x), out.view(np.uint32), out)
        return out
    return ((x & np.uint32(0x7FFFFF)) | np.uint32(0x3F800000)).view(np.float32) - np.float32(1.0)


def _unit_float_loop(words, bits, out):
    """`uint32_to_float` in two vectorisable passes (numba): `bits` and `out` are one buffer,
    as uint32 and as float32; every value's bits are written, then 1.0 is subtracted in float32."""
    low, one_bits, one = np.uint32(0x7FFFFF), np.uint32(0x3F800000), np.float32(1.0)
    for i in range(words.shape[0]):
        bits[i] = (words[i] & low) | one_bits
    for i in range(out.shape[0]):
        out[i] = out[i] - one


def uint64_to_double(x0, x1):
    """Doubles in [0, 1) from 20 bits of x0 over the 32 bits of x1 (TF's Uint64ToDouble)."""
    man = ((x0 & np.uint32(0xFFFFF)).astype(np.uint64) << _SHIFT32) | x1.astype(np.uint64)
    return (man | np.uint64(1023 << 52)).view(np.float64) - 1.0


def uint16_to_half(x):
    """float16 values in [0, 1) from the low 10 bits of each word (TF's Uint16ToHalf)."""
    bits = ((x & np.uint32(0x3FF)) | np.uint32(15 << 10)).astype(np.uint16)
    return bits.view(np.float16) - np.float16(1.0)


def uint16_to_bfloat16(x):
    """bfloat16 values in [0, 1) (held in float32) from the low 7 bits (TF's Uint16ToGfloat16)."""
    return (((x & np.uint32(0x7F)) | np.uint32(127 << 7)) << np.uint32(16)).view(np.float32) - np.float32(1.0)


def round_bfloat16(x):
    """float32 values rounded to bfloat16 precision (round to nearest even), kept in float32."""
    bits = np.asarray(x, dtype=np.float32).view(np.uint32)
    rounded = (bits + np.uint32(0x7FFF) + ((bits >> np.uint32(16)) & np.uint32(1))) & np.uint32(0xFFFF0000)
    out = rounded.view(np.float32)
    return np.where(np.isnan(x), np.float32(np.nan), out)


def _load_libm():
    """glibc's libm, whose logf/sinf/cosf/lgamma TF's Linux kernels call; None elsewhere."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        libm = ctypes.CDLL(ctypes.util.find_library("m") or "libm.so.6")
        for name in ("logf", "sinf", "cosf"):
            fn = getattr(libm, name)
            fn.restype, fn.argtypes = ctypes.c_float, [ctypes.c_float]
        libm.lgamma.restype, libm.lgamma.argtypes = ctypes.c_double, [ctypes.c_double]
    except (OSError, AttributeError):
        return None
    return libm


_LIBM = _load_libm()


def lgamma(x):
    """log|Gamma(x)| from libm when loaded (Python's math.lgamma is its own approximation)."""
    return _LIBM.lgamma(x) if _LIBM is not None else math.lgamma(x)

# Inputs where glibc's results differ from numpy's (rounded to float32 for logf/sinf/cosf), so
# another libm or another build of these functions is likely to differ there too: uint32 words
# giving Box-Muller's logf and sinf/cosf arguments, and doubles for log.
_PROBE_LOGF = [4466, 5810014, 7436491, 8049044, 8251156, 8388607]
_PROBE_TRIG = [13632, 837180, 3738058, 4623446, 7488836, 8374161, 67581, 1794565, 2775947, 5620276, 6594973,
               8343353]
_PROBE_LOG = ["0x1.3920fa79afdb6p-1", "0x1.75cdd22bdff08p-1", "0x1.e804a6c7eabdap-1", "0x1.fe617cf20371ep-1",
              "0x1.f3f19206070aep-1", "0x1.4ac074d92ae42p-1", "0x1.99278ff98acb8p-1", "0x1.fcfb57c077dd6p-1"]
_PORT_MATCHES_LIBM = None


def ported_libm():
    """Whether minitf.ops.glibc_math reproduces the loaded libm, checked once on inputs where
    rounding is delicate; False without a libm."""
    global _PORT_MATCHES_LIBM
    if _PORT_MATCHES_LIBM is None:
        _PORT_MATCHES_LIBM = _LIBM is not None and _port_agrees(_LIBM)
    return _PORT_MATCHES_LIBM


def _port_agrees(libm):
    u = np.maximum(uint32_to_float(np.array(_PROBE_LOGF, dtype=np.uint32)), np.float32(1.0e-7))
    v = (2.0 * np.pi * uint32_to_float(np.array(_PROBE_TRIG, dtype=np.uint32)).astype(np.float64)).astype(np.float32)
    d = np.array([float.fromhex(h) for h in _PROBE_LOG])
    sin, cos = glibc_math.sincosf(v)
    return (glibc_math.logf(u).tolist() == [np.float32(libm.logf(x)) for x in u.tolist()]
            and sin.tolist() == [np.float32(libm.sinf(x)) for x in v.tolist()]
            and cos.tolist() == [np.float32(libm.cosf(x)) for x in v.tolist()]
            and glibc_math.log(d).tolist() == [math.log(x) for x in d.tolist()])


# Without the ported functions, draws of at most this many values still reproduce glibc's
# roundings (calling libm for the values where rounding a float64 result could differ); larger
# draws stay vectorised and may differ from TF by a unit or two in the last place in about 1.5%
# of float32 normals (float64 normals: numpy's log, about 0.15% of values by one unit).
FALLBACK_EXACT_LIMIT = 1 << 16

# Where float64-then-round can disagree with glibc: float32 results whose float64 value lies
# further than this (in units of the float32 spacing) from the rounded value. Found by comparing
# all 2**23 possible Box-Muller inputs with glibc 2.36 (the worst disagreements sat at 0.2138 for
# logf and 0.4394 for sinf/cosf); below the threshold the two always agree.
_LOG_DOUBT = 0.2
_TRIG_DOUBT = 0.43


def _exact(n):
    """Whether a draw of n values follows glibc's roundings."""
    return ported_libm() or n <= FALLBACK_EXACT_LIMIT


def _round_checked(x, y64, fn, doubt, exact):
    """float32(y64), with the doubtful elements recomputed by the float32 libm function `fn`."""
    y = y64.astype(np.float32)
    if not exact:
        return y
    up = np.where(y64 > y, np.float32(np.inf), np.float32(-np.inf)).astype(np.float32)
    gap = np.abs(np.nextafter(y, up).astype(np.float64) - y)
    with np.errstate(invalid="ignore", divide="ignore"):
        doubtful = np.abs(y64 - y) > doubt * gap
    if doubtful.any():
        y[doubtful] = np.frompyfunc(fn, 1, 1)(x[doubtful]).astype(np.float32)
    return y


def _logf(u, exact):
    if exact and ported_libm():
        return glibc_math.logf(u)
    return _round_checked(u, np.log(u.astype(np.float64)), _LIBM and _LIBM.logf, _LOG_DOUBT, exact)


def _sincosf(v, exact):
    if exact and ported_libm():
        return glibc_math.sincosf(v)
    v64 = v.astype(np.float64)
    return (_round_checked(v, np.sin(v64), _LIBM and _LIBM.sinf, _TRIG_DOUBT, exact),
            _round_checked(v, np.cos(v64), _LIBM and _LIBM.cosf, _TRIG_DOUBT, exact))


def box_muller_float(x0, x1, exact=True):
    """Two float32 standard normals per pair of uint32 words (TF's BoxMullerFloat)."""
    exact = exact and _LIBM is not None
    u1 = np.maximum(uint32_to_float(x0), np.float32(1.0e-7))
    v1 = (2.0 * np.pi * uint32_to_float(x1).astype(np.float64)).astype(np.float32)
    u2 = np.sqrt(np.float32(-2.0) * _logf(u1, exact))
    s, c = _sincosf(v1, exact)
    return s * u2, c * u2


def box_muller_double(x0, x1, x2, x3, exact=True):
    """Two float64 standard normals per four uint32 words (TF's BoxMullerDouble); `exact` takes
    the logarithm as glibc computes it (ported, or from libm through Python's math.log) rather
    than numpy's own."""
    u1 = np.maximum(uint64_to_double(x0, x1), 1.0e-7)
    v1 = 2 * np.pi * uint64_to_double(x2, x3)
    if exact and ported_libm():
        log = glibc_math.log(u1)
    elif exact and u1.size:
        log = np.frompyfunc(math.log, 1, 1)(u1).astype(np.float64)
    else:
        log = np.log(u1)
    u2 = np.sqrt(-2.0 * log)
    return np.sin(v1) * u2, np.cos(v1) * u2


# -- distributions: n values from (key, counter) ------------------------------------------------

def _interleave(*columns):
    return np.stack(columns, axis=1).reshape(-1)


def uniform(key, counter, n, kind):
    """n uniform values in [0, 1) of `kind` ('float16', 'bfloat16', 'float32' or 'float64')."""
    if kind == "float64":
        w = stream(key, counter, -(-n // 2))
        return _interleave(uint64_to_double(w[0], w[1]), uint64_to_double(w[2], w[3]))[:n]
    convert = {"float16": uint16_to_half, "bfloat16": uint16_to_bfloat16, "float32": uint32_to_float}[kind]
    # each word becomes one value, in block order: convert the flat [blocks, 4] words at once
    return convert(blocks(key, counter, -(-n // 4)).reshape(-1)[:n])


def normal(key, counter, n, kind):
    """n standard normal values of `kind` (float32 math for float16/bfloat16/float32)."""
    per_block = 2 if kind == "float64" else 4
    w = stream(key, counter, -(-n // per_block))
    exact = _exact(n)
    if kind == "float64":
        return _interleave(*box_muller_double(*w, exact=exact))[:n]
    # Both pairs of words in one call: half the per-call overhead on small draws.
    half = len(w[0])
    f02, f13 = box_muller_float(np.concatenate([w[0], w[2]]), np.concatenate([w[1], w[3]]), exact)
    out = _interleave(f02[:half], f13[:half], f02[half:], f13[half:])[:n]
    if kind == "float16":
        return out.astype(np.float16)
    if kind == "bfloat16":
        return round_bfloat16(out)
    return out


def truncated_normal(key, counter, n, kind):
    """n standard normal values within (-2, 2), drawn as TF's TruncatedNormalDistribution: each
    group of outputs reads samples from its own reserved block range, keeping the values that
    fall inside and dropping the rest."""
    group = 2 if kind == "float64" else 4
    groups = -(-n // group)
    stride = group * RESERVED_SAMPLES_PER_OUTPUT // 4
    out = np.empty((groups, group), dtype=np.float64 if kind == "float64" else np.float32)
    filled = np.zeros(groups, dtype=np.int64)
    pending = np.arange(groups)
    block = 0
    exact = _exact(n)
    while pending.size:
        w = philox(key, _group_counters(counter, pending, stride, block))
        if kind == "float64":
            pairs = [box_muller_double(*w, exact=exact)]
        else:
            pairs = [box_muller_float(w[0], w[1], exact), box_muller_float(w[2], w[3], exact)]
        for a, b in pairs:
            for values in (a, b):
                live = filled[pending] < group
                take = live & (np.abs(values) < 2.0)
                rows = pending[take]
                out[rows, filled[rows]] = values[take]
                filled[rows] += 1
        pending = pending[filled[pending] < group]
        block += 1
    out = out.reshape(-1)[:n]
    if kind == "float16":
        return out.astype(np.float16)
    if kind == "bfloat16":
        return round_bfloat16(out)
    return out


def _group_counters(counter, groups, stride, block):
    """Counter words of block `block` inside each listed group's reserved range."""
    offsets = groups.astype(np.uint64) * np.uint64(stride) + np.uint64(block)
    lo = np.uint64(int(counter[0]) & _MASK64)
    low = offsets + lo
    high = np.full(groups.size, int(counter[1]) & _MASK64, dtype=np.uint64) + (low < offsets).astype(np.uint64)
    return [low.astype(np.uint32), (low >> _SHIFT32).astype(np.uint32),
            high.astype(np.uint32), (high >> _SHIFT32).astype(np.uint32)]


def full_int(key, counter, n, kind):
    """n integers covering all of `kind` ('int32', 'uint32', 'int64' or 'uint64')."""
    wide = kind in ("int64", "uint64")
    w = stream(key, counter, -(-n // (2 if wide else 4)))
    if wide:
        out = _interleave(*(w[i].astype(np.uint64) | (w[i + 1].astype(np.uint64) << _SHIFT32) for i in (0, 2)))
    else:
        out = _interleave(*w)
    return out[:n].view(np.dtype(kind))


def uniform_int(key, counter, n, lo, hi, kind):
    """n integers in [lo, hi) of `kind` ('int32' or 'int64'): lo + sample % (hi - lo)."""
    wide = kind == "int64"
    bits = full_int(key, counter, n, "uint64" if wide else "uint32")
    span = (int(hi) - int(lo)) & (_MASK64 if wide else _MASK32)
    utype = np.uint64 if wide else np.uint32
    offset = bits % utype(span)
    # lo + offset in two's complement: the sum always fits the signed type.
    return (offset + utype(int(lo) & (_MASK64 if wide else _MASK32))).view(np.dtype(kind))
