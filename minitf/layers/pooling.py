"""Pooling layers: max/average over windows, and global pooling, for data_format
'channels_last' (NWC / NHWC) or 'channels_first' (NCW / NCHW)."""
from minitf.errors import errors
from minitf.layers import layer_utils
from minitf.layers.base import BUILTIN_LAYER_CLASSES, InputSpec, Layer
from minitf.layers.build_at_init import build_at_init
from minitf.layers.convolutional import (
    conv_output_length,
    op_data_format,
    spatial_dims,
    standardize_data_format,
    with_channels,
)
from minitf.ops import array as array_ops
from minitf.ops import pooling as pooling_ops
from minitf.ops import reduce as reduce_ops
from minitf.tensor_shape import TensorShape
from minitf.api_export import export

__all__ = ["MaxPooling1D", "AveragePooling1D", "MaxPooling2D", "AveragePooling2D",
           "GlobalAveragePooling1D", "GlobalMaxPooling1D", "GlobalAveragePooling2D",
           "GlobalMaxPooling2D", "MaxPool1D", "AvgPool1D", "MaxPool2D", "AvgPool2D",
           "GlobalAvgPool2D", "GlobalMaxPool2D", "GlobalAvgPool1D", "GlobalMaxPool1D"]


class Pooling(Layer):
    rank = 2
    kind = "max"

    def __init__(self, pool_size, strides=None, padding="valid", data_format=None, **kwargs):
        super().__init__(**kwargs)
        n = self.rank
        self.pool_size = layer_utils.normalize_tuple(pool_size, n, "pool_size")
        self.strides = self.pool_size if strides is None else layer_utils.normalize_tuple(strides, n,
                                                                                   "strides")
        # Kept as given, as Keras 3 does: an unknown padding fails in the pooling op at call
        self.padding = padding
        self.data_format = standardize_data_format(data_format, self.name)
        self.input_spec = InputSpec(ndim=n + 2)
        build_at_init(self)

    def _op_padding(self):
        padding = str(self.padding).upper()
        if padding not in ("VALID", "SAME"):
            raise errors.invalid_argument(
                "MaxPool" if self.kind == "max" else "AvgPool",
                f"Layer {self.name!r}: value for attr 'padding' of {self.padding!r} is not in "
                f"the list of allowed values: 'valid', 'same'.")
        return padding

    def call(self, inputs):
        padding = self._op_padding()
        if self.rank == 1:
            # tf.nn's 1-D pools take NWC only: move the channels last and back.
            first = self.data_format == "channels_first"
            x = array_ops.transpose(inputs, [0, 2, 1]) if first else inputs
            fn = pooling_ops.max_pool1d if self.kind == "max" else pooling_ops.avg_pool1d
            y = fn(x, self.pool_size[0], self.strides[0], padding)
            return array_ops.transpose(y, [0, 2, 1]) if first else y
        fn = pooling_ops.max_pool2d if self.kind == "max" else pooling_ops.avg_pool2d
        return fn(inputs, self.pool_size, self.strides, padding,
                  data_format=op_data_format(self.data_format, 2))

    def compute_output_shape(self, input_shape):
        """Batch, pooled spatial sizes and channels, in the layer's data_format."""
        shape = TensorShape(input_shape).as_list()
        padding = layer_utils.normalize_padding(self.padding)
        spatial = [conv_output_length(size, self.pool_size[i], padding, self.strides[i])
                   for i, size in enumerate(spatial_dims(shape, self.data_format))]
        return TensorShape(with_channels(shape[0], spatial, self._channels(shape),
                                         self.data_format))

    def _channels(self, shape):
        return shape[1] if self.data_format == "channels_first" else shape[-1]

    def get_config(self):
        """pool_size, strides, padding, data_format."""
        config = super().get_config()
        config.update({"pool_size": self.pool_size, "strides": self.strides,
                       "padding": self.padding, "data_format": self.data_format})
        return config


@export("layers.MaxPool1D", "layers.MaxPooling1D", "keras.layers.MaxPool1D",
        "keras.layers.MaxPooling1D")
class MaxPooling1D(Pooling):
    """Max over windows of `pool_size` steps (default 2)."""
    rank, kind = 1, "max"

    def __init__(self, pool_size=2, strides=None, padding="valid", data_format=None, **kwargs):
        super().__init__(pool_size, strides, padding, data_format, **kwargs)


@export("layers.AveragePooling1D", "layers.AvgPool1D", "keras.layers.AveragePooling1D",
        "keras.layers.AvgPool1D")
class AveragePooling1D(Pooling):
    """Mean over windows of `pool_size` steps (required, as in Keras 3)."""
    rank, kind = 1, "avg"

    def __init__(self, pool_size, strides=None, padding="valid", data_format=None, **kwargs):
        super().__init__(pool_size, strides, padding, data_format, **kwargs)


