"""tf.keras.utils.to_categorical and normalize, on numpy arrays."""
import numpy as np
from minitf.api_export import export

__all__ = ["to_categorical", "normalize"]


@export("utils.to_categorical", "keras.utils.to_categorical")
def to_categorical(y, num_classes=None, dtype="float64"):
    """One-hot encode integer class labels: shape `y.shape + (num_classes,)`.

    A trailing dimension of size 1 (labels shaped (N, 1)) is dropped first, as Keras does.
    `num_classes` defaults to max(y) + 1. The result is a float64 numpy array, as Keras 3's
    (Keras 2 gave float32; `dtype` still chooses another).
    """
    y = np.array(y, dtype="int64")
    shape = y.shape
    if shape and shape[-1] == 1 and len(shape) > 1:
        shape = shape[:-1]
    y = y.ravel()
    if num_classes is None:
        num_classes = int(np.max(y)) + 1 if y.size else 0
    if y.size and (y.min() < 0 or y.max() >= num_classes):
        raise ValueError(f"to_categorical: labels must be in [0, {num_classes}), got values from "
                         f"{y.min()} to {y.max()}.")
    out = np.zeros((y.shape[0], num_classes), dtype=dtype)
    out[np.arange(y.shape[0]), y] = 1
    return out.reshape(shape + (num_classes,))


@export("utils.normalize", "keras.utils.normalize")
def normalize(x, axis=-1, order=2):
    """`x` divided by its `order`-norm along `axis` (zero-norm slices are left as they are)."""
    x = np.asarray(x) if not hasattr(x, "numpy") else np.asarray(x.numpy())
    norm = np.atleast_1d(np.linalg.norm(x, order, axis))
    norm[norm == 0] = 1
    return x / np.expand_dims(norm, axis)
