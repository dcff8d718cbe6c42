"""The CPU pooling kernels as numba loops (`minitf.kernels.jit`): one pass over the input per call,
NHWC with the channels innermost, so the compiler vectorises the channel loop (a few window taps
a pass, to spend fewer passes over each window's output).

`minitf.kernels.windows` calls these for float32 and float64 host arrays when numba is available
(`fits`), and keeps its numpy code for everything else. Each loop gives the bits of the numpy code
it stands in for (the same float operations in the same order; see each function for the rule it
follows), but for a NaN's sign where an addition meets two NaNs (which one it keeps depends on
the operand order the compiler picks, in numpy's loops as in these), and with one stated
exception: MaxPool's sign of a zero maximum where -0.0 and 0.0 tie (TF's rule here, the first;
numpy's choice depends on where the element falls in its SIMD loop). AvgPool gives the numpy
code's separable sums; AvgPoolGrad takes its loop only where windows overlap.

The loops are compiled on first use, one signature per dtype: arrays go in flattened and
C-contiguous, the geometry as Python ints.
"""
import numpy as np

from minitf.kernels import jit

__all__ = ["fits", "max_pool", "max_pool_winners", "max_pool_grad", "avg_pool", "avg_pool_grad"]

_loops = {}
_taps = None  # `_real_taps`, compiled


def fits(geo, *arrays):
    """Whether the loops take this call: numba available, every array a host float32 or float64
    array of one dtype, something to compute, and windows without dilation."""
    if not jit.available() or geo.dh != 1 or geo.dw != 1 or geo.oh <= 0 or geo.ow <= 0:
        return False
    dtype = arrays[0].dtype
    for a in arrays:
        if type(a) is not np.ndarray or a.dtype != dtype or a.size == 0:
            return False
    return dtype.char in "fd"


def _loop(fn):
    global _taps
    loop = _loops.get(fn.__name__)
    if loop is None:
        if _taps is None:  # the loops call it: a compiled function before they compile
            _taps = jit.compiled(_real_taps)
        loop = _loops[fn.__name__] = jit.compiled(fn)
    return loop


def _flat(a):
    return np.ascontiguousarray(a).reshape(-1)


def _sizes(geo):
    return geo.kh, geo.kw, geo.sh, geo.sw, geo.pt, geo.pl


def _real_taps(offsets, base, a0, a1, b0, b1, row, c):
    """Writes the flat offsets of a window's real taps, row-major, into `offsets` (`base` is
    its tap (0, 0), `row` an image row's length), the last repeated three more times to fill
    groups; returns how many there are."""
    t = 0
    for a in range(a0, a1):
        for bb in range(b0, b1):
            offsets[t] = base + a * row + bb * c
            t += 1
    for k in range(3):
        offsets[t + k] = offsets[t - 1]
    return t


# -- MaxPool ---------------------------------------------------------------------------------

def max_pool(x, geo):
    """Window maxima, TF's rule: start at the dtype's lowest value and take an element only when
    it is greater (NaN never wins; ties keep the first, so of -0.0 and 0.0 the one met first)."""
    n, h, w, c = x.shape
    out = np.empty((n, geo.oh, geo.ow, c), x.dtype)
    _loop(_max_pool_loop)(_flat(x), out.reshape(-1), n, h, w, c, geo.oh, geo.ow, *_sizes(geo),
                          x.dtype.type(np.finfo(x.dtype).min))
    return out


