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

def _lowest(dtype, xp):
    return -xp.inf if dtype.kind == "f" else xp.iinfo(dtype).min


def max_pool(x, geo):
    """Window maxima, as a running maximum over the taps (branch-free, no index bookkeeping)."""
    xp = array_module(x)
    xpad = pad(x, geo, fill=_lowest(x.dtype, xp))
    taps = [idx for _, _, idx in geo.taps()]
    best = xpad[taps[0]].copy()
    for idx in taps[1:]:
        xp.maximum(best, xpad[idx], out=best)
    return best


def max_pool_winners(x, y, geo):
    """[taps, N, OH, OW, C] boolean masks, one per tap in `geo.taps()` order: the windows whose
    first maximum (in row-major tap order, as TF) sits at that tap, worked out from the input
    `x` and the pooled `y`. One array, so a compiled plan holds it in one register."""
    xp = array_module(x)
    xpad = pad(x, geo, fill=_lowest(x.dtype, xp))
    taps = [idx for _, _, idx in geo.taps()]
    masks = xp.empty((len(taps),) + tuple(y.shape), dtype=bool)
    unclaimed = xp.ones(y.shape, dtype=bool)
    for t, idx in enumerate(taps):
        hit = masks[t]
        xp.equal(xpad[idx], y, out=hit)
        hit &= unclaimed
        unclaimed ^= hit  # hit is a subset of unclaimed
    return masks


def max_pool_grad(g, winners, geo):
    """MaxPoolGrad: route each upstream value to the position of its window's maximum
    (`winners`: the masks of `max_pool_winners`)."""
    xp = array_module(g)
    hp, wp = geo.padded
    dx = xp.zeros((geo.n, hp, wp, g.shape[3]), dtype=g.dtype)
    disjoint = geo.sh >= geo.kh and geo.sw >= geo.kw  # windows never overlap: write, don't add
    for (_, _, idx), hit in zip(geo.taps(), winners):
        if disjoint:
            xp.multiply(g, hit, out=dx[idx])
        else:
            dx[idx] += g * hit
    return contiguous(unpad(dx, geo))


def max_pool_grad_grad(u, winners, geo):
    """MaxPoolGradGrad: gather, for each window, the value at its maximum's position."""
    xp = array_module(u)
    upad = pad(u, geo)
    out = xp.zeros((geo.n, geo.oh, geo.ow, u.shape[3]), dtype=u.dtype)
    for (_, _, idx), hit in zip(geo.taps(), winners):
        out += upad[idx] * hit
    return out


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


def avg_pool(x, geo):
    """Window means over the real (unpadded) elements only: separable, the window's rows summed
    first (KH adds over [N, OH, WP, C]), then its columns (KW adds), not one add per tap."""
    xp = array_module(x)
    xpad = pad(x, geo)
    rspan, cspan = _spans(geo)
    sh, sw = geo.sh, geo.sw
    rows = xpad[:, 0:rspan:sh] + xpad[:, 1:1 + rspan:sh] if geo.kh > 1 else xpad[:, 0:rspan:sh].copy()
    for a in range(2, geo.kh):
        rows += xpad[:, a:a + rspan:sh]
    total = rows[:, :, 0:cspan:sw] + rows[:, :, 1:1 + cspan:sw] if geo.kw > 1 else rows[:, :, 0:cspan:sw].copy()
    for b in range(2, geo.kw):
        total += rows[:, :, b:b + cspan:sw]
    total /= _valid_counts(geo, xp, x.dtype)
    return total


def avg_pool_grad(g, geo):
    """AvgPoolGrad: spread each upstream value evenly over its window's real elements; where
    windows overlap, as the adjoint of the separable forward (spread over the window's columns,
    then its rows), else one write per tap (each element gets one share)."""
    xp = array_module(g)
    share = g / _valid_counts(geo, xp, g.dtype)
    hp, wp = geo.padded
    if geo.sh >= geo.kh and geo.sw >= geo.kw:
        dx = xp.zeros((geo.n, hp, wp, g.shape[3]), dtype=g.dtype)
        for _, _, idx in geo.taps():
            dx[idx] = share
        return contiguous(unpad(dx, geo))
    rspan, cspan = _spans(geo)
    cols = xp.zeros((geo.n, geo.oh, wp, g.shape[3]), dtype=g.dtype)
    for b in range(geo.kw):
        cols[:, :, b:b + cspan:geo.sw] += share
    dx = xp.zeros((geo.n, hp, wp, g.shape[3]), dtype=g.dtype)
    for a in range(geo.kh):
        dx[:, a:a + rspan:geo.sh] += cols
    return contiguous(unpad(dx, geo))
