"""The numpy (CPU) kernels: tuned for a CPU BLAS, caches and a few threads.

- Convolutions: float32 problems that a Winograd transform makes at least 1.5x cheaper run as
  Winograd convolutions (`minitf.kernels.winograd`: 3x3 and 5x5 filters at stride 1, and the
  5x5/6x6 stride-2 ones through space-to-depth). Otherwise im2col and one GEMM, or, when a pass
  would mostly multiply padding, each filter tap on its valid rectangle (`use_tap_rectangles`).
  1x1 convolutions are one GEMM in all three passes; a stride-1 input gradient runs as the
  forward convolution of the flipped filter, a strided one with few rows or channels as col2im
  (one GEMM for all taps, then each tap's columns added where it reads; see
  `conv2d_backprop_input` for the routing and its figures). A patch matrix over 16 MiB is built and
  multiplied batch chunk by batch chunk, so that no buffer passes glibc's largest mmap threshold
  (32 MiB): bigger ones are mapped fresh and page-faulted on every step.
- Optimizer updates (`update_variables`): any rule of `minitf.optimizers.rules`, run over
  cache-sized blocks of all the step's variables, shared out over minitf's worker pool; Adam
  as one numba loop per block when numba is installed (`minitf.kernels.jit`).
- `argsort_stable`: numpy's stable sort (ties keep their order, as TF's TopKV2).
- `scatter_at`: numpy's unbuffered `.at` scatters (Variable.scatter_*).
- `sigmoid`, `sigmoid_grad`, `tanh_grad`: the elementwise formulas (the GPU module fuses them).
- `relu`: numpy.maximum(v, 0), compared against a zero row (see there).
- `select`: numpy.where(cond, x, y), a compiled loop for large same-shape operands (see there).
- float16: numpy has no half-precision BLAS (a float16 GEMM runs ~100x slower than float32), so
  the GEMM kernels compute float16 operands in float32 and round the result, which is also what
  TF's CPU kernels return (checked equal on matmul and conv2d).
"""
import copy
import functools
import threading

import numpy as np

from minitf.kernels import jit, threads, winograd
from minitf.kernels.windows import (avg_pool, avg_pool_grad, contiguous, conv2d_backprop_filter_im2col,  # noqa: F401
                                    conv2d_backprop_input_col2im, conv2d_backprop_input_taps, conv2d_im2col,
                                    depthwise_backprop_filter, depthwise_backprop_input, depthwise_conv2d,
                                    half_through_float32, im2col,
                                    max_pool, max_pool_grad, max_pool_grad_grad, max_pool_winners, pad, unpad)

# When the tap-rectangle path replaces im2col (see use_tap_rectangles); measured on 2 cores
# with 64-256 channels. At 64% real reads the rectangles are 1.2-1.5x faster in all three
# passes; at 84% (5x5 'same', stride 2, 14x14) only the input gradient gains (1.2x), and the
# forward loses the patch matrix its filter gradient would reuse.
_TAP_RECTANGLE_MAX_SHARE = 0.75
_TAP_RECTANGLE_MAX_SHARE_STRIDED_INPUT_GRAD = 0.95
_TAP_RECTANGLE_MIN_CHANNELS = 16
# A patch matrix up to this size is one buffer; a larger one is split over the batch. glibc
# serves blocks under its mmap threshold (128 KiB, growing with use up to 32 MiB) from memory
# it keeps; above it, each step maps and page-faults fresh pages (a 42 MB matrix: 13 ms to
# allocate and fill vs 5 ms reused, on this 2-core machine).
_PATCH_CHUNK_BYTES = 16 << 20
# Winograd where the direct path would multiply at least _WINOGRAD_MIN_GAIN times as much and
# at least _WINOGRAD_MIN_MACS multiply-adds (below that, its transforms cost more than they
# save: InceptionV3's 3x3 96->96 on 9x9, 5.3M, is slower; 3x3 32->32 on 47x47, 19M, 1.4x
# faster), with GEMMs at least _WINOGRAD_MIN_CHANNELS deep and wide (DCGAN's 1->64 5x5 stride
# 2, 4 channels after space-to-depth, is 2x slower). float32 only: float64 keeps the direct
# path's exactness.
_WINOGRAD_MIN_GAIN = 1.5
_WINOGRAD_MIN_MACS = 8e6
_WINOGRAD_MIN_CHANNELS = 16
_WINOGRAD_DTYPES = (np.float32,)
_winograd_plans = {}


