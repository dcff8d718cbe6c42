"""Window kernels that run on any array module: padding, im2col, the tap loops of convolution
and pooling, on raw NHWC arrays.

Every function takes raw arrays and a geometry object (`minitf.ops.conv_geometry.Geometry`: the sizes
n, h, w, c, kh, kw, sh, sw, dh, dw, oh, ow, the paddings pt, pb, pl, pr, `padded`, `has_pad`
and `taps()`) and returns raw arrays; the array module is the inputs' own. The numpy and cupy
kernel modules share these and add their own fast paths.
"""
import functools

import numpy as np

from minitf.backend import array_module
from minitf.kernels import pool_loops
from minitf.kernels.scratch import Scratch

__all__ = ["half_through_float32", "pad", "unpad", "windows", "im2col", "contiguous", "conv2d_im2col",
           "conv2d_backprop_input_taps", "conv2d_backprop_input_col2im",
           "conv2d_backprop_filter_im2col", "depthwise_conv2d", "depthwise_backprop_input",
           "depthwise_backprop_filter", "max_pool", "max_pool_winners", "max_pool_grad",
           "max_pool_grad_grad", "avg_pool", "avg_pool_grad"]


def half_through_float32(kernel):
    """`kernel` with float16 array arguments computed in float32 and the result rounded back: TF's
    float16 convolutions accumulate in float32 on the CPU and the GPU alike."""
    def is_half(a):
        return getattr(a, "dtype", None) == np.float16 and hasattr(a, "astype")

    @functools.wraps(kernel)
    def wrapper(*args, **kwargs):
        if not any(is_half(a) for a in args):
            return kernel(*args, **kwargs)
        wide = tuple(a.astype(np.float32) if is_half(a) else a for a in args)
        return kernel(*wide, **kwargs).astype(np.float16)
    return wrapper


def pad(v, geo, fill=0):
    """The input padded as the geometry says (a fresh buffer; `v` itself when no padding)."""
    if not geo.has_pad:
        return v
    xp = array_module(v)
    hp, wp = geo.padded
    out = xp.full((v.shape[0], hp, wp, v.shape[3]), fill, dtype=v.dtype)
    out[:, geo.pt:geo.pt + geo.h, geo.pl:geo.pl + geo.w] = v
    return out


def unpad(v, geo):
    """The unpadded part of a padded-input-shaped array (a view)."""
    if not geo.has_pad:
        return v
    return v[:, geo.pt:geo.pt + geo.h, geo.pl:geo.pl + geo.w]


def contiguous(v):
    """A C-contiguous array (GEMM and strided views want one)."""
    return array_module(v).ascontiguousarray(v)


def windows(vpad, geo):
    """A strided view [N, OH, OW, KH, KW, C] of every window of the padded input (no copy)."""
    xp = array_module(vpad)
    s = vpad.strides
    shape = (vpad.shape[0], geo.oh, geo.ow, geo.kh, geo.kw, vpad.shape[3])
    strides = (s[0], s[1] * geo.sh, s[2] * geo.sw, s[1] * geo.dh, s[2] * geo.dw, s[3])
    return xp.lib.stride_tricks.as_strided(vpad, shape=shape, strides=strides)


def im2col(x, geo):
    """[N*OH*OW, KH*KW*C] patch matrix: one copy out of the strided window view (N is `x`'s own
    batch size, so a batch chunk works too)."""
    xpad = pad(x, geo)
    return windows(xpad, geo).reshape(-1, geo.kh * geo.kw * xpad.shape[3])


# -- Conv2D and its two adjoints: im2col and one GEMM ----------------------------------------

def conv2d_im2col(x, w, geo, keep_cols=None):
    """Conv2D as patches @ filters; appends the patch matrix to `keep_cols` when given (the
    filter gradient reuses it)."""
    cols = im2col(x, geo)
    kh, kw, c, f = w.shape
    y = cols @ w.reshape(kh * kw * c, f)
    if keep_cols is not None:
        keep_cols.append(cols)
    return y.reshape(geo.n, geo.oh, geo.ow, f)


