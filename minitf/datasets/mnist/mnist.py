"""tf.keras.datasets.mnist: the MNIST handwritten digits (60k train, 10k test, 28x28 uint8)."""
import os

import numpy as np

from minitf.utils.data_utils import get_file
from minitf.api_export import export

__all__ = ["load_data"]

# Module-level so a mirror (or a test server) can be used instead of Keras' origin.
ORIGIN_FOLDER = "https://storage.googleapis.com/tensorflow/tf-keras-datasets/"
FILE_HASH = "731c5ac602752760c8e48fbffcf8c3b850d9dc2a2aedcf2cc48468fc17b673d1"  # sha256 of mnist.npz


@export("datasets.mnist.load_data", "keras.datasets.mnist.load_data")
def load_data(path="mnist.npz", cache_dir=None):
    """((x_train, y_train), (x_test, y_test)): uint8 arrays (60000, 28, 28), (60000,), ...

    Downloads mnist.npz once into the cache (Keras' ~/.keras/datasets, or $KERAS_HOME/datasets, or
    `cache_dir`) and verifies its sha256; a file already there with the right hash is used
    without any network access. `path` is a file name inside that folder: a path raises
    ValueError, as in Keras 3 (use `cache_dir` to choose the folder).
    """
    path = get_file(os.fspath(path), origin=ORIGIN_FOLDER + "mnist.npz", file_hash=FILE_HASH,
                    cache_dir=cache_dir)
    with np.load(path, allow_pickle=False) as f:
        x_train, y_train = f["x_train"], f["y_train"]
        x_test, y_test = f["x_test"], f["y_test"]
    return (x_train, y_train), (x_test, y_test)