def use_tap_rectangles(geo, in_channels, out_channels, input_gradient=False):
    """Whether a convolution pass should compute each tap on its valid rectangle, not im2col.

    im2col multiplies every padded zero: on small maps with large filters (the DCGAN
    generator's 5x5 'same' convolution at 7x7 reads 36% zeros) the rectangles win despite
    their smaller GEMMs. The input gradient of a strided convolution gains even at a few
    percent of padding, since it adds each tap into a dense phase grid instead of a strided
    view. Few channels make the per-tap GEMMs too thin, so those keep im2col.
    """
    if not geo.has_pad or min(in_channels, out_channels) < _TAP_RECTANGLE_MIN_CHANNELS:
        return False
    strided = (geo.sh, geo.sw) != (1, 1)
    limit = _TAP_RECTANGLE_MAX_SHARE_STRIDED_INPUT_GRAD if input_gradient and strided else \
        _TAP_RECTANGLE_MAX_SHARE
    return _real_read_share(geo) < limit


def _tap_reach(tap, dilation, pad_before, stride, size, out):
    """Where one filter tap reads along one axis: (phase, shift, q0, q1).

    Output q reads input q*stride + tap*dilation - pad_before = (q + shift)*stride + phase,
    i.e. row q + shift of the phase's sub-grid (inputs phase, phase + stride, ...); it is
    inside the image for q in [q0, q1).
    """
    phase = (tap * dilation - pad_before) % stride
    shift = (tap * dilation - pad_before - phase) // stride
    rows_in_phase = -(-(size - phase) // stride)
    return phase, shift, max(0, -shift), min(out, rows_in_phase - shift)


def tap_rectangles(geo):
    """(a, b, out_rows, out_cols, phase, shift) of every filter tap that reads any unpadded
    input. Tap (a, b) maps output (q, r), for q in out_rows and r in out_cols, to element
    (q + shift[0], r + shift[1]) of the phase sub-grid x[phase[0]::sh, phase[1]::sw]; all
    its other reads are padding. A tuple, worked out once per geometry."""
    return _tap_layout(*_tap_layout_key(geo))[0]


def _real_read_share(geo):
    """The share of the filter's reads, over all outputs, that land inside the image."""
    return _tap_layout(*_tap_layout_key(geo))[1]


def _tap_layout_key(geo):
    return (geo.kh, geo.kw, geo.dh, geo.dw, geo.pt, geo.pl, geo.sh, geo.sw, geo.h, geo.w, geo.oh, geo.ow)


@functools.lru_cache(maxsize=1024)
def _tap_layout(kh, kw, dh, dw, pt, pl, sh, sw, h, w, oh, ow):
    """(tap rectangles, real read share) of one geometry: walking the taps in Python costs
    0.01-0.02 ms a call for a 3x3-5x5 filter, a tenth of a small convolution."""
    rects = []
    for a in range(kh):
        pa, da, q0, q1 = _tap_reach(a, dh, pt, sh, h, oh)
        for b in range(kw):
            pb, db, r0, r1 = _tap_reach(b, dw, pl, sw, w, ow)
            if q0 < q1 and r0 < r1:
                rects.append((a, b, slice(q0, q1), slice(r0, r1), (pa, pb), (da, db)))
    valid = sum((q.stop - q.start) * (r.stop - r.start) for _, _, q, r, _, _ in rects)
    return tuple(rects), valid / max(kh * kw * oh * ow, 1)


def winograd_plan(geo, dtype, in_channels, out_channels):
    """The Winograd plan (`minitf.kernels.winograd.plan`) for this convolution where it pays,
    else None (see _WINOGRAD_MIN_GAIN). Cached per geometry."""
    if dtype not in _WINOGRAD_DTYPES:
        return None
    key = (geo.n, geo.h, geo.w, geo.kh, geo.kw, geo.sh, geo.sw, geo.dh, geo.dw, geo.pt, geo.pb,
           geo.pl, geo.pr, in_channels, out_channels)
    if key in _winograd_plans:
        return _winograd_plans[key]
    p = winograd.plan(geo, in_channels, out_channels)
    if p is not None:
        direct = _real_read_share(geo) * geo.kh * geo.kw * geo.oh * geo.ow * geo.n * in_channels * out_channels
        if (min(p.channels, out_channels) < _WINOGRAD_MIN_CHANNELS or direct < _WINOGRAD_MIN_MACS
                or direct < _WINOGRAD_MIN_GAIN * p.macs):
            p = None
    if len(_winograd_plans) > 1024:
        _winograd_plans.clear()
    _winograd_plans[key] = p
    return p


def conv2d(x, w, geo, keep_cols=None):
    """Conv2D of NHWC `x` with [KH, KW, C, F] `w`. With `keep_cols` (a list), appends what the
    filter gradient may reuse: the patch matrix (whole or in batch chunks), Winograd's
    transformed input, or None."""
    plan = winograd_plan(geo, np.result_type(x, w), w.shape[2], w.shape[3])
    if plan is not None:
        return winograd.conv2d(x, w, plan, keep_cols)
    if use_tap_rectangles(geo, w.shape[2], w.shape[3]):
        if keep_cols is not None:
            keep_cols.append(None)
        return _conv2d_rect(x, w, geo)
    chunks = _patch_chunks(x, w.shape[:3], geo)
    if len(chunks) == 1:
        return conv2d_im2col(x, w, geo, keep_cols)
    kh, kw, c, f = w.shape
    filters = w.reshape(kh * kw * c, f)
    y = np.empty((geo.n, geo.oh, geo.ow, f), dtype=np.result_type(x, w))
    kept = _ChunkedPatches()
    for rows in chunks:
        cols = im2col(x[rows], geo)
        np.matmul(cols, filters, out=y[rows].reshape(-1, f))
        kept.append((rows, cols))
    if keep_cols is not None:
        keep_cols.append(kept)
    return y


class _ChunkedPatches(list):
    """A patch matrix kept as (batch slice, its rows of the matrix) pairs."""


def _patch_chunks(x, window_shape, geo):
    """Batch slices whose patch matrices (rows of KH*KW*C values, `window_shape`) stay under
    _PATCH_CHUNK_BYTES; one slice when the whole matrix does."""
    kh, kw, c = window_shape
    per_image = geo.oh * geo.ow * kh * kw * c * x.itemsize
    step = max(1, _PATCH_CHUNK_BYTES // max(per_image, 1))
    return [slice(i, min(i + step, geo.n)) for i in range(0, geo.n, step)] or [slice(0, geo.n)]


# Conv2DBackpropInput's GEMM dy [R, F] x w^T [F, KH*KW*C] (R = N*OH*OW rows of dy) runs as
# (w @ dy^T)^T for R up to _WEIGHTS_FIRST_MAX_ROWS: OpenBLAS is 1.4-2.5x faster in that
# orientation for a few rows (R = 16, 1 thread: 2592x384 weights 0.83 -> 0.43 ms, 768x192
# 0.12 -> 0.06 ms), even counting the transpose back. As col2im against the tap loop, 1 thread:
# R = 48 still wins (3x3 stride 2 128->128: 0.273 -> 0.248 ms), R = 64 ties (64->64: 0.122
# vs 0.125), R = 256 loses (0.32 vs 0.46). A col2im input gradient with at most
# _CHANNELS_FIRST_MAX_CHANNELS input channels adds its taps in [C, N, H, W] order: 3x3 3->32
# stride 2 on 96x96 0.39 -> 0.19 ms, 8 channels (on 64x64) 0.22 -> 0.17 ms; at 16 channels
# the tap loop is faster (0.27 vs 0.33 ms).
_WEIGHTS_FIRST_MAX_ROWS = 48
_CHANNELS_FIRST_MAX_CHANNELS = 8
_backprop_input_routes = {}


def conv2d_backprop_input(w, g, geo):
    """Conv2DBackpropInput: the input gradient of Conv2D, contiguous NHWC.

    The first of these that applies (InceptionV3's shapes at 96x96, 1 thread, ms per call
    before -> after this routing):
    - Winograd (see `winograd_plan`);
    - 1x1 unpadded: one GEMM, weights first for a few rows (`_backprop_input_1x1`; 768->192
      on 4x4: 0.12 -> 0.07);
    - tap rectangles, where a pass would add much into padding (`use_tap_rectangles`);
    - stride 1: the forward im2col convolution of the flipped filter (`_flipped_geometry`;
      5x5 48->64 on 9x9 'same' 0.26 -> 0.21, with the route cached);
    - up to _CHANNELS_FIRST_MAX_CHANNELS input channels: col2im adding in [C, N, H, W] order
      (3x3 3->32 stride 2 on 96x96: 0.39 -> 0.19);
    - up to _WEIGHTS_FIRST_MAX_ROWS rows of dy: col2im with the weights-first GEMM (3x3
      288->384 stride 2 on 9x9: 0.89 -> 0.50; 96->96: 0.113 -> 0.080);
    - else one GEMM and one strided add per tap (`conv2d_backprop_input_taps`): col2im ties
      with it there (64->64 stride 2, 256 rows: 0.313 vs 0.319) and would need an
      [R, KH*KW*C] buffer.
    """
    kind, detail = _backprop_input_route(w, g, geo)
    if kind == "winograd":
        return winograd.conv2d_backprop_input(w, g, detail)
    if kind == "1x1":
        return _backprop_input_1x1(w, g, geo)
    if kind == "rect":
        return _backprop_input_rect(w, g, geo)
    if kind == "flipped":
        flipped, plain = detail
        wf = np.ascontiguousarray(w[::-1, ::-1].transpose(0, 1, 3, 2))
        return conv2d_im2col(g, wf, flipped) if plain else conv2d(g, wf, flipped)
    if kind == "col2im":
        return _backprop_input_col2im(w, g, geo, **detail)
    return conv2d_backprop_input_taps(w, g, geo)


def _backprop_input_route(w, g, geo):
    """(kind, detail): how conv2d_backprop_input computes this problem, cached per geometry,
    dtype and tuning constants (deciding walks every filter tap in Python: 0.02 ms for a 5x5
    filter, twice for a flipped one, against 0.21 ms for the whole gradient)."""
    dtype = np.result_type(w, g)
    key = (geo.n, geo.h, geo.w, geo.kh, geo.kw, geo.sh, geo.sw, geo.dh, geo.dw, geo.pt, geo.pb,
           geo.pl, geo.pr, w.shape[2], w.shape[3], dtype, _TAP_RECTANGLE_MAX_SHARE,
           _TAP_RECTANGLE_MAX_SHARE_STRIDED_INPUT_GRAD, _TAP_RECTANGLE_MIN_CHANNELS, _PATCH_CHUNK_BYTES,
           _WEIGHTS_FIRST_MAX_ROWS, _CHANNELS_FIRST_MAX_CHANNELS, id(_winograd_plans), use_tap_rectangles,
           winograd_plan)
    route = _backprop_input_routes.get(key)
    if route is None:
        route = _choose_backprop_input_route(geo, dtype, w.shape[2], w.shape[3])
        if len(_backprop_input_routes) > 1024:
            _backprop_input_routes.clear()
        _backprop_input_routes[key] = route
    return route


def _choose_backprop_input_route(geo, dtype, c, f):
    """The route of `conv2d_backprop_input` (see there), uncached."""
    plan = winograd_plan(geo, dtype, c, f)
    if plan is not None:
        return "winograd", plan
    if (geo.kh, geo.kw) == (1, 1) and not geo.has_pad:
        return "1x1", None
    if use_tap_rectangles(geo, c, f, input_gradient=True):
        return "rect", None
    flipped = _flipped_geometry(geo, f)
    if flipped is not None:  # plain: conv2d would take its one-matrix im2col path
        plain = (winograd_plan(flipped, dtype, f, c) is None and not use_tap_rectangles(flipped, f, c)
                 and len(_patch_chunks(np.empty(0, dtype), (geo.kh, geo.kw, f), flipped)) == 1)
        return "flipped", (flipped, plain)
    if c <= _CHANNELS_FIRST_MAX_CHANNELS:
        return "col2im", {"channels_first": True}
    if _weights_first(geo.n * geo.oh * geo.ow):
        return "col2im", {"weights_first": True}
    return "taps", None


def _weights_first(rows):
    """Whether a GEMM with `rows` rows of dy runs faster as (w @ dy^T)^T."""
    return rows <= _WEIGHTS_FIRST_MAX_ROWS


def _backprop_input_col2im(w, g, geo, **how):
    """`conv2d_backprop_input_col2im`, batch chunk by batch chunk when its [R, KH*KW*C] matrix
    would pass _PATCH_CHUNK_BYTES."""
    chunks = _patch_chunks(g, w.shape[:3], geo)
    if len(chunks) == 1:
        return conv2d_backprop_input_col2im(w, g, geo, **how)
    dx = np.empty((geo.n, geo.h, geo.w, w.shape[2]), dtype=np.result_type(w, g))
    for rows in chunks:
        dx[rows] = conv2d_backprop_input_col2im(w, g[rows], geo, **how)
    return dx


def _backprop_input_1x1(w, g, geo):
    """A 1x1 convolution's input gradient: dy @ w^T (computed as (w @ dy^T)^T for a few rows),
    placed on the strided grid."""
    f = g.shape[3]
    g2 = g.reshape(-1, f)
    rows = np.ascontiguousarray((w[0, 0] @ g2.T).T) if _weights_first(g2.shape[0]) else g2 @ w[0, 0].T
    if (geo.sh, geo.sw) == (1, 1):
        return rows.reshape(geo.n, geo.h, geo.w, -1)
    dx = np.zeros((geo.n, geo.h, geo.w, w.shape[2]), dtype=rows.dtype)
    dx[:, ::geo.sh, ::geo.sw] = rows.reshape(geo.n, geo.oh, geo.ow, -1)
    return dx


def _flipped_geometry(geo, f):
    """The geometry of the forward convolution that computes a stride-1 input gradient:
    dx = conv(dy, w flipped in space, in/out swapped) with padding (k - 1)*d - p on each side
    (one patch matrix and one GEMM instead of a GEMM and a strided add per tap: InceptionV3's
    5x5 48->64 on 9x9, 0.34 -> 0.23 ms). None where it does not apply."""
    if (geo.sh, geo.sw) != (1, 1):
        return None
    pads = ((geo.kh - 1) * geo.dh - geo.pt, (geo.kh - 1) * geo.dh - geo.pb,
            (geo.kw - 1) * geo.dw - geo.pl, (geo.kw - 1) * geo.dw - geo.pr)
    if min(pads) < 0:
        return None
    flipped = copy.copy(geo)
    flipped.h, flipped.w, flipped.c, flipped.oh, flipped.ow = geo.oh, geo.ow, f, geo.h, geo.w
    flipped.pt, flipped.pb, flipped.pl, flipped.pr = pads
    return flipped


def conv2d_backprop_filter(x, g, geo, cols=None):
    """Conv2DBackpropFilter: [KH, KW, C, F], reusing the forward's patch matrix (or Winograd's
    transformed input) when given."""
    if isinstance(cols, winograd.WinogradInputs):
        return winograd.conv2d_backprop_filter(x, g, cols.plan, cols)
    if cols is None:
        plan = winograd_plan(geo, np.result_type(x, g), x.shape[3], g.shape[-1])
        if plan is not None:
            return winograd.conv2d_backprop_filter(x, g, plan)
    if cols is None and use_tap_rectangles(geo, x.shape[3], g.shape[-1]):
        return _backprop_filter_rect(x, g, geo)
    f = g.shape[-1]
    if cols is None:
        chunks = _patch_chunks(x, (geo.kh, geo.kw, x.shape[3]), geo)
        if len(chunks) == 1:
            return conv2d_backprop_filter_im2col(x, g, geo)
        parts = ((rows, im2col(x[rows], geo)) for rows in chunks)  # one chunk in memory at a time
    elif isinstance(cols, _ChunkedPatches):
        parts = cols
    else:
        return conv2d_backprop_filter_im2col(x, g, geo, cols)
    dw = None
    for rows, part in parts:  # sum of patches^T @ dy over the batch chunks
        term = part.T @ g[rows].reshape(-1, f)
        dw = term if dw is None else np.add(dw, term, out=dw)
    return dw.reshape(geo.kh, geo.kw, x.shape[3], f)


# -- convolution tap by tap on the valid rectangles (no padded zeros multiplied) --------------
# Arrays are moved to [H, W, N, C] order first: with the batch inside each position, the
# positions of any rectangle form a stack of contiguous matrices, one per row, so each tap is
# one batched GEMM on a view. A strided convolution is split into stride-1 problems on the
# phase sub-grids x[i::sh, j::sw], each made contiguous once.

def _hwnc(v):
    """A contiguous [H, W, N, C] copy of an [N, H, W, C] array."""
    return np.ascontiguousarray(v.transpose(1, 2, 0, 3))


def _nhwc_from(vt):
    """The contiguous [N, H, W, C] array of an [H, W, N, C] one."""
    return np.ascontiguousarray(vt.transpose(2, 0, 1, 3))


class _PhaseGrids:
    """The phase sub-grids of an HWNC array, each made contiguous when first asked for."""

    def __init__(self, vt, geo):
        self.vt, self.geo, self.grids = vt, geo, {}

    def rect(self, phase, rows, cols, shift):
        """Rows x cols of the phase's sub-grid, moved by `shift`, as a [rows, cols*N, C] view."""
        grid = self.grids.get(phase)
        if grid is None:
            grid = self.vt
            if (self.geo.sh, self.geo.sw) != (1, 1):
                grid = np.ascontiguousarray(grid[phase[0]::self.geo.sh, phase[1]::self.geo.sw])
            self.grids[phase] = grid
        return _out_rect(grid, slice(rows.start + shift[0], rows.stop + shift[0]),
                         slice(cols.start + shift[1], cols.stop + shift[1]))


def _out_rect(vt, rows, cols):
    """Rows x cols of an HWNC array as a [rows, cols*N, C] view."""
    block = vt[rows, cols]
    return block.reshape(block.shape[0], -1, block.shape[3])


def _conv2d_rect(x, w, geo):
    """Conv2D where each tap multiplies only the inputs it reads inside the unpadded image."""
    grids = _PhaseGrids(_hwnc(x), geo)
    yt = np.zeros((geo.oh, geo.ow, geo.n, w.shape[3]), dtype=x.dtype)
    for a, b, rows, cols, phase, shift in tap_rectangles(geo):
        target = yt[rows, cols]
        target += np.matmul(grids.rect(phase, rows, cols, shift), w[a, b]).reshape(target.shape)
    return _nhwc_from(yt)


def _backprop_input_rect(w, g, geo):
    """Conv2DBackpropInput by tap rectangles: each tap's output gradient lands on its inputs."""
    gt = _hwnc(g)
    dxt = np.zeros((geo.h, geo.w, geo.n, w.shape[2]), dtype=g.dtype)
    strided = (geo.sh, geo.sw) != (1, 1)
    grids = {}  # phase -> its gradient sub-grid (dxt itself when not strided)
    for a, b, rows, cols, phase, shift in tap_rectangles(geo):
        grid = grids.get(phase)
        if grid is None:
            grid = grids[phase] = np.zeros_like(dxt[phase[0]::geo.sh, phase[1]::geo.sw]) if strided else dxt
        target = grid[rows.start + shift[0]:rows.stop + shift[0], cols.start + shift[1]:cols.stop + shift[1]]
        target += np.matmul(_out_rect(gt, rows, cols), w[a, b].T).reshape(target.shape)
    if strided:
        for phase, grid in grids.items():
            dxt[phase[0]::geo.sh, phase[1]::geo.sw] = grid
    return _nhwc_from(dxt)


def _backprop_filter_rect(x, g, geo):
    """Conv2DBackpropFilter by tap rectangles: dw[a, b] = inputs read by the tap ^T @ dy there."""
    grids, gt = _PhaseGrids(_hwnc(x), geo), _hwnc(g)
    dw = np.zeros((geo.kh, geo.kw, x.shape[3], g.shape[3]), dtype=x.dtype)
    for a, b, rows, cols, phase, shift in tap_rectangles(geo):
        inputs = grids.rect(phase, rows, cols, shift)
        dw[a, b] = np.matmul(inputs.transpose(0, 2, 1), _out_rect(gt, rows, cols)).sum(axis=0)
    return dw


# -- optimizer updates: cache blocks over a few threads ---------------------------------------

# Bytes per array in a block: the 5-6 arrays of one block stay in a 2 MiB L2 cache through all
# the passes (64k float32 elements; measured fastest for the MLP benchmark).
BLOCK_BYTES = 1 << 18
# A step goes to the worker pool when its blocks of at least an eighth of a block's elements
# (smaller ones are mostly Python overhead, which threads do not share) hold more than
# _PARALLEL_MIN_BLOCKS - 1 blocks' worth: one variable of 4 blocks or more, or many mid-sized ones.
_PARALLEL_MIN_BLOCKS = 4
_scratch = threading.local()  # per thread: {dtype: a flat block-sized scratch buffer}


def _blocks(arrays):
    """Lists of matching flat blocks of same-shaped arrays (the whole arrays when small or when
    an array that is written is not contiguous). arrays[0] is only read."""
    first, second = arrays[0], arrays[1]
    step = BLOCK_BYTES // second.itemsize
    if first.size <= step or not all(a.flags.c_contiguous for a in arrays[1:]):
        return [arrays]
    flat = [np.ascontiguousarray(first).reshape(-1)] + [a.reshape(-1) for a in arrays[1:]]
    return [[a[start:start + step] for a in flat] for start in range(0, first.size, step)]


def _share(items, run, parallel):
    """Call `run(item)` for every item; with `parallel`, on minitf's worker pool too.

    numpy's ufuncs release the GIL, so the threads take the next item from one queue, the calling
    thread too, and workers that have not started when the caller runs out of items are
    cancelled: on a busy machine a descheduled worker costs its last item at most, never a time
    slice of waiting. The items are disjoint and each is computed exactly as on one thread, so
    the result does not depend on which thread ran which item.
    """
    shared = threads.worker_pool() if parallel else None
    if shared is None:
        for item in items:
            run(item)
        return
    pool, workers = shared
    queue = iter(items)  # next() on a list iterator is atomic under the GIL

    def drain():
        for item in queue:
            run(item)
    pending = [pool.submit(drain) for _ in range(workers)]
    drain()
    for future in pending:
        if not future.cancel():  # started: wait for its item
            future.result()


def map_blocks(kernel, arrays):
    """Run `kernel(*block)` over every block of `arrays` (see `_blocks`), shared out over
    minitf's worker pool when there are at least _PARALLEL_MIN_BLOCKS blocks."""
    blocks = _blocks(arrays)
    _share(blocks, lambda block: kernel(*block), len(blocks) >= _PARALLEL_MIN_BLOCKS)


def _scratch_for(block, buffers):
    """A scratch array shaped like `block`: a view into the thread's block-sized buffer of its
    dtype (`buffers`, from `_thread_buffers`)."""
    buf = buffers.get(block.dtype)
    if buf is None:
        buf = buffers[block.dtype] = np.empty(BLOCK_BYTES // block.itemsize, dtype=block.dtype)
    if block.size > buf.size:
        return np.empty_like(block)  # a whole array that could not be cut into blocks: rare
    return buf[:block.size].reshape(block.shape)


def _thread_buffers():
    buffers = getattr(_scratch, "buffers", None)
    if buffers is None:
        buffers = _scratch.buffers = {}
    return buffers


def update_variables(rule, entries, constants):
    """One optimizer step in place: `rule(np, g, w, s, slots, **constants)` (see
    `minitf.optimizers.rules`) over every (g, w, slots) of `entries`, `g` read only, `w` and the
    slot arrays written, distinct arrays in every entry.

    The arrays run in cache-sized flat blocks, each with a scratch block of its thread's, and the
    blocks of all the entries are shared out over minitf's worker pool when there is enough work.
    The CPU thread count follows other processes' load (`threads.adapt_to_load`): re-measured
    here, once per step."""
    threads.adapt_to_load()
    rule = _compiled_rule(rule, entries, constants)
    items, work, small = [], 0, BLOCK_BYTES // 8
    for g, w, slots in entries:
        if g.size * w.itemsize <= BLOCK_BYTES:  # one block: the arrays as they are
            items.append((g, w, slots))
            if w.nbytes >= small:
                work += w.nbytes
            continue
        names = tuple(slots)
        for g_block, w_block, *slot_blocks in _blocks([g, w, *slots.values()]):
            items.append((g_block, w_block, dict(zip(names, slot_blocks))))
            if w_block.nbytes >= small:
                work += w_block.nbytes
    if work <= (_PARALLEL_MIN_BLOCKS - 1) * BLOCK_BYTES:
        buffers = _thread_buffers()
        for g, w, slots in items:
            rule(np, g, w, _scratch_for(w, buffers), slots, **constants)
        return

    def run(item):
        g, w, slots = item
        rule(np, g, w, _scratch_for(w, _thread_buffers()), slots, **constants)
    _share(items, run, True)


def _compiled_rule(rule, entries, constants):
    """Adam (not AMSGrad) as one compiled loop per block (numba, when installed) instead of its
    twelve numpy passes, when every array is float32 or float64 of one dtype and the written ones
    are C-contiguous: the same operations in the same order, in the arrays' own precision (the
    constants are cast to it, as numpy casts a Python float against a float32 array). Else
    `rule` itself."""
    if getattr(rule, "__module__", None) != "minitf.optimizers.rules" or rule.__name__ != "adam" or \
            not entries or not jit.available():
        return rule
    dtype = entries[0][1].dtype
    if dtype not in (np.float32, np.float64) or set(constants) != {"alpha", "one_minus_b1", "one_minus_b2", "epsilon"}:
        return rule
    if not all(type(c) in (float, int) or getattr(c, "dtype", None) == dtype for c in constants.values()):
        return rule  # a float64 numpy constant would make numpy compute in float64
    for g, w, slots in entries:
        if set(slots) != {"m", "v"} or g.dtype != dtype or w.dtype != dtype or \
                not all(a.dtype == dtype and a.flags.c_contiguous for a in (w, slots["m"], slots["v"])):
            return rule
    if not _rule_loops:
        _rule_loops.append(jit.compiled(_adam_loop))
    loop, kind = _rule_loops[0], dtype.type
    cast = {name: kind(value) for name, value in constants.items()}

    def adam(xp, g, w, s, slots, alpha, one_minus_b1, one_minus_b2, epsilon):
        loop(g.reshape(-1), w.reshape(-1), slots["m"].reshape(-1), slots["v"].reshape(-1),
             cast["alpha"], cast["one_minus_b1"], cast["one_minus_b2"], cast["epsilon"])
    return adam


_rule_loops = []


def _adam_loop(g, w, m, v, alpha, one_minus_b1, one_minus_b2, epsilon):
    """`minitf.optimizers.rules.adam` without AMSGrad, one element at a time (numba)."""
    for i in range(w.shape[0]):
        s = (g[i] - m[i]) * one_minus_b1
        m[i] = m[i] + s
        s = (g[i] * g[i] - v[i]) * one_minus_b2
        v[i] = v[i] + s
        s = m[i] / (np.sqrt(v[i]) + epsilon)
        w[i] = w[i] - s * alpha


def argsort_stable(v, axis=-1):
    """Indices that sort `v` along `axis`, equal values keeping their order."""
    return np.argsort(v, axis=axis, kind="stable")


# numpy's maximum against a scalar runs a loop ~2.5x slower than against an array (float32,
# 130k elements, 1 thread: 49 us, against 18 us for rows of _ZERO_ROW_MAX or fewer elements
# compared with one zero row); from _ZERO_ROW_MIN elements on, relu takes the rows.
_ZERO_ROW_MIN = 1024
_ZERO_ROW_MAX = 8192


def relu(v):
    """max(v, 0) elementwise, bit for bit numpy.maximum(v, 0) (NaN stays, -0.0 gives 0.0)."""
    row = _zero_row_length(v.size) if v.dtype.kind == "f" else 0
    if not row:
        return np.maximum(v, 0)
    return np.maximum(v.reshape(-1, row), _zero_row(row, v.dtype)).reshape(v.shape)


@functools.lru_cache(maxsize=256)
def _zero_row_length(size):
    """The longest row, of _ZERO_ROW_MIN to _ZERO_ROW_MAX elements, that `size` elements split
    into evenly; 0 when none does."""
    for row in range(min(size, _ZERO_ROW_MAX), _ZERO_ROW_MIN - 1, -1):
        if size % row == 0:
            return row
    return 0


@functools.lru_cache(maxsize=16)
def _zero_row(length, dtype):
    row = np.zeros(length, dtype)
    row.flags.writeable = False  # shared by every call
    return row


# numpy.where branches per element: on a random mask (a Dropout's) it runs at ~4 ns a value,
# against ~0.4 ns for numba's branch-free loop (802,816 float32 values: 3.4 -> 0.4 ms).
_SELECT_LOOP_MIN = 4096
_select_loops = []


def select(cond, x, y):
    """numpy.where(cond, x, y): one compiled loop (numba, when installed) for a large bool
    `cond` and numeric `x` of its shape, and `y` of its shape or a single value (a Dropout's
    zero), of one dtype, all C-contiguous."""
    y_fits = y.shape == x.shape or (y.size == 1 and y.ndim <= x.ndim)  # else numpy broadcasts
    if cond.size >= _SELECT_LOOP_MIN and cond.shape == x.shape and y_fits and x.dtype == y.dtype and \
            x.dtype.kind in "fiu" and cond.dtype == np.bool_ and cond.flags.c_contiguous and \
            x.flags.c_contiguous and y.flags.c_contiguous and jit.available():
        if not _select_loops:
            _select_loops.append(jit.compiled(_select_loop))
            _select_loops.append(jit.compiled(_select_value_loop))
        out = np.empty(x.shape, x.dtype)
        if y.shape == x.shape:
            _select_loops[0](cond.reshape(-1), x.reshape(-1), y.reshape(-1), out.reshape(-1))
        else:
            _select_loops[1](cond.reshape(-1), x.reshape(-1), y.reshape(-1)[0], out.reshape(-1))
        return out
    return np.where(cond, x, y)


def _select_loop(cond, x, y, out):
    for i in range(out.shape[0]):
        out[i] = x[i] if cond[i] else y[i]


def _select_value_loop(cond, x, y, out):
    for i in range(out.shape[0]):
        out[i] = x[i] if cond[i] else y


def sigmoid(v):
    """1 / (1 + e^-v) without overflow (e^-|v| never overflows)."""
    e = np.exp(-np.abs(v))
    return np.where(v >= 0, 1 / (1 + e), e / (1 + e)).astype(v.dtype)


def sigmoid_grad(y, g):
    """g * y * (1 - y): the sigmoid's gradient from its output `y`."""
    return g * y * (1 - y)


def tanh_grad(y, g):
    """g * (1 - y^2): tanh's gradient from its output `y`."""
    return g * (1 - y * y)


def scatter_at(buf, indices, values, how):
    """`numpy.<how>.at(buf, indices, values)`: an unbuffered scatter in place (repeated indices
    all apply)."""
    getattr(np, how).at(buf, indices, values)


conv2d = half_through_float32(conv2d)
conv2d_backprop_input = half_through_float32(conv2d_backprop_input)
conv2d_backprop_filter = half_through_float32(conv2d_backprop_filter)
depthwise_conv2d = half_through_float32(depthwise_conv2d)
depthwise_backprop_input = half_through_float32(depthwise_backprop_input)
depthwise_backprop_filter = half_through_float32(depthwise_backprop_filter)
