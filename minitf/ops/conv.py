"""Convolution and pooling (tf.nn): conv1d/conv2d, transposed and depthwise convolution, pools.

Layout is NHWC (NCHW inputs are transposed to NHWC and back). Convolution is im2col on a strided
view of the padded input plus one BLAS GEMM; on the CPU, passes that would mostly multiply
padding compute each filter tap on its valid rectangle instead (see `_Geometry.use_tap_rectangles`).
The three linear maps of a convolution,
    Conv2D(x, w) -> y,  Conv2DBackpropInput(w, dy) -> dx,  Conv2DBackpropFilter(x, dy) -> dw,
are adjoint pieces of one trilinear form <conv(x, w), dy>, so each one's gradient is built from
the other two: any order of derivative works with no extra code. Depthwise convolution and the
pools follow the same pattern.
"""
import numpy as np  # Python-side bookkeeping only (shapes, padding arithmetic)

from minitf import errors
from minitf.ops._core import Tensor, _state, record, array_module, as_tensor

__all__ = [
    "conv1d", "conv2d", "conv2d_transpose", "conv1d_transpose", "depthwise_conv2d",
    "separable_conv2d", "convolution", "max_pool2d", "avg_pool2d", "max_pool", "avg_pool",
    "max_pool1d", "avg_pool1d", "pool",
]


# -- argument normalization -------------------------------------------------------------------

def _spatial_pair(value, name, op_name, rank=4, data_format="NHWC"):
    """TF's int / [v] / [h, w] / 4-list forms of strides, ksize or dilations -> (h, w)."""
    if isinstance(value, Tensor):
        value = value.numpy().tolist()
    if isinstance(value, (int, np.integer)):
        return int(value), int(value)
    value = [int(v) for v in value]
    if len(value) == 1:
        return value[0], value[0]
    if len(value) == 2:
        return value[0], value[1]
    if len(value) == 4:
        batch, chan = (value[0], value[3]) if data_format == "NHWC" else (value[0], value[1])
        h, w = (value[1], value[2]) if data_format == "NHWC" else (value[2], value[3])
        if batch != 1 or chan != 1:
            raise errors.UnimplementedError(
                None, None, f"Current implementation does not yet support {name} in the batch and "
                            f"depth dimensions (got {name}={value}). [Op:{op_name}]")
        return h, w
    raise ValueError(f"{op_name}: {name} should be an int or a list of 1, 2 or 4 ints, got {value}")


def _check_format(data_format, op_name, allowed=("NHWC", "NCHW")):
    if data_format is None:
        return allowed[0]
    if data_format not in allowed:
        raise ValueError(f"{op_name}: data_format must be one of {allowed}, got {data_format!r}")
    return data_format


