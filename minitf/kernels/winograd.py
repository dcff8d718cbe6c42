"""Winograd convolutions F(m x m, r x r) for the numpy kernels: fewer multiplications than a
direct convolution, paid for with transforms and a little float32 accuracy.

A convolution with stride s is first rewritten as a stride-1 one by space-to-depth: input
pixel (s*i + v) becomes channel v of grid pixel i, and the filter, zero-padded to a multiple of
s taps, becomes ceil(k/s) taps over s*s*C channels (5x5 stride 2 -> 3x3 over 4C channels).
The stride-1 problem is then cut into output tiles of m x m; each tile's n x n input patch
(n = m + r - 1) and the filter are carried into a transform domain of n*n points, where the
convolution is one elementwise product per point, summed over channels: n*n GEMMs of
[tiles, C'] @ [C', F]. With
    y_tile = AT [(G w G^T) * (BT d B)] A        (AT: m x n, G: n x r, BT: n x n per axis),
the three passes are
    forward          V = BT d B, U = G w G^T,   M = V @ U,         y = AT M A
    input gradient   dM = A dy AT,             dV = dM @ U^T,      dx = sum over tiles of B dV BT
    filter gradient  dM = A dy AT,             dU = V^T @ dM,      dw = G^T dU G
and each 2-D transform is two small GEMMs, one per axis, over cache-sized chunks.
All operands are float32 (the GEMM is the work); the filter gradient reuses the forward's V.

Accuracy (float32, random normal data, error relative to the largest output, against float64):
direct convolution ~3e-7; F(2,3) ~7e-7; F(4,3) with points (0, 1, -1, 1/2, -2) ~5e-6;
F(4,5) with (0, +-1, +-2, +-1/2) ~9e-6. The numpy kernels use these paths for float32 only and
only where they measure faster (`minitf.kernels.numpy`), so float64 keeps the direct result.
"""
import functools
from fractions import Fraction

import numpy as np

from minitf.kernels.scratch import Scratch

__all__ = ["Plan", "plan", "transforms", "conv2d", "conv2d_backprop_input", "conv2d_backprop_filter",
           "WinogradInputs"]

# The finite interpolation points of F(m, r) (one more point, infinity, is implied); these
# sets measured the smallest float32 error among the usual choices.
_POINTS = {3: (0, 1, -1, Fraction(1, 2), -2), 5: (0, 1, -1, 2, -2, Fraction(1, 2), Fraction(-1, 2))}
# Output tile sizes offered per filter length (the plan takes the one with the fewest products).
TILES = {3: (2, 4), 5: (4,)}


def _vandermonde(points, k):
    """n x k evaluation matrix of polynomials of degree < k at `points` and at infinity."""
    rows = [[p ** i for i in range(k)] for p in points]
    rows.append([Fraction(0)] * (k - 1) + [Fraction(1)])
    return rows


def _inverse(a):
    """The inverse of a square matrix of Fractions (Gauss-Jordan, exact)."""
    n = len(a)
    work = [row[:] + [Fraction(int(i == j)) for j in range(n)] for i, row in enumerate(a)]
    for col in range(n):
        pivot = next(i for i in range(col, n) if work[i][col] != 0)
        work[col], work[pivot] = work[pivot], work[col]
        work[col] = [v / work[col][col] for v in work[col]]
        for i in range(n):
            if i != col and work[i][col] != 0:
                factor = work[i][col]
                work[i] = [a - factor * b for a, b in zip(work[i], work[col])]
    return [row[n:] for row in work]


