"""tf.keras.backend: the Keras 2 network functions: convolutions, pooling, padding, resizing,
bias_add, batch_normalization, the crossentropies (Keras 2 formulas) and `rnn`."""
import itertools

from minitf.nest import nest
from minitf.keras_core import config
from minitf.keras_ops.legacy import repeat_elements
from minitf.keras_ops.nn_conv import conv, depthwise_conv, separable_conv
from minitf.keras_ops.nn_conv import average_pool, max_pool
from minitf.ops import array as array_ops
from minitf.ops import compare as CMP
from minitf.ops import constant as constant_ops
from minitf.ops import conv as conv_ops
from minitf.ops import image as IMG
from minitf.ops import math as math_ops
from minitf.ops import nn as nn_ops
from minitf.ops import reduce as reduce_ops
from minitf.ops.gather import where as tf_where
from minitf.api_export import export

__all__ = ["batch_normalization", "bias_add", "binary_crossentropy", "binary_focal_crossentropy",
           "categorical_crossentropy", "categorical_focal_crossentropy",
           "sparse_categorical_crossentropy", "conv1d", "conv2d", "conv2d_transpose", "conv3d",
           "depthwise_conv2d", "separable_conv2d", "pool2d", "pool3d", "spatial_2d_padding",
           "spatial_3d_padding", "temporal_padding", "resize_images", "resize_volumes", "rnn"]


def _t(x):
    return constant_ops.convert_to_tensor(x)


def _format(data_format):
    data_format = config.image_data_format() if data_format is None else data_format
    if data_format not in ("channels_first", "channels_last"):
        raise ValueError(f"Unknown data_format: {data_format}")
    return data_format


def _padding(padding):
    if padding not in ("same", "valid"):
        raise ValueError(f"Invalid padding: {padding}")
    return padding


@export("keras.backend.batch_normalization")
def batch_normalization(x, mean, var, beta, gamma, axis=-1, epsilon=0.001):
    """(x - mean) / sqrt(var + epsilon) * gamma + beta."""
    return nn_ops.batch_normalization(x, mean, var, beta, gamma, epsilon)


@export("keras.backend.bias_add")
def bias_add(x, bias, data_format=None):
    """x + bias along the channel axis of `data_format`."""
    data_format = _format(data_format)
    x, bias = _t(x), _t(bias)
    rank = x.shape.rank
    bias_shape = list(bias.shape)
    if len(bias_shape) != 1 and len(bias_shape) != rank - 1:
        raise ValueError(f"Unexpected bias dimensions {len(bias_shape)}. Expected it to be 1 or "
                         f"{rank - 1} dimensions")
    if len(bias_shape) == 1:
        return nn_ops.bias_add(x, bias, data_format="NCHW" if data_format == "channels_first"
                           else "NHWC")
    if rank in (3, 4, 5):
        if data_format == "channels_first":
            return math_ops.add(x, array_ops.reshape(bias, [1, bias_shape[-1]] + bias_shape[:-1]))
        return math_ops.add(x, array_ops.reshape(bias, [1] + bias_shape))
    return nn_ops.bias_add(x, bias)


@export("keras.backend.binary_crossentropy")
def binary_crossentropy(target, output, from_logits=False):
    """Keras 2's binary crossentropy: -(t log(o + eps) + (1 - t) log(1 - o + eps)), o clipped."""
    target, output = _t(target), _t(output)
    if from_logits:
        return nn_ops.sigmoid_cross_entropy_with_logits(labels=target, logits=output)
    eps = config.epsilon()
    output = math_ops.clip_by_value(output, constant_ops.constant(eps, dtype=output.dtype),
                             constant_ops.constant(1.0 - eps, dtype=output.dtype))
    bce = math_ops.multiply(target, math_ops.log(math_ops.add(output, eps)))
    bce = math_ops.add(bce, math_ops.multiply(math_ops.subtract(1, target), math_ops.log(math_ops.add(math_ops.subtract(1, output), eps))))
    return math_ops.negative(bce)


