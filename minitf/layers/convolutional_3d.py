"""Conv3D, and the transposed convolutions Conv1DTranspose and Conv3DTranspose.

As in Keras 3: data_format 'channels_last' (NWC / NDHWC inputs) or 'channels_first' (NCW /
NCDHW), with kernels of the same shape in both layouts; Conv3D's kernel is
`kernel_size + (input_channels // groups, filters)`, a transposed convolution's
`kernel_size + (filters, input_channels)`, each followed by a `bias` of `filters` entries.
"""
from minitf.layers import layer_utils
from minitf.layers.base import BUILTIN_LAYER_CLASSES, InputSpec
from minitf.layers.convolutional import Conv, deconv_output_length, spatial_dims, with_channels
from minitf.ops import array as array_ops
from minitf.ops import conv as conv_ops
from minitf.ops import conv3d as conv3d_ops
from minitf.tensor_shape import TensorShape
from minitf.api_export import export

__all__ = ["Conv3D", "Conv1DTranspose", "Conv3DTranspose", "Convolution3D",
           "Convolution1DTranspose", "Convolution3DTranspose"]


@export("layers.Conv3D", "layers.Convolution3D", "keras.layers.Conv3D",
        "keras.layers.Convolution3D")
class Conv3D(Conv):
    """A 3-D convolution layer over volumes (e.g. video frames or medical scans).

    Each output channel is the sum, over the input channels, of the input correlated with a
    `kernel_size` window of weights, plus a bias, then the activation.

    Example:

    ```python
    conv = tf.keras.layers.Conv3D(16, 3, padding="same", activation="relu")
    y = conv(tf.ones((2, 8, 32, 32, 1)))   # y.shape == (2, 8, 32, 32, 16)
    ```

    Args:
        filters: the number of output channels.
        kernel_size: the window's (depth, height, width), or one int for a cube.
        strides: the step between windows along each spatial axis; an int or a triple.
        padding: 'valid' or 'same' (case-insensitive).
        data_format: 'channels_last' (batch, depth, rows, cols, channels) or 'channels_first'
            (batch, channels, depth, rows, cols); None means the backend's image_data_format().
        dilation_rate: the spacing between kernel taps; strides and dilation cannot both
            exceed 1.
        groups: split the input channels into this many groups convolved separately.
        activation, use_bias, and the kernel and bias initializers, regularizers and
            constraints: as in Conv2D.

    Input shape: 5-D. Output shape: 5-D with `filters` channels and the convolved sizes.
    """

    rank = 3
    _int_input_value_error = True

    def __init__(self, filters, kernel_size, strides=(1, 1, 1), padding="valid", data_format=None,
                 dilation_rate=(1, 1, 1), groups=1, activation=None, use_bias=True, **kwargs):
        super().__init__(filters, kernel_size, strides=strides, padding=padding,
                         data_format=data_format, dilation_rate=dilation_rate, groups=groups,
                         activation=activation, use_bias=use_bias, **kwargs)

    @property
    def _op_format(self):
        return "NCDHW" if self.data_format == "channels_first" else "NDHWC"

    def _convolve(self, x, kernel):
        return conv3d_ops.conv3d(x, kernel, list(self._strides5()), self.padding.upper(),
                                 data_format=self._op_format,
                                 dilations=list(self._strides5(self.dilation_rate)))

    def _strides5(self, values=None):
        """Five entries of strides (or `values`), ones on the batch and channel axes."""
        values = tuple(self.strides if values is None else values)
        if self.data_format == "channels_first":
            return (1, 1) + values
        return (1,) + values + (1,)


