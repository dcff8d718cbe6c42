"""Rescaling: inputs * scale + offset, Keras' simplest preprocessing layer."""
from minitf.layers.base import Layer
from minitf.ops.constant import cast
from minitf.tensor_shape import TensorShape
from minitf.api_export import export

__all__ = ["Rescaling"]


@export("layers.Rescaling", "keras.layers.Rescaling")
class Rescaling(Layer):
    """inputs * scale + offset (e.g. scale=1./255 maps pixels to [0, 1])."""

    def __init__(self, scale, offset=0.0, **kwargs):
        super().__init__(**kwargs)
        self.scale = scale
        self.offset = offset

    def call(self, inputs):
        dtype = self.dtype
        x = cast(inputs, dtype)
        return x * cast(self.scale, dtype) + cast(self.offset, dtype)

    def compute_output_shape(self, input_shape):
        """Same as the input shape."""
        return TensorShape(input_shape)

    def get_config(self):
        """scale and offset."""
        config = super().get_config()
        config.update({"scale": self.scale, "offset": self.offset})
        return config