def conv2d_backprop_input_taps(w, g, geo):
    """dx = sum over taps of dy @ w[a, b]^T, accumulated in place into a padded buffer."""
    xp = array_module(g)
    kh, kw, c, f = w.shape
    hp, wp = geo.padded
    dx = xp.zeros((geo.n, hp, wp, c), dtype=g.dtype)
    g2 = g.reshape(-1, f)
    tmp = xp.empty((g2.shape[0], c), dtype=g.dtype)
    for a, b, idx in geo.taps():
        xp.matmul(g2, w[a, b].T, out=tmp)
        dx[idx] += tmp.reshape(geo.n, geo.oh, geo.ow, c)
    return contiguous(unpad(dx, geo))


def conv2d_backprop_input_col2im(w, g, geo, weights_first=False, channels_first=False):
    """dx by col2im: one GEMM gives every tap's contribution, [N*OH*OW, KH*KW*C], and each
    tap's C columns are added into the (strided) input positions that tap reads.

    The same products, added in the same tap order, as `conv2d_backprop_input_taps`, in one
    GEMM instead of one per tap (N is `g`'s own batch size, so a batch chunk works too).
    `weights_first` computes the GEMM as (w @ dy^T)^T, the faster orientation for a few rows of
    dy; `channels_first` adds in [C, N, H, W] order, so each tap's add runs along output rows
    instead of C-long pieces (few channels).
    """
    xp = array_module(g)
    kh, kw, c, f = w.shape
    n = g.shape[0]
    w2, g2 = w.reshape(kh * kw * c, f), g.reshape(-1, f)
    hp, wp = geo.padded
    if channels_first:
        cols = (w2 @ g2.T).reshape(kh, kw, c, n, geo.oh, geo.ow)
        dx = xp.zeros((c, n, hp, wp), dtype=cols.dtype)
        for a, b, (_, rows, columns) in geo.taps():
            dx[:, :, rows, columns] += cols[a, b]
        return contiguous(dx[:, :, geo.pt:geo.pt + geo.h, geo.pl:geo.pl + geo.w].transpose(1, 2, 3, 0))
    cols = contiguous((w2 @ g2.T).T) if weights_first else g2 @ w2.T
    cols = cols.reshape(n, geo.oh, geo.ow, kh, kw, c)
    dx = xp.zeros((n, hp, wp, c), dtype=cols.dtype)
    for a, b, idx in geo.taps():
        dx[idx] += cols[:, :, :, a, b]
    return contiguous(unpad(dx, geo))


def conv2d_backprop_filter_im2col(x, g, geo, cols=None):
    """patches^T @ dy as [KH, KW, C, F], reusing the forward's patch matrix when given."""
    f = g.shape[-1]
    if cols is None:
        cols = im2col(x, geo)
    return (cols.T @ g.reshape(-1, f)).reshape(geo.kh, geo.kw, x.shape[3], f)


# -- depthwise convolution -------------------------------------------------------------------

def depthwise_conv2d(x, w, geo):
    """DepthwiseConv2dNative: each input channel convolved with its own `m` filters."""
    xp = array_module(x)
    kh, kw, c, m = w.shape
    xpad = pad(x, geo)
    out = xp.zeros((geo.n, geo.oh, geo.ow, c, m), dtype=x.dtype)
    for a, b, idx in geo.taps():
        out += xpad[idx][..., None] * w[a, b]
    return out.reshape(geo.n, geo.oh, geo.ow, c * m)


def depthwise_backprop_input(w, g, geo):
    """The input gradient of a depthwise convolution."""
    xp = array_module(g)
    kh, kw, c, m = w.shape
    gv = g.reshape(geo.n, geo.oh, geo.ow, c, m)
    hp, wp = geo.padded
    dx = xp.zeros((geo.n, hp, wp, c), dtype=gv.dtype)
    for a, b, idx in geo.taps():
        dx[idx] += (gv * w[a, b]).sum(axis=-1)
    return contiguous(unpad(dx, geo))