@export("keras.backend.binary_focal_crossentropy")
def binary_focal_crossentropy(target, output, apply_class_balancing=False, alpha=0.25, gamma=2.0,
                              from_logits=False):
    """The binary crossentropy weighted by (1 - p_t) ** gamma (and alpha when balancing)."""
    target, output = _t(target), _t(output)
    probs = math_ops.sigmoid(output) if from_logits else output
    p_t = math_ops.add(math_ops.multiply(target, probs), math_ops.multiply(math_ops.subtract(1, target), math_ops.subtract(1, probs)))
    focal = math_ops.multiply(math_ops.pow(math_ops.subtract(1.0, p_t), gamma),
                       binary_crossentropy(target, output, from_logits=from_logits))
    if apply_class_balancing:
        weight = math_ops.add(math_ops.multiply(target, alpha), math_ops.multiply(math_ops.subtract(1, target), 1 - alpha))
        focal = math_ops.multiply(weight, focal)
    return focal


def _check_compatible(target, output):
    if list(target.shape) != list(output.shape):
        raise ValueError(f"Shapes {tuple(target.shape)} and {tuple(output.shape)} are "
                         f"incompatible")


@export("keras.backend.categorical_crossentropy")
def categorical_crossentropy(target, output, from_logits=False, axis=-1):
    """Keras 2's categorical crossentropy (output renormalised and clipped unless logits)."""
    target, output = _t(target), _t(output)
    _check_compatible(target, output)
    if from_logits:
        return nn_ops.softmax_cross_entropy_with_logits(labels=target, logits=output, axis=axis)
    output = math_ops.divide(output, reduce_ops.reduce_sum(output, axis, True))
    eps = constant_ops.constant(config.epsilon(), dtype=output.dtype)
    output = math_ops.clip_by_value(output, eps, math_ops.subtract(1.0, eps))
    return math_ops.negative(reduce_ops.reduce_sum(math_ops.multiply(target, math_ops.log(output)), axis))


@export("keras.backend.categorical_focal_crossentropy")
def categorical_focal_crossentropy(target, output, alpha=0.25, gamma=2.0, from_logits=False,
                                   axis=-1):
    """The categorical crossentropy weighted by alpha * (1 - p) ** gamma per class."""
    target, output = _t(target), _t(output)
    _check_compatible(target, output)
    if from_logits:
        output = nn_ops.softmax(output, axis=axis)
    output = math_ops.divide(output, reduce_ops.reduce_sum(output, axis=axis, keepdims=True))
    eps = constant_ops.constant(config.epsilon(), dtype=output.dtype)
    output = math_ops.clip_by_value(output, eps, math_ops.subtract(1.0, eps))
    cce = math_ops.multiply(math_ops.negative(target), math_ops.log(output))
    weight = math_ops.multiply(math_ops.pow(math_ops.subtract(1.0, output), gamma), alpha)
    return reduce_ops.reduce_sum(math_ops.multiply(weight, cce), axis=axis)


@export("keras.backend.sparse_categorical_crossentropy")
def sparse_categorical_crossentropy(target, output, from_logits=False, axis=-1,
                                    ignore_class=None):
    """Keras 2's crossentropy of integer labels against class scores along `axis`; labels
    equal to `ignore_class` contribute 0."""
    target, output = constant_ops.cast(_t(target), "int64"), _t(output)
    if not from_logits:
        eps = constant_ops.constant(config.epsilon(), dtype=output.dtype)
        output = math_ops.log(math_ops.clip_by_value(output, eps, math_ops.subtract(1, eps)))
    rank = output.shape.rank
    axis %= rank
    if axis != rank - 1:
        output = array_ops.transpose(output, list(itertools.chain(range(axis), range(axis + 1, rank),
                                                          [axis])))
    out_shape = list(output.shape)
    reshaped = target.shape.rank != rank - 1
    if reshaped:
        target = array_ops.reshape(target, [-1])
        output = array_ops.reshape(output, [-1, out_shape[-1]])
    if ignore_class is not None:
        valid = CMP.not_equal(target, constant_ops.cast(ignore_class, target.dtype))
        safe = tf_where(valid, target, array_ops.zeros_like(target))
        res = nn_ops.sparse_softmax_cross_entropy_with_logits(labels=safe, logits=output)
        res = tf_where(valid, res, array_ops.zeros_like(res))
        return array_ops.reshape(res, out_shape[:-1])
    res = nn_ops.sparse_softmax_cross_entropy_with_logits(labels=target, logits=output)
    if reshaped and rank >= 3:
        res = array_ops.reshape(res, out_shape[:-1])
    return res


