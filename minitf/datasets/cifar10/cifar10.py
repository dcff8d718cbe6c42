"""tf.keras.datasets.cifar10: 32x32 colour images in 10 classes, from the binary distribution.

The binary archive (not the pickled Python one) is parsed directly: each record is one label
byte followed by 3072 pixel bytes (1024 red, 1024 green, 1024 blue, row-major).
"""
import os
import shutil
import tempfile

import numpy as np

from minitf.utils.data_utils import extract_archive, get_file
from minitf.api_export import export

__all__ = ["load_data"]

ORIGIN = "https://www.cs.toronto.edu/~kriz/cifar-10-binary.tar.gz"
FILE_HASH = "c32a1d4ab5d03f1284b67883e8d87530"  # md5 published on the CIFAR page
FOLDER = "cifar-10-batches-bin"
TRAIN_FILES = [f"data_batch_{i}.bin" for i in range(1, 6)]
TEST_FILE = "test_batch.bin"
_RECORD = 1 + 32 * 32 * 3


def _read_batch(path):
    raw = np.fromfile(path, dtype=np.uint8)
    if raw.size % _RECORD:
        raise ValueError(f"{path} is not a CIFAR-10 binary batch: {raw.size} bytes is not a "
                         f"multiple of the {_RECORD}-byte record.")
    records = raw.reshape(-1, _RECORD)
    labels = records[:, 0].copy()
    images = records[:, 1:].reshape(-1, 3, 32, 32).transpose(0, 2, 3, 1)
    return np.ascontiguousarray(images), labels


def _extracted_folder(archive):
    """The extracted batch folder next to `archive`, extracting it safely the first time."""
    parent = os.path.dirname(archive)
    folder = os.path.join(parent, FOLDER)
    if all(os.path.exists(os.path.join(folder, f)) for f in TRAIN_FILES + [TEST_FILE]):
        return folder
    staging = tempfile.mkdtemp(dir=parent, prefix=".cifar-extract-")
    try:
        extract_archive(archive, staging, archive_format="tar")
        extracted = os.path.join(staging, FOLDER)
        if not os.path.isdir(extracted):
            raise ValueError(f"{archive} does not contain the folder {FOLDER!r}.")
        if os.path.exists(folder):
            shutil.rmtree(folder)
        os.replace(extracted, folder)  # complete folders only, never a half extraction
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return folder


@export("datasets.cifar10.load_data", "keras.datasets.cifar10.load_data")
def load_data(cache_dir=None):
    """((x_train, y_train), (x_test, y_test)): x uint8 (N, 32, 32, 3), y uint8 (N, 1).

    50000 training and 10000 test images, channels last as Keras returns them.
    """
    archive = get_file("cifar-10-binary.tar.gz", origin=ORIGIN, file_hash=FILE_HASH,
                       cache_dir=cache_dir)
    folder = _extracted_folder(archive)
    parts = [_read_batch(os.path.join(folder, f)) for f in TRAIN_FILES]
    x_train = np.concatenate([p[0] for p in parts])
    y_train = np.concatenate([p[1] for p in parts]).reshape(-1, 1)
    x_test, y_test = _read_batch(os.path.join(folder, TEST_FILE))
    return (x_train, y_train), (x_test, y_test.reshape(-1, 1))
