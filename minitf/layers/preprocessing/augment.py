"""Random image augmentation layers: RandomFlip, RandomRotation, RandomZoom, RandomTranslation,
RandomCrop, RandomContrast and RandomBrightness.

They transform only when training: an omitted `training` argument means True (the default of
Keras' `call`), `training=False` or an explicit None is inference, where each layer returns its
input (cast as Keras casts it). Models pass training=True in `fit` and False in
`predict`/`evaluate`. Random draws come from a per-layer numpy Philox stream seeded by `seed`
(see `_preprocessing_utils.SeedStream`): one seed gives one augmentation sequence in every run,
but not Keras' numbers. The outputs are new constants: augmentation is not differentiated.
"""
import numpy as np

from minitf import dispatch
from minitf.dtypes import dtypes
from minitf.errors.errors import InvalidArgumentError
from minitf.keras_ops import random as keras_random
from minitf.layers.preprocessing import utils as preprocessing_utils
from minitf.layers.base import Layer
from minitf.layers.convolutional import standardize_data_format
from minitf.layers.preprocessing.image import affine_transform, aspect_crop_box, resize_images
from minitf.ops.constant import cast, convert_to_tensor
from minitf.tensor_shape import TensorShape
from minitf.api_export import export

__all__ = ["RandomFlip", "RandomRotation", "RandomZoom", "RandomTranslation", "RandomCrop", "RandomContrast",
           "RandomBrightness"]

HORIZONTAL, VERTICAL, HORIZONTAL_AND_VERTICAL = "horizontal", "vertical", "horizontal_and_vertical"
_FILL_MODES = ("reflect", "wrap", "constant", "nearest")
_INTERPOLATIONS = ("nearest", "bilinear")


def _factor_pair(factor, bounds, layer, what="factor"):
    """Keras' (lower, upper) from a number f (-> (max(-|f|, low bound), |f|)) or a pair."""
    msg = (f"{type(layer).__name__} {layer.name!r}: the `{what}` argument should be a number (or a list of two "
           f"numbers) in the range [{bounds[0]}, {bounds[1]}]. Received: {what}={factor}")
    if isinstance(factor, (tuple, list)):
        if len(factor) != 2 or factor[0] > bounds[1] or factor[1] < bounds[0]:
            raise ValueError(msg)
        return tuple(sorted(factor))
    if isinstance(factor, (int, float)) and not isinstance(factor, bool):
        if factor < bounds[0] or factor > bounds[1]:
            raise ValueError(msg)
        factor = abs(factor)
        return (max(-factor, bounds[0]), factor)
    raise ValueError(msg)


def _zoom_like_pair(factor, layer, what):
    """RandomZoom/RandomTranslation factors: each in (-1, 1]."""
    msg = (f"{type(layer).__name__} {layer.name!r}: the `{what}` argument should be a number (or a list of two "
           f"numbers) in the range (-1.0, 1.0]. Received: {what}={factor}")
    values = list(factor) if isinstance(factor, (tuple, list)) else [factor]
    if len(values) not in (1, 2) or not all(isinstance(v, (int, float)) for v in values) or \
            any(v > 1.0 or v <= -1.0 for v in values):
        raise ValueError(msg)
    if len(values) == 2:
        return tuple(sorted(values))
    return (-abs(values[0]), abs(values[0]))


class _Augmentation(Layer):
    """Shared parts: data_format, seed stream, the training rule and float32 batches."""

    def __init__(self, seed=None, data_format=None, **kwargs):
        super().__init__(**kwargs)
        self.seed = seed
        self.data_format = standardize_data_format(data_format, self.name)
        self._stream = preprocessing_utils.SeedStream(seed)

    def _batch(self, inputs):
        """(numpy float batch [b, h, w, c] channels last, was it one image)."""
        x = inputs.numpy()
        preprocessing_utils.image_axes(x.ndim, self.data_format, self)
        single = x.ndim == 3
        if single:
            x = x[None]
        if self.data_format == "channels_first":
            x = x.transpose(0, 2, 3, 1)
        return x, single

    def _unbatch(self, y, single, dtype):
        if self.data_format == "channels_first":
            y = y.transpose(0, 3, 1, 2)
        if single:
            y = y[0]
        return convert_to_tensor(y.astype(dtype))

    def compute_output_shape(self, input_shape):
        """Same as the input shape."""
        return TensorShape(input_shape)

    def _base_config(self):
        config = super().get_config()
        config.update({"data_format": self.data_format, "seed": self.seed})
        return config