def _pair(v, n):
    return (v,) * n if isinstance(v, int) else tuple(v)


@export("keras.backend.conv1d")
def conv1d(x, kernel, strides=1, padding="valid", data_format=None, dilation_rate=1):
    """1-D convolution; padding 'causal' pads the start of the sequence."""
    data_format = _format(data_format)
    kernel = _t(kernel)
    if padding == "causal":
        left = _pair(dilation_rate, 1)[0] * (int(kernel.shape[0]) - 1)
        x = temporal_padding(x, (left, 0))
        padding = "valid"
    return conv(x, kernel, strides, _padding(padding), data_format, dilation_rate)


@export("keras.backend.conv2d")
def conv2d(x, kernel, strides=(1, 1), padding="valid", data_format=None, dilation_rate=(1, 1)):
    """2-D convolution."""
    return conv(x, kernel, strides, _padding(padding), _format(data_format), dilation_rate)


@export("keras.backend.conv3d")
def conv3d(x, kernel, strides=(1, 1, 1), padding="valid", data_format=None,
           dilation_rate=(1, 1, 1)):
    """3-D convolution."""
    return conv(x, kernel, strides, _padding(padding), _format(data_format), dilation_rate)


@export("keras.backend.conv2d_transpose")
def conv2d_transpose(x, kernel, output_shape, strides=(1, 1), padding="valid", data_format=None,
                     dilation_rate=(1, 1)):
    """Transposed 2-D convolution to `output_shape` (batch may be None)."""
    data_format = _format(data_format)
    padding = _padding(padding)
    x, kernel = _t(x), _t(kernel)
    if data_format == "channels_first":
        x = array_ops.transpose(x, (0, 2, 3, 1))
        output_shape = (output_shape[0], output_shape[2], output_shape[3], output_shape[1])
    if output_shape[0] is None:
        output_shape = (int(x.shape[0]),) + tuple(output_shape[1:])
    if dilation_rate != (1, 1) and dilation_rate[0] != dilation_rate[1]:
        raise ValueError(f"Expected the 2 dimensions of the `dilation_rate` argument to be equal "
                         f"to each other. Received: dilation_rate={dilation_rate}")
    out = conv_ops.conv2d_transpose(x, kernel, [int(d) for d in output_shape],
                              [1, strides[0], strides[1], 1], padding.upper(), "NHWC",
                              list(dilation_rate))
    return array_ops.transpose(out, (0, 3, 1, 2)) if data_format == "channels_first" else out


@export("keras.backend.depthwise_conv2d")
def depthwise_conv2d(x, depthwise_kernel, strides=(1, 1), padding="valid", data_format=None,
                     dilation_rate=(1, 1)):
    """Depthwise 2-D convolution."""
    return depthwise_conv(x, depthwise_kernel, strides, _padding(padding), _format(data_format),
                          dilation_rate)


@export("keras.backend.separable_conv2d")
def separable_conv2d(x, depthwise_kernel, pointwise_kernel, strides=(1, 1), padding="valid",
                     data_format=None, dilation_rate=(1, 1)):
    """Depthwise then pointwise 2-D convolution."""
    if len(strides) != 2:
        raise ValueError("`strides` must be a tuple of 2 integers.")
    return separable_conv(x, depthwise_kernel, pointwise_kernel, strides, _padding(padding),
                          _format(data_format), dilation_rate)


