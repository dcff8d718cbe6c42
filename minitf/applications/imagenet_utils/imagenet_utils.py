"""Shared pieces of tf.keras.applications: input preprocessing, input-shape checks, and
loading the Keras 2 legacy '.h5' weight files the published ImageNet weights come in.

Legacy h5 layout (Keras 2 `save_weights` to a '.h5' path, and the files under
storage.googleapis.com/tensorflow/keras-applications/): the root has an attribute 'layer_names'
(byte strings, model.layers order); each layer has a group of that name with an attribute
'weight_names' (e.g. b'block1_conv1/kernel:0', b'block1_conv1/bias:0'), every name being a path
to a dataset inside that group, listed in the layer's `weights` order. Such files are read
through `safe_h5` (no links followed, shapes checked before data is read); minitf writes them
with fletcher32 checksums.
"""
import json
import os

import h5py
import numpy as np

from minitf.checkpoint import safe_h5
from minitf.convert import convert_to_tensor
from minitf.models.functional import Input, InputLayer
from minitf.keras_core.keras_tensor import KerasTensor
from minitf.ops.constant import cast, constant
from minitf.utils.data_utils import get_file
from minitf.api_export import export

__all__ = ["preprocess_input", "decode_predictions"]

IMAGENET_MEAN_BGR = (103.939, 116.779, 123.68)
TORCH_MEAN = (0.485, 0.456, 0.406)
TORCH_STD = (0.229, 0.224, 0.225)
CLASS_INDEX_PATH = ("https://storage.googleapis.com/download.tensorflow.org/data/"
                    "imagenet_class_index.json")
CLASS_INDEX_HASH = "c2c37ea517e94d9795004a39431a14cb"
_CLASS_INDEX = None


# -- preprocessing -------------------------------------------------------------------------
@export("applications.imagenet_utils.preprocess_input",
        "keras.applications.imagenet_utils.preprocess_input")
def preprocess_input(x, data_format=None, mode="caffe"):
    """Prepare a batch of RGB images in [0, 255] the way an ImageNet model expects.

    mode 'caffe': flip RGB to BGR and subtract the ImageNet channel means (VGG, ResNet);
    'tf': scale to [-1, 1] (Inception, MobileNet); 'torch': scale to [0, 1], then normalise
    by the ImageNet mean and standard deviation. A numpy array comes back as a float numpy
    array, a tensor as a tensor.
    """
    if mode not in ("caffe", "tf", "torch"):
        raise ValueError(f"Expected mode to be one of `caffe`, `tf` or `torch`. Received: "
                         f"mode={mode!r}")
    data_format = data_format or "channels_last"
    if data_format not in ("channels_last", "channels_first"):
        raise ValueError(f"Unknown data_format {data_format!r}: expected 'channels_last' or "
                         f"'channels_first'.")
    if isinstance(x, np.ndarray) or np.isscalar(x) or isinstance(x, (list, tuple)):
        x = np.asarray(x)
        if not np.issubdtype(x.dtype, np.floating):
            x = x.astype("float32")
        return _preprocess(x, data_format, mode, lambda v: np.asarray(v, x.dtype))
    x = convert_to_tensor(x)
    if not x.dtype.is_floating:
        x = cast(x, "float32")
    return _preprocess(x, data_format, mode, lambda v: constant(v, dtype=x.dtype))


def _preprocess(x, data_format, mode, const):
    """The arithmetic shared by numpy arrays and tensors (`const` makes a constant of x's type)."""
    if mode == "tf":
        return x / const(127.5) - const(1.0)
    if mode == "torch":
        x = x / const(255.0)
        mean, std = TORCH_MEAN, TORCH_STD
    else:
        x = _flip_channels(x, data_format)
        mean, std = IMAGENET_MEAN_BGR, None
    shape = (3, 1, 1) if data_format == "channels_first" else (3,)
    x = x - const(np.reshape(mean, shape))
    if std is not None:
        x = x / const(np.reshape(std, shape))
    return x


def _flip_channels(x, data_format):
    """RGB <-> BGR along the channel axis."""
    if data_format == "channels_last":
        return x[..., ::-1]
    if len(x.shape) == 3:
        return x[::-1, ...]
    return x[:, ::-1, ...]


# -- predictions ---------------------------------------------------------------------------
@export("applications.imagenet_utils.decode_predictions",
        "keras.applications.imagenet_utils.decode_predictions")
def decode_predictions(preds, top=5):
    """The `top` most likely ImageNet classes per row: lists of (class_id, name, score).

    `preds` is an array or tensor of shape (batch, 1000); the class index file is fetched once
    with `tf.keras.utils.get_file` and cached.
    """
    preds = np.asarray(preds.numpy() if hasattr(preds, "numpy") else preds)
    if preds.ndim != 2 or preds.shape[1] != 1000:
        raise ValueError(f"`decode_predictions` expects a batch of predictions (i.e. a 2D array "
                         f"of shape (samples, 1000)). Received array with shape: {preds.shape}")
    index = _class_index()
    results = []
    for row in preds:
        best = np.argsort(row)[-top:][::-1]
        results.append([tuple(index[str(i)]) + (row[i],) for i in best])
    return results


