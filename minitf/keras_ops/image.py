"""keras.ops.image: colour conversions, resizing, padding and cropping, patches, Gaussian blur
and Sobel edges (rank-3 single images or rank-4 batches)."""
from minitf.keras_core.config import standardize_data_format
from minitf.keras_ops.core import convert, keras_op, saturate_cast
from minitf.keras_ops.dtypes import is_float_dtype, is_int_dtype, result_type
from minitf.keras_ops.nn_conv import conv
from minitf.ops import array as array_ops
from minitf.ops import constant as constant_ops
from minitf.ops import conv as conv_ops
from minitf.ops import image as IMG
from minitf.ops import linalg as linalg_ops
from minitf.ops import math as math_ops
from minitf.ops import reduce as reduce_ops
from minitf.ops.indexing import getitem
from minitf.api_export import export

__all__ = ["rgb_to_grayscale", "rgb_to_hsv", "hsv_to_rgb", "resize", "pad_images", "crop_images",
           "extract_patches", "extract_patches_3d", "gaussian_blur", "sobel_edges"]

RESIZE_INTERPOLATIONS = ("bilinear", "nearest", "lanczos3", "lanczos5", "bicubic", "area")


def _check_rank(images):
    if images.shape.rank not in (3, 4):
        raise ValueError(f"Invalid images rank: expected rank 3 (single image) or rank 4 (batch "
                         f"of images). Received input with shape: images.shape="
                         f"{tuple(images.shape)}")


def _to_last(images):
    return array_ops.transpose(images, (0, 2, 3, 1) if images.shape.rank == 4 else (1, 2, 0))


def _from_last(images):
    return array_ops.transpose(images, (0, 3, 1, 2) if images.shape.rank == 4 else (2, 0, 1))


@export("keras.ops.image.rgb_to_grayscale")
@keras_op
def rgb_to_grayscale(images, data_format=None):
    """RGB images to one-channel luminance (0.2989 R + 0.587 G + 0.114 B), in their dtype."""
    images = convert(images)
    data_format = standardize_data_format(data_format)
    axis = -1 if data_format == "channels_last" else -3
    _check_rank(images)
    if int(images.shape[axis]) not in (1, 3):
        raise ValueError(f"Invalid channel size: expected 3 (RGB) or 1 (Grayscale). Received "
                         f"input with shape: images.shape={tuple(images.shape)}")
    if int(images.shape[axis]) == 1:
        return constant_ops.identity(images)
    original = images.dtype
    images = constant_ops.cast(images, result_type(images.dtype, float))
    weights = constant_ops.constant([0.2989, 0.5870, 0.1140], dtype=images.dtype)
    gray = linalg_ops.tensordot(images, weights, axes=[[images.shape.rank + axis], [0]])
    return constant_ops.cast(array_ops.expand_dims(gray, axis), original)


def _colour(images, data_format, fn):
    images = convert(images)
    data_format = standardize_data_format(data_format)
    _check_rank(images)
    if not is_float_dtype(images.dtype):
        raise ValueError(f"Invalid images dtype: expected float dtype. Received: images.dtype="
                         f"{images.dtype.name}")
    if data_format == "channels_first":
        return _from_last(fn(_to_last(images)))
    return fn(images)


@export("keras.ops.image.rgb_to_hsv")
@keras_op
def rgb_to_hsv(images, data_format=None):
    """RGB float images to hue, saturation, value (each in [0, 1])."""
    return _colour(images, data_format, IMG.rgb_to_hsv)


@export("keras.ops.image.hsv_to_rgb")
@keras_op
def hsv_to_rgb(images, data_format=None):
    """HSV float images back to RGB."""
    return _colour(images, data_format, IMG.hsv_to_rgb)


