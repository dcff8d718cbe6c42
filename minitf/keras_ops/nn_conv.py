"""keras.ops.nn: convolutions, pooling (fixed and adaptive), unfold/fold and depth<->space.

Everything computes channels_last; channels_first inputs are transposed in and out. minitf's
kernels are 1-D and 2-D: 3-D convolutions run as a sum of 2-D convolutions over the depth
taps, and 3-D pooling as three 1-D poolings (max and mean over a box are separable).
Grouped convolutions (input channels a multiple of the kernel's) run group by group.
"""
import math

import numpy as np

from minitf.errors import errors
from minitf.keras_core.config import standardize_data_format
from minitf.keras_ops.core import convert, keras_op
from minitf.ops import array as array_ops
from minitf.ops import constant as constant_ops
from minitf.ops import conv as conv_ops
from minitf.ops import math as math_ops
from minitf.ops.indexing import getitem
from minitf.api_export import export

__all__ = ["conv", "conv_transpose", "depthwise_conv", "separable_conv", "max_pool",
           "average_pool", "adaptive_average_pool", "adaptive_max_pool", "unfold", "fold",
           "depth_to_space", "space_to_depth", "to_channels_last", "from_channels_last"]


def _cpu_kernel_check(x, data_format, dims, op, dilation=None):
    """TF's CPU kernels: 1-D/2-D convolutions take channels_first only in float32 (through
    oneDNN); 3-D pooling has no float16 kernel and MaxPool3D no float64 one."""
    name = x.dtype.name
    if op in ("conv", "transpose") and data_format == "channels_first" and dims < 3 and \
            name in ("float16", "float64"):
        if op == "conv":
            raise errors.UnimplementedError(None, None, "The Conv2D op currently only supports "
                                            "the NHWC tensor format on the CPU. The op was given "
                                            "the format: NCHW [Op:Conv2D]")
        raise errors.invalid_argument("Conv2DBackpropInput", "Conv2DCustomBackpropInputOp only "
                                                             "supports NHWC")
    if op == "transpose" and dilation and max(dilation) > 1 and name != "float32":
        raise errors.invalid_argument("Conv2DBackpropInput", "Current CPU implementations do not "
                                                             "yet support dilation rates larger "
                                                             "than 1.")
    if op in ("max", "avg") and dims == 3 and name in ("float16", "float64"):
        kernel = "MaxPool3D" if op == "max" else "AvgPool3D"
        if op == "max" and name == "float64":
            raise errors.invalid_argument(kernel, "Value for attr 'T' of double is not in the list "
                                                  "of allowed values: half, bfloat16, float")
        raise errors.NotFoundError(None, None, f"Could not find device for node: {{{{node "
                                               f"{kernel}}}}} with T={name}")


def to_channels_last(x):
    """(N, C, *spatial) -> (N, *spatial, C)."""
    rank = x.shape.rank
    return array_ops.transpose(x, [0] + list(range(2, rank)) + [1])


def from_channels_last(x):
    """(N, *spatial, C) -> (N, C, *spatial)."""
    rank = x.shape.rank
    return array_ops.transpose(x, [0, rank - 1] + list(range(1, rank - 1)))


def _tuple(value, n, name):
    if isinstance(value, int):
        return (value,) * n
    value = tuple(int(v) for v in value)
    if len(value) != n:
        raise ValueError(f"`{name}` must be an int or a tuple of {n} ints. Received: {name}={value}")
    return value


def _padding(padding):
    padding = padding.lower()
    if padding not in ("valid", "same"):
        raise ValueError(f"The `padding` argument must be one of 'valid', 'same'. Received: "
                         f"padding={padding}")
    return padding.upper()


