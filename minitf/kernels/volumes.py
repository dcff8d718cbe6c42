"""3-D window kernels on raw NDHWC arrays: convolution and its two adjoints, max and average
pooling and their gradients. They run on any array module.

A 3-D convolution is a sum over the filter's depth taps of 2-D convolutions: depth tap `a`
multiplies the input depths `q * sd + a * dd - pad_front` of the output depths `q` that read
real input (depth padding is never multiplied), and those depth slices, stacked on the batch
axis as [N * count, H, W, C] planes, go through the 2-D kernels of the array module
(`kernels.for_module(xp).conv2d` and its adjoints), with their own fast paths, batch chunking and
device code. Pooling loops over the taps of the 3-D window directly.

The geometry argument (`minitf.ops.conv3d._Geometry3D`) gives the depth sizes n, d, kd, sd, dd,
od, pf, the spatial sizes h, w, oh, ow and paddings pt, pb, pl, pr, `depth_taps()` and `plane(count)`,
the 2-D geometry of `count` output depths' planes.
"""
import numpy as np

from minitf.backend import array_module
from minitf.kernels import for_module
from minitf.kernels.windows import half_through_float32

__all__ = ["conv3d", "conv3d_backprop_input", "conv3d_backprop_filter", "max_pool3d",
           "max_pool3d_masks", "max_pool3d_grad", "max_pool3d_grad_grad", "avg_pool3d",
           "avg_pool3d_grad"]


def _planes(v, depths, count):
    """The depth slices `depths` of an [N, D, H, W, C] array as [N * count, H, W, C] planes."""
    part = v[:, depths]
    return part.reshape((part.shape[0] * count,) + part.shape[2:])


# -- convolution: depth taps of 2-D convolutions ----------------------------------------------

@half_through_float32
def conv3d(x, w, geo, keep=None):
    """Conv3D of [N, D, H, W, C] `x` with [KD, KH, KW, C, F] `w`. With `keep` (a dict), stores
    per depth tap what the filter gradient may reuse (the 2-D kernels' patch matrices)."""
    xp = array_module(x)
    k2 = for_module(xp)
    f = w.shape[4]
    y = xp.zeros((geo.n, geo.od, geo.oh, geo.ow, f), dtype=np.result_type(x, w))
    for a, outs, ins, count in geo.depth_taps():
        cols = [] if keep is not None else None
        part = k2.conv2d(_planes(x, ins, count), w[a], geo.plane(count), cols)
        y[:, outs] += part.reshape(geo.n, count, geo.oh, geo.ow, f)
        if keep is not None:
            keep[a] = cols[0] if cols else None
    return y


@half_through_float32
def conv3d_backprop_input(w, g, geo):
    """Conv3DBackpropInputV2: the input gradient of Conv3D, [N, D, H, W, C]."""
    xp = array_module(g)
    k2 = for_module(xp)
    c = w.shape[3]
    dx = xp.zeros((geo.n, geo.d, geo.h, geo.w, c), dtype=g.dtype)
    for a, outs, ins, count in geo.depth_taps():
        part = k2.conv2d_backprop_input(w[a], _planes(g, outs, count), geo.plane(count))
        dx[:, ins] += part.reshape(geo.n, count, geo.h, geo.w, c)
    return dx


@half_through_float32
def conv3d_backprop_filter(x, g, geo, keep=None):
    """Conv3DBackpropFilterV2: [KD, KH, KW, C, F], reusing the forward's patch matrices kept in
    `keep` when given."""
    xp = array_module(x)
    k2 = for_module(xp)
    dw = xp.zeros((geo.kd, geo.kh, geo.kw, x.shape[4], g.shape[4]), dtype=g.dtype)
    for a, outs, ins, count in geo.depth_taps():
        cols = None if keep is None else keep.get(a)
        dw[a] = k2.conv2d_backprop_filter(_planes(x, ins, count), _planes(g, outs, count),
                                          geo.plane(count), cols)
    return dw


# -- pooling: the taps of the 3-D window -------------------------------------------------------

def _pad(v, geo, fill):
    """`v` padded on the three spatial axes as the geometry says (`v` itself without padding)."""
    if not (geo.pf or geo.pk or geo.pt or geo.pb or geo.pl or geo.pr):
        return v
    xp = array_module(v)
    n, d, h, w, c = v.shape
    out = xp.full((n, d + geo.pf + geo.pk, h + geo.pt + geo.pb, w + geo.pl + geo.pr, c), fill,
                  dtype=v.dtype)
    out[:, geo.pf:geo.pf + d, geo.pt:geo.pt + h, geo.pl:geo.pl + w] = v
    return out


