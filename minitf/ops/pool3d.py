"""3-D pooling (tf.nn): max_pool3d and avg_pool3d, on NDHWC (or NCDHW) volumes.

MaxPool3D's gradient goes to every element equal to its window's maximum (TF's MaxPool3DGrad
routes to all tied maxima, unlike 2-D MaxPoolGrad's first one); AvgPool3D averages, and spreads
gradients over, the real (unpadded) elements of each window. The array work lives in
`minitf.kernels.volumes`.
"""
from minitf import dispatch
from minitf.errors import errors
from minitf.kernels import volumes
from minitf.ops._core import Op, Tensor, thread_state, as_tensor, record
from minitf.ops.creation import zeros_like
from minitf.ops.conv3d import (FLOAT_TYPES, Geometry3D, check_format, check_padding, check_rank,
                               from_ndhwc, sequence, to_ndhwc)
from minitf.api_export import export

__all__ = ["max_pool3d", "avg_pool3d"]


class _Maxima:
    """For each window tap, where the input equals its window's maximum; worked out from the
    saved input and output on the first backward pass, then shared by MaxPool3DGrad and
    MaxPool3DGradGrad."""

    def __init__(self, x, y, geo):
        self._x, self._y, self._geo, self._masks = x, y, geo, None

    def __iter__(self):
        if self._masks is None:
            self._masks = volumes.max_pool3d_masks(self._x._value, self._y._value, self._geo)
        return iter(self._masks)


MAX_POOL3D = Op("MaxPool3D", dtypes=("float16", "bfloat16", "float32"))


def _max_pool3d_ndhwc(x, geo):
    """MaxPool3D on an NDHWC tensor with a precomputed geometry; records its gradient."""
    y = Tensor(volumes.max_pool3d(x._value, geo))
    if thread_state.active:
        maxima = _Maxima(x, y, geo)
        record(MAX_POOL3D, (x,), (y,), lambda g: _max_pool3d_grad(x, g, maxima, geo))
    return y


MAX_POOL3D_GRAD = Op("MaxPool3DGrad")


def _max_pool3d_grad(x, g, maxima, geo):
    """MaxPool3DGrad: each upstream value added to every maximum of its window."""
    out = Tensor(volumes.max_pool3d_grad(g._value, maxima, geo))
    if thread_state.active:
        # zero almost everywhere with respect to the input, and TF returns those zeros
        record(MAX_POOL3D_GRAD, (x, g), (out,),
               lambda u: (lambda: zeros_like(x), lambda: _max_pool3d_grad_grad(x, u, maxima, geo)))
    return out


MAX_POOL3D_GRAD_GRAD = Op("MaxPool3DGradGrad")


def _max_pool3d_grad_grad(x, u, maxima, geo):
    """MaxPool3DGradGrad: for each window, the sum of `u` over its maxima."""
    y = Tensor(volumes.max_pool3d_grad_grad(u._value, maxima, geo))
    if thread_state.active:
        record(MAX_POOL3D_GRAD_GRAD, (x, u), (y,),
               lambda g: (lambda: zeros_like(x), lambda: _max_pool3d_grad(x, g, maxima, geo)))
    return y


AVG_POOL3D = Op("AvgPool3D", dtypes=FLOAT_TYPES)


def _avg_pool3d_ndhwc(x, geo):
    """AvgPool3D on an NDHWC tensor with a precomputed geometry; records its gradient."""
    y = Tensor(volumes.avg_pool3d(x._value, geo))
    if thread_state.active:
        record(AVG_POOL3D, (x,), (y,), lambda g: _avg_pool3d_grad(g, geo))
    return y


AVG_POOL3D_GRAD = Op("AvgPool3DGrad")


def _avg_pool3d_grad(g, geo):
    """AvgPool3DGrad: each upstream value spread evenly over its window's real elements."""
    out = Tensor(volumes.avg_pool3d_grad(g._value, geo))
    if thread_state.active:
        record(AVG_POOL3D_GRAD, (g,), (out,), lambda u: _avg_pool3d_ndhwc(u, geo))
    return out


def _window(values, name, data_format, op_name):
    """The (depth, rows, cols) entries of a 5-list of ksize or strides, with TF's errors."""
    batch, chan = (values[0], values[4]) if data_format == "NDHWC" else (values[0], values[1])
    if batch != 1:
        raise errors.UnimplementedError(None, None, f"Pooling is not yet supported on the batch "
                                                    f"dimension ({name}={values}). [Op:{op_name}]")
    if chan != 1:
        raise errors.UnimplementedError(None, None, f"Pooling is not yet supported on the depth "
                                                    f"dimension ({name}={values}). [Op:{op_name}]")
    spatial = tuple(values[1:4] if data_format == "NDHWC" else values[2:5])
    if min(spatial) < 1:
        raise errors.invalid_argument(op_name, f"{name} must be > 0, got {values}")
    return spatial


def geometry(x, ksize, strides, padding, data_format, op_name):
    """The checked window geometry of a 3-D pooling of the NDHWC tensor `x`."""
    k = _window(sequence(ksize, "ksize", data_format, op_name), "ksize", data_format, op_name)
    s = _window(sequence(strides, "strides", data_format, op_name), "strides", data_format, op_name)
    return Geometry3D(tuple(x._value.shape), k, s, (1, 1, 1), padding, op_name, allow_empty=True)


def _pool3d(kind, input, ksize, strides, padding, data_format):  # noqa: A002
    op, declared = ("MaxPool3D", MAX_POOL3D) if kind == "max" else ("AvgPool3D", AVG_POOL3D)
    x = as_tensor(input)
    # TF's Python wrapper expands ksize/strides before the kernel checks format and padding
    ksize = sequence(ksize, "ksize", data_format, op)
    strides = sequence(strides, "strides", data_format, op)
    data_format = check_format(data_format, op)
    padding = check_padding(padding, op)
    declared.check_dtype(x)
    check_rank(x, 5, op)
    x = to_ndhwc(x, data_format)
    geo = geometry(x, ksize, strides, padding, data_format, op)
    y = _max_pool3d_ndhwc(x, geo) if kind == "max" else _avg_pool3d_ndhwc(x, geo)
    return from_ndhwc(y, data_format)


@export("nn.max_pool3d")
@dispatch.add_dispatch_support
def max_pool3d(input, ksize, strides, padding, data_format="NDHWC", name=None):  # noqa: A002
    """Maximum over each [kd, kh, kw] window of a [batch, depth, rows, cols, channels] input.

    ksize, strides: an int or a list of 1, 3 or 5 ints. padding: 'SAME' (padding never wins
    the maximum) or 'VALID'. Takes float16, bfloat16 and float32, as TF's MaxPool3D.
    """
    return _pool3d("max", input, ksize, strides, padding, data_format)


@export("nn.avg_pool3d")
@dispatch.add_dispatch_support
def avg_pool3d(input, ksize, strides, padding, data_format="NDHWC", name=None):  # noqa: A002
    """Mean over each [kd, kh, kw] window; with 'SAME' padding only real elements are averaged."""
    return _pool3d("avg", input, ksize, strides, padding, data_format)
