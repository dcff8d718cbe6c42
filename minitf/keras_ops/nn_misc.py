"""keras.ops.nn: one-hot encodings, crossentropies, moments and normalizations, attention,
PSNR and `polar`."""
import math
import warnings

import numpy as np

from minitf.errors import errors
from minitf.keras_core import config
from minitf.keras_ops.core import axis_tuple, convert, keras_op
from minitf.keras_ops.dtypes import result_type, standardize_dtype
from minitf.keras_ops.nn_activations import logits_of
from minitf.ops import array as array_ops
from minitf.ops import compare as CMP
from minitf.ops import constant as constant_ops
from minitf.ops import linalg as linalg_ops
from minitf.ops import math as math_ops
from minitf.ops import nn as nn_ops
from minitf.ops import reduce as reduce_ops
from minitf.ops.gather import where as tf_where
from minitf.tensor import Tensor
from minitf.api_export import export

__all__ = ["one_hot", "multi_hot", "categorical_crossentropy", "sparse_categorical_crossentropy",
           "binary_crossentropy", "moments", "batch_normalization", "layer_normalization",
           "rms_normalization", "normalize", "psnr", "dot_product_attention", "polar"]


@export("keras.ops.one_hot", "keras.ops.nn.one_hot")
@keras_op
def one_hot(x, num_classes, axis=-1, dtype=None, sparse=False):
    """The integer labels `x` as one-hot vectors of length `num_classes` along `axis`
    (out-of-range labels give all zeros)."""
    if sparse:
        raise NotImplementedError("one_hot(sparse=True) is not supported by minitf.")
    dtype = standardize_dtype(dtype) or config.floatx()
    x = convert(x, "int64")
    if dtype == "bool":
        return array_ops.one_hot(x, num_classes, on_value=True, off_value=False, axis=axis, dtype=dtype)
    return array_ops.one_hot(x, num_classes, axis=axis, dtype=dtype)


@export("keras.ops.multi_hot", "keras.ops.nn.multi_hot")
@keras_op
def multi_hot(inputs, num_classes=None, axis=-1, dtype=None, sparse=False, **kwargs):
    """Each row of integer labels as one vector with a 1 at every label it holds."""
    if num_classes is None and "num_tokens" in kwargs:
        num_classes = kwargs.pop("num_tokens")
    if num_classes is None:
        raise ValueError("Argument `num_classes` must be specified.")
    if sparse:
        raise NotImplementedError("multi_hot(sparse=True) is not supported by minitf.")
    dtype = standardize_dtype(dtype)
    x = convert(inputs)
    reduction = 1 if x.shape.rank > 1 else 0
    hot = one_hot(x, num_classes, axis=axis, dtype=dtype)
    if dtype == "bool":
        return reduce_ops.reduce_any(hot, axis=reduction)
    return reduce_ops.reduce_max(hot, axis=reduction)


def _logits(output, from_logits, fn_name, kind):
    logits = logits_of(output)
    if logits is None:
        return output, from_logits
    if from_logits:
        warnings.warn(f'"`{fn_name}` received `from_logits=True`, but the `output` argument was '
                      f'produced by a {kind} activation and thus does not represent logits. '
                      f'Was this intended?', stacklevel=3)
    return logits, True


def _same_shape(target, output):
    if target.shape.rank != output.shape.rank:
        raise ValueError(f"Arguments `target` and `output` must have the same rank (ndim). "
                         f"Received: target.shape={tuple(target.shape)}, output.shape="
                         f"{tuple(output.shape)}")
    if list(target.shape) != list(output.shape):
        raise ValueError(f"Arguments `target` and `output` must have the same shape. Received: "
                         f"target.shape={tuple(target.shape)}, output.shape="
                         f"{tuple(output.shape)}")


@export("keras.ops.categorical_crossentropy", "keras.ops.nn.categorical_crossentropy")
@keras_op
def categorical_crossentropy(target, output, from_logits=False, axis=-1):
    """-sum(target * log(output)) along `axis` (output renormalised and clipped to
    [epsilon, 1 - epsilon] unless it holds logits)."""
    logits, from_logits = _logits(output, from_logits, "categorical_crossentropy", "Softmax")
    target, output = constant_ops.convert_to_tensor(target), constant_ops.convert_to_tensor(output)
    if target.shape.rank < 1:
        raise ValueError(f"Arguments `target` and `output` must be at least rank 1. Received: "
                         f"target.shape={tuple(target.shape)}, output.shape={tuple(output.shape)}")
    _same_shape(target, output)
    if from_logits:
        return nn_ops.softmax_cross_entropy_with_logits(labels=target, logits=logits, axis=axis)
    output = math_ops.divide(output, reduce_ops.reduce_sum(output, axis=axis, keepdims=True))
    eps = config.epsilon()
    output = math_ops.clip_by_value(output, eps, 1.0 - eps)
    return math_ops.negative(reduce_ops.reduce_sum(math_ops.multiply(target, math_ops.log(output)), axis=axis))