@functools.lru_cache(maxsize=None)
def transforms(m, r):
    """(AT, G, BT) of F(m, r) as float64 arrays: m x n, n x r and n x n, n = m + r - 1, with
    y_i = sum_k d[i + k] w[k] = (AT @ ((G @ w) * (BT @ d)))_i for any d of length n.

    Correlation is the transpose of polynomial multiplication: with V_k the n x k evaluation
    matrix at the points, AT = V_m^T, G = V_r and BT = V_n^-T, computed exactly in fractions;
    each row of BT is scaled to integers and the matching row of G divided by the same factor.
    """
    n = m + r - 1
    points = [Fraction(p) for p in _POINTS[r][:n - 1]]
    if len(points) != n - 1:
        raise ValueError(f"F({m}, {r}) needs {n - 1} finite points, the table has {len(_POINTS[r])}")
    vm, g, inv = _vandermonde(points, m), _vandermonde(points, r), _inverse(_vandermonde(points, n))
    bt = [[inv[j][i] for j in range(n)] for i in range(n)]
    for i in range(n):
        scale = np.lcm.reduce([v.denominator for v in bt[i]])
        bt[i] = [v * int(scale) for v in bt[i]]
        g[i] = [v / int(scale) for v in g[i]]
    at = [[vm[j][i] for j in range(n)] for i in range(m)]
    return tuple(np.array([[float(v) for v in row] for row in mat]) for mat in (at, g, bt))


@functools.lru_cache(maxsize=64)
def _axis_matrices(m, r, dtype):
    """(AT, G, BT) of F(m, r) in `dtype`, read-only."""
    out = tuple(a.astype(dtype) for a in transforms(m, r))
    for a in out:
        a.flags.writeable = False
    return out


# Chunk of the trailing axis that `_two_axis` transforms at a time: the chunk and its
# intermediate stay in the 2 MiB L2 cache (1 MiB measured fastest, 2.5x faster than one GEMM
# with the Kronecker product, which is 36-64 rows tall and runs at half the BLAS peak).
_CHUNK_BYTES = 1 << 20