def _aspect_box(height, width, target_h, target_w, grow):
    """The (box height, box width) with the target aspect ratio, cropped inside or padded
    around the image, as Keras computes it (float32, truncated)."""
    box_h = int(float(width * target_h) / target_w)
    box_w = int(float(height * target_w) / target_h)
    if grow:
        return max(height, box_h), max(width, box_w)
    return max(min(height, box_h), 1), max(min(width, box_w), 1)


@export("keras.ops.image.resize")
@keras_op
def resize(images, size, interpolation="bilinear", antialias=False, crop_to_aspect_ratio=False,
           pad_to_aspect_ratio=False, fill_mode="constant", fill_value=0.0, data_format=None):
    """Images resized to `size` (height, width); optionally cropped or padded to its aspect
    ratio first. Integer images are rounded and saturated back to their dtype."""
    if len(size) != 2:
        raise ValueError(f"Expected `size` to be a tuple of 2 integers. Received: size={size}")
    images = convert(images)
    data_format = standardize_data_format(data_format)
    if interpolation not in RESIZE_INTERPOLATIONS:
        raise ValueError(f"Invalid value for argument `interpolation`. Expected of one "
                         f"{RESIZE_INTERPOLATIONS}. Received: interpolation={interpolation}")
    if fill_mode != "constant":
        raise ValueError(f"Invalid value for argument `fill_mode`. Only `'constant'` is "
                         f"supported. Received: fill_mode={fill_mode}")
    if pad_to_aspect_ratio and crop_to_aspect_ratio:
        raise ValueError("Only one of `pad_to_aspect_ratio` & `crop_to_aspect_ratio` can be "
                         "`True`.")
    _check_rank(images)
    x = _to_last(images) if data_format == "channels_first" else images
    height, width = int(x.shape[-3]), int(x.shape[-2])
    target_h, target_w = (int(s) for s in size)
    if crop_to_aspect_ratio:
        box_h, box_w = _aspect_box(height, width, target_h, target_w, grow=False)
        top, left = int((height - box_h) / 2), int((width - box_w) / 2)
        x = getitem(x, (Ellipsis, slice(top, top + box_h), slice(left, left + box_w),
                        slice(None)))
    elif pad_to_aspect_ratio:
        box_h, box_w = _aspect_box(height, width, target_h, target_w, grow=True)
        top, left = int((box_h - height) / 2), int((box_w - width) / 2)
        if (top > 0 or left > 0) and not x.dtype.is_floating and isinstance(fill_value, float):
            raise TypeError(f"Cannot convert {fill_value} to EagerTensor of dtype "
                            f"{x.dtype.name}: Keras on TF multiplies the padding of integer "
                            f"images by fill_value; pass an int fill_value")
        lead = [[0, 0]] * (x.shape.rank - 3)
        x = array_ops.pad(x, lead + [[top, top], [left, left], [0, 0]],
                  constant_values=constant_ops.cast(convert(fill_value), x.dtype))
    if interpolation != "nearest" and x.dtype.name == "float64":
        x = constant_ops.cast(x, "float32")  # TF's resize kernels compute (and back-propagate) in float32
    out = IMG.resize(x, [target_h, target_w], method=interpolation, antialias=antialias)
    if data_format == "channels_first":
        out = _from_last(out)
    if out.dtype == images.dtype:
        return out
    if is_int_dtype(images.dtype):
        out = math_ops.round(out)
    return saturate_cast(out, images.dtype.name)


def _exactly_two(a, b, target, names):
    if [a, b, target].count(None) != 1:
        raise ValueError(f"Must specify exactly two of {names[0]}, {names[1]}, {names[2]}. "
                         f"Received: {names[0]}={a}, {names[1]}={b}, {names[2]}={target}")
    for value, name in zip((a, b, target), names):
        if value is not None and value < 0:
            raise ValueError(f"{name} must be >= 0. Received: {name}={value}")


