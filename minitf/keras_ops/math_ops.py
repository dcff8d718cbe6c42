"""keras.ops (math): top-k, logsumexp, the error functions, rsqrt, logdet, cdist, framing and
complex views. The Fourier transforms live in `keras_ops.fft`.

erfc and erfinv are not minitf ops: they are computed here on the raw arrays in float64 (Cody's
rational approximations for erfc, Newton's method on erf for erfinv) with their gradients
declared through `custom_gradient`, written with minitf ops so they differentiate again.
"""
import math

import numpy as np

from minitf.custom_gradient import custom_gradient
from minitf.keras_ops.core import convert, keras_op, xp_of
from minitf.ops import _special
from minitf.ops import array as array_ops
from minitf.ops import constant as constant_ops
from minitf.ops import linalg as linalg_ops
from minitf.ops import math as math_ops
from minitf.ops import nn as nn_ops
from minitf.ops import reduce as reduce_ops
from minitf.ops import segment as SEG
from minitf.tensor import Tensor
from minitf.api_export import export

__all__ = ["top_k", "in_top_k", "logsumexp", "erf", "erfc", "erfinv", "rsqrt", "logdet",
           "cdist", "extract_sequences", "view_as_real", "view_as_complex", "frames",
           "segment_sum", "segment_max", "segment_min", "segment_prod"]


@export("keras.ops.top_k")
@keras_op
def top_k(x, k, sorted=True):  # noqa: A002 (Keras' name)
    """The k largest values along the last axis and their indices."""
    return nn_ops.top_k(convert(x), k, sorted=sorted)


@export("keras.ops.in_top_k")
@keras_op
def in_top_k(targets, predictions, k):
    """Whether each target class is among the k highest predictions of its row."""
    return nn_ops.in_top_k(targets, predictions, k)


@export("keras.ops.logsumexp")
@keras_op
def logsumexp(x, axis=None, keepdims=False):
    """log(sum(exp(x))) over `axis`, computed without overflow."""
    axis = list(axis) if isinstance(axis, tuple) else axis
    return reduce_ops.reduce_logsumexp(convert(x), axis=axis, keepdims=keepdims)


@export("keras.ops.erf")
@keras_op
def erf(x):
    """The error function."""
    return math_ops.erf(convert(x))


def _erfc_raw(xp, x):
    """erfc in float64 by Cody's approximations (accurate far into the tail)."""
    x64 = x.astype("float64")
    y = xp.abs(x64)
    ym = xp.clip(y, 0.5, 4.0)
    num, den = _special._C[8] * ym, ym
    for i in range(7):
        num, den = (num + _special._C[i]) * ym, (den + _special._D[i]) * ym
    mid = _special._exp_neg_square(xp, ym) * ((num + _special._C[7]) / (den + _special._D[7]))
    yl = xp.clip(y, 4.0, 30.0)
    inv = 1.0 / (yl * yl)
    num, den = _special._P[5] * inv, inv
    for i in range(4):
        num, den = (num + _special._P[i]) * inv, (den + _special._Q[i]) * inv
    large = _special._exp_neg_square(xp, yl) * (
        (_special._INV_SQRT_PI - inv * (num + _special._P[4]) / (den + _special._Q[4])) / yl)
    tail = xp.where(y <= 4.0, mid, large)
    tail = xp.where(x64 < 0, 2.0 - tail, tail)
    small = 1.0 - _special.erf(xp, x64)
    out = xp.where(y <= 0.5, small, tail)
    return xp.where(x64 != x64, x64, out)


@custom_gradient
def _erfc(x):
    xp = xp_of(x)
    y = Tensor(_erfc_raw(xp, x._value).astype(x._value.dtype))

    def grad(g):
        return math_ops.multiply(g, math_ops.multiply(math_ops.exp(math_ops.negative(math_ops.square(x))), -2.0 / math.sqrt(math.pi)))
    return y, grad


