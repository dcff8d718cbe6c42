"""Convolution layers: Conv1D, Conv2D, Conv2DTranspose, DepthwiseConv2D, SeparableConv2D.

Each takes data_format 'channels_last' (NWC / NHWC inputs) or 'channels_first' (NCW / NCHW);
kernels have the same shape in both layouts, as in Keras."""
from minitf.activations import activations
from minitf import constraints
from minitf.initializers import initializers
from minitf.regularizers import regularizers
from minitf.nest import nest
from minitf.keras_core import config as keras_config
from minitf.layers import layer_utils
from minitf.layers.base import BUILTIN_LAYER_CLASSES, InputSpec, Layer
from minitf.layers.input_spec import shape_of
from minitf.ops import array as array_ops
from minitf.ops import conv as conv_ops
from minitf.ops import nn as nn_ops
from minitf.tensor_shape import TensorShape
from minitf.api_export import export

__all__ = ["Conv1D", "Conv2D", "Conv2DTranspose", "DepthwiseConv2D", "SeparableConv2D",
           "Convolution1D", "Convolution2D", "Convolution2DTranspose", "conv_output_length",
           "deconv_output_length"]


def conv_output_length(length, filter_size, padding, stride, dilation=1):
    """Output length of a convolution along one axis (None stays None)."""
    if length is None:
        return None
    dilated = filter_size + (filter_size - 1) * (dilation - 1)
    if padding in ("same", "causal"):
        out = length
    elif padding == "valid":
        out = length - dilated + 1
    else:  # full
        out = length + dilated - 1
    return (out + stride - 1) // stride