@export("keras.ops.image.pad_images")
@keras_op
def pad_images(images, top_padding=None, left_padding=None, bottom_padding=None,
               right_padding=None, target_height=None, target_width=None, data_format=None):
    """Images padded with zeros; give two of (top, bottom, target height) and two of (left,
    right, target width)."""
    data_format = standardize_data_format(data_format)
    images = convert(images)
    _check_rank(images)
    _exactly_two(top_padding, bottom_padding, target_height,
                 ("top_padding", "bottom_padding", "target_height"))
    _exactly_two(left_padding, right_padding, target_width,
                 ("left_padding", "right_padding", "target_width"))
    shape = [int(d) for d in images.shape]
    height, width = (shape[-3], shape[-2]) if data_format == "channels_last" else \
        (shape[-2], shape[-1])
    top = target_height - bottom_padding - height if top_padding is None else top_padding
    bottom = target_height - top - height if bottom_padding is None else bottom_padding
    left = target_width - right_padding - width if left_padding is None else left_padding
    right = target_width - left - width if right_padding is None else right_padding
    for value, name in ((top, "top_padding"), (left, "left_padding"), (right, "right_padding"),
                        (bottom, "bottom_padding")):
        if value < 0:
            raise ValueError(f"{name} must be >= 0. Received: {name}={value}")
    widths = [[top, bottom], [left, right]]
    widths = widths + [[0, 0]] if data_format == "channels_last" else [[0, 0]] + widths
    if images.shape.rank == 4:
        widths = [[0, 0]] + widths
    return array_ops.pad(images, widths)


@export("keras.ops.image.crop_images")
@keras_op
def crop_images(images, top_cropping=None, left_cropping=None, bottom_cropping=None,
                right_cropping=None, target_height=None, target_width=None, data_format=None):
    """Images cropped; give two of (top, bottom, target height) and two of (left, right,
    target width)."""
    data_format = standardize_data_format(data_format)
    images = convert(images)
    _check_rank(images)
    _exactly_two(top_cropping, bottom_cropping, target_height,
                 ("top_cropping", "bottom_cropping", "target_height"))
    _exactly_two(left_cropping, right_cropping, target_width,
                 ("left_cropping", "right_cropping", "target_width"))
    shape = [int(d) for d in images.shape]
    if data_format == "channels_last":
        height, width, channels = shape[-3], shape[-2], shape[-1]
    else:
        height, width, channels = shape[-2], shape[-1], shape[-3]
    top = height - target_height - bottom_cropping if top_cropping is None else top_cropping
    target_height = height - bottom_cropping - top if target_height is None else target_height
    left = width - target_width - right_cropping if left_cropping is None else left_cropping
    target_width = width - right_cropping - left if target_width is None else target_width
    for value, name in ((top, "top_cropping"), (target_height, "target_height"),
                        (left, "left_cropping"), (target_width, "target_width")):
        if value < 0:
            raise ValueError(f"{name} must be >= 0. Received: {name}={value}")
    starts, sizes = [top, left], [target_height, target_width]
    if data_format == "channels_last":
        starts, sizes = starts + [0], sizes + [channels]
    else:
        starts, sizes = [0] + starts, [channels] + sizes
    if images.shape.rank == 4:
        starts, sizes = [0] + starts, [shape[0]] + sizes
    return array_ops.slice(images, starts, sizes)


def _patches(images, size, strides, dilation_rate, padding, data_format, dims):
    data_format = standardize_data_format(data_format)
    images = convert(images)
    sizes = (size,) * dims if isinstance(size, int) else tuple(size)
    channels = int(images.shape[-1] if data_format == "channels_last" else
                   images.shape[-1 - dims])
    out_dim = channels
    for s in sizes:
        out_dim *= s
    kernel = array_ops.reshape(array_ops.eye(out_dim, dtype=images.dtype), list(sizes) + [channels, out_dim])
    unbatched = images.shape.rank == dims + 1
    if unbatched:
        images = array_ops.expand_dims(images, 0)
    out = conv(images, kernel, strides=strides if strides else sizes, padding=padding,
               data_format=data_format, dilation_rate=dilation_rate)
    return array_ops.squeeze(out, [0]) if unbatched else out