def _same_pads(n, k, s, d):
    eff = (k - 1) * d + 1
    out = -(-n // s)
    total = max((out - 1) * s + eff - n, 0)
    return total // 2, total - total // 2


def _conv_nd(x, w, strides, padding, dilation):
    """channels_last convolution of rank 1, 2 or 3 (3-D as a sum over the depth taps)."""
    dims = x.shape.rank - 2
    if dims == 1:
        return conv_ops.conv1d(x, w, strides[0], padding, "NWC", dilation[0])
    if dims == 2:
        return conv_ops.conv2d(x, w, list(strides), padding, "NHWC", list(dilation))
    n, depth = int(x.shape[0]), int(x.shape[1])
    k, s, d = int(w.shape[0]), strides[0], dilation[0]
    if padding == "SAME":
        before, after = _same_pads(depth, k, s, d)
        x = array_ops.pad(x, [[0, 0], [before, after], [0, 0], [0, 0], [0, 0]])
        depth += before + after
    out_depth = (depth - ((k - 1) * d + 1)) // s + 1
    if out_depth <= 0:
        raise ValueError(f"The convolution operation resulted in an empty output: the depth "
                         f"{depth} is smaller than the dilated kernel {(k - 1) * d + 1}.")
    total = None
    for tap in range(k):
        start = tap * d
        slab = getitem(x, (slice(None), slice(start, start + s * (out_depth - 1) + 1, s)))
        flat = array_ops.reshape(slab, [n * out_depth] + list(slab.shape[2:]))
        part = conv_ops.conv2d(flat, w[tap], list(strides[1:]), padding, "NHWC", list(dilation[1:]))
        total = part if total is None else math_ops.add(total, part)
    return array_ops.reshape(total, [n, out_depth] + list(total.shape[1:]))


@export("keras.ops.conv", "keras.ops.nn.conv")
@keras_op
def conv(inputs, kernel, strides=1, padding="valid", data_format=None, dilation_rate=1):
    """N-D convolution (cross-correlation) of `inputs` with `kernel` of shape
    kernel_spatial + (in_channels / groups, out_channels)."""
    data_format = standardize_data_format(data_format)
    padding = _padding(padding)
    x, w = convert(inputs), convert(kernel)
    dims = x.shape.rank - 2
    if dims not in (1, 2, 3):
        raise ValueError(f"Input rank not supported: {x.shape.rank}. Expected values are [3, 4, 5]")
    strides = _tuple(strides, dims, "strides")
    dilation = _tuple(dilation_rate, dims, "dilation_rate")
    channels_axis = -1 if data_format == "channels_last" else 1
    if int(x.shape[channels_axis]) == int(w.shape[-2]):  # grouped convolutions run through XLA
        _cpu_kernel_check(x, data_format, dims, "conv")
    if data_format == "channels_first":
        x = to_channels_last(x)
    channels, per_group = int(x.shape[-1]), int(w.shape[-2])
    if per_group and channels != per_group and channels % per_group == 0:
        groups = channels // per_group
        xs = array_ops.split(x, groups, axis=-1)
        ws = array_ops.split(w, groups, axis=-1)
        out = array_ops.concat([_conv_nd(a, b, strides, padding, dilation) for a, b in zip(xs, ws)],
                       axis=-1)
    else:
        out = _conv_nd(x, w, strides, padding, dilation)
    if 0 in list(out.shape) and 0 not in list(x.shape):
        raise ValueError(f"The convolution operation resulted in an empty output. Output shape: "
                         f"{tuple(out.shape)}. This can happen if the input is too small for "
                         f"the given kernel size, strides, dilation rate, and padding mode.")
    return from_channels_last(out) if data_format == "channels_first" else out


def _transpose_size(n, k, s, padding, output_padding, d):
    k = (k - 1) * d + 1
    if padding == "VALID":
        extra = max(k, s) - k if output_padding is None else output_padding
        return (n - 1) * s + k + extra
    if output_padding is None:
        return n * s
    return (n - 1) * s + k % 2 + output_padding


@export("keras.ops.conv_transpose", "keras.ops.nn.conv_transpose")
@keras_op
def conv_transpose(inputs, kernel, strides=1, padding="valid", output_padding=None,
                   data_format=None, dilation_rate=1):
    """The transposed convolution (the gradient of `conv` w.r.t. its input); `kernel` has shape
    kernel_spatial + (out_channels, in_channels)."""
    data_format = standardize_data_format(data_format)
    padding = _padding(padding)
    x, w = convert(inputs), convert(kernel)
    dims = x.shape.rank - 2
    if dims not in (1, 2):
        raise ValueError(f"conv_transpose supports 1-D and 2-D inputs (rank 3 or 4) in minitf; "
                         f"received rank {x.shape.rank}.")
    _cpu_kernel_check(x, data_format, dims, "transpose",
                      _tuple(dilation_rate, dims, "dilation_rate"))
    if data_format == "channels_first":
        x = to_channels_last(x)
    channels = int(x.shape[-1])
    if int(w.shape[-1]) != channels:
        raise ValueError(f"The number of input channels must match the kernel's input channels "
                         f"(kernel.shape[-1]). Received: input channels={channels}, kernel input "
                         f"channels={int(w.shape[-1])}, data_format='{data_format}'.")
    strides = _tuple(strides, dims, "strides")
    dilation = _tuple(dilation_rate, dims, "dilation_rate")
    pads = _tuple(output_padding, dims, "output_padding") if output_padding is not None \
        else (None,) * dims
    spatial = [_transpose_size(int(x.shape[1 + i]), int(w.shape[i]), strides[i], padding, pads[i],
                               dilation[i]) for i in range(dims)]
    shape = [int(x.shape[0])] + spatial + [int(w.shape[-2])]
    if dims == 1:
        out = conv_ops.conv1d_transpose(x, w, shape, strides[0], padding, "NWC", dilation[0])
    else:
        out = conv_ops.conv2d_transpose(x, w, shape, list(strides), padding, "NHWC", list(dilation))
    return from_channels_last(out) if data_format == "channels_first" else out


def _check_channels(x, w, data_format):
    channels = int(x.shape[-1] if data_format == "channels_last" else x.shape[1])
    if channels != int(w.shape[-2]):
        raise ValueError(f"The number of input channels must match the kernel's input channels. "
                         f"Received: input channels={channels}, kernel input channels="
                         f"{int(w.shape[-2])}, data_format='{data_format}'.")


def _depthwise(x, dw, pw, strides, padding, dilation):
    """channels_last depthwise (then pointwise) convolution of rank 1 or 2 via the 2-D kernel."""
    one_d = x.shape.rank == 3
    if one_d:
        x = array_ops.expand_dims(x, 1)
        dw = array_ops.expand_dims(dw, 0)
        pw = None if pw is None else array_ops.expand_dims(pw, 0)
        strides, dilation = (1,) + strides, (1,) + dilation
    if padding == "VALID":
        sizes = [(int(x.shape[1 + i]) - (int(dw.shape[i]) - 1) * dilation[i] - 1) // strides[i] + 1
                 for i in range(2)]
        if min(sizes) <= 0:  # TF gives an empty result (minitf's kernel refuses)
            out = _empty_like_inputs([x, dw] + ([] if pw is None else [pw]),
                                     [int(x.shape[0])] + [max(s, 0) for s in sizes] +
                                     [int(dw.shape[2]) * int(dw.shape[3]) if pw is None
                                      else int(pw.shape[-1])])
            return array_ops.squeeze(out, [1]) if one_d else out
    if any(s > 1 for s in strides) and any(d > 1 for d in dilation):
        # TF refuses strides and dilations > 1 together: dilated at stride 1, then subsample
        if padding == "SAME":
            pads = [_same_pads(int(x.shape[1 + i]), int(dw.shape[i]), strides[i], dilation[i])
                    for i in range(2)]
            x = array_ops.pad(x, [[0, 0], list(pads[0]), list(pads[1]), [0, 0]])
        out = conv_ops.depthwise_conv2d(x, dw, [1, 1, 1, 1], "VALID", "NHWC", list(dilation))
        out = getitem(out, (slice(None), slice(None, None, strides[0]),
                            slice(None, None, strides[1])))
        if pw is not None:
            out = conv_ops.conv2d(out, pw, [1, 1, 1, 1], "VALID", "NHWC")
    elif pw is None:
        out = conv_ops.depthwise_conv2d(x, dw, [1, strides[0], strides[1], 1], padding, "NHWC",
                                  list(dilation))
    else:
        out = conv_ops.separable_conv2d(x, dw, pw, [1, strides[0], strides[1], 1], padding, "NHWC",
                                  list(dilation))
    return array_ops.squeeze(out, [1]) if one_d else out


def _empty_like_inputs(tensors, shape):
    """A tensor of `shape` (which has no elements) that depends on every one of `tensors`, so
    their gradients are zeros rather than missing."""
    out = None
    for t in tensors:
        part = array_ops.reshape(getitem(t, slice(0, 0)), shape)
        out = part if out is None else math_ops.add(out, part)
    return out


def _depthwise_call(inputs, kernel, pointwise, strides, padding, data_format, dilation_rate):
    data_format = standardize_data_format(data_format)
    x, dw = convert(inputs), convert(kernel)
    pw = None if pointwise is None else convert(pointwise)
    dims = x.shape.rank - 2
    if dims not in (1, 2):
        raise ValueError(f"`inputs` rank must be 3 (1D conv) or 4 (2D conv). Received: "
                         f"{x.shape.rank}.")
    _check_channels(x, dw, data_format)
    padding = _padding(padding)
    strides = _tuple(strides, dims, "strides")
    dilation = _tuple(dilation_rate, dims, "dilation_rate")
    if data_format == "channels_first":
        x = to_channels_last(x)
    out = _depthwise(x, dw, pw, strides, padding, dilation)
    return from_channels_last(out) if data_format == "channels_first" else out


@export("keras.ops.depthwise_conv", "keras.ops.nn.depthwise_conv")
@keras_op
def depthwise_conv(inputs, kernel, strides=1, padding="valid", data_format=None,
                   dilation_rate=1):
    """Depthwise convolution: each input channel convolved with its own `multiplier` filters;
    `kernel` has shape kernel_spatial + (in_channels, multiplier)."""
    return _depthwise_call(inputs, kernel, None, strides, padding, data_format, dilation_rate)


@export("keras.ops.separable_conv", "keras.ops.nn.separable_conv")
@keras_op
def separable_conv(inputs, depthwise_kernel, pointwise_kernel, strides=1, padding="valid",
                   data_format=None, dilation_rate=1):
    """A depthwise convolution followed by a 1x1 convolution mixing the channels."""
    return _depthwise_call(inputs, depthwise_kernel, pointwise_kernel, strides, padding,
                           data_format, dilation_rate)


def _pool_along(x, axis, size, stride, padding, kind):
    """1-D pooling of channels_last `x` along spatial `axis` (1-based in x's axes)."""
    rank = x.shape.rank
    order = [0] + [i for i in range(1, rank - 1) if i != axis] + [axis, rank - 1]
    moved = array_ops.transpose(x, order)
    shape = list(moved.shape)
    flat = array_ops.reshape(moved, [-1, shape[-2], shape[-1]])
    fn = conv_ops.max_pool1d if kind == "max" else conv_ops.avg_pool1d
    pooled = fn(flat, size, stride, padding, "NWC")
    pooled = array_ops.reshape(pooled, shape[:-2] + list(pooled.shape[1:]))
    back = sorted(range(rank), key=order.__getitem__)
    return array_ops.transpose(pooled, back)


def _pool(inputs, pool_size, strides, padding, data_format, kind):
    data_format = standardize_data_format(data_format)
    padding = _padding(padding)
    x = convert(inputs)
    dims = x.shape.rank - 2
    if dims not in (1, 2, 3):
        raise ValueError(f"Pooling inputs's shape must be 3, 4 or 5, corresponding to 1D, 2D and "
                         f"3D inputs. But received shape: {tuple(x.shape)}.")
    size = _tuple(pool_size, dims, "pool_size")
    strides = size if strides is None else _tuple(strides, dims, "strides")
    _cpu_kernel_check(x, data_format, dims, kind)
    if data_format == "channels_first":
        x = to_channels_last(x)
    if dims == 1:
        fn = conv_ops.max_pool1d if kind == "max" else conv_ops.avg_pool1d
        out = fn(x, size[0], strides[0], padding, "NWC")
    elif dims == 2:
        fn = conv_ops.max_pool2d if kind == "max" else conv_ops.avg_pool2d
        out = fn(x, list(size), list(strides), padding, "NHWC")
    else:
        out = x
        for i in range(3):
            out = _pool_along(out, i + 1, size[i], strides[i], padding, kind)
    return from_channels_last(out) if data_format == "channels_first" else out


@export("keras.ops.max_pool", "keras.ops.nn.max_pool")
@keras_op
def max_pool(inputs, pool_size, strides=None, padding="valid", data_format=None):
    """The maximum over each window (1-D, 2-D or 3-D)."""
    return _pool(inputs, pool_size, strides, padding, data_format, "max")


@export("keras.ops.average_pool", "keras.ops.nn.average_pool")
@keras_op
def average_pool(inputs, pool_size, strides=None, padding="valid", data_format=None):
    """The mean over each window (with 'same' padding, of the real elements only)."""
    return _pool(inputs, pool_size, strides, padding, data_format, "avg")


def _adaptive_along(x, axis, out_size, kind):
    """Keras' two-pool gather: windows of the two sizes pooled at stride 1, then the start of
    each output's window picked."""
    n = int(x.shape[axis])
    small = math.ceil(n / out_size)
    big = small + 1
    starts = [math.floor(i * n / out_size) for i in range(out_size)]
    ends = [min(math.ceil((i + 1) * n / out_size), n) for i in range(out_size)]
    starts = [min(s, n - 1) for s in starts]
    small_len = max(1, n - small + 1)
    pick = [s + small_len if e - s == big else s for s, e in zip(starts, ends)]
    pooled_small = _pool_along(x, axis, small, 1, "VALID", kind)
    pooled_big = _pool_along(x, axis, big, 1, "VALID", kind)
    both = array_ops.concat([pooled_small, pooled_big], axis=axis)
    return array_ops.gather(both, constant_ops.constant(pick, dtype="int32"), axis=axis)


def _adaptive(inputs, output_size, data_format, kind):
    data_format = standardize_data_format(data_format)
    x = convert(inputs)
    dims = x.shape.rank - 2
    if dims not in (1, 2, 3):
        name = "adaptive_average_pool" if kind == "avg" else "adaptive_max_pool"
        raise ValueError(f"{name} supports 1D, 2D, or 3D inputs only.")
    sizes = _tuple(output_size, dims, "output_size")
    _cpu_kernel_check(x, data_format, dims, kind)
    if data_format == "channels_first":
        x = to_channels_last(x)
    for i in range(dims):
        x = _adaptive_along(x, i + 1, sizes[i], kind)
    return from_channels_last(x) if data_format == "channels_first" else x


@export("keras.ops.adaptive_average_pool", "keras.ops.nn.adaptive_average_pool")
@keras_op
def adaptive_average_pool(inputs, output_size, data_format=None):
    """Average pooling to a fixed `output_size`, windows chosen as PyTorch does."""
    return _adaptive(inputs, output_size, data_format, "avg")


@export("keras.ops.adaptive_max_pool", "keras.ops.nn.adaptive_max_pool")
@keras_op
def adaptive_max_pool(inputs, output_size, data_format=None):
    """Max pooling to a fixed `output_size`, windows chosen as PyTorch does."""
    return _adaptive(inputs, output_size, data_format, "max")


def _pair(v):
    return (v, v) if isinstance(v, int) else tuple(v)


@export("keras.ops.unfold", "keras.ops.nn.unfold")
@keras_op
def unfold(x, kernel_size, dilation=1, padding=0, stride=1):
    """The sliding blocks of an (N, C, H, W) image as columns: (N, C*kH*kW, L) (torch's
    unfold)."""
    x = convert(x)
    if x.shape.rank != 4:
        raise ValueError(f"Input must be a 4D tensor. Received: input.shape={tuple(x.shape)}")
    k, d, p, s = _pair(kernel_size), _pair(dilation), _pair(padding), _pair(stride)
    n, c = int(x.shape[0]), int(x.shape[1])
    if any(v > 0 for v in p):
        x = array_ops.pad(x, [[0, 0], [0, 0], [p[0], p[0]], [p[1], p[1]]])
    h, w = int(x.shape[2]), int(x.shape[3])
    nh = max((h - d[0] * (k[0] - 1) - 1) // s[0] + 1, 0)
    nw = max((w - d[1] * (k[1] - 1) - 1) // s[1] + 1, 0)
    if nh == 0 or nw == 0:  # no block fits: an empty result, still connected to x
        return array_ops.reshape(getitem(x, (slice(None), slice(None), slice(0, 0), slice(0, 0))),
                         [n, c * k[0] * k[1], 0])
    blocks = []
    for i in range(k[0]):
        for j in range(k[1]):
            blocks.append(getitem(x, (slice(None), slice(None),
                                      slice(i * d[0], i * d[0] + s[0] * (nh - 1) + 1, s[0]),
                                      slice(j * d[1], j * d[1] + s[1] * (nw - 1) + 1, s[1]))))
    stacked = array_ops.stack(blocks, axis=2)  # (N, C, kH*kW, nH, nW)
    return array_ops.reshape(stacked, [n, c * k[0] * k[1], nh * nw])


@export("keras.ops.fold", "keras.ops.nn.fold")
@keras_op
def fold(x, output_size, kernel_size, dilation=1, padding=0, stride=1):
    """The inverse of `unfold`: columns (N, C*kH*kW, L) summed back into (N, C, oH, oW)."""
    x = convert(x)
    if x.shape.rank != 3:
        raise ValueError(f"Input must be a 3D tensor. Received: input.shape={tuple(x.shape)}")
    k, o = _pair(kernel_size), _pair(output_size)
    d, p, s = _pair(dilation), _pair(padding), _pair(stride)
    n, ckk = int(x.shape[0]), int(x.shape[1])
    c = ckk // (k[0] * k[1])
    nh = (o[0] + 2 * p[0] - d[0] * (k[0] - 1) - 1) // s[0] + 1
    nw = (o[1] + 2 * p[1] - d[1] * (k[1] - 1) - 1) // s[1] + 1
    x = array_ops.reshape(x, [n, c, k[0], k[1], nh, nw])
    hp, wp = o[0] + 2 * p[0], o[1] + 2 * p[1]
    out = array_ops.zeros([hp, wp, n, c], dtype=x.dtype)
    for i in range(k[0]):
        for j in range(k[1]):
            rows = np.arange(nh) * s[0] + i * d[0]
            cols = np.arange(nw) * s[1] + j * d[1]
            index = np.stack(np.meshgrid(rows, cols, indexing="ij"), axis=-1).astype(np.int32)
            patch = array_ops.transpose(x[:, :, i, j], [2, 3, 0, 1])  # (nH, nW, N, C)
            out = array_ops.tensor_scatter_nd_add(out, index, patch)
    out = array_ops.transpose(out, [2, 3, 0, 1])
    if p[0] or p[1]:
        out = getitem(out, (slice(None), slice(None), slice(p[0], hp - p[0]),
                            slice(p[1], wp - p[1])))
    return out


def _block(block_size, name):
    if block_size < 2:
        raise ValueError(f"`block_size` must be at least 2. Received: block_size={block_size}")
    return int(block_size)


@export("keras.ops.depth_to_space", "keras.ops.nn.depth_to_space")
@keras_op
def depth_to_space(x, block_size, data_format="channels_last"):
    """Channels moved into block_size x block_size spatial blocks (TF's DepthToSpace)."""
    data_format = standardize_data_format(data_format)
    b = _block(block_size, "depth_to_space")
    x = convert(x)
    if data_format == "channels_first":
        x = to_channels_last(x)
    n, h, w, c = (int(v) for v in x.shape)
    if c % (b * b):
        raise ValueError(f"depth_to_space: the depth {c} is not divisible by block_size^2 = "
                         f"{b * b}.")
    y = array_ops.reshape(x, [n, h, w, b, b, c // (b * b)])
    y = array_ops.reshape(array_ops.transpose(y, [0, 1, 3, 2, 4, 5]), [n, h * b, w * b, c // (b * b)])
    return from_channels_last(y) if data_format == "channels_first" else y


@export("keras.ops.space_to_depth", "keras.ops.nn.space_to_depth")
@keras_op
def space_to_depth(x, block_size, data_format="channels_last"):
    """block_size x block_size spatial blocks moved into the channels (TF's SpaceToDepth)."""
    data_format = standardize_data_format(data_format)
    b = _block(block_size, "space_to_depth")
    x = convert(x)
    if data_format == "channels_first":
        x = to_channels_last(x)
    n, h, w, c = (int(v) for v in x.shape)
    if h % b or w % b:
        raise ValueError(f"space_to_depth: the height {h} and width {w} must be divisible by "
                         f"block_size {b}.")
    y = array_ops.reshape(x, [n, h // b, b, w // b, b, c])
    y = array_ops.reshape(array_ops.transpose(y, [0, 1, 3, 2, 4, 5]), [n, h // b, w // b, b * b * c])
    return from_channels_last(y) if data_format == "channels_first" else y
