"""tf.keras.datasets.fashion_mnist: Zalando's clothing images, in MNIST's shapes and dtypes."""
import gzip
import os

import numpy as np

from minitf.utils.data_utils import get_file
from minitf.api_export import export

__all__ = ["load_data"]

ORIGIN_FOLDER = "https://storage.googleapis.com/tensorflow/tf-keras-datasets/"
# md5 digests published by the Fashion-MNIST authors
FILES = {
    "train-labels-idx1-ubyte.gz": "25c81989df183df01b3e8a0aad5dffbe",
    "train-images-idx3-ubyte.gz": "8d4fb7e6c68d591d4c3dfef9ec88bf0d",
    "t10k-labels-idx1-ubyte.gz": "bb300cfdad3c16e7a12a480ee83cd310",
    "t10k-images-idx3-ubyte.gz": "bef4ecab320f06d8554ea6380940ec79",
}


def _read_idx(path, expected_magic):
    """Parse a gzipped IDX file (big-endian header: magic, dims) into a uint8 array."""
    with gzip.open(path, "rb") as f:
        data = f.read()
    magic = int.from_bytes(data[:4], "big")
    if magic != expected_magic:
        raise ValueError(f"{path} is not an IDX file of the expected kind (magic {magic:#x}, "
                         f"expected {expected_magic:#x}).")
    ndim = magic & 0xFF
    dims = [int.from_bytes(data[4 + 4 * i: 8 + 4 * i], "big") for i in range(ndim)]
    offset = 4 + 4 * ndim
    count = int(np.prod(dims))
    if len(data) - offset != count:
        raise ValueError(f"{path} is truncated: header promises {dims} but holds "
                         f"{len(data) - offset} bytes of data.")
    return np.frombuffer(data, np.uint8, count=count, offset=offset).reshape(dims)


@export("datasets.fashion_mnist.load_data", "keras.datasets.fashion_mnist.load_data")
def load_data(cache_dir=None):
    """((x_train, y_train), (x_test, y_test)): uint8 (60000, 28, 28), (60000,), (10000, ...).

    The four gzipped IDX files are fetched once into the cache under 'fashion-mnist' and
    checked against their published md5 digests.
    """
    paths = {name: get_file(name, origin=ORIGIN_FOLDER + name, file_hash=digest,
                            cache_subdir=os.path.join("datasets", "fashion-mnist"),
                            cache_dir=cache_dir)
             for name, digest in FILES.items()}
    y_train = _read_idx(paths["train-labels-idx1-ubyte.gz"], 0x00000801)
    x_train = _read_idx(paths["train-images-idx3-ubyte.gz"], 0x00000803)
    y_test = _read_idx(paths["t10k-labels-idx1-ubyte.gz"], 0x00000801)
    x_test = _read_idx(paths["t10k-images-idx3-ubyte.gz"], 0x00000803)
    return (x_train, y_train), (x_test, y_test)
