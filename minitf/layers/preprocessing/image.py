"""Deterministic image preprocessing layers: Resizing and CenterCrop (channels_last or
channels_first, a single image [h, w, c] or a batch [b, h, w, c]).

Both are differentiable where their ops are: slicing, padding and tf.image.resize record on
the tape. `affine_transform` is the projective warp (TF's ImageProjectiveTransformV3
semantics) that the random geometric layers use; minitf's tf.image has no public op for it,
so it lives here, privately, in numpy.
"""
import numpy as np

from minitf.layers.preprocessing import utils as preprocessing_utils
from minitf.layers.base import Layer
from minitf.layers.convolutional import standardize_data_format
from minitf.ops import array as array_ops
from minitf.ops import math as math_ops
from minitf.ops.constant import cast
from minitf.ops.image_resize import resize
from minitf.tensor_shape import TensorShape
from minitf.api_export import export

__all__ = ["Resizing", "CenterCrop"]

_RESIZE_INTERPOLATIONS = ("bilinear", "nearest", "lanczos3", "lanczos5", "bicubic", "area")


def to_channels_last(x, data_format):
    """x transposed so channels come last (identity for channels_last)."""
    if data_format != "channels_first":
        return x
    return array_ops.transpose(x, (0, 2, 3, 1) if len(x.shape) == 4 else (1, 2, 0))


def from_channels_last(x, data_format):
    """The inverse of `to_channels_last`."""
    if data_format != "channels_first":
        return x
    return array_ops.transpose(x, (0, 3, 1, 2) if len(x.shape) == 4 else (2, 0, 1))


def _crop(x, h0, hn, w0, wn):
    """Rows [h0, h0 + hn) and columns [w0, w0 + wn) of a channels-last image or batch."""
    if len(x.shape) == 4:
        return x[:, h0:h0 + hn, w0:w0 + wn, :]
    return x[h0:h0 + hn, w0:w0 + wn, :]


def aspect_crop_box(height, width, target_height, target_width):
    """Keras' largest centred window of the target aspect ratio: (h0, crop_h, w0, crop_w)."""
    crop_h = int(np.float32(width * target_height) / np.float32(target_width))
    crop_h = max(min(height, crop_h), 1)
    crop_w = int(np.float32(height * target_width) / np.float32(target_height))
    crop_w = max(min(width, crop_w), 1)
    return int(np.float32(height - crop_h) / 2), crop_h, int(np.float32(width - crop_w) / 2), crop_w


def resize_images(x, size, interpolation="bilinear", antialias=False, crop_to_aspect_ratio=False,
                  pad_to_aspect_ratio=False, fill_value=0.0, data_format="channels_last"):
    """Keras' `ops.image.resize` on a minitf tensor (float32 output, or the input dtype for 'nearest')."""
    x = to_channels_last(x, data_format)
    height, width = x.shape[-3], x.shape[-2]
    th, tw = size
    if crop_to_aspect_ratio:
        h0, ch, w0, cw = aspect_crop_box(height, width, th, tw)
        x = _crop(x, h0, ch, w0, cw)
    elif pad_to_aspect_ratio:
        pad_h = max(height, int(np.float32(width * th) / np.float32(tw)))
        pad_w = max(width, int(np.float32(height * tw) / np.float32(th)))
        hs = int(np.float32(pad_h - height) / 2)
        ws = int(np.float32(pad_w - width) / 2)
        if hs > 0 or ws > 0:
            batch = [[0, 0]] if len(x.shape) == 4 else []
            x = array_ops.pad(x, batch + [[hs, hs], [ws, ws], [0, 0]], constant_values=fill_value)
    y = resize(x, [th, tw], method=interpolation, antialias=antialias)
    return from_channels_last(y, data_format)