def _unpad(v, geo):
    """The contiguous unpadded part of a padded-shaped array."""
    part = v[:, geo.pf:geo.pf + geo.d, geo.pt:geo.pt + geo.h, geo.pl:geo.pl + geo.w]
    return array_module(v).ascontiguousarray(part)


def _taps(geo):
    """The index of the padded input that each window tap (a, b, c) reads, for all outputs."""
    def axis(tap, dilation, stride, out):
        start = tap * dilation
        return slice(start, start + max((out - 1) * stride + 1, 0), stride)
    for a in range(geo.kd):
        for b in range(geo.kh):
            for c in range(geo.kw):
                yield (slice(None), axis(a, 1, geo.sd, geo.od), axis(b, 1, geo.sh, geo.oh),
                       axis(c, 1, geo.sw, geo.ow))


def _lowest(dtype, xp):
    return -xp.inf if dtype.kind == "f" else xp.iinfo(dtype).min


def max_pool3d(x, geo):
    """Window maxima (padding never wins)."""
    xp = array_module(x)
    xpad = _pad(x, geo, _lowest(x.dtype, xp))
    out = xp.full((geo.n, geo.od, geo.oh, geo.ow, x.shape[4]), _lowest(x.dtype, xp), dtype=x.dtype)
    for idx in _taps(geo):
        xp.maximum(out, xpad[idx], out=out)
    return out


def max_pool3d_masks(x, y, geo):
    """(tap index, mask) per window tap: where the input under that tap equals its window's
    maximum. Every tied maximum is marked, as TF's MaxPool3DGrad routes to all of them."""
    xp = array_module(x)
    xpad = _pad(x, geo, _lowest(x.dtype, xp))
    return [(idx, xp.equal(xpad[idx], y)) for idx in _taps(geo)]


def max_pool3d_grad(g, masks, geo):
    """MaxPool3DGrad: each upstream value added to every maximum of its window."""
    xp = array_module(g)
    dx = xp.zeros((geo.n, geo.d + geo.pf + geo.pk, geo.h + geo.pt + geo.pb, geo.w + geo.pl + geo.pr,
                   g.shape[4]), dtype=g.dtype)
    for idx, hit in masks:
        dx[idx] += g * hit
    return _unpad(dx, geo)


def max_pool3d_grad_grad(u, masks, geo):
    """MaxPool3DGradGrad: for each window, the sum of `u` over its maxima."""
    xp = array_module(u)
    upad = _pad(u, geo, 0)
    out = xp.zeros((geo.n, geo.od, geo.oh, geo.ow, u.shape[4]), dtype=u.dtype)
    for idx, hit in masks:
        out += upad[idx] * hit
    return out


def _valid_counts(geo, xp, dtype):
    """How many real input elements each output window covers, [OD, OH, OW, 1]."""
    def axis(size, out, k, s, before):
        starts = np.arange(out) * s - before
        return np.minimum(starts + k, size) - np.maximum(starts, 0)
    depth = axis(geo.d, geo.od, geo.kd, geo.sd, geo.pf)
    rows = axis(geo.h, geo.oh, geo.kh, geo.sh, geo.pt)
    cols = axis(geo.w, geo.ow, geo.kw, geo.sw, geo.pl)
    counts = depth[:, None, None] * rows[None, :, None] * cols[None, None, :]
    return xp.asarray(counts[..., None], dtype=dtype)


@half_through_float32
def avg_pool3d(x, geo):
    """Window means over the real (unpadded) elements only."""
    xp = array_module(x)
    xpad = _pad(x, geo, 0)
    total = xp.zeros((geo.n, geo.od, geo.oh, geo.ow, x.shape[4]), dtype=x.dtype)
    for idx in _taps(geo):
        total += xpad[idx]
    total /= _valid_counts(geo, xp, x.dtype)
    return total


@half_through_float32
def avg_pool3d_grad(g, geo):
    """AvgPool3DGrad: each upstream value spread evenly over its window's real elements."""
    xp = array_module(g)
    share = g / _valid_counts(geo, xp, g.dtype)
    dx = xp.zeros((geo.n, geo.d + geo.pf + geo.pk, geo.h + geo.pt + geo.pb, geo.w + geo.pl + geo.pr,
                   g.shape[4]), dtype=g.dtype)
    for idx in _taps(geo):
        dx[idx] += share
    return _unpad(dx, geo)