@export("layers.MaxPool2D", "layers.MaxPooling2D", "keras.layers.MaxPool2D",
        "keras.layers.MaxPooling2D")
class MaxPooling2D(Pooling):
    """Max over (height, width) windows of `pool_size`; strides default to pool_size."""
    rank, kind = 2, "max"

    def __init__(self, pool_size=(2, 2), strides=None, padding="valid", data_format=None,
                 **kwargs):
        super().__init__(pool_size, strides, padding, data_format, **kwargs)


@export("layers.AveragePooling2D", "layers.AvgPool2D", "keras.layers.AveragePooling2D",
        "keras.layers.AvgPool2D")
class AveragePooling2D(Pooling):
    """Mean over (height, width) windows of `pool_size` (required, as in Keras 3); strides
    default to pool_size."""
    rank, kind = 2, "avg"

    def __init__(self, pool_size, strides=None, padding="valid", data_format=None, **kwargs):
        super().__init__(pool_size, strides, padding, data_format, **kwargs)


class GlobalPooling(Layer):
    rank = 2
    kind = "avg"

    def __init__(self, data_format=None, keepdims=False, **kwargs):
        super().__init__(**kwargs)
        self.data_format = standardize_data_format(data_format, self.name)
        self.keepdims = keepdims
        self.input_spec = InputSpec(ndim=self.rank + 2)
        build_at_init(self)

    def call(self, inputs):
        start = 2 if self.data_format == "channels_first" else 1
        axes = list(range(start, start + self.rank))
        if self.kind == "avg":  # Keras' mean promotes integer inputs to float
            inputs = layer_utils.as_floating(inputs, self.compute_dtype)
        fn = reduce_ops.reduce_mean if self.kind == "avg" else reduce_ops.reduce_max
        return fn(inputs, axis=axes, keepdims=self.keepdims)

    def compute_output_shape(self, input_shape):
        """(batch, channels), or with ones for the pooled axes (in data_format) when keepdims."""
        shape = TensorShape(input_shape).as_list()
        channels = shape[1] if self.data_format == "channels_first" else shape[-1]
        if self.keepdims:
            return TensorShape(with_channels(shape[0], [1] * self.rank, channels,
                                             self.data_format))
        return TensorShape([shape[0], channels])

    def get_config(self):
        """data_format and keepdims."""
        config = super().get_config()
        config.update({"data_format": self.data_format, "keepdims": self.keepdims})
        return config


@export("layers.GlobalAveragePooling1D", "layers.GlobalAvgPool1D",
        "keras.layers.GlobalAveragePooling1D", "keras.layers.GlobalAvgPool1D")
class GlobalAveragePooling1D(GlobalPooling):
    """Mean over the steps axis."""
    rank, kind = 1, "avg"


@export("layers.GlobalMaxPool1D", "layers.GlobalMaxPooling1D", "keras.layers.GlobalMaxPool1D",
        "keras.layers.GlobalMaxPooling1D")
class GlobalMaxPooling1D(GlobalPooling):
    """Max over the steps axis."""
    rank, kind = 1, "max"


@export("layers.GlobalAveragePooling2D", "layers.GlobalAvgPool2D",
        "keras.layers.GlobalAveragePooling2D", "keras.layers.GlobalAvgPool2D")
class GlobalAveragePooling2D(GlobalPooling):
    """Mean over height and width."""
    rank, kind = 2, "avg"


@export("layers.GlobalMaxPool2D", "layers.GlobalMaxPooling2D", "keras.layers.GlobalMaxPool2D",
        "keras.layers.GlobalMaxPooling2D")
class GlobalMaxPooling2D(GlobalPooling):
    """Max over height and width."""
    rank, kind = 2, "max"


MaxPool1D, AvgPool1D, MaxPool2D, AvgPool2D = MaxPooling1D, AveragePooling1D, MaxPooling2D, \
    AveragePooling2D
GlobalAvgPool1D, GlobalMaxPool1D = GlobalAveragePooling1D, GlobalMaxPooling1D
GlobalAvgPool2D, GlobalMaxPool2D = GlobalAveragePooling2D, GlobalMaxPooling2D
BUILTIN_LAYER_CLASSES.update(
    MaxPool1D=MaxPool1D, AvgPool1D=AvgPool1D, MaxPool2D=MaxPool2D, AvgPool2D=AvgPool2D,
    GlobalAvgPool1D=GlobalAvgPool1D, GlobalMaxPool1D=GlobalMaxPool1D,
    GlobalAvgPool2D=GlobalAvgPool2D, GlobalMaxPool2D=GlobalMaxPool2D)