def depthwise_backprop_filter(x, g, geo):
    """The filter gradient of a depthwise convolution, [KH, KW, C, M]."""
    xp = array_module(g)
    c = x.shape[3]
    m = g.shape[3] // c
    gv = g.reshape(-1, c, m)
    xpad = pad(x, geo)
    dw = xp.empty((geo.kh, geo.kw, c, m), dtype=gv.dtype)
    for a, b, idx in geo.taps():
        patch = xpad[idx].reshape(-1, c)
        dw[a, b] = (patch[:, :, None] * gv).sum(axis=0)
    return dw


# -- pooling ---------------------------------------------------------------------------------
#
# Max pooling follows TF's CPU kernels. The forward starts every window at the dtype's lowest
# value and takes an element only when it is greater: NaN never wins, and a window of -inf or
# NaN gives `lowest`. The gradient goes to one element per window, the one TF's scan of the
# window's real (unpadded) elements in row-major order ends on: it starts at the first real
# element and moves to any later one greater than the current, so the first maximum wins ties
# (-0.0 and 0.0 tie), a NaN met first keeps the gradient and a NaN met later never takes it.
#
# Inside a model's step these kernels run with cold caches, where each numpy call costs a few
# microseconds however small its operands: the layouts below favour few calls over few passes.

_host_scratch = Scratch(16 << 20)


def _scratch(xp, slot, shape, dtype):
    """An uninitialised array of `shape`: on the host a view of this thread's buffer `slot`
    (minitf.kernels.scratch), elsewhere a fresh array."""
    if xp is not np:
        return xp.empty(shape, dtype=dtype)
    return _host_scratch(slot, shape, dtype)


def _max_padded(xp, x, geo):
    """`x` padded with a value below every real one (-inf, or the integer minimum), in scratch
    (`x` itself, C-contiguous, when the geometry has no padding)."""
    if not geo.has_pad:
        return contiguous(x)
    hp, wp = geo.padded
    out = _scratch(xp, "pool_input", (x.shape[0], hp, wp, x.shape[3]), x.dtype)
    out.fill(-np.inf if x.dtype.kind == "f" else np.iinfo(x.dtype).min)
    out[:, geo.pt:geo.pt + geo.h, geo.pl:geo.pl + geo.w] = x
    return out


def _tap_major_windows(xp, xpad, geo):
    """A strided view [KH, KW, N, OH, OW, C] of every window tap of the C-contiguous padded
    input (no copy)."""
    s = xpad.strides
    shape = (geo.kh, geo.kw, xpad.shape[0], geo.oh, geo.ow, xpad.shape[3])
    strides = (s[1], s[2], s[0], s[1] * geo.sh, s[2] * geo.sw, s[3])
    if xp is np:
        return np.ndarray(shape, xpad.dtype, buffer=xpad, strides=strides)
    return xp.lib.stride_tricks.as_strided(xpad, shape=shape, strides=strides)


_MAX_BY_ONE_REDUCTION_UP_TO = 8192  # output elements, with at least 128 channels (the view's
# innermost run: shorter runs make the reduction's inner loop too short to pay)


def _lowest(dtype):
    return np.finfo(dtype).min if dtype.kind == "f" else np.iinfo(dtype).min


def max_pool(x, geo):
    """Window maxima as TF computes them (NaN never wins, the result is at least the dtype's
    lowest value): small outputs in one reduction over the strided window view, larger ones
    one pass per tap (each reads strided taps; a separable row-then-column version needs
    row-sized intermediates, which cost more than they save once caches are cold). float16
    runs in float32 (numpy's float16 loops are slow; maxima convert back exactly)."""
    if pool_loops.fits(geo, x):
        return pool_loops.max_pool(x, geo)
    if x.dtype == np.float16:
        return _max_pool(x.astype(np.float32), geo, _lowest(x.dtype)).astype(np.float16)
    return _max_pool(x, geo, _lowest(x.dtype))