@export("layers.RandomFlip", "keras.layers.RandomFlip")
class RandomFlip(_Augmentation):
    """Flips each image left-right and/or up-down with probability 1/2 while training.

    Args:
        mode: 'horizontal', 'vertical' or 'horizontal_and_vertical' (default).
        seed: an int for a reproducible sequence of flips.
        data_format: 'channels_last' or 'channels_first'.
    """

    def __init__(self, mode=HORIZONTAL_AND_VERTICAL, seed=None, data_format=None, **kwargs):
        super().__init__(seed=seed, data_format=data_format, **kwargs)
        if mode not in (HORIZONTAL, VERTICAL, HORIZONTAL_AND_VERTICAL):
            raise ValueError(f"RandomFlip {self.name!r}: invalid mode {mode!r}; use 'horizontal', 'vertical' or "
                             f"'horizontal_and_vertical'.")
        self.mode = mode

    @dispatch.stateful_op  # draws on the host: one graph node, drawing anew each run
    def call(self, inputs, training=True):
        x = cast(inputs, self.dtype)
        if not preprocessing_utils.is_training(training):
            return x
        batch, single = self._batch(x)
        out = batch.copy()
        for i in range(batch.shape[0]):
            # Keras draws one number per image and flips both axes on it in the combined mode
            flip = self._stream.uniform(0.0, 1.0, ()) <= 0.5
            if flip and self.mode in (HORIZONTAL, HORIZONTAL_AND_VERTICAL):
                out[i] = out[i][:, ::-1]
            if flip and self.mode in (VERTICAL, HORIZONTAL_AND_VERTICAL):
                out[i] = out[i][::-1]
        return self._unbatch(out, single, self.dtype)

    def get_config(self):
        """mode, seed and data_format."""
        config = self._base_config()
        config["mode"] = self.mode
        return config


class _AffineAugmentation(_Augmentation):
    """Layers that warp images with `affine_transform`."""

    def _check_modes(self, fill_mode, interpolation):
        if fill_mode not in _FILL_MODES:
            raise NotImplementedError(f"{type(self).__name__} {self.name!r}: unknown `fill_mode` {fill_mode}. "
                                      f"Expected of one {_FILL_MODES}.")
        if interpolation not in _INTERPOLATIONS:
            raise NotImplementedError(f"{type(self).__name__} {self.name!r}: unknown `interpolation` "
                                      f"{interpolation}. Expected of one {_INTERPOLATIONS}.")

    @dispatch.stateful_op  # draws on the host: one graph node, drawing anew each run
    def call(self, inputs, training=True):
        x = cast(inputs, self.dtype)
        if not preprocessing_utils.is_training(training):
            return x
        batch, single = self._batch(x)
        h, w = batch.shape[1], batch.shape[2]
        transforms = self._transforms(batch.shape[0], h, w)
        out = affine_transform(batch.astype(np.float32), transforms, self.interpolation, self.fill_mode,
                               self.fill_value)
        return self._unbatch(out, single, self.dtype)

    def _affine_config(self):
        config = self._base_config()
        config.update({"fill_mode": self.fill_mode, "fill_value": self.fill_value,
                       "interpolation": self.interpolation})
        return config