def _class_index():
    global _CLASS_INDEX
    if _CLASS_INDEX is None:
        path = get_file("imagenet_class_index.json", CLASS_INDEX_PATH, cache_subdir="models",
                        file_hash=CLASS_INDEX_HASH)
        with open(path) as f:
            _CLASS_INDEX = json.load(f)
    return _CLASS_INDEX


# -- input shapes --------------------------------------------------------------------------
def obtain_input_shape(input_shape, default_size, min_size, require_flatten, weights=None):
    """The (H, W, C) input shape a model is built for, checked as Keras checks it.

    With ImageNet weights and a classifier on top the shape must be the default one; an
    explicit shape needs 3 dimensions, 3 channels with ImageNet weights, and sides of at least
    `min_size`. Without a shape the default is used when the top is flattened, else
    (None, None, 3).
    """
    default_shape = (default_size, default_size, 3)
    if weights != "imagenet" and input_shape is not None and len(input_shape) == 3:
        default_shape = tuple(input_shape)
    if weights == "imagenet" and require_flatten and input_shape is not None:
        if tuple(input_shape) != default_shape:
            raise ValueError(f"When setting `include_top=True` and loading `imagenet` weights, "
                             f"`input_shape` should be {default_shape}. Received: "
                             f"input_shape={tuple(input_shape)}")
        return default_shape
    if input_shape is not None:
        input_shape = tuple(input_shape)
        if len(input_shape) != 3:
            raise ValueError(f"`input_shape` must be a tuple of three integers (height, width, "
                             f"channels). Received: input_shape={input_shape}")
        if input_shape[-1] != 3 and weights == "imagenet":
            raise ValueError(f"The input must have 3 channels; Received "
                             f"`input_shape={input_shape}`")
        if any(d is not None and d < min_size for d in input_shape[:2]):
            raise ValueError(f"Input size must be at least {min_size}x{min_size}; Received: "
                             f"input_shape={input_shape}")
    else:
        input_shape = default_shape if require_flatten else (None, None, 3)
    if require_flatten and None in input_shape:
        raise ValueError(f"If `include_top` is True, you should specify a static "
                         f"`input_shape`. Received: input_shape={input_shape}")
    return input_shape


def check_weights_argument(weights, include_top, classes, classifier_activation=None):
    """Raise ValueError for an unusable `weights` / `classes` / activation combination."""
    if not (weights in ("imagenet", None) or os.path.exists(os.fspath(weights))):
        raise ValueError(f"The `weights` argument should be either `None` (random "
                         f"initialization), `imagenet` (pre-training on ImageNet), or the path "
                         f"to the weights file to be loaded. Received: weights={weights!r}")
    if weights == "imagenet" and include_top and classes != 1000:
        raise ValueError(f"If using `weights='imagenet'` with `include_top=True`, `classes` "
                         f"should be 1000. Received: classes={classes}")
    if (weights == "imagenet" and include_top
            and classifier_activation not in (None, "softmax")):
        raise ValueError(f"Only `None` and `softmax` activations are allowed for the "
                         f"`classifier_activation` argument when using pretrained weights, "
                         f"with `include_top=True`; Received: "
                         f"classifier_activation={classifier_activation!r}")


def model_inputs(input_tensor, input_shape):
    """(image input KerasTensor, the model's inputs) for an `input_tensor` argument or a shape."""
    if input_tensor is None:
        img = Input(shape=input_shape)
        return img, img
    if not isinstance(input_tensor, KerasTensor):
        img = Input(tensor=input_tensor, shape=input_shape)
        return img, img
    return input_tensor, _source_inputs(input_tensor)


def _source_inputs(tensor):
    """The Input KerasTensors `tensor` was computed from (one, or a list)."""
    found, seen, stack = [], set(), [tensor]
    while stack:
        t = stack.pop()
        if id(t) in seen:
            continue
        seen.add(id(t))
        node = t._node
        if node is None or isinstance(node.layer, InputLayer):
            found.append(t)
        else:
            stack.extend(node.parent_tensors)
    return found[0] if len(found) == 1 else found


# -- legacy h5 weights -----------------------------------------------------------------------
def _decode(names):
    return [n.decode("utf8") if isinstance(n, bytes) else str(n) for n in names]