def _max_pool_loop(x, out, n, h, w, c, oh, ow, kh, kw, sh, sw, pt, pl, lowest):
    """Three taps a pass (the last repeated to fill a group: an element is never greater than
    itself), in row-major order."""
    offsets = np.empty(kh * kw + 3, np.intp)
    for b in range(n):
        for i in range(oh):
            r0 = i * sh - pt
            a0, a1 = max(0, -r0), min(kh, h - r0)
            for j in range(ow):
                q0 = j * sw - pl
                b0, b1 = max(0, -q0), min(kw, w - q0)
                o = ((b * oh + i) * ow + j) * c
                dst = out[o:o + c]
                taps = _taps(offsets, ((b * h + r0) * w + q0) * c, a0, a1, b0, b1, w * c, c)
                for t in range(0, taps, 3):
                    p0, p1, p2 = offsets[t], offsets[t + 1], offsets[t + 2]
                    s0, s1, s2 = x[p0:p0 + c], x[p1:p1 + c], x[p2:p2 + c]
                    if t == 0:
                        for ch in range(c):
                            v = s0[ch]
                            best = v if v > lowest else lowest
                            v = s1[ch]
                            best = v if v > best else best
                            v = s2[ch]
                            dst[ch] = v if v > best else best
                    else:
                        for ch in range(c):
                            best, v = dst[ch], s0[ch]
                            best = v if v > best else best
                            v = s1[ch]
                            best = v if v > best else best
                            v = s2[ch]
                            dst[ch] = v if v > best else best


# -- MaxPool's gradient: where each window's gradient goes ------------------------------------

def max_pool_winners(x, y, geo):
    """`windows.max_pool_winners` for the pooled `y` of `x`, bit for bit for any `y`: in the window
    of the padded input (padding -inf), tap (0, 0) and the first real tap pass when not below the
    window's `y`, every other tap when equal to it; the winner is the passing tap with the
    smallest offset a*W + b (the first, row-major, among real taps), or offset (KH-1)*W + KW when
    none passes. Where no tap equals `y` and the smallest `y` is the dtype's lowest value, the
    winner is the first real element's index minus x.size."""
    n, h, w, c = x.shape
    winners = np.empty((n, geo.oh, geo.ow, c), np.intp)
    loop = _loop(_winners_loop)
    xf, yf, wf = _flat(x), _flat(y), winners.reshape(-1)
    args = (n, h, w, c, geo.oh, geo.ow, *_sizes(geo), x.size)
    if loop(xf, yf, wf, *args, True) and not np.minimum.reduce(yf, axis=None) == np.finfo(x.dtype).min:
        loop(xf, yf, wf, *args, False)  # a `y` that is not x's pooled maxima: no windows fixed
    return winners


def _winners_loop(x, y, winners, n, h, w, c, oh, ow, kh, kw, sh, sw, pt, pl, size, fix):
    """Returns how many windows have no tap equal to their `y` (fixed only when `fix`). Taps are
    compared by their flat index in `x` (channel 0), which orders them as their offsets a*W + b
    do. The smallest passing tap and `matched` do not depend on the order the taps are tested
    in: the first real tap and the padding go one at a time, the other real taps four a pass
    (the last repeated to fill a group)."""
    ninf = -np.inf
    best = np.empty(c, np.intp)
    matched = np.empty(c, np.bool_)
    offsets = np.empty(kh * kw + 3, np.intp)
    unmatched = 0
    for b in range(n):
        for i in range(oh):
            r0 = i * sh - pt
            a0, a1 = max(0, -r0), min(kh, h - r0)
            for j in range(ow):
                q0 = j * sw - pl
                b0, b1 = max(0, -q0), min(kw, w - q0)
                o = ((b * oh + i) * ow + j) * c
                ys, dst = y[o:o + c], winners[o:o + c]
                base = ((b * h + r0) * w + q0) * c  # tap (0, 0), channel 0 (maybe padding)
                none = base + ((kh - 1) * w + kw) * c  # no tap passes
                taps = _taps(offsets, base, a0, a1, b0, b1, w * c, c)
                # the first real tap (not below `y` passes) sets both
                first = offsets[0]
                src = x[first:first + c]
                for ch in range(c):
                    v, m = src[ch], ys[ch]
                    best[ch] = none if v < m else first
                    matched[ch] = v == m
                if a0 > 0 or b0 > 0 or a1 < kh or b1 < kw:  # padding, -inf
                    for a in range(kh):
                        for bb in range(kw):
                            if a0 <= a < a1 and b0 <= bb < b1:
                                continue
                            tap = base + (a * w + bb) * c
                            for ch in range(c):
                                m = ys[ch]
                                if (not ninf < m if tap == base else ninf == m) and tap < best[ch]:
                                    best[ch] = tap
                                matched[ch] = matched[ch] or ninf == m
                for t in range(1, taps, 4):
                    f0, f1, f2, f3 = offsets[t], offsets[t + 1], offsets[t + 2], offsets[t + 3]
                    s0, s1, s2, s3 = x[f0:f0 + c], x[f1:f1 + c], x[f2:f2 + c], x[f3:f3 + c]
                    for ch in range(c):
                        m, k, hit = ys[ch], best[ch], matched[ch]
                        if s3[ch] == m:
                            k, hit = min(k, f3), True
                        if s2[ch] == m:
                            k, hit = min(k, f2), True
                        if s1[ch] == m:
                            k, hit = min(k, f1), True
                        if s0[ch] == m:
                            k, hit = min(k, f0), True
                        best[ch], matched[ch] = k, hit
                for ch in range(c):
                    if matched[ch]:
                        dst[ch] = best[ch] + ch
                    else:
                        unmatched += 1
                        dst[ch] = first - size + ch if fix else best[ch] + ch
    return unmatched


