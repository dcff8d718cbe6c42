"""tf.keras.applications.mobilenet_v2: MobileNetV2 (Sandler et al., 2018) built layer for layer
as Keras 3 builds it (Conv1 stem, inverted residual blocks expanded_conv_ and block_1_ ...
block_16_, Conv_1 head), so Keras' published ImageNet weight files load into it."""
import warnings

from minitf import layers
from minitf.applications.imagenet_utils import imagenet_utils
from minitf.applications._common import correct_pad, load_weights_file, pool_features
from minitf.models.model import Model
from minitf.utils.data_utils import get_file
from minitf.api_export import export

__all__ = ["MobileNetV2", "preprocess_input", "decode_predictions"]

BASE_WEIGHT_PATH = "https://storage.googleapis.com/tensorflow/keras-applications/mobilenet_v2/"
ALPHAS = (0.35, 0.50, 0.75, 1.0, 1.3, 1.4)  # widths with published ImageNet weights
SIZES = (96, 128, 160, 192, 224)            # input sides with published ImageNet weights
BN = {"epsilon": 1e-3, "momentum": 0.999}

# (filters, stride, expansion) of the 17 inverted residual blocks, block_id 0 ... 16
BLOCKS = ((16, 1, 1),
          (24, 2, 6), (24, 1, 6),
          (32, 2, 6), (32, 1, 6), (32, 1, 6),
          (64, 2, 6), (64, 1, 6), (64, 1, 6), (64, 1, 6),
          (96, 1, 6), (96, 1, 6), (96, 1, 6),
          (160, 2, 6), (160, 1, 6), (160, 1, 6),
          (320, 1, 6))


