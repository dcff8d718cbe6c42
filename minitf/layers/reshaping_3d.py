"""Volume reshaping layers: UpSampling3D, ZeroPadding3D, Cropping3D, for data_format
'channels_last' (batch, depth, rows, cols, channels) or 'channels_first'
(batch, channels, depth, rows, cols)."""
from minitf.layers.base import InputSpec, Layer
from minitf.layers.convolutional import spatial_dims, standardize_data_format, with_channels
from minitf.ops import array as array_ops
from minitf.tensor_shape import TensorShape
from minitf.api_export import export

__all__ = ["UpSampling3D", "ZeroPadding3D", "Cropping3D"]


def _ints(value, n, name, allow_zero):
    """Keras' standardize_tuple: an int or n ints, each > 0 (>= 0 with allow_zero)."""
    values = (value,) * n if isinstance(value, int) else tuple(value)
    if len(values) != n or not all(isinstance(v, int) for v in values):
        raise ValueError(f"The `{name}` argument must be a tuple of {n} integers. "
                         f"Received {name}={value}")
    low = 0 if allow_zero else 1
    if any(v < low for v in values):
        bad = {v for v in values if v < low}
        raise ValueError(f"The `{name}` argument must be a tuple of {n} integers. Received "
                         f"{name}={value}, including values {bad} that do not satisfy "
                         f"`value {'>=' if allow_zero else '>'} 0`")
    return values


def _amounts(value, name):
    """An int, 3 ints (symmetric) or 3 pairs -> ((d0, d1), (h0, h1), (w0, w1)), all >= 0."""
    if isinstance(value, int):
        if value < 0:
            raise ValueError(f"`{name}` cannot be negative. Received: {name}={value}.")
        return ((value, value),) * 3
    if not hasattr(value, "__len__"):
        raise ValueError(f"`{name}` should be either an int, a tuple of 3 ints or a tuple of 3 "
                         f"tuples of 2 ints. Received: {name}={value}.")
    if len(value) != 3:
        raise ValueError(f"`{name}` should have 3 elements. Received: {value}.")
    ordinals = ("1st", "2nd", "3rd")
    return tuple(_ints(v, 2, f"{ordinals[i]} entry of {name}", allow_zero=True)
                 for i, v in enumerate(value))


@export("layers.UpSampling3D", "keras.layers.UpSampling3D")
class UpSampling3D(Layer):
    """Repeats each depth slice, row and column `size` times (nearest neighbour)."""

    def __init__(self, size=(2, 2, 2), data_format=None, **kwargs):
        super().__init__(**kwargs)
        self.data_format = standardize_data_format(data_format, self.name)
        self.size = _ints(size, 3, "size", allow_zero=False)
        self.input_spec = InputSpec(ndim=5)

    def call(self, inputs):
        start = 2 if self.data_format == "channels_first" else 1
        shape = inputs.shape.as_list()
        out = list(shape)
        expanded, grown = [], []
        for axis, n in enumerate(shape):
            expanded.append(n)
            grown.append(n)
            if start <= axis < start + 3:
                factor = self.size[axis - start]
                expanded.append(1)
                grown.append(factor)
                out[axis] = n * factor
        x = array_ops.reshape(inputs, expanded)
        return array_ops.reshape(array_ops.broadcast_to(x, grown), out)

    def compute_output_shape(self, input_shape):
        """Depth, height and width multiplied by `size`."""
        shape = TensorShape(input_shape).as_list()
        spatial = [None if n is None else n * f
                   for n, f in zip(spatial_dims(shape, self.data_format), self.size)]
        return TensorShape(with_channels(shape[0], spatial, _channels(shape, self.data_format),
                                         self.data_format))

    def get_config(self):
        """size and data_format."""
        config = super().get_config()
        config.update({"size": self.size, "data_format": self.data_format})
        return config


def _channels(shape, data_format):
    return shape[1] if data_format == "channels_first" else shape[-1]


def _spatial_pads(amounts, data_format):
    pads = [list(p) for p in amounts]
    if data_format == "channels_first":
        return [[0, 0], [0, 0]] + pads
    return [[0, 0]] + pads + [[0, 0]]


@export("layers.ZeroPadding3D", "keras.layers.ZeroPadding3D")
class ZeroPadding3D(Layer):
    """Adds zeros before and after the depth, rows and columns of each volume."""

    def __init__(self, padding=((1, 1), (1, 1), (1, 1)), data_format=None, **kwargs):
        super().__init__(**kwargs)
        self.data_format = standardize_data_format(data_format, self.name)
        self.padding = _amounts(padding, "padding")
        self.input_spec = InputSpec(ndim=5)

    def call(self, inputs):
        return array_ops.pad(inputs, _spatial_pads(self.padding, self.data_format))

    def compute_output_shape(self, input_shape):
        """Depth, height and width grown by the padding."""
        shape = TensorShape(input_shape).as_list()
        spatial = [None if n is None else n + sum(p)
                   for n, p in zip(spatial_dims(shape, self.data_format), self.padding)]
        return TensorShape(with_channels(shape[0], spatial, _channels(shape, self.data_format),
                                         self.data_format))

    def get_config(self):
        """padding and data_format."""
        config = super().get_config()
        config.update({"padding": self.padding, "data_format": self.data_format})
        return config


@export("layers.Cropping3D", "keras.layers.Cropping3D")
class Cropping3D(Layer):
    """Removes depth slices, rows and columns at the borders of each volume."""

    def __init__(self, cropping=((1, 1), (1, 1), (1, 1)), data_format=None, **kwargs):
        super().__init__(**kwargs)
        self.data_format = standardize_data_format(data_format, self.name)
        self.cropping = _amounts(cropping, "cropping")
        self.input_spec = InputSpec(ndim=5)

    def _cropped(self, shape, what):
        spatial = spatial_dims(shape, self.data_format)
        out = []
        for n, (before, after) in zip(spatial, self.cropping):
            if n is not None and n - before - after <= 0:
                raise ValueError(f"Values in `cropping` argument should be smaller than the "
                                 f"corresponding spatial dimension of the input. Received: "
                                 f"{what}={tuple(shape)}, cropping={self.cropping} "
                                 f"(layer {self.name!r})")
            out.append(None if n is None else n - before - after)
        return out

    def call(self, inputs):
        shape = inputs.shape.as_list()
        self._cropped(shape, "inputs.shape")
        index = [slice(None)] * 5
        start = 2 if self.data_format == "channels_first" else 1
        for i, (before, after) in enumerate(self.cropping):
            index[start + i] = slice(before, shape[start + i] - after)
        return inputs[tuple(index)]

    def compute_output_shape(self, input_shape):
        """Depth, height and width reduced by the cropping."""
        shape = TensorShape(input_shape).as_list()
        return TensorShape(with_channels(shape[0], self._cropped(shape, "input_shape"),
                                         _channels(shape, self.data_format), self.data_format))

    def get_config(self):
        """cropping and data_format."""
        config = super().get_config()
        config.update({"cropping": self.cropping, "data_format": self.data_format})
        return config