def deconv_output_length(length, filter_size, padding, output_padding=None, stride=1,
                         dilation=1):
    """Output length of a transposed convolution along one axis (Keras' formula)."""
    if length is None:
        return None
    dilated = filter_size + (filter_size - 1) * (dilation - 1)
    if output_padding is None:
        if padding == "valid":
            return length * stride + max(dilated - stride, 0)
        if padding == "full":
            return length * stride - (stride + dilated - 2)
        return length * stride
    pad = {"same": dilated // 2, "valid": 0, "full": dilated - 1}[padding]
    return (length - 1) * stride + dilated - 2 * pad + output_padding


def standardize_data_format(data_format, name):
    """'channels_first' or 'channels_last' (case-insensitive); None means the Keras backend's
    image_data_format(). Anything else is a ValueError naming the layer, as in Keras."""
    if data_format is None:
        return keras_config.image_data_format()
    value = str(data_format).lower()
    if value not in ("channels_first", "channels_last"):
        raise ValueError(f"Layer {name!r}: the `data_format` argument must be one of "
                         f"{{'channels_first', 'channels_last'}}. Received: "
                         f"data_format={data_format}")
    return value


def op_data_format(data_format, rank):
    """The tf.nn layout string of a Keras data_format: NWC/NCW for rank 1, NHWC/NCHW for 2."""
    spatial = "W" if rank == 1 else "HW"
    return "NC" + spatial if data_format == "channels_first" else "N" + spatial + "C"


def spatial_dims(shape, data_format):
    """The spatial entries of a full (batch, ..., channels) or (batch, channels, ...) shape."""
    return list(shape[2:]) if data_format == "channels_first" else list(shape[1:-1])


def with_channels(batch, spatial, channels, data_format):
    """A full shape list with the channel entry where data_format puts it."""
    if data_format == "channels_first":
        return [batch, channels] + list(spatial)
    return [batch] + list(spatial) + [channels]


class Conv(Layer):
    """Shared argument handling of the N-D convolutions."""

    rank = 2
    # Keras 3's plain and transposed convolutions refuse strides > 1 with dilation_rate > 1 in
    # the constructor; its depthwise and separable convolutions accept the pair
    _allows_strided_dilation = False
    # Keras 3's Conv2D/Conv2DTranspose convert the float kernel to the input's dtype, which
    # fails with ValueError for integer inputs; Conv1D and depthwise kernels reach the op
    _int_input_value_error = False

    def __init__(self, filters, kernel_size, strides=1, padding="valid", data_format=None,
                 dilation_rate=1, groups=1, activation=None, use_bias=True,
                 kernel_initializer="glorot_uniform", bias_initializer="zeros",
                 kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 kernel_constraint=None, bias_constraint=None, **kwargs):
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        n = self.rank
        if isinstance(filters, (str, bytes, list, tuple, dict)):  # Keras 3 compares it with 0
            raise TypeError(f"{type(self).__name__}: `filters` must be a positive integer, not {filters!r}")
        if filters is not None and (groups is not None and not groups or filters != int(filters)):
            raise ValueError(f"{type(self).__name__}: the number of filters must be a positive integer evenly "
                             f"divisible by the number of groups, a positive integer. Received: groups={groups}, "
                             f"filters={filters}.")
        self.filters = None if filters is None else int(filters)
        if self.filters is not None and self.filters <= 0:
            raise ValueError(f"Invalid value for argument `filters`. Expected a strictly "
                             f"positive value. Received filters={filters}.")
        self.kernel_size = layer_utils.normalize_tuple(kernel_size, n, "kernel_size")
        self.strides = layer_utils.normalize_tuple(strides, n, "strides")
        if any(s <= 0 for s in self.strides):
            raise ValueError(f"The `strides` argument must be a tuple of {n} integers. Received "
                             f"strides={strides}, including values "
                             f"{ {s for s in self.strides if s <= 0} } that do not satisfy "
                             f"`value > 0`")
        allowed = ("valid", "same", "causal") if n == 1 else ("valid", "same")
        self.padding = layer_utils.normalize_padding(padding, allowed)
        self.data_format = standardize_data_format(data_format, self.name)
        self.dilation_rate = layer_utils.normalize_tuple(dilation_rate, n, "dilation_rate")
        if not self._allows_strided_dilation and max(self.strides) > 1 and \
                max(self.dilation_rate) > 1:
            raise ValueError(f"Layer {self.name!r}: `strides > 1` not supported in conjunction "
                             f"with `dilation_rate > 1`. Received: strides={self.strides} and "
                             f"dilation_rate={self.dilation_rate}")
        self.groups = int(groups or 1)
        if self.filters is not None and self.filters % self.groups:
            raise ValueError(f"The number of filters must be evenly divisible by the number of "
                             f"groups. Received: groups={groups}, filters={filters}.")
        self.activation = activations.get(activation)
        self.use_bias = use_bias
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self.kernel_regularizer = regularizers.get(kernel_regularizer)
        self.bias_regularizer = regularizers.get(bias_regularizer)
        self.kernel_constraint = constraints.get(kernel_constraint)
        self.bias_constraint = constraints.get(bias_constraint)
        self.input_spec = InputSpec(min_ndim=n + 2)

    @property
    def _channel_axis(self):
        return 1 if self.data_format == "channels_first" else -1

    @property
    def _op_format(self):
        return op_data_format(self.data_format, self.rank)

    def _kernel_shape(self, channels):
        """The kernel shape Keras names in its wrong-rank error (input channels, filters)."""
        return self.kernel_size + (channels, self.filters)

    def _check_rank(self, shape):
        """Keras' errors for a rank other than rank + 2 (the spec only sets a minimum)."""
        shape = TensorShape(shape)
        if shape.rank is None:
            return
        if shape.rank < self.rank + 2:
            raise ValueError(f"Input 0 with name 'None' of layer '{self.name}' is incompatible "
                             f"with the layer: expected min_ndim={self.rank + 2}, found "
                             f"ndim={shape.rank}. Full shape received: "
                             f"{tuple(shape.as_list())}")
        if shape.rank > self.rank + 2:
            raise ValueError(f"Kernel shape must have the same length as input, but received "
                             f"kernel of shape {self._kernel_shape(shape[-1])} and input of "
                             f"shape {tuple(shape.as_list())}.")

    def _check_inputs(self, inputs):
        super()._check_inputs(inputs)
        self._check_rank(shape_of(nest.flatten(inputs)[0]))

    def _channels(self, input_shape):
        shape = TensorShape(input_shape)
        self._check_rank(shape)
        channels = shape[self._channel_axis]
        if channels is None:
            raise ValueError(f"Layer {self.name!r}: the channel dimension of the inputs should "
                             f"be defined. Found None in shape {shape}.")
        return channels

    def _check_output_size(self, input_shape):
        """Keras 3 validates the output shape in build: with padding='valid', an input
        smaller than the dilated kernel is a ValueError before any op runs."""
        if self.padding != "valid":
            return
        shape = TensorShape(input_shape).as_list()
        for i, size in enumerate(spatial_dims(shape, self.data_format)):
            if size is None:
                continue
            out = (size - self.dilation_rate[i] * (self.kernel_size[i] - 1) - 1) // \
                self.strides[i] + 1
            if out <= 0:
                raise ValueError(
                    f"Computed output size would be zero or negative. Received `inputs "
                    f"shape={tuple(shape)}`, `kernel shape="
                    f"{self._kernel_shape(shape[self._channel_axis])}`, "
                    f"`dilation_rate={list(self.dilation_rate)}`, `strides={self.strides}`, "
                    f"`padding=valid` (layer {self.name!r}); give the input at least "
                    f"{self.dilation_rate[i] * (self.kernel_size[i] - 1) + 1} entries along "
                    f"spatial axis {i} or use padding='same'.")

    def _check_input_dtype(self, inputs):
        if self._int_input_value_error and not (inputs.dtype.is_floating or
                                                inputs.dtype.is_complex):
            raise ValueError(f"Layer {self.name!r}: incompatible type conversion requested to "
                             f"type {inputs.dtype.name} for `tf.Variable` of type "
                             f"{self.kernel.dtype.name} (the kernel). Cast the input to a "
                             f"floating dtype, e.g. tf.cast(x, tf.float32).")

    def build(self, input_shape):
        channels = self._channels(input_shape)
        self._check_output_size(input_shape)
        if channels % self.groups:
            raise ValueError(f"Layer {self.name!r}: the number of input channels ({channels}) "
                             f"must be evenly divisible by groups={self.groups}.")
        kernel_shape = self.kernel_size + (channels // self.groups, self.filters)
        self.kernel = self.add_weight("kernel", shape=kernel_shape,
                                      initializer=self.kernel_initializer,
                                      regularizer=self.kernel_regularizer,
                                      constraint=self.kernel_constraint)
        self.bias = self._add_bias(self.filters)
        self.input_spec = InputSpec(min_ndim=self.rank + 2, axes={self._channel_axis: channels})
        self.built = True

    def _strides4(self):
        """The 4-entry strides of tf.nn.depthwise_conv2d, ones on batch and channels."""
        if self.data_format == "channels_first":
            return (1, 1) + self.strides
        return (1,) + self.strides + (1,)

    def _add_bias(self, size):
        if not self.use_bias:
            return None
        return self.add_weight("bias", shape=(size,), initializer=self.bias_initializer,
                               regularizer=self.bias_regularizer,
                               constraint=self.bias_constraint)

    def _finish(self, out):
        if self.use_bias:
            out = nn_ops.bias_add(out, self.bias, data_format=self._op_format)
        return self.activation(out) if self.activation is not None else out

    def _convolve(self, x, kernel):
        if self.rank == 1:
            if self.padding == "causal":
                left = self.dilation_rate[0] * (self.kernel_size[0] - 1)
                pads = [[0, 0], [0, 0], [0, 0]]
                pads[2 if self.data_format == "channels_first" else 1] = [left, 0]
                x = array_ops.pad(x, pads)
                padding = "VALID"
            else:
                padding = self.padding.upper()
            return conv_ops.conv1d(x, kernel, self.strides[0], padding, data_format=self._op_format,
                                dilations=self.dilation_rate[0])
        return conv_ops.conv2d(x, kernel, self.strides, self.padding.upper(),
                            data_format=self._op_format, dilations=self.dilation_rate)

    def call(self, inputs):
        self._check_input_dtype(inputs)
        if self.groups == 1:
            return self._finish(self._convolve(inputs, self.kernel))
        axis = self._channel_axis
        xs = array_ops.split(inputs, self.groups, axis=axis)
        ks = array_ops.split(self.kernel, self.groups, axis=-1)
        out = array_ops.concat([self._convolve(x, k) for x, k in zip(xs, ks)], axis=axis)
        return self._finish(out)

    def compute_output_shape(self, input_shape):
        """Batch, the convolved spatial sizes and filters, in the layer's data_format."""
        shape = TensorShape(input_shape).as_list()
        spatial = self._conv_spatial(shape)
        return TensorShape(with_channels(shape[0], spatial, self.filters, self.data_format))

    def _conv_spatial(self, shape):
        return [conv_output_length(size, self.kernel_size[i], self.padding, self.strides[i],
                                   self.dilation_rate[i])
                for i, size in enumerate(spatial_dims(shape, self.data_format))]

    def get_config(self):
        """The constructor arguments."""
        config = super().get_config()
        config.update({
            "filters": self.filters, "kernel_size": self.kernel_size, "strides": self.strides,
            "padding": self.padding, "data_format": self.data_format,
            "dilation_rate": self.dilation_rate, "groups": self.groups,
            "activation": layer_utils.serialize(self.activation, "activations"),
            "use_bias": self.use_bias,
            "kernel_initializer": layer_utils.serialize(self.kernel_initializer, "initializers"),
            "bias_initializer": layer_utils.serialize(self.bias_initializer, "initializers"),
            "kernel_regularizer": layer_utils.serialize(self.kernel_regularizer, "regularizers"),
            "bias_regularizer": layer_utils.serialize(self.bias_regularizer, "regularizers"),
            "kernel_constraint": layer_utils.serialize(self.kernel_constraint, "constraints"),
            "bias_constraint": layer_utils.serialize(self.bias_constraint, "constraints"),
        })
        return config


@export("layers.Conv1D", "layers.Convolution1D", "keras.layers.Conv1D",
        "keras.layers.Convolution1D")
class Conv1D(Conv):
    """1-D convolution over (batch, steps, channels), or (batch, channels, steps) with
    data_format='channels_first'; padding 'valid', 'same' or 'causal'."""

    rank = 1

    def __init__(self, filters, kernel_size, strides=1, padding="valid", data_format=None,
                 dilation_rate=1, groups=1, activation=None, use_bias=True, **kwargs):
        super().__init__(filters, kernel_size, strides=strides, padding=padding,
                         data_format=data_format, dilation_rate=dilation_rate, groups=groups,
                         activation=activation, use_bias=use_bias, **kwargs)


@export("layers.Conv2D", "layers.Convolution2D", "keras.layers.Conv2D",
        "keras.layers.Convolution2D")
class Conv2D(Conv):
    """A 2-D convolution layer: slides `filters` learned kernels over an image batch.

    Each output channel is the sum, over the input channels, of the input correlated with a
    `kernel_size` window of weights, plus a bias, then the activation. The kernel has shape
    `kernel_size + (input_channels // groups, filters)` in both data formats, so weights
    carry over between layouts (and from TensorFlow).

    Example:

    ```python
    conv = tf.keras.layers.Conv2D(16, 3, padding="same", activation="relu")
    y = conv(tf.ones((8, 28, 28, 1)))   # y.shape == (8, 28, 28, 16)
    ```

    Args:
        filters: the number of output channels.
        kernel_size: the window's (height, width), or one int for a square window.
        strides: the step between windows along (height, width); an int or a pair.
        padding: 'valid' (windows stay inside the input: the output shrinks) or 'same'
            (zero padding keeps `ceil(size / stride)` outputs), case-insensitive.
        data_format: 'channels_last' (batch, height, width, channels) or 'channels_first'
            (batch, channels, height, width); None means
            `tf.keras.backend.image_data_format()`.
        dilation_rate: the spacing between kernel taps (atrous convolution); strides and
            dilation cannot both exceed 1.
        groups: split the input channels into this many groups convolved separately;
            `filters` and the input channels must both be divisible by it.
        activation: applied to the output: a name, a callable or None.
        use_bias: whether to add a bias per output channel.
        **kwargs: the kernel and bias initializers, regularizers and constraints, an
            `activity_regularizer`, and the Layer arguments.

    Raises:
        ValueError: for a non-positive `filters` or stride, an unknown padding or
            data_format, strides and dilation both above 1, channels not divisible by
            `groups`, an input whose rank is not 4, or (with 'valid') an input smaller than
            the dilated kernel.

    Input shape: 4-D, `(batch, rows, cols, channels)` or `(batch, channels, rows, cols)`.
    Output shape: 4-D with `filters` channels and the convolved rows and columns.
    """

    rank = 2
    _int_input_value_error = True

    def __init__(self, filters, kernel_size, strides=(1, 1), padding="valid", data_format=None,
                 dilation_rate=(1, 1), groups=1, activation=None, use_bias=True, **kwargs):
        super().__init__(filters, kernel_size, strides=strides, padding=padding,
                         data_format=data_format, dilation_rate=dilation_rate, groups=groups,
                         activation=activation, use_bias=use_bias, **kwargs)


@export("layers.Conv2DTranspose", "layers.Convolution2DTranspose", "keras.layers.Conv2DTranspose",
        "keras.layers.Convolution2DTranspose")
class Conv2DTranspose(Conv2D):
    """Transposed 2-D convolution ("deconvolution"); kernel (kh, kw, filters, in_channels)."""

    def __init__(self, filters, kernel_size, strides=(1, 1), padding="valid", output_padding=None,
                 data_format=None, dilation_rate=(1, 1), activation=None, use_bias=True,
                 **kwargs):
        super().__init__(filters, kernel_size, strides=strides, padding=padding,
                         data_format=data_format, dilation_rate=dilation_rate,
                         activation=activation, use_bias=use_bias, **kwargs)
        self.output_padding = None if output_padding is None else \
            layer_utils.normalize_tuple(output_padding, 2, "output_padding")
        if self.output_padding is not None:
            for pad, stride in zip(self.output_padding, self.strides):
                if pad >= stride:
                    raise ValueError(f"Strides {self.strides} must be greater than output "
                                     f"padding {self.output_padding}.")

    def _kernel_shape(self, channels):
        return self.kernel_size + (self.filters, channels)

    def _check_rank(self, shape):
        shape = TensorShape(shape)
        if shape.rank is not None and shape.rank > 4:
            # Keras 3 indexes the kernel's spatial sizes with the input's spatial axes
            raise IndexError(f"Layer {self.name!r}: a 2-D transposed convolution needs a rank-4 "
                             f"input, received shape {tuple(shape.as_list())}: tuple index out "
                             f"of range.")
        super()._check_rank(shape)

    def build(self, input_shape):
        channels = self._channels(input_shape)
        self.kernel = self.add_weight("kernel", shape=self.kernel_size + (self.filters, channels),
                                      initializer=self.kernel_initializer,
                                      regularizer=self.kernel_regularizer,
                                      constraint=self.kernel_constraint)
        self.bias = self._add_bias(self.filters)
        self.input_spec = InputSpec(min_ndim=4, axes={self._channel_axis: channels})
        self.built = True

    def _out_sizes(self, height, width):
        pads = self.output_padding or (None, None)
        return [deconv_output_length(size, self.kernel_size[i], self.padding, pads[i],
                                     self.strides[i], self.dilation_rate[i])
                for i, size in enumerate((height, width))]

    def call(self, inputs):
        self._check_input_dtype(inputs)
        shape = inputs.shape.as_list()
        out_shape = with_channels(shape[0], self._out_sizes(*spatial_dims(shape, self.data_format)),
                                  self.filters, self.data_format)
        out = conv_ops.conv2d_transpose(inputs, self.kernel, out_shape, self.strides,
                                     self.padding.upper(), data_format=self._op_format,
                                     dilations=self.dilation_rate)
        return self._finish(out)

    def compute_output_shape(self, input_shape):
        """Batch, the transposed-convolution spatial sizes and filters, in data_format."""
        shape = TensorShape(input_shape).as_list()
        spatial = self._out_sizes(*spatial_dims(shape, self.data_format))
        return TensorShape(with_channels(shape[0], spatial, self.filters, self.data_format))

    def get_config(self):
        """Conv2D's arguments plus output_padding."""
        config = super().get_config()
        config.pop("groups", None)
        config["output_padding"] = self.output_padding
        return config


@export("layers.DepthwiseConv2D", "keras.layers.DepthwiseConv2D")
class DepthwiseConv2D(Conv2D):
    """Convolves each input channel separately with `depth_multiplier` filters."""

    _allows_strided_dilation = True
    _int_input_value_error = False

    def __init__(self, kernel_size, strides=(1, 1), padding="valid", depth_multiplier=1,
                 data_format=None, dilation_rate=(1, 1), activation=None, use_bias=True,
                 depthwise_initializer="glorot_uniform", bias_initializer="zeros",
                 depthwise_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 depthwise_constraint=None, bias_constraint=None, **kwargs):
        super().__init__(None, kernel_size, strides=strides, padding=padding,
                         data_format=data_format, dilation_rate=dilation_rate,
                         activation=activation, use_bias=use_bias,
                         bias_initializer=bias_initializer, bias_regularizer=bias_regularizer,
                         activity_regularizer=activity_regularizer,
                         bias_constraint=bias_constraint, **kwargs)
        self.depth_multiplier = int(depth_multiplier)
        self.depthwise_initializer = initializers.get(depthwise_initializer)
        self.depthwise_regularizer = regularizers.get(depthwise_regularizer)
        self.depthwise_constraint = constraints.get(depthwise_constraint)

    def _kernel_shape(self, channels):
        multiplied = None if channels is None else channels * self.depth_multiplier
        return self.kernel_size + (channels, multiplied)

    def build(self, input_shape):
        channels = self._channels(input_shape)
        self._check_output_size(input_shape)
        self.depthwise_kernel = self.add_weight(  # named 'kernel' as in Keras 3
            "kernel", shape=self.kernel_size + (channels, self.depth_multiplier),
            initializer=self.depthwise_initializer, regularizer=self.depthwise_regularizer,
            constraint=self.depthwise_constraint)
        self.bias = self._add_bias(channels * self.depth_multiplier)
        self.input_spec = InputSpec(min_ndim=4, axes={self._channel_axis: channels})
        self.built = True

    def call(self, inputs):
        out = conv_ops.depthwise_conv2d(inputs, self.depthwise_kernel, self._strides4(),
                                     self.padding.upper(), data_format=self._op_format,
                                     dilations=self.dilation_rate)
        return self._finish(out)

    def compute_output_shape(self, input_shape):
        """Batch, convolved spatial sizes and channels * depth_multiplier, in data_format."""
        shape = TensorShape(input_shape).as_list()
        channels = shape[self._channel_axis]
        channels = None if channels is None else channels * self.depth_multiplier
        return TensorShape(with_channels(shape[0], self._conv_spatial(shape), channels,
                                         self.data_format))

    def get_config(self):
        """Conv2D's arguments (without filters) plus depth_multiplier."""
        config = super().get_config()
        for key in ("filters", "groups", "kernel_initializer", "kernel_regularizer",
                    "kernel_constraint"):
            config.pop(key, None)
        config["depth_multiplier"] = self.depth_multiplier
        config["depthwise_initializer"] = layer_utils.serialize(self.depthwise_initializer, "initializers")
        return config


@export("layers.SeparableConv2D", "layers.SeparableConvolution2D", "keras.layers.SeparableConv2D",
        "keras.layers.SeparableConvolution2D")
class SeparableConv2D(Conv2D):
    """A depthwise convolution followed by a pointwise (1x1) convolution."""

    _allows_strided_dilation = True
    _int_input_value_error = False

    def __init__(self, filters, kernel_size, strides=(1, 1), padding="valid", data_format=None,
                 dilation_rate=(1, 1), depth_multiplier=1, activation=None, use_bias=True,
                 depthwise_initializer="glorot_uniform", pointwise_initializer="glorot_uniform",
                 bias_initializer="zeros", depthwise_regularizer=None, pointwise_regularizer=None,
                 bias_regularizer=None, activity_regularizer=None, depthwise_constraint=None,
                 pointwise_constraint=None, bias_constraint=None, **kwargs):
        super().__init__(filters, kernel_size, strides=strides, padding=padding,
                         data_format=data_format, dilation_rate=dilation_rate,
                         activation=activation, use_bias=use_bias,
                         bias_initializer=bias_initializer, bias_regularizer=bias_regularizer,
                         activity_regularizer=activity_regularizer,
                         bias_constraint=bias_constraint, **kwargs)
        self.depth_multiplier = int(depth_multiplier)
        self.depthwise_initializer = initializers.get(depthwise_initializer)
        self.pointwise_initializer = initializers.get(pointwise_initializer)
        self.depthwise_regularizer = regularizers.get(depthwise_regularizer)
        self.pointwise_regularizer = regularizers.get(pointwise_regularizer)
        self.depthwise_constraint = constraints.get(depthwise_constraint)
        self.pointwise_constraint = constraints.get(pointwise_constraint)

    def build(self, input_shape):
        channels = self._channels(input_shape)
        self._check_output_size(input_shape)
        self.depthwise_kernel = self.add_weight(
            "depthwise_kernel", shape=self.kernel_size + (channels, self.depth_multiplier),
            initializer=self.depthwise_initializer, regularizer=self.depthwise_regularizer,
            constraint=self.depthwise_constraint)
        self.pointwise_kernel = self.add_weight(
            "pointwise_kernel", shape=(1, 1, channels * self.depth_multiplier, self.filters),
            initializer=self.pointwise_initializer, regularizer=self.pointwise_regularizer,
            constraint=self.pointwise_constraint)
        self.bias = self._add_bias(self.filters)
        self.input_spec = InputSpec(min_ndim=4, axes={self._channel_axis: channels})
        self.built = True

    def call(self, inputs):
        out = conv_ops.separable_conv2d(inputs, self.depthwise_kernel, self.pointwise_kernel,
                                     self._strides4(), self.padding.upper(),
                                     data_format=self._op_format, dilations=self.dilation_rate)
        return self._finish(out)

    def get_config(self):
        """Conv2D's arguments plus depth_multiplier and the two kernels' settings."""
        config = super().get_config()
        for key in ("groups", "kernel_initializer", "kernel_regularizer", "kernel_constraint"):
            config.pop(key, None)
        config["depth_multiplier"] = self.depth_multiplier
        return config


Convolution1D = Conv1D
Convolution2D = Conv2D
Convolution2DTranspose = Conv2DTranspose
BUILTIN_LAYER_CLASSES.update(Convolution1D=Conv1D, Convolution2D=Conv2D,
                             Convolution2DTranspose=Conv2DTranspose,
                             SeparableConvolution2D=SeparableConv2D)