@export("layers.Resizing", "keras.layers.Resizing")
class Resizing(Layer):
    """Resizes images to (height, width), as Keras' Resizing.

    Integer images come back rounded and saturated to their own dtype; floating images are
    float32. `crop_to_aspect_ratio` takes the largest centred window of the target aspect ratio
    first; `pad_to_aspect_ratio` pads the short side evenly with `fill_value` instead.

    Args:
        height, width: the output size.
        interpolation: 'bilinear' (default), 'nearest', 'bicubic', 'lanczos3', 'lanczos5' or 'area'.
        crop_to_aspect_ratio, pad_to_aspect_ratio: keep the aspect ratio (at most one of them).
        fill_mode: only 'constant'.
        fill_value: the padding value.
        antialias: widen the kernel when downsampling.
        data_format: 'channels_last' (default from keras.backend) or 'channels_first'.
    """

    def __init__(self, height, width, interpolation="bilinear", crop_to_aspect_ratio=False,
                 pad_to_aspect_ratio=False, fill_mode="constant", fill_value=0.0, antialias=False,
                 data_format=None, **kwargs):
        super().__init__(**kwargs)
        if interpolation not in _RESIZE_INTERPOLATIONS:
            raise ValueError(f"Resizing {self.name!r}: invalid value for argument `interpolation`. Expected of "
                             f"one {_RESIZE_INTERPOLATIONS}. Received: interpolation={interpolation}")
        if fill_mode != "constant":
            raise ValueError(f"Resizing {self.name!r}: invalid value for argument `fill_mode`. Only 'constant' "
                             f"is supported. Received: fill_mode={fill_mode}")
        if pad_to_aspect_ratio and crop_to_aspect_ratio:
            raise ValueError(f"Resizing {self.name!r}: only one of `pad_to_aspect_ratio` & "
                             f"`crop_to_aspect_ratio` can be `True`.")
        self.height = height
        self.width = width
        self.interpolation = interpolation
        self.crop_to_aspect_ratio = crop_to_aspect_ratio
        self.pad_to_aspect_ratio = pad_to_aspect_ratio
        self.fill_mode = fill_mode
        self.fill_value = fill_value
        self.antialias = bool(antialias)
        self.data_format = standardize_data_format(data_format, self.name)

    def call(self, inputs):
        preprocessing_utils.image_axes(len(inputs.shape), self.data_format, self)
        y = resize_images(inputs, (self.height, self.width), self.interpolation, self.antialias,
                          self.crop_to_aspect_ratio, self.pad_to_aspect_ratio, self.fill_value, self.data_format)
        if y.dtype == inputs.dtype:
            return y
        if inputs.dtype.is_integer:
            info = np.iinfo(inputs.dtype.as_numpy_dtype)
            y = math_ops.round(y)
            y = math_ops.minimum(math_ops.maximum(y, float(info.min)), float(info.max))
        return cast(y, inputs.dtype)

    def compute_output_shape(self, input_shape):
        """The input shape with height and width replaced."""
        return _with_size(input_shape, self.height, self.width, self.data_format)

    def get_config(self):
        """Keras' keys: height, width, interpolation, the aspect-ratio flags, fill, antialias, data_format."""
        config = super().get_config()
        config.update({"height": self.height, "width": self.width, "interpolation": self.interpolation,
                       "crop_to_aspect_ratio": self.crop_to_aspect_ratio,
                       "pad_to_aspect_ratio": self.pad_to_aspect_ratio, "fill_mode": self.fill_mode,
                       "fill_value": self.fill_value, "antialias": self.antialias,
                       "data_format": self.data_format})
        return config


def _with_size(input_shape, height, width, data_format):
    shape = TensorShape(input_shape).as_list()
    if len(shape) not in (3, 4):
        return TensorShape(shape)
    h_axis = len(shape) - (2 if data_format == "channels_first" else 3)
    shape[h_axis], shape[h_axis + 1] = height, width
    return TensorShape(shape)