class _ConvTranspose(Conv):
    """The transposed convolutions of rank 1 and 3 (Conv2DTranspose lives beside Conv2D)."""

    _int_input_value_error = True

    def __init__(self, filters, kernel_size, strides=1, padding="valid", output_padding=None,
                 data_format=None, dilation_rate=1, activation=None, use_bias=True, **kwargs):
        super().__init__(filters, kernel_size, strides=strides, padding=padding,
                         data_format=data_format, dilation_rate=dilation_rate,
                         activation=activation, use_bias=use_bias, **kwargs)
        if self.padding not in ("valid", "same"):
            raise ValueError(f"The `padding` argument must be a list/tuple or one of "
                             f"{{'valid', 'same'}}. Received: {padding}")
        self.output_padding = None if output_padding is None else \
            layer_utils.normalize_tuple(output_padding, self.rank, "output_padding")
        for i, (pad, stride) in enumerate(zip(self.output_padding or (), self.strides)):
            if pad >= stride:
                raise ValueError(
                    f"`output_padding` must be strictly less than `strides` for all dimensions. "
                    f"At dimension {i}, `output_padding` is {pad} but `strides` is {stride}. "
                    f"Received: output_padding={self.output_padding}, strides={self.strides}")

    def _kernel_shape(self, channels):
        return self.kernel_size + (self.filters, channels)

    def _check_rank(self, shape):
        shape = TensorShape(shape)
        if shape.rank is not None and shape.rank > self.rank + 2:
            # Keras 3 indexes the kernel's spatial sizes with the input's spatial axes
            raise IndexError(f"Layer {self.name!r}: a {self.rank}-D transposed convolution needs a "
                             f"rank-{self.rank + 2} input, received shape {tuple(shape.as_list())}: "
                             f"tuple index out of range.")
        super()._check_rank(shape)

    def build(self, input_shape):
        channels = self._channels(input_shape)
        self.kernel = self.add_weight("kernel", shape=self.kernel_size + (self.filters, channels),
                                      initializer=self.kernel_initializer,
                                      regularizer=self.kernel_regularizer,
                                      constraint=self.kernel_constraint)
        self.bias = self._add_bias(self.filters)
        self.input_spec = InputSpec(min_ndim=self.rank + 2, axes={self._channel_axis: channels})
        self.built = True

    def _out_sizes(self, sizes):
        pads = self.output_padding or (None,) * self.rank
        return [deconv_output_length(size, self.kernel_size[i], self.padding, pads[i],
                                     self.strides[i], self.dilation_rate[i])
                for i, size in enumerate(sizes)]

    def call(self, inputs):
        self._check_input_dtype(inputs)
        shape = inputs.shape.as_list()
        out_spatial = self._out_sizes(spatial_dims(shape, self.data_format))
        return self._finish(self._transpose(inputs, shape[0], out_spatial))

    def compute_output_shape(self, input_shape):
        """Batch, the transposed-convolution spatial sizes and filters, in data_format."""
        shape = TensorShape(input_shape).as_list()
        spatial = self._out_sizes(spatial_dims(shape, self.data_format))
        return TensorShape(with_channels(shape[0], spatial, self.filters, self.data_format))

    def get_config(self):
        """The convolution's arguments (without groups) plus output_padding."""
        config = super().get_config()
        config.pop("groups", None)
        config["output_padding"] = self.output_padding
        return config


@export("layers.Conv1DTranspose", "layers.Convolution1DTranspose", "keras.layers.Conv1DTranspose",
        "keras.layers.Convolution1DTranspose")
class Conv1DTranspose(_ConvTranspose):
    """Transposed 1-D convolution ("deconvolution") over (batch, steps, channels), or
    (batch, channels, steps) with data_format='channels_first'.

    The kernel is (kernel_size, filters, input_channels). With output_padding None the output
    has `steps * strides` steps ('same') or `steps * strides + max(kernel - strides, 0)`
    ('valid'); an explicit output_padding (smaller than the stride) sets the extra steps.
    """

    rank = 1
    _int_input_value_error = False  # Keras 3 reaches the op, which refuses the integer input

    def __init__(self, filters, kernel_size, strides=1, padding="valid", output_padding=None,
                 data_format=None, dilation_rate=1, activation=None, use_bias=True, **kwargs):
        super().__init__(filters, kernel_size, strides=strides, padding=padding,
                         output_padding=output_padding, data_format=data_format,
                         dilation_rate=dilation_rate, activation=activation,
                         use_bias=use_bias, **kwargs)

    def _transpose(self, inputs, batch, out_spatial):
        first = self.data_format == "channels_first"
        x = array_ops.transpose(inputs, [0, 2, 1]) if first else inputs
        y = conv_ops.conv1d_transpose(x, self.kernel, [batch, out_spatial[0], self.filters],
                                      self.strides[0], self.padding.upper(),
                                      dilations=self.dilation_rate[0])
        return array_ops.transpose(y, [0, 2, 1]) if first else y


@export("layers.Conv3DTranspose", "layers.Convolution3DTranspose", "keras.layers.Conv3DTranspose",
        "keras.layers.Convolution3DTranspose")
class Conv3DTranspose(_ConvTranspose):
    """Transposed 3-D convolution ("deconvolution") over 5-D volumes.

    The kernel is kernel_size + (filters, input_channels); output sizes follow Keras'
    deconvolution arithmetic (see Conv1DTranspose), per spatial axis.
    """

    rank = 3

    def __init__(self, filters, kernel_size, strides=(1, 1, 1), padding="valid",
                 data_format=None, output_padding=None, dilation_rate=(1, 1, 1),
                 activation=None, use_bias=True, **kwargs):
        super().__init__(filters, kernel_size, strides=strides, padding=padding,
                         output_padding=output_padding, data_format=data_format,
                         dilation_rate=dilation_rate, activation=activation,
                         use_bias=use_bias, **kwargs)

    @property
    def _op_format(self):
        return "NCDHW" if self.data_format == "channels_first" else "NDHWC"

    def _transpose(self, inputs, batch, out_spatial):
        out_shape = with_channels(batch, out_spatial, self.filters, self.data_format)
        return conv3d_ops.conv3d_transpose(inputs, self.kernel, out_shape, list(self.strides),
                                           self.padding.upper(), data_format=self._op_format,
                                           dilations=list(self.dilation_rate))


Convolution3D = Conv3D
Convolution1DTranspose = Conv1DTranspose
Convolution3DTranspose = Conv3DTranspose
BUILTIN_LAYER_CLASSES.update(Convolution3D=Conv3D, Convolution1DTranspose=Conv1DTranspose,
                             Convolution3DTranspose=Conv3DTranspose)