def _pool(x, pool_size, strides, padding, data_format, pool_mode):
    data_format = _format(data_format)
    padding = _padding(padding)
    if pool_mode == "max":
        return max_pool(x, pool_size, strides, padding, data_format)
    if pool_mode == "avg":
        return average_pool(x, pool_size, strides, padding, data_format)
    raise ValueError(f"Invalid pooling mode: {pool_mode}")


@export("keras.backend.pool2d")
def pool2d(x, pool_size, strides=(1, 1), padding="valid", data_format=None, pool_mode="max"):
    """2-D max ('max') or average ('avg') pooling."""
    if len(pool_size) != 2:
        raise ValueError("`pool_size` must be a tuple of 2 integers.")
    if len(strides) != 2:
        raise ValueError("`strides` must be a tuple of 2 integers.")
    return _pool(x, pool_size, strides, padding, data_format, pool_mode)


@export("keras.backend.pool3d")
def pool3d(x, pool_size, strides=(1, 1, 1), padding="valid", data_format=None, pool_mode="max"):
    """3-D max ('max') or average ('avg') pooling."""
    return _pool(x, pool_size, strides, padding, data_format, pool_mode)


@export("keras.backend.temporal_padding")
def temporal_padding(x, padding=(1, 1)):
    """Zero padding of axis 1 of a 3-D tensor."""
    if len(padding) != 2:
        raise ValueError(f"Expected `padding` to be a tuple of 2 integers. Received: "
                         f"padding={padding}")
    return array_ops.pad(x, [[0, 0], [padding[0], padding[1]], [0, 0]])


@export("keras.backend.spatial_2d_padding")
def spatial_2d_padding(x, padding=((1, 1), (1, 1)), data_format=None):
    """Zero padding of the two spatial axes of a 4-D tensor."""
    if len(padding) != 2 or len(padding[0]) != 2 or len(padding[1]) != 2:
        raise ValueError(f"Expected `padding` to be a tuple of 2 tuples of 2 integers. Received: "
                         f"padding={padding}")
    data_format = _format(data_format)
    spatial = [list(padding[0]), list(padding[1])]
    pattern = [[0, 0], [0, 0]] + spatial if data_format == "channels_first" else \
        [[0, 0]] + spatial + [[0, 0]]
    return array_ops.pad(x, pattern)


@export("keras.backend.spatial_3d_padding")
def spatial_3d_padding(x, padding=((1, 1), (1, 1), (1, 1)), data_format=None):
    """Zero padding of the three spatial axes of a 5-D tensor."""
    if len(padding) != 3 or any(len(p) != 2 for p in padding):
        raise ValueError(f"Expected `padding` to be a tuple of 3 tuples of 2 integers. Received: "
                         f"padding={padding}")
    data_format = _format(data_format)
    spatial = [list(p) for p in padding]
    pattern = [[0, 0], [0, 0]] + spatial if data_format == "channels_first" else \
        [[0, 0]] + spatial + [[0, 0]]
    return array_ops.pad(x, pattern)


_INTERPOLATIONS = {"area": "area", "bicubic": "bicubic", "bilinear": "bilinear",
                   "gaussian": "gaussian", "lanczos3": "lanczos3", "lanczos5": "lanczos5",
                   "mitchellcubic": "mitchellcubic", "nearest": "nearest"}


