"""Regularization layers active only in training: Dropout, SpatialDropout1D/2D, GaussianNoise.

Each draws from its own `keras.random.SeedGenerator`, built in `__init__` as Keras 3 builds it
(an unseeded one takes a seed from Python's `random`), so after `keras.utils.set_random_seed`
the masks and noise are TF's, and the layers built later get TF's initial weights.
"""
from minitf.keras_ops import random as keras_random
from minitf.layers.base import InputSpec, Layer
from minitf.layers.build_at_init import build_at_init
from minitf.ops import array as array_ops
from minitf.tensor_shape import TensorShape
from minitf.api_export import export

__all__ = ["Dropout", "SpatialDropout1D", "SpatialDropout2D", "GaussianNoise"]


def _noise_shape_arg(noise_shape):
    """Keras 3's checks of Dropout's noise_shape: a tuple of positive ints or None (ValueError)."""
    if noise_shape is None:
        return None
    try:
        dims = tuple(noise_shape) if not isinstance(noise_shape, str) else None
    except TypeError:
        dims = None
    if dims is None or any(d is not None and (not isinstance(d, int) or d <= 0) for d in dims):
        raise ValueError(f"Dropout: invalid value received for argument `noise_shape`. Expected a tuple "
                         f"or list of positive integers or None. Received: noise_shape={noise_shape!r}")
    return dims


@export("layers.Dropout", "keras.layers.Dropout")
class Dropout(Layer):
    """Randomly zeroes a `rate` fraction of the inputs and scales the rest by 1 / (1 - rate),
    only when called with `training=True`; otherwise it returns its inputs."""

    def __init__(self, rate, noise_shape=None, seed=None, **kwargs):
        super().__init__(**kwargs)
        if rate is None or isinstance(rate, (str, bytes, list, tuple, dict)):  # Keras: 0 <= rate fails
            raise TypeError(f"Dropout: argument `rate` must be a float between 0 and 1, not {rate!r}")
        rate = float(rate)
        if not 0 <= rate <= 1:
            raise ValueError(f"Dropout: invalid value received for argument `rate`. Expected a float "
                             f"value between 0 and 1. Received: rate={rate}")
        self.rate = rate
        self.noise_shape = _noise_shape_arg(noise_shape)
        if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool)) and rate > 0:
            raise ValueError(f"Dropout: argument `seed` must be an integer. Received: seed={seed!r}")
        self.seed = seed
        if rate > 0:
            self.seed_generator = keras_random.SeedGenerator(seed)
        build_at_init(self)

    def _noise_shape(self, inputs):
        if self.noise_shape is None:
            return None
        shape = inputs.shape.as_list()
        return [shape[i] if d is None else d for i, d in enumerate(self.noise_shape)]

    def call(self, inputs, training=None):
        if not training or self.rate == 0:
            return inputs
        return keras_random.dropout(inputs, self.rate, noise_shape=self._noise_shape(inputs),
                                    seed=self.seed_generator)

    def compute_output_shape(self, input_shape):
        """Same as the input shape."""
        return TensorShape(input_shape)

    def get_config(self):
        """rate, noise_shape, seed."""
        config = super().get_config()
        config.update({"rate": self.rate, "noise_shape": self.noise_shape, "seed": self.seed})
        return config


@export("layers.SpatialDropout1D", "keras.layers.SpatialDropout1D")
class SpatialDropout1D(Dropout):
    """Dropout of whole channels of (batch, steps, channels) inputs."""

    def __init__(self, rate, **kwargs):
        super().__init__(rate, **kwargs)
        self.input_spec = InputSpec(ndim=3)

    def _noise_shape(self, inputs):
        shape = inputs.shape.as_list()
        return [shape[0], 1, shape[2]]


@export("layers.SpatialDropout2D", "keras.layers.SpatialDropout2D")
class SpatialDropout2D(Dropout):
    """Dropout of whole feature maps: one decision per (example, channel)."""

    def __init__(self, rate, data_format=None, **kwargs):
        super().__init__(rate, **kwargs)
        self.data_format = data_format or "channels_last"
        self.input_spec = InputSpec(ndim=4)

    def _noise_shape(self, inputs):
        shape = inputs.shape.as_list()
        if self.data_format == "channels_first":
            return [shape[0], shape[1], 1, 1]
        return [shape[0], 1, 1, shape[3]]


@export("layers.GaussianNoise", "keras.layers.GaussianNoise")
class GaussianNoise(Layer):
    """Adds zero-mean normal noise of standard deviation `stddev`, only when training."""

    def __init__(self, stddev, seed=None, **kwargs):
        super().__init__(**kwargs)
        self.stddev = float(stddev)
        self.seed = seed
        if self.stddev > 0:
            self.seed_generator = keras_random.SeedGenerator(seed)
        build_at_init(self)

    def call(self, inputs, training=None):
        if not training or self.stddev <= 0:
            return inputs
        noise = keras_random.normal(array_ops.shape(inputs), mean=0.0, stddev=self.stddev,
                                    dtype=inputs.dtype.name, seed=self.seed_generator)
        return inputs + noise

    def compute_output_shape(self, input_shape):
        """Same as the input shape."""
        return TensorShape(input_shape)

    def get_config(self):
        """stddev and seed."""
        config = super().get_config()
        config.update({"stddev": self.stddev, "seed": self.seed})
        return config