@export("layers.CenterCrop", "keras.layers.CenterCrop")
class CenterCrop(Layer):
    """Crops the central (height, width) window; smaller images are first cropped to the target
    aspect ratio and resized up (bilinear), as Keras does. Output float32.

    Args:
        height, width: the output size.
        data_format: 'channels_last' (default from keras.backend) or 'channels_first'.
    """

    def __init__(self, height, width, data_format=None, **kwargs):
        super().__init__(**kwargs)
        self.height = height
        self.width = width
        self.data_format = standardize_data_format(data_format, self.name)

    def call(self, inputs):
        x = cast(inputs, self.dtype)
        h_axis, w_axis = preprocessing_utils.image_axes(len(x.shape), self.data_format, self)
        h, w = x.shape[h_axis], x.shape[w_axis]
        h_diff, w_diff = h - self.height, w - self.width
        if h_diff >= 0 and w_diff >= 0:
            x = to_channels_last(x, self.data_format)
            return from_channels_last(_crop(x, h_diff // 2, self.height, w_diff // 2, self.width),
                                      self.data_format)
        return cast(resize_images(x, (self.height, self.width), crop_to_aspect_ratio=True,
                                  data_format=self.data_format), self.dtype)

    def compute_output_shape(self, input_shape):
        """The input shape with height and width replaced."""
        return _with_size(input_shape, self.height, self.width, self.data_format)

    def get_config(self):
        """height, width and data_format."""
        config = super().get_config()
        config.update({"height": self.height, "width": self.width, "data_format": self.data_format})
        return config


# -- the projective warp of the random geometric layers ------------------------------------------

def _map_coordinate(c, n, mode):
    """TF's fill-mode mapping of sampling coordinates `c` (float array) on an axis of length n."""
    if mode == "constant":
        return c
    if mode == "nearest" or n <= 1:
        return np.clip(c, 0, max(n - 1, 0)) if n > 1 else np.zeros_like(c)
    out = c.copy()
    neg, big = out < 0, out > n - 1  # one branch per coordinate, as TF's if / else-if
    if mode == "reflect":
        sz2 = 2 * n
        v = out[neg]
        v = sz2 * np.trunc(-v / sz2) + v
        out[neg] = np.where(v < -n, v + sz2, -v - 1)
        v = out[big]
        v = v - sz2 * np.trunc(v / sz2)
        out[big] = np.where(v >= n, sz2 - v - 1, v)
    else:  # wrap
        sz = n - 1
        out[neg] = out[neg] + n * (np.trunc(-out[neg] / sz) + 1)
        out[big] = out[big] - n * np.trunc(out[big] / sz)
    return np.clip(out, 0, n - 1)


def affine_transform(images, transforms, interpolation, fill_mode, fill_value):
    """Warp a float32 batch [b, h, w, c] by per-image 8-vectors [a0 a1 a2 b0 b1 b2 c0 c1]: the output
    pixel (x, y) samples the input at ((a0 x + a1 y + a2) / k, (b0 x + b1 y + b2) / k),
    k = c0 x + c1 y + 1, with TF's fill modes ('reflect', 'wrap', 'constant', 'nearest') and
    'nearest' or 'bilinear' sampling (out-of-image neighbours read `fill_value`)."""
    b, h, w, c = images.shape
    out = np.empty_like(images)
    ys, xs = np.meshgrid(np.arange(h, dtype=np.float32), np.arange(w, dtype=np.float32), indexing="ij")
    fill = np.float32(fill_value)
    for i in range(b):
        t = np.asarray(transforms[i], dtype=np.float32)
        k = t[6] * xs + t[7] * ys + np.float32(1)
        safe = np.where(k == 0, np.float32(1), k)
        in_x = _map_coordinate((t[0] * xs + t[1] * ys + t[2]) / safe, w, fill_mode)
        in_y = _map_coordinate((t[3] * xs + t[4] * ys + t[5]) / safe, h, fill_mode)
        img = images[i]

        def read(yy, xx):
            yy = yy.astype(np.int64)
            xx = xx.astype(np.int64)
            ok = (yy >= 0) & (yy < h) & (xx >= 0) & (xx < w)
            vals = img[np.clip(yy, 0, h - 1), np.clip(xx, 0, w - 1)]
            return np.where(ok[..., None], vals, fill)
        if interpolation == "nearest":
            # std::round: halves away from zero
            res = read(np.sign(in_y) * np.floor(np.abs(in_y) + 0.5), np.sign(in_x) * np.floor(np.abs(in_x) + 0.5))
        else:
            y0, x0 = np.floor(in_y), np.floor(in_x)
            y1, x1 = y0 + 1, x0 + 1
            wx0, wx1 = (x1 - in_x)[..., None], (in_x - x0)[..., None]
            top = wx0 * read(y0, x0) + wx1 * read(y0, x1)
            bottom = wx0 * read(y1, x0) + wx1 * read(y1, x1)
            res = (y1 - in_y)[..., None] * top + (in_y - y0)[..., None] * bottom
        out[i] = np.where((k == 0)[..., None], fill, res)
    return out