def max_pool_grad(g, winners, geo):
    """MaxPoolGrad: each upstream value added at its window's winner in output order (numpy's
    add.at), or written there where windows cannot overlap (numpy's indexed assignment). None
    when the winners are not a host intp array or one is out of range: the numpy code then
    runs (and raises numpy's error for the latter)."""
    if type(winners) is not np.ndarray or winners.dtype != np.intp or winners.size != g.size:
        return None
    dx = np.zeros(geo.n * geo.h * geo.w * g.shape[3], g.dtype)
    add = not (geo.sh >= geo.kh and geo.sw >= geo.kw)
    if not _loop(_scatter_loop)(_flat(g), _flat(winners), dx, add):
        return None
    return dx.reshape(geo.n, geo.h, geo.w, g.shape[3])


def _scatter_loop(g, index, dx, add):
    size = dx.shape[0]
    for k in range(g.shape[0]):
        p = index[k]
        if p < 0:
            p += size
        if p < 0 or p >= size:
            return False
        if add:
            dx[p] += g[k]
        else:
            dx[p] = g[k]
    return True


# -- AvgPool and its gradient ----------------------------------------------------------------

def avg_pool(x, geo, counts):
    """Window means as `windows.avg_pool`'s separable sums, bit for bit: per output row, the
    padded input's window rows summed in order (padding +0.0, which turns a -0.0 sum into 0.0),
    then each window's column sums added in order and divided by `counts` ([OH, OW, 1] in x's
    dtype, the real elements per window)."""
    n, h, w, c = x.shape
    out = np.empty((n, geo.oh, geo.ow, c), x.dtype)
    _loop(_avg_pool_loop)(_flat(x), out.reshape(-1), _flat(counts), n, h, w, c, geo.oh, geo.ow,
                          *_sizes(geo), geo.padded[1])
    return out


def _avg_pool_loop(x, out, counts, n, h, w, c, oh, ow, kh, kw, sh, sw, pt, pl, wp):
    zero = np.zeros(1, x.dtype)[0]  # typed as x (a float literal would make sums float64)
    rows = np.zeros(wp * c, x.dtype)  # the padded columns stay +0.0
    inner = rows[pl * c:(pl + w) * c]
    for b in range(n):
        for i in range(oh):
            for a in range(kh):
                r = i * sh - pt + a
                if 0 <= r < h:
                    src = x[(b * h + r) * w * c:(b * h + r + 1) * w * c]
                    if a == 0:
                        for k in range(w * c):
                            inner[k] = src[k]
                    else:
                        for k in range(w * c):
                            inner[k] += src[k]
                elif a == 0:
                    for k in range(w * c):
                        inner[k] = zero
                else:
                    for k in range(w * c):
                        inner[k] += zero
            for j in range(ow):
                o = ((b * oh + i) * ow + j) * c
                dst = out[o:o + c]
                count = counts[i * ow + j]
                q = j * sw * c
                s0 = rows[q:q + c]
                if kw == 1:
                    for ch in range(c):
                        dst[ch] = s0[ch] / count
                    continue
                s1 = rows[q + c:q + 2 * c]
                if kw == 2:
                    for ch in range(c):
                        dst[ch] = (s0[ch] + s1[ch]) / count
                    continue
                s2 = rows[q + 2 * c:q + 3 * c]
                if kw == 3:
                    for ch in range(c):
                        dst[ch] = ((s0[ch] + s1[ch]) + s2[ch]) / count
                    continue
                for ch in range(c):
                    dst[ch] = (s0[ch] + s1[ch]) + s2[ch]
                for bb in range(3, kw):
                    src = rows[q + bb * c:q + (bb + 1) * c]
                    for ch in range(c):
                        dst[ch] += src[ch]
                for ch in range(c):
                    dst[ch] /= count


