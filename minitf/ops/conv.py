"""Convolution and pooling (tf.nn): conv1d/conv2d, transposed and depthwise convolution, pools.

Layout is NHWC (NCHW inputs are transposed to NHWC and back). Convolution is im2col on a strided
view of the padded input plus one BLAS GEMM; on the CPU, passes that would mostly multiply
padding compute each filter tap on its valid rectangle instead. The array work lives in
`minitf.kernels` (per array module); this module keeps TF's API, the argument checks, the
geometry and the gradient rules.
The three linear maps of a convolution,
    Conv2D(x, w) -> y,  Conv2DBackpropInput(w, dy) -> dx,  Conv2DBackpropFilter(x, dy) -> dw,
are adjoint pieces of one trilinear form <conv(x, w), dy>, so each one's gradient is built from
the other two: any order of derivative works with no extra code. Depthwise convolution and the
pools follow the same pattern.
"""
import numpy as np  # Python-side bookkeeping only (shapes, padding arithmetic)

from minitf import dispatch
from minitf import errors, kernels
from minitf.ops._core import Op, Tensor, _state, record, array_module, as_tensor
from minitf.ops.array import reshape, transpose
from minitf.ops.constant import cast
from minitf.ops.arg_checks import converted, int_attr, shaped_input

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
    value = [int_attr(v, op_name, name, True) for v in (value if isinstance(value, (list, tuple)) else [1 if value is None else value])]
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
        raise errors.invalid_argument(op_name, f"data_format must be one of {allowed}, got {data_format!r}")
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


def _nhwc(x, data_format):
    return x if data_format == "NHWC" else transpose(x, [0, 2, 3, 1])


def _from_nhwc(y, data_format):
    return y if data_format == "NHWC" else transpose(y, [0, 3, 1, 2])


def _check_rank(x, rank, op_name, what="input"):
    if x._value.ndim != rank:
        raise errors.invalid_argument(op_name, f"{what} must be {rank}-D, got shape {list(x.shape)}")


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

CONV2D = Op("Conv2D")


def _conv2d_nhwc(x, w, geo):
    """Conv2D on NHWC tensors with a precomputed geometry; records its gradient."""
    cache = [] if _state.active else None
    xv = x._value
    y = Tensor(kernels.for_module(array_module(xv)).conv2d(xv, w._value, geo, cache))
    if _state.active:
        def grad(g):
            return (lambda: _conv2d_backprop_input(w, g, geo),
                    lambda: _conv2d_backprop_filter(x, g, geo, cache[0]))
        record(CONV2D, (x, w), (y,), grad)
    return y


CONV2D_BACKPROP_INPUT = Op("Conv2DBackpropInput")


def _conv2d_backprop_input(w, g, geo):
    """Conv2DBackpropInput: the input gradient of Conv2D (also conv2d_transpose's forward)."""
    gv = g._value
    dx = Tensor(kernels.for_module(array_module(gv)).conv2d_backprop_input(w._value, gv, geo))
    if _state.active:
        def grad(u):
            return (lambda: _conv2d_backprop_filter(u, g, geo),
                    lambda: _conv2d_nhwc(u, w, geo))
        record(CONV2D_BACKPROP_INPUT, (w, g), (dx,), grad)
    return dx


CONV2D_BACKPROP_FILTER = Op("Conv2DBackpropFilter")


def _conv2d_backprop_filter(x, g, geo, cols=None):
    """Conv2DBackpropFilter: patches^T @ dy, reusing the forward's patch matrix when given."""
    xv = x._value
    dw = Tensor(kernels.for_module(array_module(xv)).conv2d_backprop_filter(xv, g._value, geo, cols))
    if _state.active:
        def grad(v):
            return (lambda: _conv2d_backprop_input(v, g, geo),
                    lambda: _conv2d_nhwc(x, v, geo))
        record(CONV2D_BACKPROP_FILTER, (x, g), (dw,), grad)
    return dw