@export("keras.ops.sparse_categorical_crossentropy", "keras.ops.nn.sparse_categorical_crossentropy")
@keras_op
def sparse_categorical_crossentropy(target, output, from_logits=False, axis=-1):
    """The crossentropy of integer labels `target` against the class scores `output`."""
    output_t = convert(output)
    if axis != -1 and axis != output_t.shape.rank - 1:
        raise ValueError(f"Only axis=-1 is currently supported. Received: axis={axis}")
    output, from_logits = _logits(output, from_logits, "sparse_categorical_crossentropy",
                                  "Softmax")
    target = constant_ops.cast(constant_ops.convert_to_tensor(target), "int64")
    output = constant_ops.convert_to_tensor(output)
    if target.shape.rank == output.shape.rank and int(target.shape[-1]) == 1:
        target = array_ops.squeeze(target, axis=[-1])
    if output.shape.rank < 1:
        raise ValueError(f"Argument `output` must be at least rank 1. Received: "
                         f"output.shape={tuple(output.shape)}")
    if target.shape.rank != output.shape.rank - 1:
        raise ValueError(f"Argument `output` must have rank (ndim) `target.ndim - 1`. Received: "
                         f"target.shape={tuple(target.shape)}, output.shape={tuple(output.shape)}")
    if list(target.shape) != list(output.shape[:-1]):
        raise ValueError(f"Arguments `target` and `output` must have the same shape up until the "
                         f"last dimension: target.shape={tuple(target.shape)}, output.shape="
                         f"{tuple(output.shape)}")
    if not from_logits:
        eps = config.epsilon()
        output = math_ops.log(math_ops.clip_by_value(output, eps, 1 - eps))
    return nn_ops.sparse_softmax_cross_entropy_with_logits(labels=target, logits=output)


@export("keras.ops.binary_crossentropy", "keras.ops.nn.binary_crossentropy")
@keras_op
def binary_crossentropy(target, output, from_logits=False):
    """-(target log(output) + (1 - target) log(1 - output)), elementwise (output clipped to
    [epsilon, 1 - epsilon] unless it holds logits)."""
    logits, from_logits = _logits(output, from_logits, "binary_crossentropy", "Sigmoid")
    target, output = constant_ops.convert_to_tensor(target), constant_ops.convert_to_tensor(output)
    _same_shape(target, output)
    if from_logits:
        return nn_ops.sigmoid_cross_entropy_with_logits(labels=target, logits=logits)
    eps = config.epsilon()
    output = math_ops.clip_by_value(output, eps, 1.0 - eps)
    bce = math_ops.multiply(target, math_ops.log(output))
    bce = math_ops.add(bce, math_ops.multiply(math_ops.subtract(1.0, target), math_ops.log(math_ops.subtract(1.0, output))))
    return math_ops.negative(bce)


@export("keras.ops.moments", "keras.ops.nn.moments")
@keras_op
def moments(x, axes, keepdims=False, synchronized=False):
    """(mean, variance) of x over `axes` (half floats computed in float32)."""
    x = convert(x)
    name = x.dtype.name
    half = name in ("float16", "bfloat16")
    if half:
        x = constant_ops.cast(x, "float32")
    mean, variance = nn_ops.moments(x, list(axis_tuple(axes)), keepdims=keepdims)
    if half:
        limit = float(np.finfo(np.float16).max)
        mean = constant_ops.cast(math_ops.clip_by_value(mean, -limit, limit), name)
        variance = constant_ops.cast(math_ops.clip_by_value(variance, -limit, limit), name)
    return mean, variance


@export("keras.ops.batch_normalization", "keras.ops.nn.batch_normalization")
@keras_op
def batch_normalization(x, mean, variance, axis, offset=None, scale=None, epsilon=1e-3):
    """(x - mean) / sqrt(variance + epsilon) * scale + offset, the statistics laid along
    `axis`."""
    x, mean, variance = convert(x), convert(mean), convert(variance)
    offset = None if offset is None else convert(offset)
    scale = None if scale is None else convert(scale)
    if axis != -1:
        shape = [1] * x.shape.rank
        shape[axis] = int(mean.shape[0])
        mean, variance = array_ops.reshape(mean, shape), array_ops.reshape(variance, shape)
        offset = None if offset is None else array_ops.reshape(offset, shape)
        scale = None if scale is None else array_ops.reshape(scale, shape)
    return nn_ops.batch_normalization(x, mean, variance, offset, scale, epsilon)


