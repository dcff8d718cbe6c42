"""Convolution (tf.nn): conv1d/conv2d, transposed and depthwise convolution, N-D `convolution`.

Layout is NHWC (NCHW inputs are transposed to NHWC and back). Convolution is im2col on a strided
view of the padded input plus one BLAS GEMM; on the CPU, passes that would mostly multiply
padding compute each filter tap on its valid rectangle instead. The array work lives in
`minitf.kernels` (per array module); this module keeps TF's API, the argument checks, the
geometry and the gradient rules.
The three linear maps of a convolution,
    Conv2D(x, w) -> y,  Conv2DBackpropInput(w, dy) -> dx,  Conv2DBackpropFilter(x, dy) -> dw,
are adjoint pieces of one trilinear form <conv(x, w), dy>, so each one's gradient is built from
the other two: any order of derivative works with no extra code. Depthwise convolution follows
the same pattern. Pooling is minitf.ops.pooling; the argument forms and geometry both share are
minitf.ops.conv_geometry.
"""
import numpy as np  # Python-side bookkeeping only (argument lists)

from minitf import dispatch
from minitf import kernels
from minitf.errors import errors
from minitf.ops._core import Op, Tensor, thread_state, record, array_module, as_tensor
from minitf.ops.array import reshape
from minitf.ops.constant import cast
from minitf.ops.arg_checks import shaped_input
from minitf.ops.conv3d import conv3d, sequence
from minitf.ops.conv_geometry import (  # noqa: F401 (Geometry: the geometry kernels and tests use)
    Geometry, check_float_same, check_format, check_rank, from_nhwc, nhwc, normalize_padding,
    one_int, spatial_pair)
from minitf.ops.pooling import (  # noqa: F401 (pooling's home was this module: its old import path)
    avg_pool, avg_pool1d, avg_pool2d, max_pool, max_pool1d, max_pool2d, pool)
from minitf.api_export import export

__all__ = [
    "conv1d", "conv2d", "conv2d_transpose", "conv1d_transpose", "depthwise_conv2d",
    "separable_conv2d", "convolution",
]


# -- Conv2D and its two adjoints ----------------------------------------------------------------

CONV2D = Op("Conv2D")


def _conv2d_nhwc(x, w, geo):
    """Conv2D on NHWC tensors with a precomputed geometry; records its gradient."""
    cache = [] if thread_state.active else None
    xv = x._value
    y = Tensor(kernels.for_module(array_module(xv)).conv2d(xv, w._value, geo, cache))
    if thread_state.active:
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
    if thread_state.active:
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
    if thread_state.active:
        def grad(v):
            return (lambda: _conv2d_backprop_input(v, g, geo),
                    lambda: _conv2d_nhwc(x, v, geo))
        record(CONV2D_BACKPROP_FILTER, (x, g), (dw,), grad)
    return dw


@export("nn.conv2d")
@dispatch.add_dispatch_support
def conv2d(input, filters, strides, padding, data_format="NHWC", dilations=None, name=None):  # noqa: A002
    """2-D convolution (cross-correlation) of a [batch, h, w, in] input with [kh, kw, in, out] filters.

    strides/dilations: an int or a list of 1, 2 or 4 ints. padding: 'SAME', 'VALID' or explicit
    [[0, 0], [top, bottom], [left, right], [0, 0]].
    """
    x, w = shaped_input(input, "tf.nn.conv2d"), as_tensor(filters)
    data_format = check_format(data_format, "Conv2D")
    check_rank(x, 4, "Conv2D")
    check_rank(w, 4, "Conv2D", "filters")
    check_float_same(x, w, "Conv2D", allow_int32=True)
    if x.dtype.name == "int32":  # TF has an int32 Conv2D kernel: compute exactly in float64
        return cast(conv2d(cast(x, "float64"), cast(w, "float64"), strides, padding, data_format,
                           dilations), "int32")
    x = nhwc(x, data_format)
    geo = _conv_geometry(x._value.shape, w._value.shape, strides, padding, data_format, dilations, "Conv2D")
    return from_nhwc(_conv2d_nhwc(x, w, geo), data_format)


