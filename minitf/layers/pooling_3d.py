"""3-D pooling layers: MaxPooling3D, AveragePooling3D, GlobalMaxPooling3D,
GlobalAveragePooling3D (and their short aliases), for data_format 'channels_last' (NDHWC) or
'channels_first' (NCDHW)."""
from minitf.layers.base import BUILTIN_LAYER_CLASSES
from minitf.layers.pooling import GlobalPooling, Pooling
from minitf.ops import pool3d as pool3d_ops
from minitf.api_export import export

__all__ = ["MaxPooling3D", "AveragePooling3D", "GlobalMaxPooling3D", "GlobalAveragePooling3D",
           "MaxPool3D", "AvgPool3D", "GlobalMaxPool3D", "GlobalAvgPool3D"]


class _Pooling3D(Pooling):
    rank = 3

    def call(self, inputs):
        fn = pool3d_ops.max_pool3d if self.kind == "max" else pool3d_ops.avg_pool3d
        fmt = "NCDHW" if self.data_format == "channels_first" else "NDHWC"
        return fn(inputs, list(self.pool_size), list(self.strides), self._op_padding(), data_format=fmt)


@export("layers.MaxPool3D", "layers.MaxPooling3D", "keras.layers.MaxPool3D",
        "keras.layers.MaxPooling3D")
class MaxPooling3D(_Pooling3D):
    """Max over (depth, height, width) windows of `pool_size` (default 2x2x2); strides default
    to pool_size; padding 'valid' or 'same' (padding never wins the maximum)."""
    kind = "max"

    def __init__(self, pool_size=(2, 2, 2), strides=None, padding="valid", data_format=None,
                 **kwargs):
        super().__init__(pool_size, strides, padding, data_format, **kwargs)


@export("layers.AveragePooling3D", "layers.AvgPool3D", "keras.layers.AveragePooling3D",
        "keras.layers.AvgPool3D")
class AveragePooling3D(_Pooling3D):
    """Mean over (depth, height, width) windows of `pool_size` (required, as in Keras 3);
    with padding 'same' only the real elements of a window are averaged."""
    kind = "avg"

    def __init__(self, pool_size, strides=None, padding="valid", data_format=None, **kwargs):
        super().__init__(pool_size, strides, padding, data_format, **kwargs)


@export("layers.GlobalAveragePooling3D", "layers.GlobalAvgPool3D",
        "keras.layers.GlobalAveragePooling3D", "keras.layers.GlobalAvgPool3D")
class GlobalAveragePooling3D(GlobalPooling):
    """Mean over depth, height and width: (batch, channels), or 5-D with keepdims."""
    rank, kind = 3, "avg"


@export("layers.GlobalMaxPool3D", "layers.GlobalMaxPooling3D", "keras.layers.GlobalMaxPool3D",
        "keras.layers.GlobalMaxPooling3D")
class GlobalMaxPooling3D(GlobalPooling):
    """Max over depth, height and width: (batch, channels), or 5-D with keepdims."""
    rank, kind = 3, "max"


MaxPool3D, AvgPool3D = MaxPooling3D, AveragePooling3D
GlobalAvgPool3D, GlobalMaxPool3D = GlobalAveragePooling3D, GlobalMaxPooling3D
BUILTIN_LAYER_CLASSES.update(MaxPool3D=MaxPool3D, AvgPool3D=AvgPool3D,
                             GlobalAvgPool3D=GlobalAvgPool3D, GlobalMaxPool3D=GlobalMaxPool3D)