def _read_legacy_layers(store):
    """{layer name: [entries in weight_names order]} and the weighted names in file order
    (nothing read but the names)."""
    path = store.filepath
    root = "model_weights" if "model_weights" in store.groups else ""
    layer_names = store.attr(root, "layer_names")
    if layer_names is None:
        raise ValueError(f"{path!r} is not a Keras 2 legacy h5 weights file: its root has no "
                         f"'layer_names' attribute.")
    entries, order = {}, []
    for name in _decode(layer_names if isinstance(layer_names, list) else [layer_names]):
        group = safe_h5.join(root, name)
        if group not in store.groups:
            raise safe_h5.refusal("Weights file", path, group, "is listed in 'layer_names' but is "
                                  "not a group of the file.")
        weight_names = store.attr(group, "weight_names")
        if weight_names is None or np.size(weight_names) == 0:  # Keras 3 writes an empty float
            weight_names = []                                   # array for a weightless layer
        weight_names = weight_names if isinstance(weight_names, list) else [weight_names]
        if weight_names:
            found = [store.entries.get(safe_h5.join(group, w)) for w in weight_names]
            for w, entry in zip(weight_names, found):
                if entry is None:
                    raise safe_h5.refusal("Weights file", path, safe_h5.join(group, w),
                                          "is listed in 'weight_names' but is not a dataset of "
                                          "the file.")
            entries[name] = found
            order.append(name)
    return entries, order


def load_legacy_h5_weights(model, path):
    """Set `model`'s weights from a Keras 2 legacy h5 weights file.

    Layers are matched by name when every weighted layer of the model has a group of its name
    in the file; otherwise, as Keras' own `load_weights(by_name=False)` does, weighted layers
    are matched in order (the published InceptionV3 file uses auto-generated layer names).
    Raises ValueError naming the layer when a layer is missing or a shape does not match, and
    DataLossError for a file minitf refuses to read (see `safe_h5`); every value is checked
    and read before any layer is changed.
    """
    with safe_h5.SafeH5(path, "Weights file") as store:
        values, order = _read_legacy_layers(store)
        layers = [layer for layer in model.layers if layer.weights]
        names = [layer.name for layer in layers]
        if all(n in values for n in names):
            pairs = [(layer, layer.name) for layer in layers]
        elif len(order) == len(layers):
            pairs = list(zip(layers, order))
        else:
            missing = [n for n in names if n not in values]
            raise ValueError(f"Weights file {path!r} does not match model {model.name!r}: the "
                             f"model has {len(layers)} layers with weights and the file "
                             f"{len(order)}; layers missing from the file: {missing[:10]}"
                             f"{' ...' if len(missing) > 10 else ''}")
        planned = []
        for layer, file_name in pairs:
            entries = values[file_name]
            weights = layer.weights
            if len(entries) != len(weights):
                raise ValueError(f"Layer {layer.name!r} has {len(weights)} weights but the file's "
                                 f"layer {file_name!r} has {len(entries)}.")
            for var, entry in zip(weights, entries):
                if tuple(var.shape) != tuple(entry.shape):
                    raise safe_h5.IncompatibleValueError(
                        None, None, f"Shape mismatch in layer {layer.name!r} (file layer "
                        f"{file_name!r}): weight {var.name} has shape {tuple(var.shape)}, the "
                        f"file's value {entry.path!r} in {path!r} has shape {tuple(entry.shape)}.")
                store.check_value(entry, tuple(var.shape), var._value.dtype, cast=True)
            planned.append((layer, weights, entries))
        assignments = [(layer, [store.read(e, tuple(v.shape), v._value.dtype, cast=True)
                                for v, e in zip(weights, entries)])
                       for layer, weights, entries in planned]
    for layer, arrays in assignments:  # all checked and read first: a bad file changes nothing
        layer.set_weights(arrays)


def save_legacy_h5_weights(model, path):
    """Write `model`'s weights in the Keras 2 legacy h5 layout (see the module docstring)."""
    with h5py.File(path, "w") as f:
        f.attrs["layer_names"] = np.array([layer.name.encode("utf8") for layer in model.layers],
                                          dtype="S")
        f.attrs["backend"] = b"tensorflow"
        f.attrs["keras_version"] = b"2.15.0"
        for layer in model.layers:
            g = f.create_group(layer.name)
            names = []
            for var, value in zip(layer.weights, layer.get_weights()):
                short = var.name.split("/")[-1]
                if ":" not in short:
                    short += ":0"
                name = f"{layer.name}/{short}"
                names.append(name.encode("utf8"))
                safe_h5.create_dataset(g, name, value)
            g.attrs["weight_names"] = np.array(names, dtype="S")


def resolve_weights(weights, include_top, url_top, url_notop, hash_top, hash_notop):
    """Path of the weights file: downloaded (cached) for 'imagenet', else `weights` itself."""
    if weights != "imagenet":
        return weights
    url, file_hash = (url_top, hash_top) if include_top else (url_notop, hash_notop)
    return get_file(os.path.basename(url), url, cache_subdir="models", file_hash=file_hash)
