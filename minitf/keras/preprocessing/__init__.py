"""tf.keras.preprocessing: Keras' older home of the image file helpers (`preprocessing.image`).

The preprocessing layers themselves live in tf.keras.layers, as in Keras 3.
"""
from minitf.keras.preprocessing import image  # noqa: F401

__all__ = ["image"]