@export("layers.RandomRotation", "keras.layers.RandomRotation")
class RandomRotation(_AffineAugmentation):
    """Rotates each image by a random angle of `factor` * 2 pi about its centre while training.

    Args:
        factor: a number f (angles in [-f, f] turns) or a pair (lower, upper), in turns.
        fill_mode: 'reflect' (default), 'wrap', 'constant' or 'nearest' (outside the image).
        interpolation: 'bilinear' (default) or 'nearest'.
        seed: an int for a reproducible sequence.
        fill_value: the value outside the image with fill_mode='constant'.
        value_range: accepted for Keras compatibility (unused, as in Keras).
        data_format: 'channels_last' or 'channels_first'.
    """

    def __init__(self, factor, fill_mode="reflect", interpolation="bilinear", seed=None, fill_value=0.0,
                 value_range=(0, 255), data_format=None, **kwargs):
        super().__init__(seed=seed, data_format=data_format, **kwargs)
        self.factor = _factor_pair(factor, (-1, 1), self)
        self._check_modes(fill_mode, interpolation)
        self.fill_mode = fill_mode
        self.fill_value = fill_value
        self.interpolation = interpolation
        self.value_range = value_range

    def _transforms(self, n, h, w):
        angles = np.deg2rad(self._stream.uniform(self.factor[0] * 360.0, self.factor[1] * 360.0, (n,)))
        cx, cy = 0.5 * (w - 1), 0.5 * (h - 1)
        cos, sin = np.cos(angles), np.sin(angles)
        zero = np.zeros(n)
        # Keras' affine matrix for a rotation about (cx, cy), in output -> input form
        return np.stack([cos, -sin, cx - cx * cos + cy * sin, sin, cos, cy - cx * sin - cy * cos, zero, zero],
                        axis=1)

    def get_config(self):
        """factor (as a pair), fill_mode, fill_value, interpolation, seed and data_format."""
        config = self._affine_config()
        config["factor"] = self.factor
        return config


@export("layers.RandomZoom", "keras.layers.RandomZoom")
class RandomZoom(_AffineAugmentation):
    """Zooms each image by a random factor while training: 1 + uniform(height_factor) vertically and
    1 + uniform(width_factor) horizontally (the vertical factor for both when width_factor is None).
    Positive factors zoom out, negative ones zoom in.

    Args:
        height_factor, width_factor: a number f (range [-f, f]) or a pair, each in (-1, 1].
        fill_mode, interpolation, seed, fill_value, data_format: as RandomRotation.
    """

    def __init__(self, height_factor, width_factor=None, fill_mode="reflect", interpolation="bilinear", seed=None,
                 fill_value=0.0, data_format=None, **kwargs):
        super().__init__(seed=seed, data_format=data_format, **kwargs)
        self.height_factor = height_factor
        self.height_lower, self.height_upper = _zoom_like_pair(height_factor, self, "height_factor")
        self.width_factor = width_factor
        if width_factor is not None:
            self.width_lower, self.width_upper = _zoom_like_pair(width_factor, self, "width_factor")
        self._check_modes(fill_mode, interpolation)
        self.fill_mode = fill_mode
        self.fill_value = fill_value
        self.interpolation = interpolation

    def _transforms(self, n, h, w):
        zy = self._stream.uniform(1.0 + self.height_lower, 1.0 + self.height_upper, (n,))
        zx = zy if self.width_factor is None else self._stream.uniform(1.0 + self.width_lower,
                                                                       1.0 + self.width_upper, (n,))
        zero = np.zeros(n)
        return np.stack([zx, zero, (w - 1) / 2.0 * (1.0 - zx), zero, zy, (h - 1) / 2.0 * (1.0 - zy), zero, zero],
                        axis=1)

    def get_config(self):
        """height_factor, width_factor, fill_mode, fill_value, interpolation, seed and data_format."""
        config = self._affine_config()
        config.update({"height_factor": self.height_factor, "width_factor": self.width_factor})
        return config