@export("keras.ops.erfc")
@keras_op
def erfc(x):
    """1 - erf(x), accurate where erf(x) is close to 1."""
    x = convert(x)
    if not x.dtype.is_floating:
        raise TypeError(f"erfc needs a float tensor; received dtype {x.dtype.name}.")
    return _erfc(x)


def _erfinv_raw(xp, x):
    """erfinv in float64: Giles' single-precision start, then Newton steps on erf."""
    x64 = x.astype("float64")
    with np.errstate(all="ignore"):
        w = -xp.log((1.0 - x64) * (1.0 + x64))
        central = w < 5.0
        wc = w - 2.5
        p = 2.81022636e-08
        for c in (3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087, -0.00125372503,
                  -0.00417768164, 0.246640727, 1.50140941):
            p = c + p * wc
        wt = xp.sqrt(xp.maximum(w, 5.0)) - 3.0
        q = -0.000200214257
        for c in (0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773, -0.0076224613,
                  0.00943887047, 1.00167406, 2.83297682):
            q = c + q * wt
        y = xp.where(central, p, q) * x64
        for _ in range(3):
            err = _special.erf(xp, y) - x64
            y = y - err / (2.0 / math.sqrt(math.pi) * xp.exp(-y * y))
        y = xp.where(x64 == 1.0, np.inf, xp.where(x64 == -1.0, -np.inf, y))
        y = xp.where(xp.abs(x64) > 1.0, np.nan, y)
    return xp.where(x64 != x64, x64, y)


@custom_gradient
def _erfinv(x):
    xp = xp_of(x)
    y = Tensor(_erfinv_raw(xp, x._value).astype(x._value.dtype))

    def grad(g):
        return math_ops.multiply(g, math_ops.multiply(math_ops.exp(math_ops.square(_erfinv(x))), math.sqrt(math.pi) / 2.0))
    return y, grad


@export("keras.ops.erfinv")
@keras_op
def erfinv(x):
    """The inverse error function (+-inf at +-1, NaN outside [-1, 1])."""
    x = convert(x)
    if not x.dtype.is_floating:
        raise TypeError(f"erfinv needs a float tensor; received dtype {x.dtype.name}.")
    return _erfinv(x)


@export("keras.ops.rsqrt")
@keras_op
def rsqrt(x):
    """1 / sqrt(x)."""
    return math_ops.rsqrt(convert(x))


@export("keras.ops.logdet")
@keras_op
def logdet(x):
    """log(det(x)) of Hermitian positive-definite matrices."""
    return linalg_ops.logdet(convert(x))


@export("keras.ops.cdist")
@keras_op
def cdist(x, y):
    """The Euclidean distances between the rows of x and those of y (batched)."""
    x, y = convert(x), convert(y)
    if x.shape.rank < 2 or y.shape.rank < 2:
        raise ValueError("`cdist` inputs must have rank >= 2")
    if int(x.shape[-1]) != int(y.shape[-1]):
        raise ValueError("Last dimension of inputs to `cdist` must match")
    diff = math_ops.subtract(array_ops.expand_dims(x, -2), array_ops.expand_dims(y, -3))
    return math_ops.sqrt(reduce_ops.reduce_sum(math_ops.square(diff), axis=-1))


def frames(x, length, step):
    """tf.signal.frame along the last axis without end padding: (..., n_frames, length)."""
    n = int(x.shape[-1])
    count = 0 if n < length else 1 + (n - length) // step
    index = (np.arange(count)[:, None] * step + np.arange(length)[None, :]).astype(np.int32)
    return array_ops.gather(x, index, axis=x.shape.rank - 1)


@export("keras.ops.extract_sequences")
@keras_op
def extract_sequences(x, sequence_length, sequence_stride):
    """Overlapping windows of length `sequence_length` every `sequence_stride` samples along
    the last axis."""
    return frames(convert(x), int(sequence_length), int(sequence_stride))


