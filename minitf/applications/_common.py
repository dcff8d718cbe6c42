"""Pieces shared by the application builders: Keras' stride-2 padding rule, the `pooling`
option of a model without its classifier, and loading a weights file given by path in whichever
Keras format it is."""
import os

from minitf import layers
from minitf.applications.imagenet_utils import imagenet_utils

__all__ = ["correct_pad", "pool_features", "load_weights_file"]


def correct_pad(inputs, kernel_size):
    """((top, bottom), (left, right)) zero padding that makes a stride-2 'valid' convolution
    of `kernel_size` centre its windows as TF's 'same' would (Keras' imagenet_utils.correct_pad):
    one pixel less on the top/left side of an even-sized input."""
    size = tuple(inputs.shape[1:3])
    if isinstance(kernel_size, int):
        kernel_size = (kernel_size, kernel_size)
    adjust = (1, 1) if size[0] is None else (1 - size[0] % 2, 1 - size[1] % 2)
    half = (kernel_size[0] // 2, kernel_size[1] // 2)
    return ((half[0] - adjust[0], half[0]), (half[1] - adjust[1], half[1]))


def pool_features(x, pooling, avg_name=None, max_name=None):
    """Keras' `pooling` option for a model without its classifier: 'avg' or 'max' global pooling
    of the last feature map (layer names as each Keras application gives them), else the map."""
    if pooling == "avg":
        return layers.GlobalAveragePooling2D(name=avg_name)(x)
    if pooling == "max":
        return layers.GlobalMaxPooling2D(name=max_name)(x)
    return x


def load_weights_file(model, path):
    """Fill `model` from `path`: a Keras 3 '.weights.h5' / '.keras' file through
    `model.load_weights`, anything else as a Keras 2 legacy h5 file (the layout of the published
    ImageNet weights), as Keras' `model.load_weights` dispatches on the name."""
    name = os.fspath(path)
    if name.endswith(".weights.h5") or name.endswith(".keras"):
        model.load_weights(name)
    else:
        imagenet_utils.load_legacy_h5_weights(model, name)
