"""tf.keras.preprocessing.image: load_img, save_img, img_to_array, array_to_img.

The same objects as in tf.keras.utils (Keras 3 exports them under both paths).
"""
from minitf.utils.image_utils import array_to_img, img_to_array, load_img, save_img  # noqa: F401

__all__ = ["array_to_img", "img_to_array", "load_img", "save_img"]
