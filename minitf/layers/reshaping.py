"""Layers that move values around: Flatten, Reshape, Permute, RepeatVector, UpSampling2D,
ZeroPadding2D, Cropping2D."""
import numpy as np

from minitf import dispatch
from minitf.backend import array_module
from minitf.layers import layer_utils
from minitf.layers.base import InputSpec, Layer
from minitf.ops import array as array_ops
from minitf.ops import image as image_ops
from minitf.ops import image_resize
from minitf.ops.constant import cast
from minitf.tensor_shape import TensorShape
from minitf.api_export import export

__all__ = ["Flatten", "Reshape", "Permute", "RepeatVector", "UpSampling2D", "ZeroPadding2D",
           "Cropping2D"]


def _data_format(value, layer_name):
    """'channels_last' (the default) or 'channels_first'; ValueError for anything else."""
    value = value or "channels_last"
    if value not in ("channels_last", "channels_first"):
        raise ValueError(f"Layer {layer_name!r}: the `data_format` argument must be one of "
                         f"'channels_first', 'channels_last'. Received: {value}")
    return value


def _to_channels_last(x, data_format):
    return array_ops.transpose(x, [0, 2, 3, 1]) if data_format == "channels_first" else x


def _from_channels_last(x, data_format):
    return array_ops.transpose(x, [0, 3, 1, 2]) if data_format == "channels_first" else x


def _image_dims(shape, data_format):
    """(batch, height, width, channels) of a 4-D shape list in either layout."""
    if data_format == "channels_first":
        b, c, h, w = shape
    else:
        b, h, w, c = shape
    return b, h, w, c


def _image_shape(b, h, w, c, data_format):
    dims = [b, c, h, w] if data_format == "channels_first" else [b, h, w, c]
    return TensorShape(dims)


def _product(dims):
    if any(d is None for d in dims):
        return None
    n = 1
    for d in dims:
        n *= d
    return n


@export("layers.Flatten", "keras.layers.Flatten")
class Flatten(Layer):
    """Reshapes (batch, ...) to (batch, product of the other dimensions)."""

    def __init__(self, data_format=None, **kwargs):
        super().__init__(**kwargs)
        self.data_format = _data_format(data_format, self.name)
        self.input_spec = InputSpec(min_ndim=1)

    def call(self, inputs):
        shape = inputs.shape.as_list()
        if len(shape) == 1:
            return array_ops.expand_dims(inputs, 1)
        if self.data_format == "channels_first" and len(shape) > 2:
            # Flatten in channels-last order, as Keras does, so Dense weights carry over.
            inputs = array_ops.transpose(inputs, [0] + list(range(2, len(shape))) + [1])
        if None in shape[1:]:  # traced with unknown sizes: the batch size when the graph runs
            return array_ops.reshape(inputs, [array_ops.shape(inputs)[0], -1])
        return array_ops.reshape(inputs, [-1 if shape[0] is None else shape[0], _product(shape[1:])])

    def compute_output_shape(self, input_shape):
        """(batch, product of the rest)."""
        shape = TensorShape(input_shape).as_list()
        return TensorShape([shape[0], 1 if len(shape) == 1 else _product(shape[1:])])

    def get_config(self):
        """data_format."""
        config = super().get_config()
        config["data_format"] = self.data_format
        return config


