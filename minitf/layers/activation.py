"""Activation layers with parameters: ReLU, LeakyReLU, ELU, Softmax."""
from minitf.dtypes import dtypes
from minitf.errors import errors
from minitf.convert import convert_to_tensor
from minitf.layers.layer_utils import as_floating
from minitf.layers.base import Layer
from minitf.layers.build_at_init import build_at_init
from minitf.ops import array as array_ops
from minitf.ops import math as math_ops
from minitf.ops import nn as nn_ops
from minitf.ops import reduce as reduce_ops
from minitf.ops.constant import cast
from minitf.tensor_shape import TensorShape
from minitf.api_export import export

__all__ = ["ReLU", "LeakyReLU", "ELU", "Softmax"]


class _Elementwise(Layer):
    def compute_output_shape(self, input_shape):
        """Same as the input shape."""
        return TensorShape(input_shape)


@export("layers.ReLU", "keras.layers.ReLU")
class ReLU(_Elementwise):
    """max(x, 0) generalized: x for x >= threshold, negative_slope * (x - threshold) below,
    capped at max_value."""

    def __init__(self, max_value=None, negative_slope=0.0, threshold=0.0, **kwargs):
        super().__init__(**kwargs)
        if max_value is not None and max_value < 0:
            raise ValueError(f"max_value of a ReLU layer cannot be a negative value. "
                             f"Received: {max_value}")
        if negative_slope is None or negative_slope < 0:
            raise ValueError(f"negative_slope of a ReLU layer cannot be a negative value. "
                             f"Received: {negative_slope}")
        if threshold is None or threshold < 0:
            raise ValueError(f"threshold of a ReLU layer cannot be None or a negative value. "
                             f"Received: threshold={threshold}; use threshold >= 0.")
        self.max_value = max_value
        self.negative_slope = float(negative_slope)
        self.threshold = float(threshold)
        build_at_init(self)

    def call(self, inputs):
        # Keras 3's relu step by step, so dtypes follow it too: integer inputs stay integer
        # unless a negative slope needs floats (leaky_relu casts to float32), and x equal to a
        # non-zero threshold maps to 0
        x = convert_to_tensor(inputs)
        slope, threshold, max_value = self.negative_slope, self.threshold, self.max_value
        if slope != 0:
            if max_value is None and threshold == 0:
                return nn_ops.leaky_relu(x, alpha=slope)
            if threshold != 0 and not (x.dtype.is_floating or x.dtype.is_complex):
                raise errors.InvalidArgumentError(
                    None, None, f"Layer {self.name!r}: cannot compute AddV2 as input #1 "
                    f"(zero-based) was expected to be a {x.dtype.name} tensor but is a float "
                    f"tensor: ReLU(negative_slope={slope}, threshold={threshold}) needs a "
                    f"floating input; cast it with tf.cast(x, tf.float32). [Op:AddV2]")
            negative_part = nn_ops.relu(threshold - x if threshold != 0 else -x)
        clip_max = max_value is not None
        if threshold != 0:
            t = cast(threshold, x.dtype)
            x = array_ops.where(x > t, x, array_ops.zeros_like(x))
        elif max_value == 6:
            x = math_ops.minimum(nn_ops.relu(x), cast(6, x.dtype))
            clip_max = False
        else:
            x = nn_ops.relu(x)
        if clip_max:
            x = math_ops.clip_by_value(x, cast(0.0, x.dtype), cast(max_value, x.dtype))
        if slope != 0:
            x = x - slope * negative_part
        return x

    def get_config(self):
        """max_value, negative_slope, threshold."""
        config = super().get_config()
        config.update({"max_value": self.max_value, "negative_slope": self.negative_slope,
                       "threshold": self.threshold})
        return config


@export("layers.LeakyReLU", "keras.layers.LeakyReLU")
class LeakyReLU(_Elementwise):
    """x for x > 0, negative_slope * x otherwise (default 0.3; `alpha` is the Keras 2 name)."""

    def __init__(self, negative_slope=0.3, alpha=None, **kwargs):
        super().__init__(**kwargs)
        slope = negative_slope if alpha is None else alpha
        if slope is None or slope < 0:
            raise ValueError(f"The negative_slope value of a Leaky ReLU layer cannot be None "
                             f"or negative. Received: {slope}")
        self.negative_slope = float(slope)
        build_at_init(self)

    @property
    def alpha(self):
        """Keras 2 name of negative_slope."""
        return self.negative_slope

    def call(self, inputs):
        # Keras' leaky_relu works in floats: integer inputs come out as the compute dtype
        return nn_ops.leaky_relu(as_floating(inputs, self.compute_dtype), alpha=self.negative_slope)

    def get_config(self):
        """negative_slope."""
        config = super().get_config()
        config["negative_slope"] = self.negative_slope
        return config


@export("layers.ELU", "keras.layers.ELU")
class ELU(_Elementwise):
    """x for x > 0, alpha * (exp(x) - 1) below."""

    def __init__(self, alpha=1.0, **kwargs):
        super().__init__(**kwargs)
        self.alpha = float(alpha)
        build_at_init(self)

    def call(self, inputs):
        # Keras 3's elu: the Elu op (which rejects integer inputs), scaled below 0 by alpha
        x = convert_to_tensor(inputs)
        res = nn_ops.elu(x)
        if self.alpha == 1:
            return res
        return array_ops.where(x > 0, res, self.alpha * res)

    def get_config(self):
        """alpha."""
        config = super().get_config()
        config["alpha"] = self.alpha
        return config


@export("layers.Softmax", "keras.layers.Softmax")
class Softmax(_Elementwise):
    """exp(x) / sum(exp(x)) along `axis` (an int or a list of ints)."""

    def __init__(self, axis=-1, **kwargs):
        super().__init__(**kwargs)
        self.axis = axis
        build_at_init(self)

    def call(self, inputs, mask=None):
        # As Keras 3: one axis goes to the Softmax op (which rejects integer and 0-d inputs),
        # several use exp(x - logsumexp(x)); a mask sends masked positions to 0
        x = convert_to_tensor(inputs)
        if mask is not None:
            mask = convert_to_tensor(mask)
            if mask.shape.rank > x.shape.rank or any(
                    m is not None and i is not None and m not in (1, i)
                    for m, i in zip(mask.shape.as_list()[::-1], x.shape.as_list()[::-1])):
                raise ValueError(f"Layer {self.name!r}: the `mask` must be broadcastable to "
                                 f"`inputs`. Received: inputs.shape={x.shape}, "
                                 f"mask.shape={mask.shape}")
            if mask.dtype != dtypes.bool:
                mask = mask > cast(0.5, mask.dtype)
            large_negative = -3e4 if x.dtype == dtypes.float16 else -1e9
            x = array_ops.where(mask, x, cast(large_negative, x.dtype))
        axis = self.axis
        if isinstance(axis, (tuple, list)) and len(axis) == 1:
            axis = axis[0]
        if isinstance(axis, (tuple, list)):
            if not x.dtype.is_floating:
                raise errors.InvalidArgumentError(
                    None, None, f"Layer {self.name!r}: softmax over axes {list(axis)} needs a "
                    f"floating-point input, got {x.dtype.name}; cast it with tf.cast.")
            out = math_ops.exp(x - reduce_ops.reduce_logsumexp(x, axis=list(axis), keepdims=True))
        else:
            out = nn_ops.softmax(x, axis=axis)
        if mask is not None:
            out = array_ops.where(mask, out, array_ops.zeros_like(out))
        return out

    def get_config(self):
        """axis."""
        config = super().get_config()
        config["axis"] = self.axis
        return config
