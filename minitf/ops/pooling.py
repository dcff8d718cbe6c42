"""Pooling (tf.nn): max and average pooling over 1-D and 2-D windows, and the rank-dispatching
max_pool, avg_pool and pool, which send rank-5 inputs to the 3-D pools (minitf.ops.pool3d).

Layout is NHWC (NCHW inputs are transposed to NHWC and back); the array work lives in
`minitf.kernels`. MaxPool, MaxPoolGrad and MaxPoolGradGrad are adjoint pieces, as are AvgPool and
AvgPoolGrad, so each one's gradient is built from the others and any order of derivative works.
"""
import numpy as np  # Python-side bookkeeping only (argument lists)

from minitf import dispatch
from minitf import kernels
from minitf.errors import errors
from minitf.ops._core import Op, Tensor, thread_state, record, array_module, as_tensor
from minitf.ops.array import reshape
from minitf.ops.arg_checks import converted
from minitf.ops.conv_geometry import (Geometry, check_format, check_rank, from_nhwc, nhwc,
                                      normalize_padding, not_allowed, one_int, spatial_pair)
from minitf.ops.pool3d import avg_pool3d, max_pool3d
from minitf.api_export import export

__all__ = ["max_pool2d", "avg_pool2d", "max_pool", "avg_pool", "max_pool1d", "avg_pool1d", "pool"]


def _pool_geometry(x, ksize, strides, padding, data_format, op_name, allow_explicit):
    kh, kw = spatial_pair(ksize, "ksize", op_name, data_format=data_format)
    s = spatial_pair(strides, "strides", op_name, data_format=data_format)
    if min(kh, kw) < 1 or min(s) < 1:
        raise errors.invalid_argument(op_name, f"ksize {[kh, kw]} and strides {list(s)} must be >= 1")
    mode, explicit = normalize_padding(padding, op_name, data_format, allow_explicit)
    if explicit and (explicit[0][0] >= kh or explicit[0][1] >= kh or
                     explicit[1][0] >= kw or explicit[1][1] >= kw):
        raise errors.invalid_argument(op_name, f"explicit padding {padding} must be smaller than ksize")
    return Geometry(x._value.shape, kh, kw, s, (1, 1), mode, explicit, op_name, allow_empty=True)


class _MaxPoolWinners:
    """For each window, where in the input its gradient goes: the element TF's MaxPoolGrad picks
    (the first maximum in row-major order; see `minitf.kernels.windows.max_pool_winners`).

    Worked out once from the saved input and output, on the first backward pass, then shared by
    MaxPoolGrad and MaxPoolGradGrad. The op asks for the winners (`get()`) before it calls its
    kernel, never from inside it: a compiled plan records each kernel call as one opaque step, and
    work done inside one on the traced input would be invisible to it.
    """

    def __init__(self, x, y, geo):
        self._x, self._y, self._geo, self._winners = x, y, geo, None

    def get(self):
        """The [N, OH, OW, C] array of the winners' flat indices in the input (computed on the
        first call)."""
        if self._winners is None:
            xv = self._x._value
            self._winners = kernels.for_module(array_module(xv)).max_pool_winners(xv, self._y._value, self._geo)
        return self._winners


MAX_POOL = Op("MaxPool")


def _max_pool_nhwc(x, geo):
    xv = x._value
    y = Tensor(kernels.for_module(array_module(xv)).max_pool(xv, geo))
    if thread_state.active:
        winners = _MaxPoolWinners(x, y, geo)
        record(MAX_POOL, (x,), (y,), lambda g: _max_pool_grad(x, g, winners, geo))
    return y


MAX_POOL_GRAD = Op("MaxPoolGrad")


def _max_pool_grad(x, g, winners, geo):
    """MaxPoolGrad: route each upstream value to the position of its window's maximum."""
    gv = g._value
    out = Tensor(kernels.for_module(array_module(gv)).max_pool_grad(gv, winners.get(), geo))
    if thread_state.active:
        record(MAX_POOL_GRAD, (x, g), (out,), lambda u: (None, lambda: _max_pool_grad_grad(x, u, winners, geo)))
    return out