@export("keras.backend.resize_images")
def resize_images(x, height_factor, width_factor, data_format, interpolation="nearest"):
    """Images scaled up by integer factors."""
    if data_format == "channels_first":
        rows, cols = 2, 3
    elif data_format == "channels_last":
        rows, cols = 1, 2
    else:
        raise ValueError(f"Invalid `data_format` argument: {data_format}")
    x = _t(x)
    size = [int(x.shape[rows]) * height_factor, int(x.shape[cols]) * width_factor]
    if interpolation not in _INTERPOLATIONS:
        names = '"' + '", "'.join(_INTERPOLATIONS) + '"'
        raise ValueError(f'`interpolation` argument should be one of: {names}. Received: '
                         f'"{interpolation}".')
    if data_format == "channels_first":
        x = array_ops.transpose(x, [0, 2, 3, 1])
    x = IMG.resize(x, size, method=_INTERPOLATIONS[interpolation])
    return array_ops.transpose(x, [0, 3, 1, 2]) if data_format == "channels_first" else x


@export("keras.backend.resize_volumes")
def resize_volumes(x, depth_factor, height_factor, width_factor, data_format):
    """Volumes scaled up by repeating each voxel along the three spatial axes."""
    if data_format == "channels_first":
        axes = (2, 3, 4)
    elif data_format == "channels_last":
        axes = (1, 2, 3)
    else:
        raise ValueError(f"Invalid data_format: {data_format}")
    out = repeat_elements(x, depth_factor, axis=axes[0])
    out = repeat_elements(out, height_factor, axis=axes[1])
    return repeat_elements(out, width_factor, axis=axes[2])


@export("keras.backend.rnn")
def rnn(step_function, inputs, initial_states, go_backwards=False, mask=None, constants=None,
        unroll=False, input_length=None, time_major=False, zero_output_for_mask=False,
        return_all_outputs=True):
    """Run `step_function(input_t, states) -> (output_t, new_states)` over the time axis.

    Returns (last_output, outputs, new_states); `outputs` stacks every step (only the last when
    return_all_outputs=False). Masked steps keep the previous output and states (zeros for the
    output with zero_output_for_mask)."""
    def swap(t):
        axes = list(range(t.shape.rank))
        axes[0], axes[1] = 1, 0
        return array_ops.transpose(t, axes)
    flat = [_t(i) for i in nest.flatten(inputs)]
    if not time_major:
        flat = [swap(t) for t in flat]
    for t in flat:
        if t.shape.rank < 3:
            raise ValueError(f"Shape {list(t.shape)} must have rank at least 3")
    steps = int(flat[0].shape[0])
    if mask is not None:
        mask = constant_ops.cast(_t(mask), "bool")
        if mask.shape.rank == 2:
            mask = array_ops.expand_dims(mask, -1)
        if not time_major:
            mask = swap(mask)
    constants = list(constants or [])
    states = tuple(initial_states)
    order = range(steps - 1, -1, -1) if go_backwards else range(steps)
    outputs, prev = [], None
    for t in order:
        current = nest.pack_sequence_as(inputs, [f[t] for f in flat])
        output, new_states = step_function(current, tuple(states) + tuple(constants))
        new_flat = nest.flatten(new_states)
        if mask is not None:
            m = mask[t]
            if prev is None:
                prev = array_ops.zeros_like(output)
            keep_prev = array_ops.zeros_like(output) if zero_output_for_mask else prev
            output = tf_where(_widen(m, output), output, keep_prev)
            old_flat = nest.flatten(states)
            new_flat = [tf_where(_widen(m, n), n, o) for n, o in zip(new_flat, old_flat)]
        states = tuple(new_flat) if isinstance(new_states, (list, tuple)) else \
            nest.pack_sequence_as(new_states, new_flat)
        prev = output
        outputs.append(output)
    stacked = array_ops.stack(outputs if return_all_outputs else outputs[-1:], axis=0)
    last = outputs[-1]
    if not time_major:
        stacked = swap(stacked)
    return last, stacked, list(states)


def _widen(mask_t, like):
    mask_t = _t(mask_t)
    while mask_t.shape.rank < like.shape.rank:
        mask_t = array_ops.expand_dims(mask_t, -1)
    return array_ops.broadcast_to(mask_t, list(like.shape))