@dispatch.add_dispatch_support
def conv2d(input, filters, strides, padding, data_format="NHWC", dilations=None, name=None):  # noqa: A002
    """2-D convolution (cross-correlation) of a [batch, h, w, in] input with [kh, kw, in, out] filters.

    strides/dilations: an int or a list of 1, 2 or 4 ints. padding: 'SAME', 'VALID' or explicit
    [[0, 0], [top, bottom], [left, right], [0, 0]].
    """
    x, w = shaped_input(input, "tf.nn.conv2d"), as_tensor(filters)
    data_format = _check_format(data_format, "Conv2D")
    _check_rank(x, 4, "Conv2D")
    _check_rank(w, 4, "Conv2D", "filters")
    _check_float_same(x, w, "Conv2D", allow_int32=True)
    if x.dtype.name == "int32":  # TF has an int32 Conv2D kernel: compute exactly in float64
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


@dispatch.add_dispatch_support
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


@dispatch.add_dispatch_support
def conv1d(input, filters, stride, padding, data_format="NWC", dilations=None, name=None):  # noqa: A002
    """1-D convolution of a [batch, width, in] input with [k, in, out] filters (via conv2d)."""
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


@dispatch.add_dispatch_support
def conv1d_transpose(input, filters, output_shape, strides, padding="SAME", data_format="NWC",  # noqa: A002
                     dilations=None, name=None):
    """Transposed 1-D convolution (via conv2d_transpose); filters [k, out, in]."""
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


@dispatch.add_dispatch_support
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

DEPTHWISE_CONV2D = Op("DepthwiseConv2dNative")


def _depthwise_nhwc(x, w, geo):
    xv = x._value
    y = Tensor(kernels.for_module(array_module(xv)).depthwise_conv2d(xv, w._value, geo))
    if _state.active:
        def grad(g):
            return (lambda: _depthwise_backprop_input(w, g, geo),
                    lambda: _depthwise_backprop_filter(x, g, geo))
        record(DEPTHWISE_CONV2D, (x, w), (y,), grad)
    return y


DEPTHWISE_BACKPROP_INPUT = Op("DepthwiseConv2dNativeBackpropInput")


def _depthwise_backprop_input(w, g, geo):
    """DepthwiseConv2dNativeBackpropInput, with its gradient rule."""
    gv = g._value
    out = Tensor(kernels.for_module(array_module(gv)).depthwise_backprop_input(w._value, gv, geo))
    if _state.active:
        def grad(u):
            return (lambda: _depthwise_backprop_filter(u, g, geo), lambda: _depthwise_nhwc(u, w, geo))
        record(DEPTHWISE_BACKPROP_INPUT, (w, g), (out,), grad)
    return out


DEPTHWISE_BACKPROP_FILTER = Op("DepthwiseConv2dNativeBackpropFilter")


def _depthwise_backprop_filter(x, g, geo):
    """DepthwiseConv2dNativeBackpropFilter, with its gradient rule."""
    gv = g._value
    out = Tensor(kernels.for_module(array_module(gv)).depthwise_backprop_filter(x._value, gv, geo))
    if _state.active:
        def grad(v):
            return (lambda: _depthwise_backprop_input(v, g, geo), lambda: _depthwise_nhwc(x, v, geo))
        record(DEPTHWISE_BACKPROP_FILTER, (x, g), (out,), grad)
    return out


@dispatch.add_dispatch_support
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


@dispatch.add_dispatch_support
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


class _MaxPoolWinners:
    """For each tap, the windows whose first maximum (in row-major tap order, as TF) sits there.

    Worked out once from the saved input and output, on the first backward pass, then shared by
    MaxPoolGrad and MaxPoolGradGrad.
    """

    def __init__(self, x, y, geo):
        self._x, self._y, self._geo, self._masks = x, y, geo, None

    def __iter__(self):
        if self._masks is None:
            xv = self._x._value
            self._masks = kernels.for_module(array_module(xv)).max_pool_winners(xv, self._y._value, self._geo)
        return iter(self._masks)


MAX_POOL = Op("MaxPool")


def _max_pool_nhwc(x, geo):
    xv = x._value
    y = Tensor(kernels.for_module(array_module(xv)).max_pool(xv, geo))
    if _state.active:
        winners = _MaxPoolWinners(x, y, geo)
        record(MAX_POOL, (x,), (y,), lambda g: _max_pool_grad(x, g, winners, geo))
    return y


MAX_POOL_GRAD = Op("MaxPoolGrad")


def _max_pool_grad(x, g, winners, geo):
    """MaxPoolGrad: route each upstream value to the position of its window's maximum."""
    gv = g._value
    out = Tensor(kernels.for_module(array_module(gv)).max_pool_grad(gv, winners, geo))
    if _state.active:
        record(MAX_POOL_GRAD, (x, g), (out,), lambda u: (None, lambda: _max_pool_grad_grad(x, u, winners, geo)))
    return out