@export("layers.Reshape", "keras.layers.Reshape")
class Reshape(Layer):
    """Reshapes each example to `target_shape` (one entry may be -1)."""

    def __init__(self, target_shape, **kwargs):
        super().__init__(**kwargs)
        try:
            self.target_shape = tuple(target_shape)
        except TypeError:  # Keras 3 calls tuple() on it too
            raise TypeError(f"Reshape: `target_shape` must be a tuple of ints, not {target_shape!r}") from None
        ints = [int(d) for d in self.target_shape if isinstance(d, (int, np.integer))]
        if any(d < -1 for d in ints):
            raise ValueError(f"Reshape: each dimension in `target_shape` must be a non-negative "
                             f"integer, or -1 for a single unknown dimension. Received: "
                             f"target_shape={self.target_shape}.")
        if ints.count(-1) > 1:
            raise ValueError(f"Reshape: there must be at most one unknown dimension (-1) in "
                             f"`target_shape`. Received: target_shape={self.target_shape}.")
        self.built = True  # Keras 3 marks Reshape built at construction, whatever its build

    def _resolve(self, input_shape):
        """target_shape with -1 filled in; Keras' ValueError when the sizes cannot match."""
        if len(input_shape) == 0:
            raise ValueError(f"Layer '{self.name}' reshapes each example of a batch, so its "
                             f"input needs a batch dimension; received a scalar (shape ()). "
                             f"Add a batch axis, e.g. tf.reshape(x, (1, -1)).")
        # Keras 3 takes a dimension that is not an int for an unknown one (-1)
        dims = [d if isinstance(d, (int, np.integer)) else -1 for d in self.target_shape]
        known = _product(input_shape[1:])
        received = (f"Received: input_shape={tuple(input_shape[1:])}, "
                    f"target_shape={tuple(self.target_shape)}")
        if -1 in dims and known is not None:
            rest = _product([d for d in dims if d != -1])
            if rest == 0 or known % rest:
                raise ValueError(f"The total size of the tensor must be unchanged, however, "
                                 f"the input size cannot be divided by the specified "
                                 f"dimensions in target_shape. {received} (layer "
                                 f"'{self.name}')")
            dims[dims.index(-1)] = known // rest
        elif known is not None and _product(dims) != known:
            raise ValueError(f"The total size of the tensor must be unchanged. {received} "
                             f"(layer '{self.name}')")
        return dims

    def call(self, inputs):
        if inputs is None:  # Keras 3 fails reading its shape
            raise AttributeError("Reshape.call(): inputs=None has no shape; pass a tensor")
        shape = inputs.shape.as_list()
        dims = self._resolve(shape)
        # an unknown batch size (a traced function's input) is the run's own
        batch = shape[0] if shape[0] is not None else array_ops.shape(inputs)[0]
        return array_ops.reshape(inputs, [batch] + dims)

    def compute_output_shape(self, input_shape):
        """(batch,) + target_shape with -1 resolved."""
        shape = TensorShape(input_shape).as_list()
        dims = self._resolve(shape)
        return TensorShape([shape[0]] + [None if d == -1 else d for d in dims])

    def get_config(self):
        """target_shape."""
        config = super().get_config()
        config["target_shape"] = self.target_shape
        return config


@export("layers.Permute", "keras.layers.Permute")
class Permute(Layer):
    """Permutes the non-batch axes; `dims` counts from 1 (e.g. (2, 1))."""

    def __init__(self, dims, **kwargs):
        super().__init__(**kwargs)
        self.dims = tuple(dims)
        if sorted(self.dims) != list(range(1, len(self.dims) + 1)):
            raise ValueError(f"Invalid permutation argument `dims` for Permute Layer. The set "
                             f"of indices in `dims` must be consecutive and start from 1. "
                             f"Received dims={dims}")
        self.input_spec = InputSpec(ndim=len(self.dims) + 1)

    def call(self, inputs):
        return array_ops.transpose(inputs, [0] + list(self.dims))

    def compute_output_shape(self, input_shape):
        """The input shape with its axes permuted."""
        shape = TensorShape(input_shape).as_list()
        return TensorShape([shape[0]] + [shape[d] for d in self.dims])

    def get_config(self):
        """dims."""
        config = super().get_config()
        config["dims"] = self.dims
        return config


@export("layers.RepeatVector", "keras.layers.RepeatVector")
class RepeatVector(Layer):
    """(batch, features) -> (batch, n, features)."""

    def __init__(self, n, **kwargs):
        super().__init__(**kwargs)
        if not isinstance(n, int) or isinstance(n, bool):
            raise TypeError(f"RepeatVector: expected an integer value for `n`, got {type(n)}.")
        if n <= 0:
            raise ValueError(f"RepeatVector: argument `n` should be a positive integer. "
                             f"Received: n={n}")
        self.n = n
        self.input_spec = InputSpec(ndim=2)

    def call(self, inputs):
        return array_ops.tile(array_ops.expand_dims(inputs, 1), [1, self.n, 1])

    def compute_output_shape(self, input_shape):
        """(batch, n, features)."""
        shape = TensorShape(input_shape).as_list()
        return TensorShape([shape[0], self.n, shape[1]])

    def get_config(self):
        """n."""
        config = super().get_config()
        config["n"] = self.n
        return config


@export("layers.UpSampling2D", "keras.layers.UpSampling2D")
class UpSampling2D(Layer):
    """Repeats rows and columns `size` times ('nearest') or resizes with
    `tf.image.resize(method=interpolation)` (half-pixel centres, no antialiasing).

    Float64 inputs are resized in float64 (TF computes in float32 and casts back).
    """

    def __init__(self, size=(2, 2), data_format=None, interpolation="nearest", **kwargs):
        super().__init__(**kwargs)
        self.size = layer_utils.normalize_tuple(size, 2, "size")
        self.data_format = _data_format(data_format, self.name)
        if interpolation not in ("nearest", "bilinear", "bicubic", "area", "lanczos3",
                                 "lanczos5", "gaussian", "mitchellcubic"):
            raise ValueError(f"`interpolation` argument should be one of: 'nearest', "
                             f"'bilinear', ... Received: {interpolation}")
        self.interpolation = interpolation
        self.input_spec = InputSpec(ndim=4)

    @dispatch.add_dispatch_support  # works on raw arrays: one graph node when traced
    def call(self, inputs):
        x = _to_channels_last(inputs, self.data_format)
        b, h, w, c = x.shape.as_list()
        sh, sw = self.size
        if self.interpolation == "nearest":
            x = array_ops.reshape(x, [b, h, 1, w, 1, c])
            x = array_ops.broadcast_to(x, [b, h, sh, w, sw, c])
            x = array_ops.reshape(x, [b, h * sh, w * sw, c])
        else:
            x = _resize(x, h * sh, w * sw, self.interpolation)
        return _from_channels_last(x, self.data_format)

    def compute_output_shape(self, input_shape):
        """Height and width multiplied by `size`."""
        b, h, w, c = _image_dims(TensorShape(input_shape).as_list(), self.data_format)
        return _image_shape(b, None if h is None else h * self.size[0],
                            None if w is None else w * self.size[1], c, self.data_format)

    def get_config(self):
        """size, data_format, interpolation."""
        config = super().get_config()
        config.update({"size": self.size, "data_format": self.data_format,
                       "interpolation": self.interpolation})
        return config