def _conv_geometry(in_shape, w_shape, strides, padding, data_format, dilations, op_name):
    """Check the channel counts and work out output size and padding of a 2-D convolution."""
    in_c, f_c = in_shape[3], w_shape[2]
    if in_c != f_c:
        raise errors.invalid_argument(
            op_name, f"input depth must be evenly divisible by filter depth: {in_c} vs {f_c} "
                     f"(input shape {list(in_shape)}, filter shape {list(w_shape)}; grouped "
                     f"convolution is not supported)")
    mode, explicit = normalize_padding(padding, op_name, data_format)
    s = spatial_pair(strides, "strides", op_name, data_format=data_format)
    d = spatial_pair(1 if dilations is None else dilations, "dilations", op_name, data_format=data_format)
    if min(s) < 1 or min(d) < 1:
        raise errors.invalid_argument(op_name, f"strides {s} and dilations {d} must be >= 1")
    kh, kw = w_shape[:2]
    return Geometry(tuple(in_shape), kh, kw, s, d, mode, explicit, op_name)


@export("nn.conv2d_transpose")
@dispatch.add_dispatch_support
def conv2d_transpose(input, filters, output_shape, strides, padding="SAME", data_format="NHWC",  # noqa: A002
                     dilations=None, name=None):
    """Transposed 2-D convolution: the gradient of conv2d w.r.t. its input.

    filters: [kh, kw, output_channels, in_channels]; output_shape: the 4-D shape of the result.
    """
    g, w = as_tensor(input), as_tensor(filters)
    data_format = check_format(data_format, "Conv2DBackpropInput")
    check_rank(g, 4, "conv2d_transpose")
    check_rank(w, 4, "conv2d_transpose", "filters")
    check_float_same(g, w, "Conv2DBackpropInput")
    out_shape = [int(v) for v in (output_shape.numpy() if isinstance(output_shape, Tensor) else output_shape)]
    if len(out_shape) != 4:
        raise ValueError(f"conv2d_transpose: output_shape must have 4 elements, got {out_shape}")
    g = nhwc(g, data_format)
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
    return from_nhwc(_conv2d_backprop_input(w, g, geo), data_format)


@export("nn.conv1d")
@dispatch.add_dispatch_support
def conv1d(input, filters, stride, padding, data_format="NWC", dilations=None, name=None):  # noqa: A002
    """1-D convolution of a [batch, width, in] input with [k, in, out] filters (via conv2d)."""
    x, w = as_tensor(input), as_tensor(filters)
    data_format = check_format(data_format, "Conv1D", ("NWC", "NCW"))
    check_rank(x, 3, "conv1d")
    check_rank(w, 3, "conv1d", "filters")
    fmt = "NHWC" if data_format == "NWC" else "NCHW"
    x4 = reshape(x, [x.shape[0], 1] + list(x.shape[1:])) if fmt == "NHWC" else \
        reshape(x, [x.shape[0], x.shape[1], 1, x.shape[2]])
    w4 = reshape(w, [1] + list(w.shape))
    s = one_int(stride, "stride", fmt)
    d = one_int(1 if dilations is None else dilations, "dilations", fmt)
    pad = padding if isinstance(padding, str) else [[0, 0], [0, 0], list(padding[1]), [0, 0]]
    y = conv2d(x4, w4, [1, s], pad, fmt, [1, d])
    shape = list(y.shape)
    return reshape(y, [shape[0]] + shape[2:]) if fmt == "NHWC" else reshape(y, shape[:2] + shape[3:])


@export("nn.conv1d_transpose")
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
    s = one_int(strides, "strides", "NHWC")
    d = one_int(1 if dilations is None else dilations, "dilations", "NHWC")
    y = conv2d_transpose(g4, w4, [out_shape[0], 1] + out_shape[1:], [1, s], padding, "NHWC", [1, d])
    return reshape(y, out_shape)


@export("nn.convolution")
@dispatch.add_dispatch_support
def convolution(input, filters, strides=None, padding="VALID", data_format=None,  # noqa: A002
                dilations=None, name=None):
    """N-D convolution dispatched on the input's rank (3-D -> conv1d, 4-D -> conv2d, 5-D -> conv3d).

    strides and dilations: an int or a list of 1, N or N + 2 ints (N spatial dimensions); as in TF,
    strides > 1 cannot be combined with dilations > 1 (ValueError).
    """
    x = as_tensor(input)
    rank = x._value.ndim
    strides = 1 if strides is None else strides
    if rank in (3, 4, 5) and _check_strides_or_dilations(strides, dilations, rank - 2, data_format):
        # dilated: TF's Python atrous path checks the layout (undilated, the kernel does)
        named, allowed = _DILATED_FORMATS[rank]
        if data_format is not None and data_format not in allowed:
            raise ValueError(f"`data_format` must be {named}. Received: data_format={data_format}")
    if rank == 3:
        return conv1d(x, filters, strides, padding, data_format or "NWC", dilations)
    if rank == 4:
        return conv2d(x, filters, strides, padding, data_format or "NHWC", dilations)
    if rank == 5:
        fmt = data_format or "NDHWC"
        return conv3d(x, filters, sequence(strides, "strides", fmt, "Conv3D"), padding, fmt,
                      sequence(1 if dilations is None else dilations, "dilations", fmt, "Conv3D"))
    raise ValueError(f"`num_spatial_dims` must be 1, 2, or 3. Received: num_spatial_dims={rank - 2} "
                     f"(tf.nn.convolution of an input of shape {list(x.shape)})")