@export("layers.RandomTranslation", "keras.layers.RandomTranslation")
class RandomTranslation(_AffineAugmentation):
    """Shifts each image by random fractions of its height and width while training.

    Args:
        height_factor, width_factor: a number f (shift in [-f, f] of the side) or a pair, in (-1, 1].
        fill_mode, interpolation, seed, fill_value, data_format: as RandomRotation.
    """

    def __init__(self, height_factor, width_factor, fill_mode="reflect", interpolation="bilinear", seed=None,
                 fill_value=0.0, data_format=None, **kwargs):
        super().__init__(seed=seed, data_format=data_format, **kwargs)
        self.height_factor = height_factor
        self.height_lower, self.height_upper = _zoom_like_pair(height_factor, self, "height_factor")
        self.width_factor = width_factor
        self.width_lower, self.width_upper = _zoom_like_pair(width_factor, self, "width_factor")
        self._check_modes(fill_mode, interpolation)
        self.fill_mode = fill_mode
        self.fill_value = fill_value
        self.interpolation = interpolation

    def _transforms(self, n, h, w):
        dy = self._stream.uniform(self.height_lower, self.height_upper, (n,)) * h
        dx = self._stream.uniform(self.width_lower, self.width_upper, (n,)) * w
        one, zero = np.ones(n), np.zeros(n)
        return np.stack([one, zero, -dx, zero, one, -dy, zero, zero], axis=1)

    def get_config(self):
        """height_factor, width_factor, fill_mode, fill_value, interpolation, seed and data_format."""
        config = self._affine_config()
        config.update({"height_factor": self.height_factor, "width_factor": self.width_factor})
        return config


@export("layers.RandomCrop", "keras.layers.RandomCrop")
class RandomCrop(_Augmentation):
    """Crops a random (height, width) window while training (the same window for the whole batch,
    as Keras); the output is float32 and is resized when the input is smaller than the window.
    At inference the input comes back unchanged (Keras 3's behaviour).

    Args:
        height, width: the window size.
        seed: an int for a reproducible sequence (Keras draws one when None; so does minitf,
            and writes it to the config).
        data_format: 'channels_last' or 'channels_first'.
    """

    def __init__(self, height, width, seed=None, data_format=None, name=None, **kwargs):
        kwargs.setdefault("autocast", False)  # inference returns the input in its own dtype
        # Keras draws a seed for the config, then its generator, built from the seed passed,
        # draws its own: two draws from Python's `random` for an unseeded crop
        config_seed = keras_random.make_default_seed() if seed is None else seed
        super().__init__(seed=seed, data_format=data_format, name=name, **kwargs)
        self.seed = config_seed
        self.height = height
        self.width = width

    @dispatch.stateful_op  # draws on the host: one graph node, drawing anew each run
    def call(self, inputs, training=True):
        if not preprocessing_utils.is_training(training):
            return inputs
        x = cast(inputs, self.dtype)
        h_axis, w_axis = preprocessing_utils.image_axes(len(x.shape), self.data_format, self)
        h, w = x.shape[h_axis], x.shape[w_axis]
        if h > self.height and w > self.width:
            h0 = int(self._stream.uniform(0, h - self.height + 1, ()))
            w0 = int(self._stream.uniform(0, w - self.width + 1, ()))
        else:
            h0, _, w0, _ = aspect_crop_box(h, w, self.height, self.width)
        index = [slice(None)] * len(x.shape)
        index[h_axis] = slice(h0, h0 + self.height)
        index[w_axis] = slice(w0, w0 + self.width)
        y = x[tuple(index)]
        if (y.shape[h_axis], y.shape[w_axis]) != (self.height, self.width):
            # Keras resizes a window cut short by a small image up to the requested size
            y = cast(resize_images(y, (self.height, self.width), data_format=self.data_format), self.dtype)
        return y

    def compute_output_shape(self, input_shape):
        """The input shape with height and width replaced."""
        shape = TensorShape(input_shape).as_list()
        if len(shape) in (3, 4):
            h_axis = len(shape) - (2 if self.data_format == "channels_first" else 3)
            shape[h_axis], shape[h_axis + 1] = self.height, self.width
        return TensorShape(shape)

    def get_config(self):
        """height, width, seed and data_format."""
        config = self._base_config()
        config.update({"height": self.height, "width": self.width})
        return config


