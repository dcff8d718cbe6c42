"""tf.keras.preprocessing.image.ImageDataGenerator: real-time image augmentation and
normalization, as Keras 3 still ships it (keras/src/legacy/preprocessing/image.py).

Random parameters are drawn from numpy's global generator in Keras' order, so a seeded run
gives Keras' transforms; the affine resampling is minitf's numpy port of scipy's
(`minitf.utils.image_transforms.affine_transform`, spline orders 0 and 1).
"""
import math
import warnings

import numpy as np

from minitf.keras_core import config as keras_config
from minitf.utils import image_transforms
from minitf.utils.image_iterators import DataFrameIterator, DirectoryIterator, NumpyArrayIterator
from minitf.api_export import export

__all__ = ["ImageDataGenerator"]


@export("keras.preprocessing.image.ImageDataGenerator")
class ImageDataGenerator:
    """Generate batches of images with random augmentation and normalization.

    Args:
        featurewise_center, featurewise_std_normalization: subtract the dataset mean / divide by
            its std per channel (call `fit` first); std normalization implies centering.
        samplewise_center, samplewise_std_normalization: the same per image.
        zca_whitening, zca_epsilon: ZCA whitening fitted by `fit` (implies featurewise_center).
        rotation_range: degrees; a rotation is drawn from [-range, range].
        width_shift_range, height_shift_range: a float (a fraction of the size when < 1, pixels
            otherwise), an int or a list of allowed pixel shifts.
        brightness_range: two floats, a brightness factor range (Pillow's ImageEnhance).
        shear_range: degrees. zoom_range: a float z (range [1 - z, 1 + z]) or two floats.
        channel_shift_range: added to every channel, clipped to the image's range.
        fill_mode: 'constant', 'nearest' (default), 'reflect' or 'wrap'; cval: the constant.
        horizontal_flip, vertical_flip: flip with probability 0.5.
        rescale: multiply images by this factor (before any other standardization).
        preprocessing_function: applied to each image after augmentation, before rescaling.
        data_format: 'channels_last' or 'channels_first' (default image_data_format()).
        validation_split: the fraction of images kept for subset='validation'.
        interpolation_order: spline order of the resampling, 0 or 1 (default 1).
        dtype: the dtype of the generated arrays (default floatx()).

    Raises:
        ValueError: an unknown data_format, a validation_split outside (0, 1), a bad zoom_range
            or brightness_range.
    """

    def __init__(self, featurewise_center=False, samplewise_center=False, featurewise_std_normalization=False,
                 samplewise_std_normalization=False, zca_whitening=False, zca_epsilon=1e-6, rotation_range=0,
                 width_shift_range=0.0, height_shift_range=0.0, brightness_range=None, shear_range=0.0,
                 zoom_range=0.0, channel_shift_range=0.0, fill_mode="nearest", cval=0.0, horizontal_flip=False,
                 vertical_flip=False, rescale=None, preprocessing_function=None, data_format=None,
                 validation_split=0.0, interpolation_order=1, dtype=None):
        data_format = data_format or keras_config.image_data_format()
        self.featurewise_center = featurewise_center
        self.samplewise_center = samplewise_center
        self.featurewise_std_normalization = featurewise_std_normalization
        self.samplewise_std_normalization = samplewise_std_normalization
        self.zca_whitening = zca_whitening
        self.zca_epsilon = zca_epsilon
        self.rotation_range = rotation_range
        self.width_shift_range = width_shift_range
        self.height_shift_range = height_shift_range
        self.shear_range = shear_range
        self.zoom_range = zoom_range
        self.channel_shift_range = channel_shift_range
        self.fill_mode = fill_mode
        self.cval = cval
        self.horizontal_flip = horizontal_flip
        self.vertical_flip = vertical_flip
        self.rescale = rescale
        self.preprocessing_function = preprocessing_function
        self.dtype = dtype or keras_config.floatx()
        self.interpolation_order = interpolation_order
        if data_format not in {"channels_last", "channels_first"}:
            raise ValueError(f'`data_format` should be `"channels_last"` (channel after row and column) or '
                             f'`"channels_first"` (channel before row and column). Received: {data_format}')
        self.data_format = data_format
        self.channel_axis, self.row_axis, self.col_axis = (1, 2, 3) if data_format == "channels_first" \
            else (3, 1, 2)
        if validation_split and not 0 < validation_split < 1:
            raise ValueError(f"`validation_split` must be strictly between 0 and 1.  Received: {validation_split}")
        self._validation_split = validation_split
        self.mean = None
        self.std = None
        self.zca_whitening_matrix = None
        if isinstance(zoom_range, (float, int)):
            self.zoom_range = [1 - zoom_range, 1 + zoom_range]
        elif len(zoom_range) == 2 and all(isinstance(val, (float, int)) for val in zoom_range):
            self.zoom_range = [zoom_range[0], zoom_range[1]]
        else:
            raise ValueError(f"`zoom_range` should be a float or a tuple or list of two floats. Received: "
                             f"{zoom_range}")
        self._implied_settings(zca_whitening, featurewise_std_normalization, samplewise_std_normalization)
        if brightness_range is not None and (not isinstance(brightness_range, (tuple, list))
                                             or len(brightness_range) != 2):
            raise ValueError(f"`brightness_range should be tuple or list of two floats. Received: "
                             f"{brightness_range}")
        self.brightness_range = brightness_range

    def _implied_settings(self, zca_whitening, featurewise_std_normalization, samplewise_std_normalization):
        """Keras' overrides between the normalization options, each with its warning."""
        if zca_whitening:
            if not self.featurewise_center:
                self.featurewise_center = True
                warnings.warn("This ImageDataGenerator specifies `zca_whitening`, which overrides setting "
                              "of `featurewise_center`.", stacklevel=3)
            if featurewise_std_normalization:
                self.featurewise_std_normalization = False
                warnings.warn("This ImageDataGenerator specifies `zca_whitening` which overrides setting "
                              "of`featurewise_std_normalization`.", stacklevel=3)
        if self.featurewise_std_normalization and not self.featurewise_center:
            self.featurewise_center = True
            warnings.warn("This ImageDataGenerator specifies `featurewise_std_normalization`, which "
                          "overrides setting of `featurewise_center`.", stacklevel=3)
        if samplewise_std_normalization and not self.samplewise_center:
            self.samplewise_center = True
            warnings.warn("This ImageDataGenerator specifies `samplewise_std_normalization`, which "
                          "overrides setting of `samplewise_center`.", stacklevel=3)

    # -- the iterators ---------------------------------------------------------------------------

    def flow(self, x, y=None, batch_size=32, shuffle=True, sample_weight=None, seed=None, save_to_dir=None,
             save_prefix="", save_format="png", ignore_class_split=False, subset=None):
        """A NumpyArrayIterator over the rank-4 array `x` (and labels `y`)."""
        return NumpyArrayIterator(x, y, self, batch_size=batch_size, shuffle=shuffle, sample_weight=sample_weight,
                                  seed=seed, data_format=self.data_format, save_to_dir=save_to_dir,
                                  save_prefix=save_prefix, save_format=save_format,
                                  ignore_class_split=ignore_class_split, subset=subset, dtype=self.dtype)

    def flow_from_directory(self, directory, target_size=(256, 256), color_mode="rgb", classes=None,
                            class_mode="categorical", batch_size=32, shuffle=True, seed=None, save_to_dir=None,
                            save_prefix="", save_format="png", follow_links=False, subset=None,
                            interpolation="nearest", keep_aspect_ratio=False):
        """A DirectoryIterator over the images of `directory`'s class subfolders."""
        return DirectoryIterator(directory, self, target_size=target_size, color_mode=color_mode,
                                 keep_aspect_ratio=keep_aspect_ratio, classes=classes, class_mode=class_mode,
                                 data_format=self.data_format, batch_size=batch_size, shuffle=shuffle, seed=seed,
                                 save_to_dir=save_to_dir, save_prefix=save_prefix, save_format=save_format,
                                 follow_links=follow_links, subset=subset, interpolation=interpolation,
                                 dtype=self.dtype)

    def flow_from_dataframe(self, dataframe, directory=None, x_col="filename", y_col="class", weight_col=None,
                            target_size=(256, 256), color_mode="rgb", classes=None, class_mode="categorical",
                            batch_size=32, shuffle=True, seed=None, save_to_dir=None, save_prefix="",
                            save_format="png", subset=None, interpolation="nearest", validate_filenames=True,
                            **kwargs):
        """A DataFrameIterator over the files a table (a pandas DataFrame, or a dict of columns)
        lists; Keras' deprecated keywords (has_ext, sort, drop_duplicates) warn and are ignored."""
        for key, message in (("has_ext", "has_ext is deprecated, filenames in the dataframe have to match "
                                         "the exact filenames in disk."),
                             ("sort", "sort is deprecated, batches will be created in thesame order than the "
                                      "filenames provided if `shuffle`is set to `False`."),
                             ("drop_duplicates", "drop_duplicates is deprecated, you can drop duplicates by "
                                                 "using the pandas.DataFrame.drop_duplicates method.")):
            if key in kwargs:
                warnings.warn(message, DeprecationWarning, stacklevel=2)
        if class_mode == "other":
            warnings.warn('`class_mode="other"` is deprecated, please use `class_mode="raw"`.',
                          DeprecationWarning, stacklevel=2)
            class_mode = "raw"
        return DataFrameIterator(dataframe, directory, self, x_col=x_col, y_col=y_col, weight_col=weight_col,
                                 target_size=target_size, color_mode=color_mode, classes=classes,
                                 class_mode=class_mode, data_format=self.data_format, batch_size=batch_size,
                                 shuffle=shuffle, seed=seed, save_to_dir=save_to_dir, save_prefix=save_prefix,
                                 save_format=save_format, subset=subset, interpolation=interpolation,
                                 validate_filenames=validate_filenames, dtype=self.dtype)

    # -- normalization ----------------------------------------------------------------------------

    def standardize(self, x):
        """Apply the normalization settings to `x` (in place where possible, as Keras does) and
        return it: preprocessing_function, rescale, sample-wise then feature-wise centring and
        scaling, ZCA whitening."""
        if self.preprocessing_function:
            x = self.preprocessing_function(x)
        if self.rescale:
            x *= self.rescale
        if self.samplewise_center:
            x -= np.mean(x, keepdims=True)
        if self.samplewise_std_normalization:
            x /= np.std(x, keepdims=True) + 1e-6
        if self.featurewise_center:
            if self.mean is not None:
                x -= self.mean
            else:
                _not_fitted("featurewise_center")
        if self.featurewise_std_normalization:
            if self.std is not None:
                x /= self.std + 1e-6
            else:
                _not_fitted("featurewise_std_normalization")
        if self.zca_whitening:
            if self.zca_whitening_matrix is not None:
                flat_x = x.reshape(-1, math.prod(x.shape[-3:]))
                x = np.reshape(flat_x @ self.zca_whitening_matrix, x.shape)
            else:
                _not_fitted("zca_whitening")
        return x

    # -- augmentation -----------------------------------------------------------------------------

    def _shift(self, shift_range, size):
        """A shift in pixels from a float range (a fraction of `size` when below 1) or a list of
        allowed shifts, drawn as Keras draws it."""
        try:  # 1-D array-like or int
            shift = np.random.choice(shift_range)
            shift *= np.random.choice([-1, 1])
        except ValueError:  # a float
            shift = np.random.uniform(-shift_range, shift_range)
        if np.max(shift_range) < 1:
            shift *= size
        return shift

    def get_random_transform(self, img_shape, seed=None):
        """A dict of random transform parameters for an image of `img_shape`: theta, tx, ty,
        shear, zx, zy, flip_horizontal, flip_vertical, channel_shift_intensity, brightness."""
        img_row_axis, img_col_axis = self.row_axis - 1, self.col_axis - 1
        if seed is not None:
            np.random.seed(seed)
        theta = np.random.uniform(-self.rotation_range, self.rotation_range) if self.rotation_range else 0
        tx = self._shift(self.height_shift_range, img_shape[img_row_axis]) if self.height_shift_range else 0
        ty = self._shift(self.width_shift_range, img_shape[img_col_axis]) if self.width_shift_range else 0
        shear = np.random.uniform(-self.shear_range, self.shear_range) if self.shear_range else 0
        if self.zoom_range[0] == 1 and self.zoom_range[1] == 1:
            zx, zy = 1, 1
        else:
            zx, zy = np.random.uniform(self.zoom_range[0], self.zoom_range[1], 2)
        flip_horizontal = (np.random.random() < 0.5) * self.horizontal_flip
        flip_vertical = (np.random.random() < 0.5) * self.vertical_flip
        channel_shift_intensity = None
        if self.channel_shift_range != 0:
            channel_shift_intensity = np.random.uniform(-self.channel_shift_range, self.channel_shift_range)
        brightness = None
        if self.brightness_range is not None:
            brightness = np.random.uniform(self.brightness_range[0], self.brightness_range[1])
        return {"theta": theta, "tx": tx, "ty": ty, "shear": shear, "zx": zx, "zy": zy,
                "flip_horizontal": flip_horizontal, "flip_vertical": flip_vertical,
                "channel_shift_intensity": channel_shift_intensity, "brightness": brightness}

    def apply_transform(self, x, transform_parameters):
        """One image (rank 3) transformed by the parameters of `get_random_transform`."""
        img_row_axis, img_col_axis, img_channel_axis = self.row_axis - 1, self.col_axis - 1, self.channel_axis - 1
        p = transform_parameters
        x = image_transforms.apply_affine_transform(x, p.get("theta", 0), p.get("tx", 0), p.get("ty", 0), p.get("shear", 0),
                                     p.get("zx", 1), p.get("zy", 1), row_axis=img_row_axis,
                                     col_axis=img_col_axis, channel_axis=img_channel_axis,
                                     fill_mode=self.fill_mode, cval=self.cval, order=self.interpolation_order)
        if p.get("channel_shift_intensity") is not None:
            x = image_transforms.apply_channel_shift(x, p["channel_shift_intensity"], img_channel_axis)
        if p.get("flip_horizontal", False):
            x = image_transforms.flip_axis(x, img_col_axis)
        if p.get("flip_vertical", False):
            x = image_transforms.flip_axis(x, img_row_axis)
        if p.get("brightness") is not None:
            x = image_transforms.apply_brightness_shift(x, p["brightness"], False)
        return x

    def random_transform(self, x, seed=None):
        """One image (rank 3) with a random transformation applied."""
        return self.apply_transform(x, self.get_random_transform(x.shape, seed))

    def fit(self, x, augment=False, rounds=1, seed=None):
        """Compute the statistics of the feature-wise normalizations and ZCA whitening from the
        rank-4 sample `x` (rescaled first; optionally over `rounds` augmented copies).

        Raises:
            ValueError: `x` is not rank 4.
        """
        x = np.asarray(x, dtype=self.dtype)
        if x.ndim != 4:
            raise ValueError("Input to `.fit()` should have rank 4. Got array with shape: " + str(x.shape))
        if x.shape[self.channel_axis] not in {1, 3, 4}:
            warnings.warn(f"Expected input to be images (as Numpy array) following the data format convention "
                          f"\"{self.data_format}\" (channels on axis {self.channel_axis}), i.e. expected either "
                          f"1, 3 or 4 channels on axis {self.channel_axis}. However, it was passed an array "
                          f"with shape {x.shape} ({x.shape[self.channel_axis]} channels).", stacklevel=2)
        if seed is not None:
            np.random.seed(seed)
        x = np.copy(x)
        if self.rescale:
            x *= self.rescale
        if augment:
            ax = np.zeros((rounds * x.shape[0],) + x.shape[1:], dtype=self.dtype)
            for r in range(rounds):
                for i in range(x.shape[0]):
                    ax[i + r * x.shape[0]] = self.random_transform(x[i])
            x = ax
        broadcast_shape = [1, 1, 1]
        broadcast_shape[self.channel_axis - 1] = x.shape[self.channel_axis]
        if self.featurewise_center:
            self.mean = np.reshape(np.mean(x, axis=(0, self.row_axis, self.col_axis)), broadcast_shape)
            x -= self.mean
        if self.featurewise_std_normalization:
            self.std = np.reshape(np.std(x, axis=(0, self.row_axis, self.col_axis)), broadcast_shape)
            x /= self.std + 1e-6
        if self.zca_whitening:
            n = len(x)
            flat_x = np.reshape(x, (n, -1))
            u, s, _ = np.linalg.svd(flat_x.T, full_matrices=False)
            s_inv = np.sqrt(n) / (s + self.zca_epsilon)
            self.zca_whitening_matrix = (u * s_inv).dot(u.T)


def _not_fitted(option):
    warnings.warn(f"This ImageDataGenerator specifies `{option}`, but it hasn't been fit on any training "
                  f"data. Fit it first by calling `.fit(numpy_data)`.", stacklevel=3)
