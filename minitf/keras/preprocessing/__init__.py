"""tf.keras.preprocessing: Keras' older home of the image and sequence helpers (`preprocessing.image`,
`preprocessing.sequence`) and of the *_dataset_from_directory utilities.

The preprocessing layers themselves live in tf.keras.layers, as in Keras 3.
"""
from minitf.keras.preprocessing import image, sequence  # noqa: F401
from minitf.utils.image_dataset import image_dataset_from_directory  # noqa: F401
from minitf.utils.text_dataset import text_dataset_from_directory  # noqa: F401
from minitf.utils.timeseries_dataset import timeseries_dataset_from_array  # noqa: F401

__all__ = ["image", "sequence", "image_dataset_from_directory", "text_dataset_from_directory",
           "timeseries_dataset_from_array"]
