"""Keras' preprocessing layers: Rescaling here, the others in one module per concern
(numeric, image, augmentation, lookup, text), all exported from this module."""
from minitf.layers.base import Layer
from minitf.layers.preprocessing_augment import (RandomBrightness, RandomContrast, RandomCrop,  # noqa: F401
                                                 RandomFlip, RandomRotation, RandomTranslation, RandomZoom)
from minitf.layers.preprocessing_image import CenterCrop, Resizing  # noqa: F401
from minitf.layers.preprocessing_lookup import IntegerLookup, StringLookup  # noqa: F401
from minitf.layers.preprocessing_numeric import (CategoryEncoding, Discretization, Hashing,  # noqa: F401
                                                 Normalization)
from minitf.layers.preprocessing_text import TextVectorization  # noqa: F401
from minitf.ops.constant import cast
from minitf.tensor_shape import TensorShape

__all__ = ["Rescaling", "Normalization", "CategoryEncoding", "Hashing", "Discretization", "Resizing", "CenterCrop",
           "RandomFlip", "RandomRotation", "RandomZoom", "RandomTranslation", "RandomCrop", "RandomContrast",
           "RandomBrightness", "StringLookup", "IntegerLookup", "TextVectorization"]


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