class _ValueAugmentation(_Augmentation):
    """RandomContrast and RandomBrightness: inference returns the input in its own dtype."""

    def _factor_shape(self, x):
        preprocessing_utils.image_axes(len(x.shape), self.data_format, self)
        return (1, 1, 1) if len(x.shape) == 3 else (x.shape[0], 1, 1, 1)


@export("layers.RandomContrast", "keras.layers.RandomContrast")
class RandomContrast(_ValueAugmentation):
    """Scales each image's deviation from its per-channel mean by a random contrast factor drawn
    from [1 - lower, 1 + upper] while training, then clips to `value_range`.

    Args:
        factor: a number f in [0, 1] (Keras' pair (0, f)) or a pair (lower, upper).
        value_range: the (min, max) range of the pixel values; default (0, 255).
        seed: an int for a reproducible sequence.
    """

    def __init__(self, factor, value_range=(0, 255), seed=None, **kwargs):
        super().__init__(seed=seed, **kwargs)
        self.factor = _factor_pair(factor, (0, 1), self)
        self.value_range = value_range

    @dispatch.stateful_op  # draws on the host: one graph node, drawing anew each run
    def call(self, inputs, training=True):
        if not preprocessing_utils.is_training(training):
            return inputs
        if not inputs.dtype.is_floating:
            raise InvalidArgumentError(None, None, f"RandomContrast {self.name!r}: cannot adjust the contrast of "
                                       f"{inputs.dtype.name} images (Keras computes in the image dtype); cast "
                                       f"them to float32 first.")
        x = inputs.numpy().astype(np.float32)
        h_axis, w_axis = preprocessing_utils.image_axes(x.ndim, self.data_format, self)
        factor = self._stream.uniform(1.0 - self.factor[0], 1.0 + self.factor[1],
                                      self._factor_shape(x)).astype(np.float32)
        mean = x.mean(axis=h_axis, keepdims=True).mean(axis=w_axis, keepdims=True)
        y = np.clip((x - mean) * factor + mean, self.value_range[0], self.value_range[1])
        return convert_to_tensor(y.astype(np.float32))

    def compute_output_shape(self, input_shape):
        """Same as the input shape."""
        return TensorShape(input_shape)

    def get_config(self):
        """factor (as a pair), value_range, seed and data_format."""
        config = self._base_config()
        config.update({"factor": self.factor, "value_range": self.value_range})
        return config


@export("layers.RandomBrightness", "keras.layers.RandomBrightness")
class RandomBrightness(_ValueAugmentation):
    """Adds a random delta, uniform(factor) * (value_range span), to each image while training,
    then clips to `value_range`. Integer images stay integers (the delta is truncated).

    Args:
        factor: a number f in [-1, 1] (range [-|f|, |f|]) or a pair (lower, upper).
        value_range: the (min, max) range of the pixel values; default (0, 255).
        seed: an int for a reproducible sequence.
    """

    def __init__(self, factor, value_range=(0, 255), seed=None, **kwargs):
        super().__init__(seed=seed, **kwargs)
        self.factor = _factor_pair(factor, (-1, 1), self)
        if not isinstance(value_range, (tuple, list)) or len(value_range) != 2:
            raise ValueError(f"RandomBrightness {self.name!r}: the `value_range` argument should be a list of two "
                             f"numbers. Received: value_range={value_range}")
        self.value_range = sorted(value_range)

    @dispatch.stateful_op  # draws on the host: one graph node, drawing anew each run
    def call(self, inputs, training=True):
        if not preprocessing_utils.is_training(training):
            return inputs
        x = inputs.numpy()
        delta = self._stream.uniform(self.factor[0], self.factor[1], self._factor_shape(x))
        delta = (delta * (self.value_range[1] - self.value_range[0])).astype(np.float32).astype(x.dtype)
        y = np.clip(x + delta, self.value_range[0], self.value_range[1]).astype(x.dtype)
        return convert_to_tensor(y, dtypes.as_dtype(inputs.dtype))

    def get_config(self):
        """factor (as a pair), value_range, seed and data_format."""
        config = self._base_config()
        config.update({"factor": self.factor, "value_range": self.value_range})
        return config