def _make_divisible(v, divisor, min_value=None):
    """`v` rounded to the nearest multiple of `divisor` (at least `min_value`), never more than
    10% below `v`."""
    min_value = divisor if min_value is None else min_value
    new_v = max(min_value, int(v + divisor / 2) // divisor * divisor)
    return new_v + divisor if new_v < 0.9 * v else new_v


def _inverted_res_block(inputs, expansion, stride, alpha, filters, block_id):
    """1x1 expansion (skipped in block 0), 3x3 depthwise, linear 1x1 projection; a residual
    Add when the shape is kept."""
    in_channels = inputs.shape[-1]
    pointwise_filters = _make_divisible(int(filters * alpha), 8)
    x = inputs
    prefix = f"block_{block_id}_"
    if block_id:
        x = layers.Conv2D(expansion * in_channels, kernel_size=1, padding="same", use_bias=False,
                          activation=None, name=f"{prefix}expand")(x)
        x = layers.BatchNormalization(axis=-1, name=f"{prefix}expand_BN", **BN)(x)
        x = layers.ReLU(6.0, name=f"{prefix}expand_relu")(x)
    else:
        prefix = "expanded_conv_"
    if stride == 2:
        x = layers.ZeroPadding2D(padding=correct_pad(x, 3), name=f"{prefix}pad")(x)
    x = layers.DepthwiseConv2D(kernel_size=3, strides=stride, activation=None, use_bias=False,
                               padding="same" if stride == 1 else "valid",
                               name=f"{prefix}depthwise")(x)
    x = layers.BatchNormalization(axis=-1, name=f"{prefix}depthwise_BN", **BN)(x)
    x = layers.ReLU(6.0, name=f"{prefix}depthwise_relu")(x)
    x = layers.Conv2D(pointwise_filters, kernel_size=1, padding="same", use_bias=False,
                      activation=None, name=f"{prefix}project")(x)
    x = layers.BatchNormalization(axis=-1, name=f"{prefix}project_BN", **BN)(x)
    if in_channels == pointwise_filters and stride == 1:
        return layers.Add(name=f"{prefix}add")([inputs, x])
    return x


def _default_size(input_shape, input_tensor):
    """The side whose ImageNet weights fit: the input's when square and published, else 224."""
    if input_shape is not None:
        rows, cols = input_shape[0], input_shape[1]
    elif input_tensor is not None and len(getattr(input_tensor, "shape", ())) == 4:
        rows, cols = input_tensor.shape[1], input_tensor.shape[2]
    else:
        return 224
    return rows if rows == cols and rows in SIZES else 224


@export("applications.MobileNetV2", "applications.mobilenet_v2.MobileNetV2",
        "keras.applications.MobileNetV2", "keras.applications.mobilenet_v2.MobileNetV2")
def MobileNetV2(input_shape=None, alpha=1.0, include_top=True, weights="imagenet",  # noqa: N802
                input_tensor=None, pooling=None, classes=1000, classifier_activation="softmax",
                name=None):
    """The MobileNetV2 model as a functional Model named `name` (default
    'mobilenetv2_{alpha:.2f}_{rows}', e.g. 'mobilenetv2_1.00_224').

    `alpha` scales every layer's width. Default input 224x224x3 (a square 96, 128, 160, 192
    or 224 input keeps its size), smallest 32x32. `weights`: None, 'imagenet' (the file for
    `alpha` and the input size, downloaded once through `tf.keras.utils.get_file` and cached)
    or the path of a Keras h5 weights file. `include_top` adds global average pooling and the
    'predictions' Dense layer; otherwise `pooling` None, 'avg' or 'max' chooses the output.
    Inputs are expected in [-1, 1]: see `preprocess_input`.
    """
    imagenet_utils.check_weights_argument(weights, include_top, classes, classifier_activation)
    input_shape = imagenet_utils.obtain_input_shape(
        input_shape, default_size=_default_size(input_shape, input_tensor), min_size=32,
        require_flatten=include_top, weights=weights)
    rows, cols = input_shape[0], input_shape[1]
    if weights == "imagenet":
        if alpha not in ALPHAS:
            raise ValueError(f"If imagenet weights are being loaded, alpha must be one of `0.35`, "
                             f"`0.50`, `0.75`, `1.0`, `1.3` or `1.4` only; Received "
                             f"`alpha={alpha}`")
        if rows != cols or rows not in SIZES:
            rows = 224
            warnings.warn("`input_shape` is undefined or non-square, or `rows` is not in "
                          "[96, 128, 160, 192, 224]. Weights for input shape (224, 224) will "
                          "be loaded as the default.", stacklevel=2)
    img_input, inputs = imagenet_utils.model_inputs(input_tensor, input_shape)

    x = layers.Conv2D(_make_divisible(32 * alpha, 8), kernel_size=3, strides=(2, 2),
                      padding="same", use_bias=False, name="Conv1")(img_input)
    x = layers.BatchNormalization(axis=-1, name="bn_Conv1", **BN)(x)
    x = layers.ReLU(6.0, name="Conv1_relu")(x)
    for block_id, (filters, stride, expansion) in enumerate(BLOCKS):
        x = _inverted_res_block(x, filters=filters, alpha=alpha, stride=stride,
                                expansion=expansion, block_id=block_id)
    last_filters = _make_divisible(1280 * alpha, 8) if alpha > 1.0 else 1280
    x = layers.Conv2D(last_filters, kernel_size=1, use_bias=False, name="Conv_1")(x)
    x = layers.BatchNormalization(axis=-1, name="Conv_1_bn", **BN)(x)
    x = layers.ReLU(6.0, name="out_relu")(x)
    if include_top:
        x = layers.GlobalAveragePooling2D()(x)
        x = layers.Dense(classes, activation=classifier_activation, name="predictions")(x)
    else:
        x = pool_features(x, pooling)
    model = Model(inputs, x, name=name or f"mobilenetv2_{alpha:0.2f}_{rows}")
    if weights == "imagenet":
        suffix = "" if include_top else "_no_top"
        file_name = f"mobilenet_v2_weights_tf_dim_ordering_tf_kernels_{float(alpha)}_{rows}{suffix}.h5"
        path = get_file(file_name, BASE_WEIGHT_PATH + file_name, cache_subdir="models")
        imagenet_utils.load_legacy_h5_weights(model, path)
    elif weights is not None:
        load_weights_file(model, weights)
    return model


@export("applications.mobilenet_v2.preprocess_input",
        "keras.applications.mobilenet_v2.preprocess_input")
def preprocess_input(x, data_format=None):
    """'tf' preprocessing: pixels in [0, 255] scaled to [-1, 1]."""
    return imagenet_utils.preprocess_input(x, data_format=data_format, mode="tf")


@export("applications.mobilenet_v2.decode_predictions",
        "keras.applications.mobilenet_v2.decode_predictions")
def decode_predictions(preds, top=5):
    """See `tf.keras.applications.imagenet_utils.decode_predictions`."""
    return imagenet_utils.decode_predictions(preds, top=top)