def _out_and_pads(size, k, stride, dilation, padding, axis_pads, op_name, allow_empty=False):
    """Output length and (before, after) padding of one spatial axis, with TF's arithmetic.

    With `allow_empty` (pooling), a window that overhangs the input by less than two strides
    gives an empty axis, as TF's (size - k + stride) / stride in C integer division does.
    """
    eff_k = (k - 1) * dilation + 1
    if padding == "SAME":
        out = -(-size // stride)
        total = max((out - 1) * stride + eff_k - size, 0)
        return out, total // 2, total - total // 2
    if padding == "VALID":
        before = after = 0
    else:
        before, after = axis_pads
    if allow_empty:
        span = size + before + after - eff_k + stride
        out = span // stride if span >= 0 else -(-span // stride)  # truncates toward 0, as C
        if out < 0:
            raise errors.invalid_argument(
                op_name, f"Computed output size would be negative: {out} [input_size: {size}, "
                         f"effective_filter_size: {eff_k}, stride: {stride}]; use a window no "
                         "larger than the input or padding='SAME'")
        return out, before, after
    out = (size + before + after - eff_k) // stride + 1
    if out <= 0:
        raise errors.invalid_argument(
            op_name, f"Computed output size would be negative: {out} [input_size: {size}, "
                     f"effective_filter_size: {eff_k}, stride: {stride}]")
    return out, before, after


def _normalize_padding(padding, op_name, data_format="NHWC", allow_explicit=True):
    """'SAME' / 'VALID', or explicit [[0,0],[t,b],[l,r],[0,0]] -> ((t,b),(l,r))."""
    if isinstance(padding, str):
        # tf.nn ops are case-sensitive (only Keras layers take 'same'/'valid')
        if padding not in ("SAME", "VALID"):
            raise errors.invalid_argument(
                op_name, f"Value for attr 'padding' of \"{padding}\" is not in the list of allowed values: "
                         f"\"SAME\", \"VALID\", \"EXPLICIT\"; tf.nn ops take upper-case 'SAME' or 'VALID'")
        return padding, None
    if not allow_explicit or not isinstance(padding, (list, tuple)):
        raise TypeError(f"{op_name}: expected string for argument 'padding', not {padding!r}")
    pads = [[int(a), int(b)] for a, b in padding]
    if len(pads) != 4:
        raise ValueError(f"{op_name}: explicit padding needs 4 [before, after] pairs, got {padding}")
    batch_chan = (pads[0], pads[3]) if data_format == "NHWC" else (pads[0], pads[1])
    if any(v != 0 for pair in batch_chan for v in pair):
        raise errors.invalid_argument(op_name, f"explicit padding in the batch or depth dimensions "
                                               f"is not supported, got {padding}")
    if any(v < 0 for pair in pads for v in pair):
        raise errors.invalid_argument(op_name, f"explicit padding must be non-negative, got {padding}")
    hw = (pads[1], pads[2]) if data_format == "NHWC" else (pads[2], pads[3])
    return "EXPLICIT", (tuple(hw[0]), tuple(hw[1]))


# When the tap-rectangle path replaces im2col (see _Geometry.use_tap_rectangles); measured on 2
# cores with 64-256 channels. At 64% real reads the rectangles are 1.2-1.5x faster in all three
# passes; at 84% (5x5 'same', stride 2, 14x14) only the input gradient gains (1.2x), and the
# forward loses the patch matrix its filter gradient would reuse.
_TAP_RECTANGLE_MAX_SHARE = 0.75
_TAP_RECTANGLE_MAX_SHARE_STRIDED_INPUT_GRAD = 0.95
_TAP_RECTANGLE_MIN_CHANNELS = 16


class _Geometry:
    """Everything about one 2-D window op that does not depend on the values."""
    __slots__ = ("n", "h", "w", "c", "kh", "kw", "sh", "sw", "dh", "dw", "oh", "ow",
                 "pt", "pb", "pl", "pr")

    def __init__(self, in_shape, kh, kw, strides, dilations, padding, explicit, op_name,
                 allow_empty=False):
        self.n, self.h, self.w, self.c = in_shape
        self.kh, self.kw = kh, kw
        self.sh, self.sw = strides
        self.dh, self.dw = dilations
        ex = explicit or (None, None)
        self.oh, self.pt, self.pb = _out_and_pads(self.h, kh, self.sh, self.dh, padding, ex[0],
                                                  op_name, allow_empty)
        self.ow, self.pl, self.pr = _out_and_pads(self.w, kw, self.sw, self.dw, padding, ex[1],
                                                  op_name, allow_empty)

    @property
    def padded(self):
        return self.h + self.pt + self.pb, self.w + self.pl + self.pr

    @property
    def has_pad(self):
        return bool(self.pt or self.pb or self.pl or self.pr)

    def tap_slice(self, a, b):
        """Index of the input rows/columns that filter tap (a, b) reads, in the padded input."""
        r0, c0 = a * self.dh, b * self.dw
        # max(.., 0): an empty output axis (pooling) reads nothing, not a slice to -1
        return (slice(None), slice(r0, r0 + max((self.oh - 1) * self.sh + 1, 0), self.sh),
                slice(c0, c0 + max((self.ow - 1) * self.sw + 1, 0), self.sw))

    def taps(self):
        for a in range(self.kh):
            for b in range(self.kw):
                yield a, b, self.tap_slice(a, b)

    @staticmethod
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

    def tap_rectangles(self):
        """(a, b, out_rows, out_cols, phase, shift) of every filter tap that reads any unpadded
        input. Tap (a, b) maps output (q, r), for q in out_rows and r in out_cols, to element
        (q + shift[0], r + shift[1]) of the phase sub-grid x[phase[0]::sh, phase[1]::sw]; all
        its other reads are padding."""
        for a in range(self.kh):
            pa, da, q0, q1 = self._tap_reach(a, self.dh, self.pt, self.sh, self.h, self.oh)
            for b in range(self.kw):
                pb, db, r0, r1 = self._tap_reach(b, self.dw, self.pl, self.sw, self.w, self.ow)
                if q0 < q1 and r0 < r1:
                    yield a, b, slice(q0, q1), slice(r0, r1), (pa, pb), (da, db)

    def _real_read_share(self):
        """The share of the filter's reads, over all outputs, that land inside the image."""
        valid = sum((q.stop - q.start) * (r.stop - r.start) for _, _, q, r, _, _ in self.tap_rectangles())
        return valid / (self.kh * self.kw * self.oh * self.ow)

    def use_tap_rectangles(self, in_channels, out_channels, input_gradient=False):
        """Whether a pass should compute each tap on its valid rectangle instead of im2col.

        im2col multiplies every padded zero: on small maps with large filters (the DCGAN
        generator's 5x5 'same' convolution at 7x7 reads 36% zeros) the rectangles win despite
        their smaller GEMMs. The input gradient of a strided convolution gains even at a few
        percent of padding, since it adds each tap into a dense phase grid instead of a strided
        view. Few channels make the per-tap GEMMs too thin, so those keep im2col.
        """
        if not self.has_pad or min(in_channels, out_channels) < _TAP_RECTANGLE_MIN_CHANNELS:
            return False
        strided = (self.sh, self.sw) != (1, 1)
        limit = _TAP_RECTANGLE_MAX_SHARE_STRIDED_INPUT_GRAD if input_gradient and strided else \
            _TAP_RECTANGLE_MAX_SHARE
        return self._real_read_share() < limit


def _pad(v, geo, fill=0):
    """The input padded as the geometry says (a fresh buffer; `v` itself when no padding)."""
    if not geo.has_pad:
        return v
    xp = array_module(v)
    hp, wp = geo.padded
    out = xp.full((v.shape[0], hp, wp, v.shape[3]), fill, dtype=v.dtype)
    out[:, geo.pt:geo.pt + geo.h, geo.pl:geo.pl + geo.w] = v
    return out


def _unpad(v, geo):
    if not geo.has_pad:
        return v
    return v[:, geo.pt:geo.pt + geo.h, geo.pl:geo.pl + geo.w]


def _windows(vpad, geo):
    """A strided view [N, OH, OW, KH, KW, C] of every window of the padded input (no copy)."""
    xp = array_module(vpad)
    s = vpad.strides
    shape = (vpad.shape[0], geo.oh, geo.ow, geo.kh, geo.kw, vpad.shape[3])
    strides = (s[0], s[1] * geo.sh, s[2] * geo.sw, s[1] * geo.dh, s[2] * geo.dw, s[3])
    return xp.lib.stride_tricks.as_strided(vpad, shape=shape, strides=strides)


def _im2col(x, geo):
    """[N*OH*OW, KH*KW*C] patch matrix: one copy out of the strided window view."""
    xpad = _pad(x, geo)
    return _windows(xpad, geo).reshape(geo.n * geo.oh * geo.ow, geo.kh * geo.kw * xpad.shape[3])


def _nhwc(x, data_format):
    from minitf.ops.array import transpose
    return x if data_format == "NHWC" else transpose(x, [0, 2, 3, 1])


def _from_nhwc(y, data_format):
    from minitf.ops.array import transpose
    return y if data_format == "NHWC" else transpose(y, [0, 3, 1, 2])


def _check_rank(x, rank, op_name, what="input"):
    if x._value.ndim != rank:
        raise ValueError(f"{op_name}: {what} must be {rank}-D, got shape {list(x.shape)}")


def _check_float_same(x, w, op_name, allow_int32=False):
    if x._value.dtype != w._value.dtype:
        raise errors.invalid_argument(
            op_name, f"input is {x.dtype.name} but filter is {w.dtype.name}; cast one with tf.cast")
    if x._value.dtype.kind != "f" and not (allow_int32 and x.dtype.name == "int32"):
        _not_allowed(x, op_name, "half, bfloat16, float, double" + (", int32" if allow_int32 else ""))


def _not_allowed(x, op_name, allowed):
    """TF's attr check: InvalidArgumentError for a dtype the op does not take."""
    raise errors.invalid_argument(
        op_name, f"Value for attr 'T' of {x.dtype.name} is not in the list of allowed values: {allowed}; "
                 f"cast the input with tf.cast(x, tf.float32)")


# -- Conv2D and its two adjoints ----------------------------------------------------------------

def _conv2d_raw(x, w, geo, keep_cols=None):
    if _on_cpu(x) and geo.use_tap_rectangles(w.shape[2], w.shape[3]):
        if keep_cols is not None:
            keep_cols.append(None)
        return _conv2d_rect(x, w, geo)
    cols = _im2col(x, geo)
    kh, kw, c, f = w.shape
    y = cols @ w.reshape(kh * kw * c, f)
    if keep_cols is not None:
        keep_cols.append(cols)
    return y.reshape(geo.n, geo.oh, geo.ow, f)


def _conv2d_nhwc(x, w, geo):
    """Conv2D on NHWC tensors with a precomputed geometry; records its gradient."""
    cache = [] if _state.active else None
    y = Tensor(_conv2d_raw(x._value, w._value, geo, cache))
    if _state.active:
        def grad(g):
            return (lambda: _conv2d_backprop_input(w, g, geo),
                    lambda: _conv2d_backprop_filter(x, g, geo, cache[0]))
        record("Conv2D", (x, w), (y,), grad)
    return y


def _backprop_input_raw(w, g, geo):
    """dx = sum over taps of dy @ w[a, b]^T, accumulated in place into a padded buffer."""
    if _on_cpu(g) and geo.use_tap_rectangles(w.shape[2], w.shape[3], input_gradient=True):
        return _backprop_input_rect(w, g, geo)
    xp = array_module(g)
    kh, kw, c, f = w.shape
    hp, wp = geo.padded
    dx = xp.zeros((geo.n, hp, wp, c), dtype=g.dtype)
    g2 = g.reshape(-1, f)
    tmp = xp.empty((g2.shape[0], c), dtype=g.dtype)
    for a, b, idx in geo.taps():
        xp.matmul(g2, w[a, b].T, out=tmp)
        dx[idx] += tmp.reshape(geo.n, geo.oh, geo.ow, c)
    return _unpad(dx, geo)


def _conv2d_backprop_input(w, g, geo):
    """Conv2DBackpropInput: the input gradient of Conv2D (also conv2d_transpose's forward)."""
    dx = Tensor(xp_contig(_backprop_input_raw(w._value, g._value, geo)))
    if _state.active:
        def grad(u):
            return (lambda: _conv2d_backprop_filter(u, g, geo),
                    lambda: _conv2d_nhwc(u, w, geo))
        record("Conv2DBackpropInput", (w, g), (dx,), grad)
    return dx


def xp_contig(v):
    """A C-contiguous array (GEMM and strided views want one)."""
    return array_module(v).ascontiguousarray(v)


def _conv2d_backprop_filter(x, g, geo, cols=None):
    """Conv2DBackpropFilter: patches^T @ dy, reusing the forward's patch matrix when given."""
    f = g._value.shape[-1]
    if cols is None and _on_cpu(x._value) and geo.use_tap_rectangles(x._value.shape[3], f):
        dw = _backprop_filter_rect(x._value, g._value, geo)
    else:
        if cols is None:
            cols = _im2col(x._value, geo)
        dw = cols.T @ g._value.reshape(-1, f)
    dw = Tensor(dw.reshape(geo.kh, geo.kw, x._value.shape[3], f))
    if _state.active:
        def grad(v):
            return (lambda: _conv2d_backprop_input(v, g, geo),
                    lambda: _conv2d_nhwc(x, v, geo))
        record("Conv2DBackpropFilter", (x, g), (dw,), grad)
    return dw


# -- convolution tap by tap on the valid rectangles (no padded zeros multiplied) --------------
# Arrays are moved to [H, W, N, C] order first: with the batch inside each position, the
# positions of any rectangle form a stack of contiguous matrices, one per row, so each tap is
# one batched GEMM on a view. A strided convolution is split into stride-1 problems on the
# phase sub-grids x[i::sh, j::sw], each made contiguous once.

def _on_cpu(v):
    """Tap rectangles are tuned for CPU BLAS; on a GPU the many small GEMMs would each pay a
    kernel launch, so im2col's single GEMM stays."""
    return array_module(v) is np


def _hwnc(v):
    """A contiguous [H, W, N, C] copy of an [N, H, W, C] array."""
    return array_module(v).ascontiguousarray(v.transpose(1, 2, 0, 3))


def _nhwc_from(vt):
    """The contiguous [N, H, W, C] array of an [H, W, N, C] one."""
    return array_module(vt).ascontiguousarray(vt.transpose(2, 0, 1, 3))


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
                grid = array_module(grid).ascontiguousarray(grid[phase[0]::self.geo.sh, phase[1]::self.geo.sw])
            self.grids[phase] = grid
        return _out_rect(grid, slice(rows.start + shift[0], rows.stop + shift[0]),
                         slice(cols.start + shift[1], cols.stop + shift[1]))


def _out_rect(vt, rows, cols):
    """Rows x cols of an HWNC array as a [rows, cols*N, C] view."""
    block = vt[rows, cols]
    return block.reshape(block.shape[0], -1, block.shape[3])


def _conv2d_rect(x, w, geo):
    """Conv2D where each tap multiplies only the inputs it reads inside the unpadded image."""
    xp = array_module(x)
    grids = _PhaseGrids(_hwnc(x), geo)
    yt = xp.zeros((geo.oh, geo.ow, geo.n, w.shape[3]), dtype=x.dtype)
    for a, b, rows, cols, phase, shift in geo.tap_rectangles():
        target = yt[rows, cols]
        target += xp.matmul(grids.rect(phase, rows, cols, shift), w[a, b]).reshape(target.shape)
    return _nhwc_from(yt)


def _backprop_input_rect(w, g, geo):
    """Conv2DBackpropInput by tap rectangles: each tap's output gradient lands on its inputs."""
    xp = array_module(g)
    gt = _hwnc(g)
    dxt = xp.zeros((geo.h, geo.w, geo.n, w.shape[2]), dtype=g.dtype)
    strided = (geo.sh, geo.sw) != (1, 1)
    grids = {}  # phase -> its gradient sub-grid (dxt itself when not strided)
    for a, b, rows, cols, phase, shift in geo.tap_rectangles():
        grid = grids.get(phase)
        if grid is None:
            grid = grids[phase] = xp.zeros_like(dxt[phase[0]::geo.sh, phase[1]::geo.sw]) if strided else dxt
        target = grid[rows.start + shift[0]:rows.stop + shift[0], cols.start + shift[1]:cols.stop + shift[1]]
        target += xp.matmul(_out_rect(gt, rows, cols), w[a, b].T).reshape(target.shape)
    if strided:
        for phase, grid in grids.items():
            dxt[phase[0]::geo.sh, phase[1]::geo.sw] = grid
    return _nhwc_from(dxt)


def _backprop_filter_rect(x, g, geo):
    """Conv2DBackpropFilter by tap rectangles: dw[a, b] = inputs read by the tap ^T @ dy there."""
    xp = array_module(x)
    grids, gt = _PhaseGrids(_hwnc(x), geo), _hwnc(g)
    dw = xp.zeros((geo.kh, geo.kw, x.shape[3], g.shape[3]), dtype=x.dtype)
    for a, b, rows, cols, phase, shift in geo.tap_rectangles():
        inputs = grids.rect(phase, rows, cols, shift)
        dw[a, b] = xp.matmul(inputs.transpose(0, 2, 1), _out_rect(gt, rows, cols)).sum(axis=0)
    return dw


def conv2d(input, filters, strides, padding, data_format="NHWC", dilations=None, name=None):  # noqa: A002
    """2-D convolution (cross-correlation) of a [batch, h, w, in] input with [kh, kw, in, out] filters.

    strides/dilations: an int or a list of 1, 2 or 4 ints. padding: 'SAME', 'VALID' or explicit
    [[0, 0], [top, bottom], [left, right], [0, 0]].
    """
    x, w = as_tensor(input), as_tensor(filters)
    data_format = _check_format(data_format, "Conv2D")
    _check_rank(x, 4, "Conv2D")
    _check_rank(w, 4, "Conv2D", "filters")
    _check_float_same(x, w, "Conv2D", allow_int32=True)
    if x.dtype.name == "int32":  # TF has an int32 Conv2D kernel: compute exactly in float64
        from minitf.ops.constant import cast
        return cast(conv2d(cast(x, "float64"), cast(w, "float64"), strides, padding, data_format,
                           dilations), "int32")
    x = _nhwc(x, data_format)
    geo = _conv_geometry(x._value.shape, w._value.shape, strides, padding, data_format, dilations, "Conv2D")
    return _from_nhwc(_conv2d_nhwc(x, w, geo), data_format)


def _conv_geometry(in_shape, w_shape, strides, padding, data_format, dilations, op_name):
    """Check the channel counts and work out output size and padding of a 2-D convolution."""
    in_c, f_c = in_shape[3], w_shape[2]
    if in_c != f_c:
        raise errors.invalid_argument(
            op_name, f"input depth must be evenly divisible by filter depth: {in_c} vs {f_c} "
                     f"(input shape {list(in_shape)}, filter shape {list(w_shape)}; grouped "
                     f"convolution is not supported)")
    mode, explicit = _normalize_padding(padding, op_name, data_format)
    s = _spatial_pair(strides, "strides", op_name, data_format=data_format)
    d = _spatial_pair(1 if dilations is None else dilations, "dilations", op_name, data_format=data_format)
    if min(s) < 1 or min(d) < 1:
        raise errors.invalid_argument(op_name, f"strides {s} and dilations {d} must be >= 1")
    kh, kw = w_shape[:2]
    return _Geometry(tuple(in_shape), kh, kw, s, d, mode, explicit, op_name)


def conv2d_transpose(input, filters, output_shape, strides, padding="SAME", data_format="NHWC",  # noqa: A002
                     dilations=None, name=None):
    """Transposed 2-D convolution: the gradient of conv2d w.r.t. its input.

    filters: [kh, kw, output_channels, in_channels]; output_shape: the 4-D shape of the result.
    """
    g, w = as_tensor(input), as_tensor(filters)
    data_format = _check_format(data_format, "Conv2DBackpropInput")
    _check_rank(g, 4, "conv2d_transpose")
    _check_rank(w, 4, "conv2d_transpose", "filters")
    _check_float_same(g, w, "Conv2DBackpropInput")
    out_shape = [int(v) for v in (output_shape.numpy() if isinstance(output_shape, Tensor) else output_shape)]
    if len(out_shape) != 4:
        raise ValueError(f"conv2d_transpose: output_shape must have 4 elements, got {out_shape}")
    g = _nhwc(g, data_format)
    if data_format == "NCHW":
        out_shape = [out_shape[0], out_shape[2], out_shape[3], out_shape[1]]
    op = "Conv2DBackpropInput"
    if g._value.shape[3] != w._value.shape[3] or out_shape[3] != w._value.shape[2]:
        raise errors.invalid_argument(
            op, f"input depth {g._value.shape[3]} must equal filters' last dimension and output depth "
                f"{out_shape[3]} the filters' third (input shape {list(g._value.shape)}, filter shape "
                f"{list(w.shape)}, output_shape {out_shape})")
    geo = _conv_geometry(out_shape, w._value.shape, strides, padding, data_format, dilations, op)
    if (geo.n, geo.oh, geo.ow) != g._value.shape[:3]:
        raise errors.invalid_argument(
            op, f"Conv2DSlowBackpropInput: Size of out_backprop doesn't match computed: actual = "
                f"{list(g._value.shape[:3])}, computed = {[geo.n, geo.oh, geo.ow]} for output_shape "
                f"{out_shape}, strides and padding {padding!r}")
    return _from_nhwc(_conv2d_backprop_input(w, g, geo), data_format)


def conv1d(input, filters, stride, padding, data_format="NWC", dilations=None, name=None):  # noqa: A002
    """1-D convolution of a [batch, width, in] input with [k, in, out] filters (via conv2d)."""
    from minitf.ops.array import reshape
    x, w = as_tensor(input), as_tensor(filters)
    data_format = _check_format(data_format, "Conv1D", ("NWC", "NCW"))
    _check_rank(x, 3, "conv1d")
    _check_rank(w, 3, "conv1d", "filters")
    fmt = "NHWC" if data_format == "NWC" else "NCHW"
    x4 = reshape(x, [x.shape[0], 1] + list(x.shape[1:])) if fmt == "NHWC" else \
        reshape(x, [x.shape[0], x.shape[1], 1, x.shape[2]])
    w4 = reshape(w, [1] + list(w.shape))
    s = _one_int(stride, "stride", fmt)
    d = _one_int(1 if dilations is None else dilations, "dilations", fmt)
    pad = padding if isinstance(padding, str) else [[0, 0], [0, 0], list(padding[1]), [0, 0]]
    y = conv2d(x4, w4, [1, s], pad, fmt, [1, d])
    shape = list(y.shape)
    return reshape(y, [shape[0]] + shape[2:]) if fmt == "NHWC" else reshape(y, shape[:2] + shape[3:])


def _one_int(value, name, fmt):
    if isinstance(value, (int, np.integer)):
        return int(value)
    value = list(value)
    if len(value) == 1:
        return int(value[0])
    if len(value) == 3:
        return int(value[1] if fmt == "NHWC" else value[2])
    raise ValueError(f"conv1d: {name} must be an int or a list of 1 or 3 ints, got {value}")


def conv1d_transpose(input, filters, output_shape, strides, padding="SAME", data_format="NWC",  # noqa: A002
                     dilations=None, name=None):
    """Transposed 1-D convolution (via conv2d_transpose); filters [k, out, in]."""
    from minitf.ops.array import reshape
    if data_format not in ("NWC", None):
        raise ValueError("conv1d_transpose: only data_format='NWC' is supported")
    g, w = as_tensor(input), as_tensor(filters)
    out_shape = [int(v) for v in output_shape]
    g4 = reshape(g, [g.shape[0], 1] + list(g.shape[1:]))
    w4 = reshape(w, [1] + list(w.shape))
    s = _one_int(strides, "strides", "NHWC")
    d = _one_int(1 if dilations is None else dilations, "dilations", "NHWC")
    y = conv2d_transpose(g4, w4, [out_shape[0], 1] + out_shape[1:], [1, s], padding, "NHWC", [1, d])
    return reshape(y, out_shape)


def convolution(input, filters, strides=None, padding="VALID", data_format=None,  # noqa: A002
                dilations=None, name=None):
    """N-D convolution dispatched on the input's rank (3-D -> conv1d, 4-D -> conv2d)."""
    x = as_tensor(input)
    rank = x._value.ndim
    strides = 1 if strides is None else strides
    if rank == 3:
        return conv1d(x, filters, strides, padding, data_format or "NWC", dilations)
    if rank == 4:
        return conv2d(x, filters, strides, padding, data_format or "NHWC", dilations)
    raise ValueError(f"convolution: only 1-D and 2-D convolutions (3-D or 4-D input) are supported, "
                     f"got input shape {list(x.shape)}")


# -- depthwise convolution ---------------------------------------------------------------------

def _depthwise_raw(x, w, geo):
    xp = array_module(x)
    kh, kw, c, m = w.shape
    xpad = _pad(x, geo)
    out = xp.zeros((geo.n, geo.oh, geo.ow, c, m), dtype=x.dtype)
    for a, b, idx in geo.taps():
        out += xpad[idx][..., None] * w[a, b]
    return out.reshape(geo.n, geo.oh, geo.ow, c * m)


def _depthwise_nhwc(x, w, geo):
    y = Tensor(_depthwise_raw(x._value, w._value, geo))
    if _state.active:
        def grad(g):
            return (lambda: _depthwise_backprop_input(w, g, geo),
                    lambda: _depthwise_backprop_filter(x, g, geo))
        record("DepthwiseConv2dNative", (x, w), (y,), grad)
    return y


def _depthwise_backprop_input(w, g, geo):
    """DepthwiseConv2dNativeBackpropInput, with its gradient rule."""
    xp = array_module(g._value)
    kh, kw, c, m = w._value.shape
    gv = g._value.reshape(geo.n, geo.oh, geo.ow, c, m)
    hp, wp = geo.padded
    dx = xp.zeros((geo.n, hp, wp, c), dtype=gv.dtype)
    for a, b, idx in geo.taps():
        dx[idx] += (gv * w._value[a, b]).sum(axis=-1)
    out = Tensor(xp_contig(_unpad(dx, geo)))
    if _state.active:
        def grad(u):
            return (lambda: _depthwise_backprop_filter(u, g, geo), lambda: _depthwise_nhwc(u, w, geo))
        record("DepthwiseConv2dNativeBackpropInput", (w, g), (out,), grad)
    return out


def _depthwise_backprop_filter(x, g, geo):
    """DepthwiseConv2dNativeBackpropFilter, with its gradient rule."""
    xp = array_module(g._value)
    c = x._value.shape[3]
    m = g._value.shape[3] // c
    gv = g._value.reshape(-1, c, m)
    xpad = _pad(x._value, geo)
    dw = xp.empty((geo.kh, geo.kw, c, m), dtype=gv.dtype)
    for a, b, idx in geo.taps():
        patch = xpad[idx].reshape(-1, c)
        dw[a, b] = (patch[:, :, None] * gv).sum(axis=0)
    out = Tensor(dw)
    if _state.active:
        def grad(v):
            return (lambda: _depthwise_backprop_input(v, g, geo), lambda: _depthwise_nhwc(x, v, geo))
        record("DepthwiseConv2dNativeBackpropFilter", (x, g), (out,), grad)
    return out


def depthwise_conv2d(input, filter, strides, padding, data_format=None, dilations=None, name=None):  # noqa: A002
    """Depthwise 2-D convolution: filter [kh, kw, in, multiplier] gives in*multiplier channels."""
    x, w = as_tensor(input), as_tensor(filter)
    op = "DepthwiseConv2dNative"
    data_format = _check_format(data_format, op)
    _check_rank(x, 4, op)
    _check_rank(w, 4, op, "filter")
    _check_float_same(x, w, op)
    x = _nhwc(x, data_format)
    geo = _conv_geometry(x._value.shape, w._value.shape, strides, padding, data_format, dilations, op)
    return _from_nhwc(_depthwise_nhwc(x, w, geo), data_format)


def separable_conv2d(input, depthwise_filter, pointwise_filter, strides, padding,  # noqa: A002
                     data_format=None, dilations=None, name=None):
    """A depthwise convolution followed by a 1x1 (pointwise) convolution mixing channels."""
    data_format = _check_format(data_format, "separable_conv2d")
    mid = depthwise_conv2d(input, depthwise_filter, strides, padding, data_format, dilations)
    return conv2d(mid, pointwise_filter, 1, "VALID", data_format)


# -- pooling -----------------------------------------------------------------------------------

def _pool_geometry(x, ksize, strides, padding, data_format, op_name, allow_explicit):
    kh, kw = _spatial_pair(ksize, "ksize", op_name, data_format=data_format)
    s = _spatial_pair(strides, "strides", op_name, data_format=data_format)
    if min(kh, kw) < 1 or min(s) < 1:
        raise errors.invalid_argument(op_name, f"ksize {[kh, kw]} and strides {list(s)} must be >= 1")
    mode, explicit = _normalize_padding(padding, op_name, data_format, allow_explicit)
    if explicit and (explicit[0][0] >= kh or explicit[0][1] >= kh or
                     explicit[1][0] >= kw or explicit[1][1] >= kw):
        raise errors.invalid_argument(op_name, f"explicit padding {padding} must be smaller than ksize")
    return _Geometry(x._value.shape, kh, kw, s, (1, 1), mode, explicit, op_name, allow_empty=True)


def _max_pool_raw(x, geo):
    """Window maxima, as a running np.maximum over the taps (branch-free, no index bookkeeping)."""
    xp = array_module(x)
    xpad = _pad(x, geo, fill=_lowest(x.dtype, xp))
    taps = [idx for _, _, idx in geo.taps()]
    best = xpad[taps[0]].copy()
    for idx in taps[1:]:
        xp.maximum(best, xpad[idx], out=best)
    return best


def _lowest(dtype, xp):
    return -xp.inf if dtype.kind == "f" else xp.iinfo(dtype).min


class _MaxPoolWinners:
    """For each tap, the windows whose first maximum (in row-major tap order, as TF) sits there.

    Worked out once from the saved input and output, on the first backward pass, then shared by
    MaxPoolGrad and MaxPoolGradGrad.
    """

    def __init__(self, x, y, geo):
        self._x, self._y, self._geo, self._masks = x, y, geo, None

    def __iter__(self):
        if self._masks is None:
            xv, yv, geo = self._x._value, self._y._value, self._geo
            xp = array_module(xv)
            xpad = _pad(xv, geo, fill=_lowest(xv.dtype, xp))
            unclaimed = xp.ones(yv.shape, dtype=bool)
            self._masks = []
            for _, _, idx in geo.taps():
                hit = xp.equal(xpad[idx], yv)
                hit &= unclaimed
                unclaimed ^= hit  # hit is a subset of unclaimed
                self._masks.append((idx, hit))
        return iter(self._masks)


def _max_pool_nhwc(x, geo):
    y = Tensor(_max_pool_raw(x._value, geo))
    if _state.active:
        winners = _MaxPoolWinners(x, y, geo)
        record("MaxPool", (x,), (y,), lambda g: _max_pool_grad(x, g, winners, geo))
    return y


def _max_pool_grad(x, g, winners, geo):
    """MaxPoolGrad: route each upstream value to the position of its window's maximum."""
    xp = array_module(g._value)
    hp, wp = geo.padded
    gv = g._value
    dx = xp.zeros((geo.n, hp, wp, gv.shape[3]), dtype=gv.dtype)
    disjoint = geo.sh >= geo.kh and geo.sw >= geo.kw  # windows never overlap: write, don't add
    for idx, hit in winners:
        if disjoint:
            xp.multiply(gv, hit, out=dx[idx])
        else:
            dx[idx] += gv * hit
    out = Tensor(xp_contig(_unpad(dx, geo)))
    if _state.active:
        record("MaxPoolGrad", (x, g), (out,), lambda u: (None, lambda: _max_pool_grad_grad(x, u, winners, geo)))
    return out


def _max_pool_grad_grad(x, u, winners, geo):
    """MaxPoolGradGrad: gather, for each window, the value at its maximum's position."""
    xp = array_module(u._value)
    upad = _pad(u._value, geo)
    out = xp.zeros((geo.n, geo.oh, geo.ow, u._value.shape[3]), dtype=u._value.dtype)
    for idx, hit in winners:
        out += upad[idx] * hit
    y = Tensor(out)
    if _state.active:
        record("MaxPoolGradGrad", (x, u), (y,), lambda g: (None, lambda: _max_pool_grad(x, g, winners, geo)))
    return y


def _valid_counts(geo, xp, dtype):
    """How many real (unpadded) input elements each output window covers, [OH, OW, 1]."""
    def axis_counts(size, out, k, s, before):
        starts = np.arange(out) * s - before
        return np.minimum(starts + k, size) - np.maximum(starts, 0)
    rows = axis_counts(geo.h, geo.oh, geo.kh, geo.sh, geo.pt)
    cols = axis_counts(geo.w, geo.ow, geo.kw, geo.sw, geo.pl)
    return xp.asarray((rows[:, None] * cols[None, :])[:, :, None], dtype=dtype)


def _avg_pool_nhwc(x, geo):
    xp = array_module(x._value)
    xpad = _pad(x._value, geo)
    total = xp.zeros((geo.n, geo.oh, geo.ow, x._value.shape[3]), dtype=x._value.dtype)
    for a, b, idx in geo.taps():
        total += xpad[idx]
    total /= _valid_counts(geo, xp, x._value.dtype)
    y = Tensor(total)
    if _state.active:
        record("AvgPool", (x,), (y,), lambda g: _avg_pool_grad(g, geo))
    return y


def _avg_pool_grad(g, geo):
    """AvgPoolGrad: spread each upstream value evenly over its window's real elements."""
    xp = array_module(g._value)
    share = g._value / _valid_counts(geo, xp, g._value.dtype)
    hp, wp = geo.padded
    dx = xp.zeros((geo.n, hp, wp, g._value.shape[3]), dtype=g._value.dtype)
    for a, b, idx in geo.taps():
        dx[idx] += share
    out = Tensor(xp_contig(_unpad(dx, geo)))
    if _state.active:
        record("AvgPoolGrad", (g,), (out,), lambda u: _avg_pool_nhwc(u, geo))
    return out


def _pool2d(kind, input, ksize, strides, padding, data_format):  # noqa: A002
    op = "MaxPool" if kind == "max" else "AvgPool"
    x = as_tensor(input)
    data_format = _check_format(data_format, op)
    _check_rank(x, 4, op)
    if kind == "avg" and x._value.dtype.kind != "f":
        _not_allowed(x, op, "half, bfloat16, float, double")
    if kind == "max" and x._value.dtype.kind not in "fiu":
        _not_allowed(x, op, "half, bfloat16, float, double, int32, int64, uint8, int16, int8, uint16")
    x = _nhwc(x, data_format)
    geo = _pool_geometry(x, ksize, strides, padding, data_format, op, allow_explicit=(kind == "max"))
    y = _max_pool_nhwc(x, geo) if kind == "max" else _avg_pool_nhwc(x, geo)
    return _from_nhwc(y, data_format)


def max_pool2d(input, ksize, strides, padding, data_format="NHWC", name=None):  # noqa: A002
    """Maximum over each [kh, kw] window; SAME padding never wins the maximum."""
    return _pool2d("max", input, ksize, strides, padding, data_format)


def avg_pool2d(input, ksize, strides, padding, data_format="NHWC", name=None):  # noqa: A002
    """Mean over each [kh, kw] window; with SAME padding only real elements are averaged."""
    return _pool2d("avg", input, ksize, strides, padding, data_format)


def _pool1d(kind, input, ksize, strides, padding, data_format):  # noqa: A002
    from minitf.ops.array import reshape
    x = as_tensor(input)
    _check_rank(x, 3, f"{kind}_pool1d")
    if data_format not in (None, "NWC"):
        raise ValueError(f"{kind}_pool1d: only data_format='NWC' is supported, got {data_format!r}")
    k = _one_int(ksize, "ksize", "NHWC")
    s = _one_int(strides, "strides", "NHWC")
    pad = padding if isinstance(padding, str) else [[0, 0], [0, 0], list(padding[1]), [0, 0]]
    x4 = reshape(x, [x.shape[0], 1] + list(x.shape[1:]))
    y = _pool2d(kind, x4, [1, k], [1, s], pad, "NHWC")
    shape = list(y.shape)
    return reshape(y, [shape[0]] + shape[2:])


def max_pool1d(input, ksize, strides, padding, data_format="NWC", name=None):  # noqa: A002
    """1-D max pooling over [batch, width, channels]."""
    return _pool1d("max", input, ksize, strides, padding, data_format)


def avg_pool1d(input, ksize, strides, padding, data_format="NWC", name=None):  # noqa: A002
    """1-D average pooling over [batch, width, channels]."""
    return _pool1d("avg", input, ksize, strides, padding, data_format)


def max_pool(input, ksize, strides, padding, data_format=None, name=None):  # noqa: A002
    """Max pooling dispatched on rank: 3-D -> max_pool1d, 4-D -> max_pool2d."""
    rank = as_tensor(input)._value.ndim
    if rank == 3:
        return max_pool1d(input, ksize, strides, padding, data_format or "NWC")
    if rank == 4:
        return max_pool2d(input, ksize, strides, padding, data_format or "NHWC")
    raise ValueError(f"max_pool: input must be 3-D or 4-D (1-D or 2-D pooling), got rank {rank}")


def avg_pool(input, ksize, strides, padding, data_format=None, name=None):  # noqa: A002
    """Average pooling dispatched on rank: 3-D -> avg_pool1d, 4-D -> avg_pool2d."""
    rank = as_tensor(input)._value.ndim
    if rank == 3:
        return avg_pool1d(input, ksize, strides, padding, data_format or "NWC")
    if rank == 4:
        return avg_pool2d(input, ksize, strides, padding, data_format or "NHWC")
    raise ValueError(f"avg_pool: input must be 3-D or 4-D (1-D or 2-D pooling), got rank {rank}")


def pool(input, window_shape, pooling_type, strides=None, padding="VALID", data_format=None,  # noqa: A002
         dilations=None, name=None):
    """tf.nn.pool for 1-D and 2-D windows: pooling_type 'MAX' or 'AVG' (dilations must be 1)."""
    if dilations is not None and any(int(d) != 1 for d in np.ravel(dilations)):
        raise NotImplementedError("pool: dilation rates other than 1 are not supported")
    kind = {"MAX": "max", "AVG": "avg"}.get(str(pooling_type).upper())
    if kind is None:
        raise ValueError(f"pool: pooling_type must be 'MAX' or 'AVG', got {pooling_type!r}")
    window = list(window_shape)
    strides = [1] * len(window) if strides is None else list(strides)
    fn = max_pool if kind == "max" else avg_pool
    return fn(input, window, strides, padding, data_format)