def _two_axis(mh, mw, src, out):
    """out[c, d, :] = sum over a, b of mh[c, a] mw[d, b] src[a, b, :], chunk by chunk of the
    trailing axis (contiguous in `src` and `out`): one small GEMM per axis and chunk."""
    a, b, size = src.shape
    chunk = max(1, _CHUNK_BYTES // (src.itemsize * max(a * b, mh.shape[0] * b)))
    tmp = _scratch("chunk", (b, mh.shape[0], min(chunk, size)), src.dtype)
    for start in range(0, size, chunk):
        stop = min(size, start + chunk)
        part = tmp[:, :, :stop - start]
        np.matmul(mh, src[:, :, start:stop].transpose(1, 0, 2), out=part)
        np.matmul(mw, part.transpose(1, 0, 2), out=out[:, :, start:stop])
    return out


class Plan:
    """One convolution geometry as a Winograd problem: per axis the stride s, the filter taps r
    after space-to-depth, the tile m, the transform size n = m + r - 1 and the tile count t.

    The space-to-depth grid holds t*m + r - 1 pixels per axis, i.e. (t*m + r - 1)*s rows of the
    padded input, whose rows start `pt` (columns `pl`) before the input's first.
    """
    __slots__ = ("n", "h", "w", "c", "kh", "kw", "sh", "sw", "pt", "pl", "oh", "ow",
                 "mh", "mw", "rh", "rw", "th", "tw", "macs")

    def __init__(self, geo, c, mh, mw):
        self.n, self.h, self.w, self.c = geo.n, geo.h, geo.w, c
        self.kh, self.kw, self.sh, self.sw = geo.kh, geo.kw, geo.sh, geo.sw
        self.pt, self.pl, self.oh, self.ow = geo.pt, geo.pl, geo.oh, geo.ow
        self.rh, self.rw = -(-geo.kh // geo.sh), -(-geo.kw // geo.sw)
        self.mh, self.mw = mh, mw
        self.th, self.tw = -(-geo.oh // mh), -(-geo.ow // mw)
        self.macs = None

    @property
    def points(self):
        """n*n: the transform-domain points (one GEMM each)."""
        return (self.mh + self.rh - 1) * (self.mw + self.rw - 1)

    @property
    def tiles(self):
        """N * th * tw: the rows of every point's GEMM."""
        return self.n * self.th * self.tw

    @property
    def channels(self):
        """C' = sh * sw * C: the channels after space-to-depth."""
        return self.sh * self.sw * self.c

    @property
    def grid(self):
        """Padded-input rows and columns the tiles read: (t*m + r - 1) * s per axis."""
        return ((self.th * self.mh + self.rh - 1) * self.sh, (self.tw * self.mw + self.rw - 1) * self.sw)


def plan(geo, c, f):
    """The cheapest Winograd plan for a convolution of `c` -> `f` channels, or None where none
    applies (dilation, or a filter length after space-to-depth with no transform). `macs` is
    the multiply-adds of its GEMMs."""
    if (geo.dh, geo.dw) != (1, 1) or min(geo.oh, geo.ow, geo.n, c, f) < 1:
        return None
    rh, rw = -(-geo.kh // geo.sh), -(-geo.kw // geo.sw)
    if rh not in TILES or rw not in TILES:
        return None
    mh = min(TILES[rh], key=lambda m: ((m + rh - 1) * -(-geo.oh // m), m))
    mw = min(TILES[rw], key=lambda m: ((m + rw - 1) * -(-geo.ow // m), m))
    p = Plan(geo, c, mh, mw)
    p.macs = p.points * p.tiles * p.channels * f
    return p


class WinogradInputs:
    """The forward's transformed input V [points, tiles, C'], kept for the filter gradient."""
    __slots__ = ("plan", "v")

    def __init__(self, plan_, v):
        self.plan, self.v = plan_, v


# -- scratch buffers ---------------------------------------------------------------------------
# The intermediates (patches, transforms, GEMM products) are 5-20 MB each: reused per thread
# (minitf.kernels.scratch), up to 32 MiB a slot.
_scratch = Scratch(32 << 20)


# -- moving between images and tiles -----------------------------------------------------------

def _padded_grid(x, p, slot):
    """The padded input rows/columns that the tiles read, [N, rows, cols, C] (zeros outside `x`):
    `x` itself where it is exactly that, else in scratch `slot`."""
    rows, cols = p.grid
    h, w = min(p.h, rows - p.pt), min(p.w, cols - p.pl)
    if (p.pt, p.pl, h, w) == (0, 0, rows, cols):
        return np.ascontiguousarray(x)
    out = _scratch(slot, (p.n, rows, cols, x.shape[3]), x.dtype)
    out[:, :p.pt] = 0
    out[:, p.pt + h:] = 0
    out[:, p.pt:p.pt + h, :p.pl] = 0
    out[:, p.pt:p.pt + h, p.pl + w:] = 0
    out[:, p.pt:p.pt + h, p.pl:p.pl + w] = x[:, :h, :w]
    return out


def _tile_view(v, p, i_count, j_count, row0=0, col0=0):
    """[i, j, N, th, tw, sh, sw, C] strided view of a padded grid: tile (ti, tj)'s patch element
    (i, j) of the space-to-depth grid, starting at grid pixel (row0, col0). Overlapping for
    i >= m (neighbouring tiles share r - 1 pixels)."""
    s0, s1, s2, s3 = v.strides
    base = v[:, row0 * p.sh:, col0 * p.sw:]
    shape = (i_count, j_count, p.n, p.th, p.tw, p.sh, p.sw, v.shape[3])
    strides = (p.sh * s1, p.sw * s2, s0, p.mh * p.sh * s1, p.mw * p.sw * s2, s1, s2, s3)
    return np.lib.stride_tricks.as_strided(base, shape=shape, strides=strides)


def _output_parts(p):
    """(rows, columns) pairs of tile ranges and pixel counts covering the output: whole tiles,
    then the partial last tile on each axis."""
    def axis(o, m, t):
        full = o // m
        parts = [(slice(0, full), slice(0, m), full * m, 0)] if full else []
        if full < t:
            parts.append((slice(full, t), slice(0, o - full * m), o - full * m, full * m))
        return parts
    return [(a, b) for a in axis(p.oh, p.mh, p.th) for b in axis(p.ow, p.mw, p.tw)]


def _untile(tiles6, p, f):
    """[N, oh, ow, F] from [mh, mw, N, th, tw, F] output tiles (a copy, cropped)."""
    y = np.empty((p.n, p.oh, p.ow, f), dtype=tiles6.dtype)
    for (ti, ii, hi, h0), (tj, jj, wj, w0) in _output_parts(p):
        dst = y[:, h0:h0 + hi, w0:w0 + wj].reshape(p.n, ti.stop - ti.start, ii.stop, tj.stop - tj.start, jj.stop, f)
        dst[...] = tiles6[ii, jj, :, ti, tj].transpose(2, 3, 0, 4, 1, 5)
    return y


def _tile_output_gradient(g, p, slot):
    """[mh*mw, tiles*F] tiles of the output gradient, zero past the output's edge (in `slot`)."""
    f = g.shape[3]
    tiles6 = _scratch(slot, (p.mh, p.mw, p.n, p.th, p.tw, f), g.dtype)
    if (p.oh % p.mh, p.ow % p.mw) != (0, 0):
        tiles6[...] = 0
    for (ti, ii, hi, h0), (tj, jj, wj, w0) in _output_parts(p):
        src = g[:, h0:h0 + hi, w0:w0 + wj].reshape(p.n, ti.stop - ti.start, ii.stop, tj.stop - tj.start, jj.stop, f)
        tiles6[ii, jj, :, ti, tj] = src.transpose(2, 4, 0, 1, 3, 5)
    return tiles6.reshape(p.mh * p.mw, -1)


def _filter_taps(w, p):
    """[rh*rw, C'*F]: the filter zero-padded to r*s taps per axis, taps split by space-to-depth."""
    kh, kw, c, f = w.shape
    if (p.rh * p.sh, p.rw * p.sw) != (kh, kw):
        wide = np.zeros((p.rh * p.sh, p.rw * p.sw, c, f), dtype=w.dtype)
        wide[:kh, :kw] = w
        w = wide
    w6 = w.reshape(p.rh, p.sh, p.rw, p.sw, c, f).transpose(0, 2, 1, 3, 4, 5)
    return np.ascontiguousarray(w6).reshape(p.rh * p.rw, -1)


def _matrices(p, dtype):
    """((ATh, Gh, BTh), (ATw, Gw, BTw)): the plan's per-axis transforms in `dtype`."""
    dtype = np.dtype(dtype)
    return _axis_matrices(p.mh, p.rh, dtype), _axis_matrices(p.mw, p.rw, dtype)


def _transformed_input(x, p, bh, bw, out_slot=None):
    """V = BT d B for every tile: [points, tiles, C'], in scratch `out_slot` (None: a fresh
    array). Uses slots "a" and "b" for the patches."""
    nh, nw = bh.shape[1], bw.shape[1]
    grid = _padded_grid(x, p, "a")
    patches = _scratch("b", (nh, nw, p.tiles * p.channels), x.dtype)
    np.copyto(patches.reshape((nh, nw) + (p.n, p.th, p.tw, p.sh, p.sw, p.c)), _tile_view(grid, p, nh, nw))
    v = np.empty(patches.shape, x.dtype) if out_slot is None else _scratch(out_slot, patches.shape, x.dtype)
    _two_axis(bh, bw, patches, v)
    return v.reshape(p.points, p.tiles, p.channels)


def _transformed_filter(w, p, gh, gw, transposed=False):
    """U = G w G^T: [points, C', F], or [points, F, C'] contiguous when `transposed` (the input
    gradient's GEMM runs 10% slower on a transposed view)."""
    f = w.shape[3]
    taps = _filter_taps(w, p)
    if transposed:
        taps = np.ascontiguousarray(taps.reshape(-1, p.channels, f).transpose(0, 2, 1))
    taps = taps.reshape(p.rh, p.rw, -1)
    u = _two_axis(gh, gw, taps, np.empty((gh.shape[0], gw.shape[0], taps.shape[2]), dtype=w.dtype))
    return u.reshape((p.points, f, p.channels) if transposed else (p.points, p.channels, f))


def _transformed_output_gradient(g, p, ah, aw):
    """dM = A dy AT for every output tile (zero past the output's edge): [points, tiles, F] in
    slot "b" (the tiles go through slot "a")."""
    f = g.shape[3]
    tiles = _tile_output_gradient(g, p, "a").reshape(p.mh, p.mw, -1)
    dm = _two_axis(ah.T, aw.T, tiles, _scratch("b", (ah.shape[1], aw.shape[1], tiles.shape[2]), g.dtype))
    return dm.reshape(p.points, p.tiles, f)


# -- the three passes ------------------------------------------------------------------------

def conv2d(x, w, p, keep=None):
    """Conv2D by plan `p`; appends the transformed input to `keep` (a list) when given."""
    (ah, gh, bh), (aw, gw, bw) = _matrices(p, x.dtype)
    v = _transformed_input(x, p, bh, bw, None if keep is not None else "a")
    u = _transformed_filter(w, p, gh, gw)
    f = w.shape[3]
    m = np.matmul(v, u, out=_scratch("b", (p.points, p.tiles, f), v.dtype))
    if keep is not None:
        keep.append(WinogradInputs(p, v))
    tiles = _scratch("a", (p.mh, p.mw, p.tiles * f), m.dtype)
    _two_axis(ah, aw, m.reshape(ah.shape[1], aw.shape[1], -1), tiles)
    return _untile(tiles.reshape(p.mh, p.mw, p.n, p.th, p.tw, f), p, f)


def conv2d_backprop_input(w, g, p):
    """Conv2DBackpropInput by plan `p`: each tile's patch gradient B dV BT added where the tile
    reads (tiles overlap by r - 1 grid pixels, so the patch is added in two parts per axis)."""
    (ah, gh, bh), (aw, gw, bw) = _matrices(p, g.dtype)
    dm = _transformed_output_gradient(g, p, ah, aw)
    ut = _transformed_filter(w, p, gh, gw, transposed=True)
    dv = np.matmul(dm, ut, out=_scratch("a", (p.points, p.tiles, p.channels), g.dtype))
    nh, nw = bh.shape[1], bw.shape[1]
    patches = _two_axis(bh.T, bw.T, dv.reshape(nh, nw, -1), _scratch("b", (nh, nw, p.tiles * p.channels), g.dtype))
    patches = patches.reshape(nh, nw, p.n, p.th, p.tw, p.sh, p.sw, p.c)
    rows, cols = p.grid
    h, w_ = min(p.h, rows - p.pt), min(p.w, cols - p.pl)
    whole = (p.pt, p.pl, h, w_) == (0, 0, rows, cols)
    dpad = np.empty((p.n, rows, cols, p.c), g.dtype) if whole else _scratch("a", (p.n, rows, cols, p.c), g.dtype)
    # the first m x m of every patch covers the grid's first t*m pixels per axis exactly once
    np.copyto(_tile_view(dpad, p, p.mh, p.mw), patches[:p.mh, :p.mw])
    dpad[:, p.th * p.mh * p.sh:] = 0
    dpad[:, :p.th * p.mh * p.sh, p.tw * p.mw * p.sw:] = 0
    for i0, j0 in ((p.mh, 0), (0, p.mw), (p.mh, p.mw)):
        i1, j1 = (nh if i0 else p.mh), (nw if j0 else p.mw)
        if i1 > i0 and j1 > j0:
            view = _tile_view(dpad, p, i1 - i0, j1 - j0, i0, j0)
            view += patches[i0:i1, j0:j1]
    if whole:
        return dpad
    if (h, w_) == (p.h, p.w):
        return dpad[:, p.pt:p.pt + h, p.pl:p.pl + w_].copy()  # out of the scratch buffer
    dx = np.zeros((p.n, p.h, p.w, p.c), dtype=g.dtype)
    dx[:, :h, :w_] = dpad[:, p.pt:p.pt + h, p.pl:p.pl + w_]
    return dx


def conv2d_backprop_filter(x, g, p, kept=None):
    """Conv2DBackpropFilter by plan `p`, reusing the forward's transformed input when `kept`."""
    (ah, gh, bh), (aw, gw, bw) = _matrices(p, g.dtype)
    f = g.shape[3]
    v = kept.v if kept is not None else _transformed_input(x, p, bh, bw, "c")
    du = np.matmul(v.transpose(0, 2, 1), _transformed_output_gradient(g, p, ah, aw))
    nh, nw = gh.shape[0], gw.shape[0]
    taps = _two_axis(gh.T, gw.T, du.reshape(nh, nw, -1), np.empty((p.rh, p.rw, du.shape[1] * f), dtype=du.dtype))
    wide = taps.reshape(p.rh, p.rw, p.sh, p.sw, p.c, f).transpose(0, 2, 1, 3, 4, 5)
    return np.ascontiguousarray(wide.reshape(p.rh * p.sh, p.rw * p.sw, p.c, f)[:p.kh, :p.kw])
