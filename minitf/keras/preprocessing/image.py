"""tf.keras.preprocessing.image: load_img, save_img, img_to_array, array_to_img, ImageDataGenerator
and its iterators, and the array transforms (apply_affine_transform, random_rotation, ...).

The file helpers are the same objects as in tf.keras.utils (Keras 3 exports them under both paths).
"""
from minitf.utils.image_utils import array_to_img, img_to_array, load_img, save_img  # noqa: F401
from minitf.utils.image_data_generator import ImageDataGenerator  # noqa: F401
from minitf.utils.image_iterators import DirectoryIterator, Iterator, NumpyArrayIterator  # noqa: F401
from minitf.utils.image_transforms import (apply_affine_transform, apply_brightness_shift,  # noqa: F401
                                           apply_channel_shift, random_brightness, random_channel_shift,
                                           random_rotation, random_shear, random_shift, random_zoom,
                                           smart_resize)

__all__ = ["array_to_img", "img_to_array", "load_img", "save_img", "ImageDataGenerator", "DirectoryIterator",
           "Iterator", "NumpyArrayIterator", "apply_affine_transform", "apply_brightness_shift",
           "apply_channel_shift", "random_brightness", "random_channel_shift", "random_rotation",
           "random_shear", "random_shift", "random_zoom", "smart_resize"]