@export("keras.ops.view_as_real")
@keras_op
def view_as_real(x):
    """A complex tensor as real numbers: a trailing axis of (real, imag)."""
    x = convert(x)
    xp = xp_of(x)
    if x.dtype.is_complex:
        real, imag = Tensor(xp.real(x._value).copy()), Tensor(xp.imag(x._value).copy())
    else:
        real, imag = x, array_ops.zeros_like(x)
    return array_ops.stack([real, imag], axis=-1)


@export("keras.ops.view_as_complex")
@keras_op
def view_as_complex(x):
    """A trailing (real, imag) axis of size 2 read as complex64 numbers."""
    x = convert(x)
    if x.shape.rank < 1 or int(x.shape[-1]) != 2:
        raise ValueError(f"Last dimension of input must be size 2 (real and imaginary). "
                         f"Received shape: {tuple(x.shape)}")
    v = x._value
    return Tensor((v[..., 0].astype("complex64") + 1j * v[..., 1].astype("complex64"))
                  .astype("complex64"))


def _segment_args(data, segment_ids, num_segments, sorted):  # noqa: A002 (Keras' name)
    data, segment_ids = convert(data), convert(segment_ids)
    if segment_ids.shape.rank > 1:
        raise ValueError(f"Argument `segment_ids` should be an 1-D vector, got shape: "
                         f"{segment_ids.shape.rank}. Consider either flatten input with "
                         f"segment_ids.reshape((-1)) and data.reshape((-1, ) + "
                         f"data.shape[len(segment_ids.shape):]) or vectorize with vmap.")
    if segment_ids.shape.rank == 1 and data.shape.rank and \
            int(segment_ids.shape[0]) != int(data.shape[0]):
        raise ValueError(f"Argument `segment_ids` and `data` should have same leading dimension. "
                         f"Got {tuple(segment_ids.shape)} v.s. {tuple(data.shape)}.")
    if sorted and num_segments is not None:
        raise ValueError(f"Argument `num_segments` cannot be set when sorted is True when using "
                         f"the tensorflow backend.Received: num_segments={num_segments}, "
                         f"sorted={sorted}.")
    return data, segment_ids


def _segment(kind, data, segment_ids, num_segments, sorted):  # noqa: A002
    data, ids = _segment_args(data, segment_ids, num_segments, sorted)
    if sorted:
        return getattr(SEG, f"segment_{kind}")(data, ids)
    if num_segments is None:
        if kind == "sum":  # Keras counts the distinct ids here (not max + 1)
            num_segments = int(array_ops.unique(ids)[0].shape[0])
        else:
            num_segments = int(constant_ops.cast(reduce_ops.reduce_max(ids), "int32").numpy()) + 1
    return getattr(SEG, f"unsorted_segment_{kind}")(data, ids, num_segments)


@export("keras.ops.segment_sum")
@keras_op
def segment_sum(data, segment_ids, num_segments=None, sorted=False):  # noqa: A002
    """The sum of the rows of `data` in each segment given by `segment_ids`."""
    return _segment("sum", data, segment_ids, num_segments, sorted)


@export("keras.ops.segment_max")
@keras_op
def segment_max(data, segment_ids, num_segments=None, sorted=False):  # noqa: A002
    """The maximum of the rows of `data` in each segment (the dtype's lowest when empty)."""
    return _segment("max", data, segment_ids, num_segments, sorted)


@export("keras.ops.segment_min")
@keras_op
def segment_min(data, segment_ids, num_segments=None, sorted=False):  # noqa: A002
    """The minimum of the rows of `data` in each segment (the dtype's highest when empty)."""
    return _segment("min", data, segment_ids, num_segments, sorted)


@export("keras.ops.segment_prod")
@keras_op
def segment_prod(data, segment_ids, num_segments=None, sorted=False):  # noqa: A002
    """The product of the rows of `data` in each segment (1 when empty)."""
    return _segment("prod", data, segment_ids, num_segments, sorted)