def _max_pool(x, geo, lowest):
    xp = array_module(x)
    n, c = x.shape[0], x.shape[3]
    if geo.oh == 0 or geo.ow == 0 or x.size == 0:
        return xp.empty((n, geo.oh, geo.ow, c), dtype=x.dtype)
    is_float = x.dtype.kind == "f"
    lowest = x.dtype.type(lowest)
    greater = xp.fmax if is_float else xp.maximum
    xpad = _max_padded(xp, x, geo)
    if xp is np and c >= 128 and n * geo.oh * geo.ow * c <= _MAX_BY_ONE_REDUCTION_UP_TO:
        return greater.reduce(_tap_major_windows(xp, xpad, geo), axis=(0, 1), initial=lowest)
    rspan, cspan = _spans(geo)
    taps = [xpad[:, a:a + rspan:geo.sh, b:b + cspan:geo.sw] for a in range(geo.kh) for b in range(geo.kw)]
    out = greater(taps[0], lowest) if len(taps) == 1 else greater(taps[0], taps[1])
    for tap in taps[2:]:
        greater(out, tap, out=out)
    if is_float and len(taps) > 1 and not _min_of(xp, out) >= lowest:  # -inf or NaN: floor them
        greater(out, lowest, out=out)
    return out


def _min_of(xp, a):
    """The smallest element of `a` (NaN if any is), as a Python scalar."""
    return (np.minimum.reduce(a, axis=None) if xp is np else a.min()).item()


@functools.lru_cache(maxsize=256)
def _axis_runs(size, out, k, s, before):
    """Runs (lo, hi, first, end) of output positions along one axis whose windows have the same
    real taps, [first, end) (the interior run has (0, k))."""
    runs = []
    for i in range(out):
        first, end = max(0, before - s * i), min(k, before + size - s * i)
        if runs and runs[-1][2:] == (first, end):
            runs[-1] = (runs[-1][0], i + 1, first, end)
        else:
            runs.append((i, i + 1, first, end))
    return tuple(runs)


@functools.lru_cache(maxsize=64)
def _tap_weights(kh, kw, w):
    """Per tap t = (a, b) of a window over an image w wide: its weight K - (a*w + b), with
    K = (KH-1)*w + KW, so earlier taps weigh more and a weight gives back the tap's offset
    a*w + b in the image; as a [KH*KW, 1, 1, 1, 1] array of the smallest unsigned dtype that
    holds K, and K."""
    k = (kh - 1) * w + kw
    dtype = next(np.dtype(d) for d in (np.uint8, np.uint16, np.uint32, np.uint64) if k <= np.iinfo(d).max)
    weights = np.array([k - (a * w + b) for a in range(kh) for b in range(kw)], dtype=dtype)
    weights = weights.reshape(-1, 1, 1, 1, 1)
    weights.flags.writeable = False
    return weights, k


_BASES_CACHED_UP_TO = 1 << 18  # output elements (2 MB of indices; larger ones are summed each call)


@functools.lru_cache(maxsize=8)
def _window_bases(n, h, w, c, oh, ow, sh, sw, pt, pl, shift):
    """[N, OH, OW, C]: the flat index in `x` of each window's tap (0, 0) (which may be padding,
    outside the image), plus the channel, plus `shift`."""
    rows = (np.arange(n)[:, None] * h + np.arange(oh)[None, :] * sh - pt) * w
    cols = np.arange(ow) * sw - pl
    base = ((rows[:, :, None] + cols) * c)[..., None] + np.arange(c) + shift
    base = base.astype(np.intp)
    base.flags.writeable = False
    return base