MAX_POOL_GRAD_GRAD = Op("MaxPoolGradGrad")


def _max_pool_grad_grad(x, u, winners, geo):
    """MaxPoolGradGrad: gather, for each window, the value at its maximum's position."""
    uv = u._value
    y = Tensor(kernels.for_module(array_module(uv)).max_pool_grad_grad(uv, winners, geo))
    if _state.active:
        record(MAX_POOL_GRAD_GRAD, (x, u), (y,), lambda g: (None, lambda: _max_pool_grad(x, g, winners, geo)))
    return y


AVG_POOL = Op("AvgPool")


def _avg_pool_nhwc(x, geo):
    xv = x._value
    y = Tensor(kernels.for_module(array_module(xv)).avg_pool(xv, geo))
    if _state.active:
        record(AVG_POOL, (x,), (y,), lambda g: _avg_pool_grad(g, geo))
    return y


AVG_POOL_GRAD = Op("AvgPoolGrad")


def _avg_pool_grad(g, geo):
    """AvgPoolGrad: spread each upstream value evenly over its window's real elements."""
    gv = g._value
    out = Tensor(kernels.for_module(array_module(gv)).avg_pool_grad(gv, geo))
    if _state.active:
        record(AVG_POOL_GRAD, (g,), (out,), lambda u: _avg_pool_nhwc(u, geo))
    return out


def _pool2d(kind, input, ksize, strides, padding, data_format):  # noqa: A002
    op = "MaxPool" if kind == "max" else "AvgPool"
    x = input if type(input) is Tensor else converted(input, f"tf.nn.{kind}_pool2d", "input")
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


@dispatch.add_dispatch_support
def max_pool2d(input, ksize, strides, padding, data_format="NHWC", name=None):  # noqa: A002
    """Maximum over each [kh, kw] window; SAME padding never wins the maximum."""
    return _pool2d("max", input, ksize, strides, padding, data_format)


@dispatch.add_dispatch_support
def avg_pool2d(input, ksize, strides, padding, data_format="NHWC", name=None):  # noqa: A002
    """Mean over each [kh, kw] window; with SAME padding only real elements are averaged."""
    return _pool2d("avg", input, ksize, strides, padding, data_format)


def _pool1d(kind, input, ksize, strides, padding, data_format):  # noqa: A002
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


@dispatch.add_dispatch_support
def max_pool1d(input, ksize, strides, padding, data_format="NWC", name=None):  # noqa: A002
    """1-D max pooling over [batch, width, channels]."""
    return _pool1d("max", input, ksize, strides, padding, data_format)


@dispatch.add_dispatch_support
def avg_pool1d(input, ksize, strides, padding, data_format="NWC", name=None):  # noqa: A002
    """1-D average pooling over [batch, width, channels]."""
    return _pool1d("avg", input, ksize, strides, padding, data_format)


@dispatch.add_dispatch_support
def max_pool(input, ksize, strides, padding, data_format=None, name=None):  # noqa: A002
    """Max pooling dispatched on rank: 3-D -> max_pool1d, 4-D -> max_pool2d."""
    rank = as_tensor(input)._value.ndim
    if rank == 3:
        return max_pool1d(input, ksize, strides, padding, data_format or "NWC")
    if rank == 4:
        return max_pool2d(input, ksize, strides, padding, data_format or "NHWC")
    raise ValueError(f"max_pool: input must be 3-D or 4-D (1-D or 2-D pooling), got rank {rank}")


@dispatch.add_dispatch_support
def avg_pool(input, ksize, strides, padding, data_format=None, name=None):  # noqa: A002
    """Average pooling dispatched on rank: 3-D -> avg_pool1d, 4-D -> avg_pool2d."""
    rank = as_tensor(input)._value.ndim
    if rank == 3:
        return avg_pool1d(input, ksize, strides, padding, data_format or "NWC")
    if rank == 4:
        return avg_pool2d(input, ksize, strides, padding, data_format or "NHWC")
    raise ValueError(f"avg_pool: input must be 3-D or 4-D (1-D or 2-D pooling), got rank {rank}")


@dispatch.add_dispatch_support
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
