"""More training-only noise layers: GaussianDropout, AlphaDropout, SpatialDropout3D.

Each builds its `keras.random.SeedGenerator` in `__init__` where Keras 3 does (only when
rate > 0), so seeded programs draw TF's numbers.
"""
import math

from minitf.keras_core import config as keras_config
from minitf.keras_ops import random as keras_random
from minitf.layers.base import InputSpec, Layer
from minitf.layers.build_at_init import build_at_init
from minitf.layers.regularization import Dropout
from minitf.ops import array as array_ops
from minitf.ops import compare as compare_ops
from minitf.ops.constant import cast
from minitf.tensor_shape import TensorShape
from minitf.api_export import export

__all__ = ["GaussianDropout", "AlphaDropout", "SpatialDropout3D"]

# SELU's constants: AlphaDropout sets dropped units to SELU's negative saturation value
_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def _check_rate(layer, rate):
    if not 0 <= rate <= 1:
        raise ValueError(f"{layer}: invalid value received for argument `rate`. Expected a float "
                         f"value between 0 and 1. Received: rate={rate}")


@export("layers.GaussianDropout", "keras.layers.GaussianDropout")
class GaussianDropout(Layer):
    """Multiplies the inputs by 1-centred normal noise of standard deviation
    sqrt(rate / (1 - rate)), only when called with `training=True`.

    Args:
        rate: the drop probability the noise stands for, in [0, 1].
        seed: an int for reproducible noise.
    """

    def __init__(self, rate, seed=None, **kwargs):
        super().__init__(**kwargs)
        _check_rate("GaussianDropout", rate)
        self.rate = rate
        self.seed = seed
        if rate > 0:
            self.seed_generator = keras_random.SeedGenerator(seed)
        self.supports_masking = True
        build_at_init(self)

    def call(self, inputs, training=False):
        if not training or self.rate <= 0:
            return inputs
        stddev = math.sqrt(self.rate / (1.0 - self.rate))
        noise = keras_random.normal(array_ops.shape(inputs), mean=1.0, stddev=stddev,
                                    dtype=self.compute_dtype, seed=self.seed_generator)
        return inputs * noise

    def compute_output_shape(self, input_shape):
        """Same as the input shape."""
        return TensorShape(input_shape)

    def get_config(self):
        """rate and seed."""
        config = super().get_config()
        config.update({"rate": self.rate, "seed": self.seed})
        return config


@export("layers.AlphaDropout", "keras.layers.AlphaDropout")
class AlphaDropout(Layer):
    """Dropout for SELU networks: dropped units take SELU's negative saturation value and an
    affine map keeps the inputs' mean and variance, only when called with `training=True`.

    TF 2.21 exports Keras' deprecated (legacy) class at this path, and minitf follows it: the
    rate is not range-checked, `noise_shape` is used as given (the input's shape when None) and
    left out of the config, and files name the module `keras._legacy.layers`.

    Args:
        rate: the drop probability.
        noise_shape: the shape of the keep mask, or None for the input's shape.
        seed: an int for reproducible masks.
    """
    _keras_module = "keras._legacy.layers"

    def __init__(self, rate, noise_shape=None, seed=None, **kwargs):
        super().__init__(**kwargs)
        self.rate = rate
        self.seed = seed
        self.noise_shape = noise_shape
        self.seed_generator = keras_random.SeedGenerator(seed)
        self.supports_masking = True
        self.built = True

    def call(self, inputs, training=False):
        if not training or self.rate <= 0:
            return inputs
        alpha_p = -_SELU_ALPHA * _SELU_SCALE
        shape = array_ops.shape(inputs) if self.noise_shape is None else self.noise_shape
        draws = keras_random.uniform(shape, seed=self.seed_generator, dtype=keras_config.floatx())
        kept = cast(compare_ops.greater_equal(draws, self.rate), inputs.dtype)
        a = ((1 - self.rate) * (1 + self.rate * alpha_p ** 2)) ** -0.5
        b = -a * alpha_p * self.rate
        x = inputs * kept + alpha_p * (1 - kept)
        return a * x + b

    def compute_output_shape(self, input_shape):
        """Same as the input shape."""
        return TensorShape(input_shape)

    def get_config(self):
        """rate and seed."""
        config = super().get_config()
        config.update({"rate": self.rate, "seed": self.seed})
        return config


@export("layers.SpatialDropout3D", "keras.layers.SpatialDropout3D")
class SpatialDropout3D(Dropout):
    """Dropout of whole 3-D feature maps: one keep decision per (example, channel) of a
    5-D input.

    Args:
        rate: the drop probability, in [0, 1].
        data_format: 'channels_last' (default) or 'channels_first'.
        seed: an int for reproducible masks.
    """

    def __init__(self, rate, data_format=None, seed=None, name=None, dtype=None):
        super().__init__(rate, seed=seed, name=name, dtype=dtype)
        self.data_format = _data_format(data_format)
        self.input_spec = InputSpec(ndim=5)

    def _noise_shape(self, inputs):
        shape = inputs.shape.as_list()
        if self.data_format == "channels_first":
            return [shape[0], shape[1], 1, 1, 1]
        return [shape[0], 1, 1, 1, shape[4]]

    def get_config(self):
        """rate, seed, name, dtype and data_format (Keras 3's spatial-dropout config)."""
        return {"rate": self.rate, "seed": self.seed, "name": self.name, "dtype": self.dtype,
                "data_format": self.data_format}


def _data_format(value):
    value = value or keras_config.image_data_format()
    if value not in ("channels_first", "channels_last"):
        raise ValueError(f"The `data_format` argument must be one of {{'channels_first', "
                         f"'channels_last'}}. Received: data_format={value}")
    return value