def _add_window_bases(winners, geo, shift, xp):
    """winners += the flat index in `x` of each window's tap (0, 0), plus `shift`."""
    n, oh, ow, c = winners.shape
    h, w = geo.h, geo.w
    if winners.size <= _BASES_CACHED_UP_TO:
        bases = _window_bases(n, h, w, c, oh, ow, geo.sh, geo.sw, geo.pt, geo.pl, shift)
        winners += bases if xp is np else xp.asarray(bases)
        return
    winners += ((xp.arange(n, dtype=xp.intp)[:, None] * h + xp.arange(oh, dtype=xp.intp) * geo.sh
                 - geo.pt) * (w * c) + shift)[:, :, None, None]
    winners += (xp.arange(ow, dtype=xp.intp) * (geo.sw * c) - geo.pl * c)[:, None]
    winners += xp.arange(c, dtype=xp.intp)


def max_pool_winners(x, y, geo):
    """[N, OH, OW, C] integer array: for each window, the flat index in `x` of the element its
    gradient goes to (TF's rule, see above), worked out from the input `x` and the pooled `y`.
    A window holding no element equal to its maximum (only -inf or NaN: `y` is the lowest value)
    gets its first real element's index minus x.size: negative, so MaxPoolGrad still sends it
    there (negative indices count from the end) and MaxPoolGradGrad, as TF's, gives it 0.
    One array, so a compiled plan holds it in one register.

    One comparison of the strided window view with the maxima marks every tap that passes;
    weighting the marks (`_tap_weights`) and taking their maximum over the taps picks the first
    that passes and gives its offset in the window. float16 compares in float32 (exact).
    """
    if pool_loops.fits(geo, x, y):
        return pool_loops.max_pool_winners(x, y, geo)
    if x.dtype == np.float16:
        return _max_pool_winners(x.astype(np.float32), y.astype(np.float32), geo, _lowest(x.dtype))
    return _max_pool_winners(x, y, geo, _lowest(x.dtype))


def _max_pool_winners(x, y, geo, lowest):
    xp = array_module(x)
    n, h, w, c = x.shape
    kh, kw, oh, ow = geo.kh, geo.kw, geo.oh, geo.ow
    if y.size == 0:
        return xp.zeros(y.shape, dtype=xp.intp)
    is_float = x.dtype.kind == "f"
    xpad = _max_padded(xp, x, geo)
    rspan, cspan = _spans(geo)
    hits = _scratch(xp, "pool_hits", (kh * kw,) + tuple(y.shape), bool)
    xp.equal(_tap_major_windows(xp, xpad, geo), y, out=hits.reshape((kh, kw) + tuple(y.shape)))
    # tap 0 passes when it is not below the maximum: equal to it, or NaN (a NaN met first keeps
    # the gradient)
    xp.less(xpad[:, 0:rspan:geo.sh, 0:cspan:geo.sw], y, out=hits[0])
    xp.logical_not(hits[0], out=hits[0])
    borders = ()
    if geo.has_pad:
        borders = [(r, q) for r in _axis_runs(h, oh, kh, geo.sh, geo.pt)
                   for q in _axis_runs(w, ow, kw, geo.sw, geo.pl)
                   if (r[2], r[3], q[2], q[3]) != (0, kh, 0, kw)]
        _border_hits(hits, xpad, y, borders, geo, is_float, xp)
    weights, k = _tap_weights(kh, kw, w)
    weights = weights if xp is np else xp.asarray(weights)
    flags = hits.view(xp.uint8)
    if weights.dtype == np.uint8:
        xp.multiply(flags, weights, out=flags)
        best = np.maximum.reduce(flags, axis=0) if xp is np else flags.max(axis=0)
    else:
        best = (flags * weights).max(axis=0)
    # the winner sits (K - best) * C after its window's tap (0, 0)
    winners = xp.multiply(best, -c, dtype=xp.intp)
    _add_window_bases(winners, geo, k * c, xp)
    if is_float and _min_of(xp, y) == lowest:
        _unmatched_windows(winners, xpad, y, borders, geo, x.size, xp)
    return winners