def avg_pool_grad(g, geo, counts):
    """AvgPoolGrad for overlapping windows as `windows.avg_pool_grad`'s sums path, bit for bit:
    each share g / count; per output row a padded row buffer holding at each column its windows'
    shares, added in tap order from +0.0; each input row the sum of its window rows' buffers, in
    tap order from +0.0 (the numpy code's passes, element by element). Windows that cannot
    overlap stay with the numpy code (one write a tap is faster there)."""
    n, oh, ow, c = g.shape
    dx = np.zeros((n, geo.h, geo.w, c), g.dtype)
    _loop(_avg_pool_grad_loop)(_flat(g), dx.reshape(-1), _flat(counts), n, geo.h, geo.w, c, oh, ow,
                               *_sizes(geo), geo.padded[1])
    return dx


def _avg_pool_grad_loop(g, dx, counts, n, h, w, c, oh, ow, kh, kw, sh, sw, pt, pl, wp):
    zero = np.zeros(1, g.dtype)[0]  # typed as g (a float literal would make sums float64)
    share = np.empty(ow * c, g.dtype)
    cols = np.empty(oh * wp * c, g.dtype)
    rows = np.empty(kh, np.intp)
    for b in range(n):
        for i in range(oh):
            for j in range(ow):
                o = ((b * oh + i) * ow + j) * c
                count = counts[i * ow + j]
                src, dst = g[o:o + c], share[j * c:(j + 1) * c]
                for ch in range(c):
                    dst[ch] = src[ch] / count
            buffer = cols[i * wp * c:(i + 1) * wp * c]
            for k in range(wp * c):
                buffer[k] = zero
            for bb in range(kw):
                if sw == 1:  # the row's shares land on a run of the buffer
                    dst = buffer[bb * c:(bb + ow) * c]
                    for k in range(ow * c):
                        dst[k] += share[k]
                    continue
                for j in range(ow):
                    src, dst = share[j * c:(j + 1) * c], buffer[(j * sw + bb) * c:(j * sw + bb + 1) * c]
                    for ch in range(c):
                        dst[ch] += src[ch]
        for r in range(h):  # dx starts at +0.0; three window rows a pass
            pr = r + pt
            dst = dx[(b * h + r) * w * c:(b * h + r + 1) * w * c]
            found = 0
            for a in range(kh):
                if pr >= a and (pr - a) % sh == 0 and (pr - a) // sh < oh:
                    rows[found] = ((pr - a) // sh * wp + pl) * c
                    found += 1
            for t in range(0, found, 3):
                s0 = cols[rows[t]:rows[t] + w * c]
                if found - t >= 3:
                    s1 = cols[rows[t + 1]:rows[t + 1] + w * c]
                    s2 = cols[rows[t + 2]:rows[t + 2] + w * c]
                    for k in range(w * c):
                        dst[k] = ((dst[k] + s0[k]) + s1[k]) + s2[k]
                elif found - t == 2:
                    s1 = cols[rows[t + 1]:rows[t + 1] + w * c]
                    for k in range(w * c):
                        dst[k] = (dst[k] + s0[k]) + s1[k]
                else:
                    for k in range(w * c):
                        dst[k] += s0[k]
