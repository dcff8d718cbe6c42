"""Sequence reshaping layers on (batch, steps, features) inputs: Cropping1D, UpSampling1D,
ZeroPadding1D."""
from minitf.layers.base import InputSpec, Layer
from minitf.layers.convolutional import standardize_data_format
from minitf.layers.reshaping_3d import _ints
from minitf.ops import array as array_ops
from minitf.tensor_shape import TensorShape
from minitf.api_export import export

__all__ = ["Cropping1D", "UpSampling1D", "ZeroPadding1D"]


@export("layers.Cropping1D", "keras.layers.Cropping1D")
class Cropping1D(Layer):
    """Drops `cropping[0]` steps from the start and `cropping[1]` from the end of each sequence.

    Args:
        cropping: an int (both ends) or a pair of non-negative ints.
    """

    def __init__(self, cropping=(1, 1), **kwargs):
        super().__init__(**kwargs)
        self.cropping = _ints(cropping, 2, "cropping", allow_zero=True)
        self.input_spec = InputSpec(ndim=3)

    def _too_short(self, shape, what):
        return ValueError(f"`cropping` parameter of `Cropping1D` layer must be smaller than the "
                          f"input length. Received: {what}={shape}, cropping={self.cropping}")

    def call(self, inputs):
        steps = inputs.shape[1]
        if steps is not None and sum(self.cropping) >= steps:
            raise self._too_short(inputs.shape, "inputs.shape")
        start, end = self.cropping
        return inputs[:, start:, :] if end == 0 else inputs[:, start:-end, :]

    def compute_output_shape(self, input_shape):
        """The steps shortened by both croppings."""
        shape = TensorShape(input_shape).as_list()
        steps = shape[1]
        if steps is not None:
            steps -= sum(self.cropping)
            if steps <= 0:
                raise self._too_short(tuple(shape), "input_shape")
        return TensorShape([shape[0], steps, shape[2]])

    def get_config(self):
        """cropping."""
        config = super().get_config()
        config["cropping"] = self.cropping
        return config


@export("layers.UpSampling1D", "keras.layers.UpSampling1D")
class UpSampling1D(Layer):
    """Repeats each step `size` times along the time axis.

    Args:
        size: a positive int.
    """

    def __init__(self, size=2, **kwargs):
        super().__init__(**kwargs)
        if not isinstance(size, int) or isinstance(size, bool):
            raise TypeError(f"UpSampling1D: expected an integer value for `size`, got {type(size)}.")
        if size <= 0:
            raise ValueError(f"Argument `size` should be a positive integer. Received: size={size}")
        self.size = size
        self.input_spec = InputSpec(ndim=3)

    def call(self, inputs):
        return array_ops.repeat(inputs, self.size, axis=1)

    def compute_output_shape(self, input_shape):
        """The steps multiplied by `size`."""
        shape = TensorShape(input_shape).as_list()
        return TensorShape([shape[0], None if shape[1] is None else shape[1] * self.size, shape[2]])

    def get_config(self):
        """size."""
        config = super().get_config()
        config["size"] = self.size
        return config


@export("layers.ZeroPadding1D", "keras.layers.ZeroPadding1D")
class ZeroPadding1D(Layer):
    """Adds `padding[0]` zero steps before and `padding[1]` after each sequence.

    Args:
        padding: an int (both ends) or a pair of non-negative ints.
        data_format: 'channels_last' (batch, steps, features) or 'channels_first'
            (batch, features, steps); None means `keras.config.image_data_format()`.
    """

    def __init__(self, padding=1, data_format=None, **kwargs):
        super().__init__(**kwargs)
        self.data_format = standardize_data_format(data_format, self.name)
        self.padding = _ints(padding, 2, "padding", allow_zero=True)
        self.input_spec = InputSpec(ndim=3)

    def call(self, inputs):
        pads = [[0, 0], [0, 0], list(self.padding)] if self.data_format == "channels_first" \
            else [[0, 0], list(self.padding), [0, 0]]
        return array_ops.pad(inputs, pads)

    def compute_output_shape(self, input_shape):
        """The steps grown by both paddings."""
        shape = TensorShape(input_shape).as_list()
        axis = 2 if self.data_format == "channels_first" else 1
        if shape[axis] is not None:
            shape[axis] += sum(self.padding)
        return TensorShape(shape)

    def get_config(self):
        """padding and data_format."""
        config = super().get_config()
        config.update({"padding": self.padding, "data_format": self.data_format})
        return config