def _border_hits(hits, xpad, y, borders, geo, is_float, xp):
    """Fix the tap marks of windows that overhang the padding: integer padding can equal the
    maximum, so padded taps are unmarked; for floats the first real tap, when not tap 0, gets
    tap 0's test (not below the maximum)."""
    kh, kw, sh, sw = geo.kh, geo.kw, geo.sh, geo.sw
    for (lo, hi, a0, a1), (clo, chi, b0, b1) in borders:
        if not is_float:
            for a in range(kh):
                for b in range(kw):
                    if not (a0 <= a < a1 and b0 <= b < b1):
                        hits[a * kw + b, :, lo:hi, clo:chi] = False
        elif (a0, b0) != (0, 0):
            first = hits[a0 * kw + b0, :, lo:hi, clo:chi]
            tap = xpad[:, a0 + sh * lo:a0 + sh * (hi - 1) + 1:sh, b0 + sw * clo:b0 + sw * (chi - 1) + 1:sw]
            xp.less(tap, y[:, lo:hi, clo:chi], out=first)
            xp.logical_not(first, out=first)


def _unmatched_windows(winners, xpad, y, borders, geo, size, xp):
    """Windows where no element equals the maximum (at most those whose maximum is the lowest
    value) get their first real element's index minus `size`."""
    equal = (_tap_major_windows(xp, xpad, geo) == y).any(axis=(0, 1))  # padding (-inf) never equals
    c = winners.shape[3]
    first = xp.full(winners.shape, -size, dtype=xp.intp)
    _add_window_bases(first, geo, 0, xp)
    for (lo, hi, a0, a1), (clo, chi, b0, b1) in borders:
        first[:, lo:hi, clo:chi] += (a0 * geo.w + b0) * c
    unmatched = ~equal
    winners[unmatched] = first[unmatched]


def max_pool_grad(g, winners, geo):
    """MaxPoolGrad: each upstream value added at its window's winner (`max_pool_winners`), in
    output order (as TF's CPU kernel); where windows cannot overlap, one write."""
    dx = pool_loops.max_pool_grad(g, winners, geo) if pool_loops.fits(geo, g) else None
    if dx is not None:
        return dx
    xp = array_module(g)
    c = g.shape[3]
    dx = xp.zeros(geo.n * geo.h * geo.w * c, dtype=g.dtype)
    if g.size:
        index = winners.reshape(-1)
        if geo.sh >= geo.kh and geo.sw >= geo.kw:
            dx[index] = g.reshape(-1)
        elif xp is np:
            np.add.at(dx, index, g.reshape(-1))
        else:
            _add_at_by_disjoint_windows(dx, winners, g, geo)
    return dx.reshape(geo.n, geo.h, geo.w, c)