_DILATED_FORMATS = {3: ("'NWC' or 'NCW'", ("NWC", "NCW", "NHWC", "NCHW")),
                    4: ("'NHWC' or 'NCHW'", ("NHWC", "NCHW")), 5: ("'NDHWC' or 'NCDHW'", ("NDHWC", "NCDHW"))}


def _check_strides_or_dilations(strides, dilations, spatial, data_format):
    """Whether any spatial dilation is > 1; TF's ValueError when strides > 1 come with it."""
    def spatial_values(value):
        values = [int(v) for v in np.ravel(value.numpy() if isinstance(value, Tensor) else value)]
        if len(values) == spatial + 2:  # batch and channel entries: where data_format puts them
            return values[2:] if str(data_format or "").startswith("NC") else values[1:-1]
        return values * spatial if len(values) == 1 else values
    s, d = spatial_values(strides), spatial_values(1 if dilations is None else dilations)
    if max(s, default=1) > 1 and max(d, default=1) > 1:
        raise ValueError(f"`strides > 1` not supported in conjunction with `dilation_rate > 1`. Received: "
                         f"strides={np.array(s)} and dilation_rate={np.array(d)}")
    return max(d, default=1) > 1


# -- depthwise convolution ---------------------------------------------------------------------

DEPTHWISE_CONV2D = Op("DepthwiseConv2dNative")


def _depthwise_nhwc(x, w, geo):
    xv = x._value
    y = Tensor(kernels.for_module(array_module(xv)).depthwise_conv2d(xv, w._value, geo))
    if thread_state.active:
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
    if thread_state.active:
        def grad(u):
            return (lambda: _depthwise_backprop_filter(u, g, geo), lambda: _depthwise_nhwc(u, w, geo))
        record(DEPTHWISE_BACKPROP_INPUT, (w, g), (out,), grad)
    return out


DEPTHWISE_BACKPROP_FILTER = Op("DepthwiseConv2dNativeBackpropFilter")


def _depthwise_backprop_filter(x, g, geo):
    """DepthwiseConv2dNativeBackpropFilter, with its gradient rule."""
    gv = g._value
    out = Tensor(kernels.for_module(array_module(gv)).depthwise_backprop_filter(x._value, gv, geo))
    if thread_state.active:
        def grad(v):
            return (lambda: _depthwise_backprop_input(v, g, geo), lambda: _depthwise_nhwc(x, v, geo))
        record(DEPTHWISE_BACKPROP_FILTER, (x, g), (out,), grad)
    return out


@export("nn.depthwise_conv2d")
@dispatch.add_dispatch_support
def depthwise_conv2d(input, filter, strides, padding, data_format=None, dilations=None, name=None):  # noqa: A002
    """Depthwise 2-D convolution: filter [kh, kw, in, multiplier] gives in*multiplier channels."""
    x, w = as_tensor(input), as_tensor(filter)
    op = "DepthwiseConv2dNative"
    data_format = check_format(data_format, op)
    check_rank(x, 4, op)
    check_rank(w, 4, op, "filter")
    check_float_same(x, w, op)
    x = nhwc(x, data_format)
    geo = _conv_geometry(x._value.shape, w._value.shape, strides, padding, data_format, dilations, op)
    return from_nhwc(_depthwise_nhwc(x, w, geo), data_format)


@export("nn.separable_conv2d")
@dispatch.add_dispatch_support
def separable_conv2d(input, depthwise_filter, pointwise_filter, strides, padding,  # noqa: A002
                     data_format=None, dilations=None, name=None):
    """A depthwise convolution followed by a 1x1 (pointwise) convolution mixing channels."""
    data_format = check_format(data_format, "separable_conv2d")
    mid = depthwise_conv2d(input, depthwise_filter, strides, padding, data_format, dilations)
    return conv2d(mid, pointwise_filter, 1, "VALID", data_format)