@export("keras.ops.image.extract_patches")
@keras_op
def extract_patches(images, size, strides=None, dilation_rate=1, padding="valid",
                    data_format=None):
    """The size x size patches of images, flattened into the channel axis."""
    if not isinstance(size, int) and len(size) == 3:
        return _patches(images, size, strides, dilation_rate, padding, data_format, 3)
    if not isinstance(size, int) and len(size) != 2:
        raise TypeError(f"Invalid `size` argument. Expected an int or a tuple of length 2. "
                        f"Received: size={size}")
    return _patches(images, size, strides, dilation_rate, padding, data_format, 2)


@export("keras.ops.image.extract_patches_3d")
@keras_op
def extract_patches_3d(volumes, size, strides=None, dilation_rate=1, padding="valid",
                       data_format=None):
    """The 3-D patches of volumes, flattened into the channel axis."""
    if not isinstance(size, int) and len(size) != 3:
        raise TypeError(f"Invalid `size` argument. Expected an int or a tuple of length 3. "
                        f"Received: size={size}")
    if isinstance(strides, int):
        strides = (strides,) * 3
    if strides is not None and len(strides) != 3:
        raise ValueError(f"Invalid `strides` argument. Got: {strides}")
    return _patches(volumes, size, strides, dilation_rate, padding, data_format, 3)


@export("keras.ops.image.gaussian_blur")
@keras_op
def gaussian_blur(images, kernel_size=(3, 3), sigma=(1.0, 1.0), data_format=None):
    """Images blurred by a Gaussian kernel of `kernel_size` and `sigma` (per axis), 'same'
    padding with zeros."""
    images = convert(images)
    dtype = images.dtype.name
    _check_rank(images)
    kh, kw = (int(k) for k in kernel_size)
    s0, s1 = (float(s) for s in sigma)
    squeeze = images.shape.rank == 3
    if squeeze:
        images = array_ops.expand_dims(images, 0)
    if data_format == "channels_first":
        images = array_ops.transpose(images, (0, 2, 3, 1))

    def kernel1d(size, s):
        x = math_ops.subtract(array_ops.range(0.0, float(size), 1.0, dtype=dtype), (size - 1) / 2)
        k = math_ops.exp(math_ops.multiply(math_ops.square(math_ops.divide(x, s)), -0.5))
        return math_ops.divide(k, reduce_ops.reduce_sum(k))
    # as Keras: the outer product of the (size[1], sigma[1]) and (size[0], sigma[0]) kernels,
    # read as a kernel_size[0] x kernel_size[1] window
    kernel = linalg_ops.tensordot(kernel1d(kw, s1), kernel1d(kh, s0), axes=0)
    channels = int(images.shape[-1])
    kernel = array_ops.tile(array_ops.reshape(kernel, [kh, kw, 1, 1]), [1, 1, channels, 1])
    out = conv_ops.depthwise_conv2d(images, constant_ops.cast(kernel, dtype), [1, 1, 1, 1], "SAME")
    if data_format == "channels_first":
        out = array_ops.transpose(out, (0, 3, 1, 2))
    return array_ops.squeeze(out, [0]) if squeeze else out


@export("keras.ops.image.sobel_edges")
@keras_op
def sobel_edges(images, data_format=None):
    """The Sobel gradients (dy, dx) of each channel: shape (..., channels, 2)."""
    images = convert(images)
    data_format = standardize_data_format(data_format)
    if data_format == "channels_first":
        images = array_ops.transpose(images, (0, 2, 3, 1))
    edges = IMG.sobel_edges(images)
    if data_format == "channels_first":
        edges = array_ops.transpose(edges, (0, 3, 1, 2, 4))
    return edges