@export("keras.ops.layer_normalization", "keras.ops.nn.layer_normalization")
@keras_op
def layer_normalization(x, gamma=None, beta=None, axis=-1, epsilon=None, **kwargs):
    """x normalised to zero mean and unit variance over `axis`, then scaled by gamma and
    shifted by beta (computed in at least float32)."""
    rms_scaling = kwargs.pop("rms_scaling", False)
    if rms_scaling:
        warnings.warn("You passed `rms_scaling=True`, which is deprecated. This argument "
                      "incorrectly scales the input by the variance, not the root mean square. "
                      "To correctly use RMS Normalization, please use "
                      "`keras.ops.rms_normalization` / `keras.ops.nn.rms_normalization` instead.")
    epsilon = config.epsilon() if epsilon is None else epsilon
    x = convert(x)
    original = x.dtype.name
    x = constant_ops.cast(x, result_type(x.dtype, "float32"))
    gamma = None if gamma is None else convert(gamma, x.dtype.name)
    beta = None if beta is None else convert(beta, x.dtype.name)
    ndim = x.shape.rank
    axes = sorted([axis] if isinstance(axis, int) else list(axis))
    broadcast = [1] * ndim
    for a in axes:
        broadcast[a] = int(x.shape[a])

    def widen(v):
        if v is not None and v.shape.rank != ndim and axes != [ndim - 1]:
            return array_ops.reshape(v, broadcast)
        return v
    if rms_scaling:
        variance = reduce_ops.reduce_variance(x, axis=axes, keepdims=True)
        out = math_ops.multiply(x, math_ops.rsqrt(math_ops.add(variance, epsilon)))
        if gamma is not None:
            out = math_ops.multiply(out, widen(gamma))
        return constant_ops.cast(out, original)
    mean, variance = moments(x, axes=axes, keepdims=True)
    gamma, beta = widen(gamma), widen(beta)
    inv = math_ops.rsqrt(math_ops.add(variance, epsilon))
    if gamma is not None:
        inv = math_ops.multiply(inv, gamma)
    res = math_ops.multiply(math_ops.negative(mean), inv)
    if beta is not None:
        res = math_ops.add(res, beta)
    return constant_ops.cast(math_ops.add(math_ops.multiply(x, inv), res), original)


@export("keras.ops.rms_normalization", "keras.ops.nn.rms_normalization")
@keras_op
def rms_normalization(x, scale=None, axis=-1, epsilon=None):
    """x / sqrt(mean(x^2) + epsilon) over `axis`, times `scale` (computed in at least
    float32)."""
    epsilon = config.epsilon() if epsilon is None else epsilon
    x = convert(x)
    original = x.dtype.name
    x = constant_ops.cast(x, result_type(x.dtype, "float32"))
    if scale is not None:
        scale = convert(scale, x.dtype.name)
    if isinstance(axis, (tuple, list)):
        axis = sorted(axis)
    if x.shape.rank == 0:
        x = array_ops.expand_dims(x, 0)
    rrms = math_ops.rsqrt(math_ops.add(reduce_ops.reduce_mean(math_ops.square(x), axis=axis, keepdims=True), epsilon))
    out = math_ops.multiply(x, rrms)
    if scale is not None:
        out = math_ops.multiply(out, scale)
    return constant_ops.cast(out, original)


@export("keras.ops.normalize", "keras.ops.nn.normalize")
@keras_op
def normalize(x, axis=-1, order=2, epsilon=None):
    """x divided by its `order`-norm along `axis` (at least epsilon)."""
    if not isinstance(order, int) or not order >= 1:
        raise ValueError(f"Argument `order` must be an int >= 1. Received: order={order}")
    x = convert(x)
    if x.shape.rank == 0:
        x = array_ops.expand_dims(x, 0)
    epsilon = config.epsilon() if epsilon is None else epsilon
    if order == 2:
        inv = math_ops.rsqrt(reduce_ops.reduce_sum(math_ops.square(x), axis=axis, keepdims=True))
        return math_ops.multiply(x, math_ops.minimum(inv, 1.0 / epsilon))
    norm = math_ops.pow(reduce_ops.reduce_sum(math_ops.pow(math_ops.abs(x), constant_ops.constant(order, dtype=x.dtype)), axis=axis,
                              keepdims=True), constant_ops.constant(1.0 / order, dtype=x.dtype))
    return math_ops.divide(x, math_ops.maximum(norm, epsilon))


@export("keras.ops.psnr", "keras.ops.nn.psnr")
@keras_op
def psnr(x1, x2, max_val):
    """The peak signal-to-noise ratio of x1 against x2, in dB, for signals up to `max_val`."""
    x1, x2 = convert(x1), convert(x2)
    if list(x1.shape) != list(x2.shape):
        raise ValueError(f"Input shapes {tuple(x1.shape)} and {tuple(x2.shape)} must match for "
                         f"PSNR calculation. ")
    max_val = convert(max_val, x2.dtype.name)
    mse = reduce_ops.reduce_mean(math_ops.square(math_ops.subtract(x1, x2)))
    ln10 = math_ops.log(constant_ops.constant(10, dtype=mse.dtype))
    return math_ops.subtract(math_ops.multiply(math_ops.divide(math_ops.log(max_val), ln10), 20.0),
                      math_ops.multiply(math_ops.divide(math_ops.log(mse), ln10), 10.0))


