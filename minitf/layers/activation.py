"""Activation layers with parameters: ReLU, LeakyReLU, ELU, Softmax."""
from minitf.layers.base import Layer
from minitf.tensor_shape import TensorShape

__all__ = ["ReLU", "LeakyReLU", "ELU", "Softmax"]


class _Elementwise(Layer):
    def compute_output_shape(self, input_shape):
        """Same as the input shape."""
        return TensorShape(input_shape)


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

    def call(self, inputs):
        import minitf as tf
        x = inputs
        if self.negative_slope == 0 and self.threshold == 0:
            out = tf.maximum(x, tf.zeros_like(x))
        else:
            out = tf.where(x >= self.threshold, x, self.negative_slope * (x - self.threshold))
        if self.max_value is not None:
            out = tf.minimum(out, tf.cast(self.max_value, out.dtype))
        return out

    def get_config(self):
        """max_value, negative_slope, threshold."""
        config = super().get_config()
        config.update({"max_value": self.max_value, "negative_slope": self.negative_slope,
                       "threshold": self.threshold})
        return config


class LeakyReLU(_Elementwise):
    """x for x > 0, negative_slope * x otherwise (default 0.3; `alpha` is the Keras 2 name)."""

    def __init__(self, negative_slope=0.3, alpha=None, **kwargs):
        super().__init__(**kwargs)
        slope = negative_slope if alpha is None else alpha
        if slope is None or slope < 0:
            raise ValueError(f"The negative_slope value of a Leaky ReLU layer cannot be None "
                             f"or negative. Received: {slope}")
        self.negative_slope = float(slope)

    @property
    def alpha(self):
        """Keras 2 name of negative_slope."""
        return self.negative_slope

    def call(self, inputs):
        from minitf.layers._utils import as_floating
        from minitf.ops.nn import leaky_relu
        # Keras' leaky_relu works in floats: integer inputs come out as the compute dtype
        return leaky_relu(as_floating(inputs, self.compute_dtype), alpha=self.negative_slope)

    def get_config(self):
        """negative_slope."""
        config = super().get_config()
        config["negative_slope"] = self.negative_slope
        return config


class ELU(_Elementwise):
    """x for x > 0, alpha * (exp(x) - 1) below."""

    def __init__(self, alpha=1.0, **kwargs):
        super().__init__(**kwargs)
        self.alpha = float(alpha)

    def call(self, inputs):
        import minitf as tf
        negative = self.alpha * tf.math.expm1(tf.minimum(inputs, tf.zeros_like(inputs)))
        return tf.where(inputs > 0, inputs, negative)

    def get_config(self):
        """alpha."""
        config = super().get_config()
        config["alpha"] = self.alpha
        return config


class Softmax(_Elementwise):
    """exp(x) / sum(exp(x)) along `axis` (an int or a list of ints)."""

    def __init__(self, axis=-1, **kwargs):
        super().__init__(**kwargs)
        self.axis = axis

    def call(self, inputs, mask=None):
        import minitf as tf
        axis = self.axis if isinstance(self.axis, int) else list(self.axis)
        shifted = inputs - tf.stop_gradient(tf.reduce_max(inputs, axis=axis, keepdims=True))
        e = tf.exp(shifted)
        return e / tf.reduce_sum(e, axis=axis, keepdims=True)

    def get_config(self):
        """axis."""
        config = super().get_config()
        config["axis"] = self.axis
        return config