MAX_POOL_GRAD_GRAD = Op("MaxPoolGradGrad")


def _max_pool_grad_grad(x, u, winners, geo):
    """MaxPoolGradGrad: gather, for each window, the value at its maximum's position."""
    uv = u._value
    y = Tensor(kernels.for_module(array_module(uv)).max_pool_grad_grad(uv, winners.get(), geo))
    if thread_state.active:
        record(MAX_POOL_GRAD_GRAD, (x, u), (y,), lambda g: (None, lambda: _max_pool_grad(x, g, winners, geo)))
    return y


AVG_POOL = Op("AvgPool")


def _avg_pool_nhwc(x, geo):
    xv = x._value
    y = Tensor(kernels.for_module(array_module(xv)).avg_pool(xv, geo))
    if thread_state.active:
        record(AVG_POOL, (x,), (y,), lambda g: _avg_pool_grad(g, geo))
    return y


AVG_POOL_GRAD = Op("AvgPoolGrad")


def _avg_pool_grad(g, geo):
    """AvgPoolGrad: spread each upstream value evenly over its window's real elements."""
    gv = g._value
    out = Tensor(kernels.for_module(array_module(gv)).avg_pool_grad(gv, geo))
    if thread_state.active:
        record(AVG_POOL_GRAD, (g,), (out,), lambda u: _avg_pool_nhwc(u, geo))
    return out


def _pool2d(kind, input, ksize, strides, padding, data_format):  # noqa: A002
    op = "MaxPool" if kind == "max" else "AvgPool"
    x = input if type(input) is Tensor else converted(input, f"tf.nn.{kind}_pool2d", "input")
    data_format = check_format(data_format, op)
    check_rank(x, 4, op)
    if kind == "avg" and x._value.dtype.kind != "f":
        not_allowed(x, op, "half, bfloat16, float, double")
    if kind == "max" and x._value.dtype.kind not in "fiu":
        not_allowed(x, op, "half, bfloat16, float, double, int32, int64, uint8, int16, int8, uint16")
    x = nhwc(x, data_format)
    geo = _pool_geometry(x, ksize, strides, padding, data_format, op, allow_explicit=(kind == "max"))
    y = _max_pool_nhwc(x, geo) if kind == "max" else _avg_pool_nhwc(x, geo)
    return from_nhwc(y, data_format)


@export("nn.max_pool2d")
@dispatch.add_dispatch_support
def max_pool2d(input, ksize, strides, padding, data_format="NHWC", name=None):  # noqa: A002
    """Maximum over each [kh, kw] window; SAME padding never wins the maximum."""
    return _pool2d("max", input, ksize, strides, padding, data_format)


@export("nn.avg_pool2d")
@dispatch.add_dispatch_support
def avg_pool2d(input, ksize, strides, padding, data_format="NHWC", name=None):  # noqa: A002
    """Mean over each [kh, kw] window; with SAME padding only real elements are averaged."""
    return _pool2d("avg", input, ksize, strides, padding, data_format)


def _pool1d(kind, input, ksize, strides, padding, data_format):  # noqa: A002
    x = as_tensor(input)
    check_rank(x, 3, f"{kind}_pool1d")
    if data_format not in (None, "NWC"):
        raise ValueError(f"{kind}_pool1d: only data_format='NWC' is supported, got {data_format!r}")
    k = one_int(ksize, "ksize", "NHWC")
    s = one_int(strides, "strides", "NHWC")
    pad = padding if isinstance(padding, str) else [[0, 0], [0, 0], list(padding[1]), [0, 0]]
    x4 = reshape(x, [x.shape[0], 1] + list(x.shape[1:]))
    y = _pool2d(kind, x4, [1, k], [1, s], pad, "NHWC")
    shape = list(y.shape)
    return reshape(y, [shape[0]] + shape[2:])