def _resize(x, new_h, new_w, method):
    """tf.image.resize of channels-last `x`, keeping its floating dtype."""
    if x.dtype.name not in ("float32", "float64"):
        return cast(image_ops.resize(x, [new_h, new_w], method=method), x.dtype)
    xp = array_module(x._value)
    h, w = x.shape[1], x.shape[2]
    wy = xp.asarray(image_resize.weights(method, h, new_h, False), dtype=x._value.dtype)
    wx = xp.asarray(image_resize.weights(method, w, new_w, False), dtype=x._value.dtype)
    return image_resize.resample(x, wy, wx, image_resize.resize_op(method))


def _pairs(value, name):
    """int, (sym_h, sym_w) or ((top, bottom), (left, right)) -> ((t, b), (l, r))."""
    if isinstance(value, int):
        return ((value, value), (value, value))
    value = tuple(value)
    if len(value) != 2:
        raise ValueError(f"`{name}` should have two elements. Received: {value}.")
    out = []
    for v in value:
        out.append((v, v) if isinstance(v, int) else layer_utils.normalize_tuple(v, 2, name))
    return tuple(out)


@export("layers.ZeroPadding2D", "keras.layers.ZeroPadding2D")
class ZeroPadding2D(Layer):
    """Adds rows and columns of zeros around each image."""

    def __init__(self, padding=(1, 1), data_format=None, **kwargs):
        super().__init__(**kwargs)
        self.padding = _pairs(padding, "padding")
        self.data_format = _data_format(data_format, self.name)
        self.input_spec = InputSpec(ndim=4)

    def call(self, inputs):
        (t, b), (left, right) = self.padding
        spatial = [[t, b], [left, right]]
        if self.data_format == "channels_first":
            return array_ops.pad(inputs, [[0, 0], [0, 0]] + spatial)
        return array_ops.pad(inputs, [[0, 0]] + spatial + [[0, 0]])

    def compute_output_shape(self, input_shape):
        """Height and width grown by the padding."""
        n, h, w, c = _image_dims(TensorShape(input_shape).as_list(), self.data_format)
        (t, b), (left, right) = self.padding
        return _image_shape(n, None if h is None else h + t + b,
                            None if w is None else w + left + right, c, self.data_format)

    def get_config(self):
        """padding and data_format."""
        config = super().get_config()
        config.update({"padding": self.padding, "data_format": self.data_format})
        return config


@export("layers.Cropping2D", "keras.layers.Cropping2D")
class Cropping2D(Layer):
    """Removes rows and columns at the image borders."""

    def __init__(self, cropping=((0, 0), (0, 0)), data_format=None, **kwargs):
        super().__init__(**kwargs)
        self.cropping = _pairs(cropping, "cropping")
        self.data_format = _data_format(data_format, self.name)
        self.input_spec = InputSpec(ndim=4)

    def call(self, inputs):
        (t, b), (left, right) = self.cropping
        _, h, w, _ = _image_dims(inputs.shape.as_list(), self.data_format)
        if t + b >= h or left + right >= w:
            raise ValueError(f"Layer {self.name!r}: cropping {self.cropping} is too large "
                             f"for input shape {inputs.shape}.")
        if self.data_format == "channels_first":
            return inputs[:, :, t:h - b, left:w - right]
        return inputs[:, t:h - b, left:w - right, :]

    def compute_output_shape(self, input_shape):
        """Height and width reduced by the cropping."""
        n, h, w, c = _image_dims(TensorShape(input_shape).as_list(), self.data_format)
        (t, b), (left, right) = self.cropping
        return _image_shape(n, None if h is None else h - t - b,
                            None if w is None else w - left - right, c, self.data_format)

    def get_config(self):
        """cropping and data_format."""
        config = super().get_config()
        config.update({"cropping": self.cropping, "data_format": self.data_format})
        return config