def _large_negative(dtype):
    value = 65500.0 if dtype == "float16" else 3.38953e38
    return constant_ops.constant(value * -0.7, dtype=dtype)


@export("keras.ops.dot_product_attention", "keras.ops.nn.dot_product_attention")
@keras_op
def dot_product_attention(query, key, value, bias=None, mask=None, scale=None, is_causal=False,
                          flash_attention=None, attn_logits_soft_cap=None):
    """softmax(query key^T * scale + bias, masked) value for (batch, seq, heads, dim) inputs;
    key/value heads are repeated for grouped-query attention."""
    if attn_logits_soft_cap is not None:
        raise ValueError("attn_logits_soft_cap is only supported for JAX on TPU. Set "
                         "attn_logits_soft_cap=None when not using JAX on TPU.")
    if flash_attention:
        raise ValueError("Flash attention is not supported in tensorflow backend.")
    query, key, value = convert(query), convert(key), convert(value)
    if query.shape.rank != 4:
        raise ValueError(f"`dot_product_attention` only supports 4D inputs. Received: "
                         f"query.shape={tuple(query.shape)}, key.shape={tuple(key.shape)}, "
                         f"value.shape={tuple(value.shape)}.")
    dtype = result_type(query.dtype, key.dtype, value.dtype)
    query, key, value = constant_ops.cast(query, dtype), constant_ops.cast(key, dtype), constant_ops.cast(value, dtype)
    q_heads, kv_heads = int(query.shape[2]), int(key.shape[2])
    if q_heads > kv_heads > 1:
        key = array_ops.repeat(key, q_heads // kv_heads, axis=2)
        value = array_ops.repeat(value, q_heads // kv_heads, axis=2)
    if int(key.shape[2]) != q_heads:
        raise errors.invalid_argument("Einsum", f"query has {q_heads} heads but key and value "
                                                f"have {int(key.shape[2])}; the query heads must "
                                                f"be a multiple of the key/value heads (> 1)")
    if bias is not None:
        bias = convert(bias, dtype)
    if scale is None:
        scale = 1.0 / math.sqrt(float(int(key.shape[-1])))
    logits_dtype = result_type(query.dtype, "float32")
    logits = constant_ops.cast(linalg_ops.einsum("BTNH,BSNH->BNTS", query, key), logits_dtype)
    logits = math_ops.multiply(logits, constant_ops.cast(convert(scale), logits_dtype))
    if bias is not None:
        logits = math_ops.add(logits, constant_ops.cast(bias, logits_dtype))
    if mask is not None or is_causal:
        keep = array_ops.ones_like(logits, dtype="bool")
        if mask is not None:
            keep = CMP.logical_and(keep, constant_ops.cast(convert(mask), "bool"))
        if is_causal:
            t, s = int(logits.shape[2]), int(logits.shape[3])
            causal = linalg_ops.band_part(array_ops.ones([t, s], "bool"), -1, 0)
            keep = CMP.logical_and(keep, array_ops.reshape(causal, [1, 1, t, s]))
        logits = tf_where(keep, logits, _large_negative(logits.dtype.name))
    probs_dtype = result_type(logits.dtype, "float32")
    probs = constant_ops.cast(nn_ops.softmax(constant_ops.cast(logits, probs_dtype), axis=-1), key.dtype)
    return linalg_ops.einsum("BNTS,BSNH->BTNH", probs, value)


@export("keras.ops.polar", "keras.ops.nn.polar")
@keras_op
def polar(abs_, angle):
    """The complex numbers abs_ * (cos(angle) + i sin(angle))."""
    abs_, angle = convert(abs_), convert(angle)
    real = math_ops.multiply(abs_, math_ops.cos(angle))
    imag = math_ops.multiply(abs_, math_ops.sin(angle))
    if list(real.shape) != list(imag.shape):
        raise ValueError(f"Input `x` should be a tuple of two tensors - real and imaginary.Both "
                         f"the real and imaginary parts should have the same shape. Received: "
                         f"x[0].shape = {tuple(real.shape)}, x[1].shape = {tuple(imag.shape)}")
    if not real.dtype.is_floating:
        raise ValueError(f"At least one tensor in input `x` is not of type float.Received: "
                         f"x={(real, imag)}.")
    complex_dtype = "complex128" if real.dtype.name == "float64" else "complex64"
    return Tensor((real._value + 1j * imag._value).astype(complex_dtype))