def _add_at_by_disjoint_windows(dx, winners, g, geo):
    """dx[winners] += g with repeated indices summed, in a fixed order on any array module: the
    windows in sets that cannot overlap (every ceil(KH/SH)-th row, every ceil(KW/SW)-th column),
    one gather-add-scatter per set."""
    ch, cw = -(-geo.kh // geo.sh), -(-geo.kw // geo.sw)
    for ci in range(ch):
        for cj in range(cw):
            part = winners[:, ci::ch, cj::cw]
            dx[part] += g[:, ci::ch, cj::cw]


def max_pool_grad_grad(u, winners, geo):
    """MaxPoolGradGrad, the adjoint of MaxPoolGrad: for each window, the value of `u` at its
    winner (0 where no element equals the window's maximum: a negative winner, as TF). TF's
    kernel reads the first element equal to the maximum instead, which differs only in windows
    whose first real element is NaN (MaxPoolGrad's winner there)."""
    xp = array_module(u)
    values = u.reshape(-1)
    if winners.size and bool((winners < 0).any()):
        values = xp.concatenate([values, xp.zeros_like(values)])  # negatives read the zeros
    return values.take(winners)


@functools.lru_cache(maxsize=64)
def _window_counts(h, w, oh, ow, kh, kw, sh, sw, pt, pl, dtype):
    def axis_counts(size, out, k, s, before):
        starts = np.arange(out) * s - before
        return np.minimum(starts + k, size) - np.maximum(starts, 0)
    rows = axis_counts(h, oh, kh, sh, pt)
    cols = axis_counts(w, ow, kw, sw, pl)
    counts = (rows[:, None] * cols[None, :])[:, :, None].astype(dtype)
    counts.flags.writeable = False  # shared by every call with this geometry
    return counts


def _valid_counts(geo, xp, dtype):
    """How many real (unpadded) input elements each output window covers, [OH, OW, 1] (worked
    out once per geometry and dtype, on the host)."""
    counts = _window_counts(geo.h, geo.w, geo.oh, geo.ow, geo.kh, geo.kw, geo.sh, geo.sw, geo.pt,
                            geo.pl, np.dtype(dtype))
    return counts if xp is np else xp.asarray(counts)


def _spans(geo):
    """How many padded rows and columns the output's windows start within."""
    return max((geo.oh - 1) * geo.sh + 1, 0), max((geo.ow - 1) * geo.sw + 1, 0)


def _wide(v):
    """float16 as float32 (TF's float16 pools sum in float32)."""
    return v.astype(np.float32) if v.dtype == np.float16 else v


def avg_pool(x, geo):
    """Window means over the real (unpadded) elements only: separable sums, the window's rows
    first, then its columns, divided by the counts (float16 sums in float32). Every output sums
    only its own window, so an inf or NaN reaches only the windows holding it."""
    if pool_loops.fits(geo, x):
        return pool_loops.avg_pool(x, geo, _valid_counts(geo, np, x.dtype))
    xp = array_module(x)
    xpad = pad(_wide(x), geo)
    rspan, cspan = _spans(geo)
    sh, sw = geo.sh, geo.sw
    rows = xpad[:, 0:rspan:sh] + xpad[:, 1:1 + rspan:sh] if geo.kh > 1 else xpad[:, 0:rspan:sh].copy()
    for a in range(2, geo.kh):
        rows += xpad[:, a:a + rspan:sh]
    total = rows[:, :, 0:cspan:sw] + rows[:, :, 1:1 + cspan:sw] if geo.kw > 1 else rows[:, :, 0:cspan:sw].copy()
    for b in range(2, geo.kw):
        total += rows[:, :, b:b + cspan:sw]
    total /= _valid_counts(geo, xp, total.dtype)
    return total.astype(x.dtype, copy=False)


def avg_pool_grad(g, geo):
    """AvgPoolGrad: spread each upstream value evenly over its window's real elements. Where
    windows overlap, the adjoint of the separable forward (spread over the window's columns,
    then its rows), else one write per tap (each element gets one share); float16 in float32."""
    if pool_loops.fits(geo, g) and (geo.sh < geo.kh or geo.sw < geo.kw):
        return pool_loops.avg_pool_grad(g, geo, _valid_counts(geo, np, g.dtype))
    xp = array_module(g)
    if g.dtype == np.float16:
        return _avg_pool_grad(xp, g.astype(np.float32), geo).astype(np.float16)
    return _avg_pool_grad(xp, g, geo)


def _avg_pool_grad(xp, g, geo):
    c = g.shape[3]
    share = g / _valid_counts(geo, xp, g.dtype)
    hp, wp = geo.padded
    if geo.sh >= geo.kh and geo.sw >= geo.kw:
        dx = xp.zeros((geo.n, hp, wp, c), dtype=g.dtype)
        for _, _, idx in geo.taps():
            dx[idx] = share
        return contiguous(unpad(dx, geo))
    rspan, cspan = _spans(geo)
    cols = xp.zeros((geo.n, geo.oh, wp, c), dtype=g.dtype)
    for b in range(geo.kw):
        cols[:, :, b:b + cspan:geo.sw] += share
    dx = xp.zeros((geo.n, hp, wp, c), dtype=g.dtype)
    for a in range(geo.kh):
        dx[:, a:a + rspan:geo.sh] += cols
    return contiguous(unpad(dx, geo))