@export("nn.max_pool1d")
@dispatch.add_dispatch_support
def max_pool1d(input, ksize, strides, padding, data_format="NWC", name=None):  # noqa: A002
    """1-D max pooling over [batch, width, channels]."""
    return _pool1d("max", input, ksize, strides, padding, data_format)


@export("nn.avg_pool1d")
@dispatch.add_dispatch_support
def avg_pool1d(input, ksize, strides, padding, data_format="NWC", name=None):  # noqa: A002
    """1-D average pooling over [batch, width, channels]."""
    return _pool1d("avg", input, ksize, strides, padding, data_format)


@export("nn.max_pool")
@dispatch.add_dispatch_support
def max_pool(input, ksize, strides, padding, data_format=None, name=None):  # noqa: A002
    """Max pooling dispatched on rank: 3-D -> max_pool1d, 4-D -> max_pool2d, 5-D -> max_pool3d."""
    rank = as_tensor(input)._value.ndim
    if rank == 3:
        return max_pool1d(input, ksize, strides, padding, data_format or "NWC")
    if rank == 4:
        return max_pool2d(input, ksize, strides, padding, data_format or "NHWC")
    if rank == 5:
        _no_explicit_padding(padding, rank)
        return max_pool3d(input, ksize, strides, padding, data_format or "NDHWC")
    raise ValueError(f"`input` must have rank 3, 4 or 5 (1-D, 2-D or 3-D pooling). Received: "
                     f"rank={rank} (tf.nn.max_pool)")


def _no_explicit_padding(padding, rank):
    if not isinstance(padding, str):
        raise ValueError(f"Explicit padding is not supported with an input tensor of rank {rank}. "
                         f"Received: padding={padding}")


@export("nn.avg_pool")
@dispatch.add_dispatch_support
def avg_pool(input, ksize, strides, padding, data_format=None, name=None):  # noqa: A002
    """Average pooling dispatched on rank: 3-D -> avg_pool1d, 4-D -> avg_pool2d, 5-D -> avg_pool3d."""
    rank = as_tensor(input)._value.ndim
    if rank == 3:
        return avg_pool1d(input, ksize, strides, padding, data_format or "NWC")
    if rank == 4:
        return avg_pool2d(input, ksize, strides, padding, data_format or "NHWC")
    if rank == 5:  # explicit padding: AvgPool3D's TypeError (max_pool's is a ValueError), as TF
        return avg_pool3d(input, ksize, strides, padding, data_format or "NDHWC")
    raise ValueError(f"`input` must have rank 3, 4 or 5 (1-D, 2-D or 3-D pooling). Received: "
                     f"rank={rank} (tf.nn.avg_pool)")


@export("nn.pool")
@dispatch.add_dispatch_support
def pool(input, window_shape, pooling_type, strides=None, padding="VALID", data_format=None,  # noqa: A002
         dilations=None, name=None):
    """tf.nn.pool for 1-D, 2-D and 3-D windows: pooling_type 'MAX' or 'AVG' (dilations must be 1);
    the input's rank must be the window's length + 2 (ValueError, as TF)."""
    if dilations is not None and any(int(d) != 1 for d in np.ravel(dilations)):
        raise NotImplementedError("pool: dilation rates other than 1 are not supported")
    kind = {"MAX": "max", "AVG": "avg"}.get(str(pooling_type).upper())
    if kind is None:
        raise ValueError(f"pool: pooling_type must be 'MAX' or 'AVG', got {pooling_type!r}")
    window = list(window_shape)
    shape = tuple(as_tensor(input).shape)
    if len(shape) != len(window) + 2:
        raise ValueError(f"Shape {shape} must have rank {len(window) + 2}")
    strides = [1] * len(window) if strides is None else list(strides)
    if any(int(s) > int(w) for s, w in zip(strides, window)):
        raise ValueError(f"`strides` > `window_shape` not supported due to inconsistency between CPU and "
                         f"GPU implementations. Received: strides={np.array(strides)} and "
                         f"window_shape={window}")
    fn = max_pool if kind == "max" else avg_pool
    return fn(input, window, strides, padding, data_format)
