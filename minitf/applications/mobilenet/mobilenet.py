"""tf.keras.applications.mobilenet: MobileNet v1 (Howard et al., 2017) built layer for layer as
Keras 3 builds it (conv1 stem, depthwise separable blocks conv_dw_1/conv_pw_1 ...
conv_dw_13/conv_pw_13, a 1x1 convolution 'conv_preds' as classifier), so Keras' published
ImageNet weight files and the files Keras writes for this model load into it."""
import os
import warnings

from minitf import layers
from minitf.activations import activations
from minitf.applications.imagenet_utils import imagenet_utils
from minitf.applications._common import load_weights_file, pool_features
from minitf.models.model import Model
from minitf.utils.data_utils import get_file
from minitf.api_export import export

__all__ = ["MobileNet", "preprocess_input", "decode_predictions"]

BASE_WEIGHT_PATH = "https://storage.googleapis.com/tensorflow/keras-applications/mobilenet/"
ALPHAS = {1.0: "1_0", 0.75: "7_5", 0.50: "5_0", 0.25: "2_5"}  # widths with ImageNet weights
SIZES = (128, 160, 192, 224)  # input sides with published ImageNet weights

# (pointwise filters, stride) of the 13 depthwise separable blocks, block_id 1 ... 13
BLOCKS = ((64, 1),
          (128, 2), (128, 1),
          (256, 2), (256, 1),
          (512, 2), (512, 1), (512, 1), (512, 1), (512, 1), (512, 1),
          (1024, 2), (1024, 1))


def _conv_block(inputs, filters, alpha, kernel=(3, 3), strides=(1, 1)):
    """The stem: a 'same' convolution of int(filters * alpha) channels, BN, ReLU6."""
    x = layers.Conv2D(int(filters * alpha), kernel, padding="same", use_bias=False,
                      strides=strides, name="conv1")(inputs)
    x = layers.BatchNormalization(axis=-1, name="conv1_bn")(x)
    return layers.ReLU(6.0, name="conv1_relu")(x)


def _depthwise_conv_block(inputs, pointwise_conv_filters, alpha, depth_multiplier=1,
                          strides=(1, 1), block_id=1):
    """3x3 depthwise convolution (stride 2: zero padding ((0, 1), (0, 1)) then 'valid'), BN,
    ReLU6, then a 1x1 convolution of int(filters * alpha) channels, BN, ReLU6."""
    x = inputs
    if strides != (1, 1):
        x = layers.ZeroPadding2D(((0, 1), (0, 1)), name=f"conv_pad_{block_id}")(x)
    x = layers.DepthwiseConv2D((3, 3), padding="same" if strides == (1, 1) else "valid",
                               depth_multiplier=depth_multiplier, strides=strides,
                               use_bias=False, name=f"conv_dw_{block_id}")(x)
    x = layers.BatchNormalization(axis=-1, name=f"conv_dw_{block_id}_bn")(x)
    x = layers.ReLU(6.0, name=f"conv_dw_{block_id}_relu")(x)
    x = layers.Conv2D(int(pointwise_conv_filters * alpha), (1, 1), padding="same",
                      use_bias=False, strides=(1, 1), name=f"conv_pw_{block_id}")(x)
    x = layers.BatchNormalization(axis=-1, name=f"conv_pw_{block_id}_bn")(x)
    return layers.ReLU(6.0, name=f"conv_pw_{block_id}_relu")(x)


def _check_arguments(weights, include_top, classes):
    """Keras' checks made before the input shape is worked out (same texts)."""
    if not (weights in ("imagenet", None) or os.path.exists(os.fspath(weights))):
        raise ValueError("The `weights` argument should be either `None` (random "
                         "initialization), 'imagenet' (pre-training on ImageNet), or the path "
                         f"to the weights file to be loaded. Received weights={weights}")
    if weights == "imagenet" and include_top and classes != 1000:
        raise ValueError("If using `weights='imagenet'` with `include_top=True`, `classes` "
                         f"should be 1000.  Received classes={classes}")


def _check_imagenet(alpha, depth_multiplier, rows, cols):
    """The side whose ImageNet file is loaded (224 unless the input is square and published);
    ValueError for a width or depth multiplier without published weights."""
    if depth_multiplier != 1:
        raise ValueError("If imagenet weights are being loaded, depth multiplier must be 1.  "
                         f"Received depth_multiplier={depth_multiplier}")
    if alpha not in ALPHAS:
        raise ValueError("If imagenet weights are being loaded, alpha can be one of`0.25`, "
                         f"`0.50`, `0.75` or `1.0` only.  Received alpha={alpha}")
    if rows != cols or rows not in SIZES:
        warnings.warn("`input_shape` is undefined or non-square, or `rows` is not in "
                      "[128, 160, 192, 224]. Weights for input shape (224, 224) will be "
                      "loaded as the default.", stacklevel=3)
        return 224
    return rows


def _validate_activation(classifier_activation, weights):
    """With any weights file the classifier must be softmax or linear (Keras'
    imagenet_utils.validate_activation, which also runs for a weights path)."""
    if weights is None:
        return
    resolved = activations.get(classifier_activation)
    if resolved not in (activations.get("softmax"), activations.get(None)):
        raise ValueError("Only `None` and `softmax` activations are allowed for the "
                         "`classifier_activation` argument when using pretrained weights, "
                         f"with `include_top=True`; Received: classifier_activation={resolved}")


@export("applications.MobileNet", "applications.mobilenet.MobileNet",
        "keras.applications.MobileNet", "keras.applications.mobilenet.MobileNet")
def MobileNet(input_shape=None, alpha=1.0, depth_multiplier=1, dropout=1e-3,  # noqa: N802
              include_top=True, weights="imagenet", input_tensor=None, pooling=None,
              classes=1000, classifier_activation="softmax", name=None):
    """The MobileNet (v1) model as a functional Model named `name` (default
    'mobilenet_{alpha:.2f}_{rows}', e.g. 'mobilenet_1.00_224').

    `alpha` scales every layer's width (int(filters * alpha) channels); `depth_multiplier`
    is the channel multiplier of each depthwise convolution. Default input 224x224x3 (a
    square 128, 160, 192 or 224 `input_shape` keeps its size), smallest 32x32; without the
    top the input may be (None, None, 3). `weights`: None, 'imagenet' (alpha 0.25, 0.5, 0.75
    or 1.0 with depth_multiplier 1; the file for the input side, downloaded once through
    `tf.keras.utils.get_file` and cached) or the path of a Keras weights file ('.weights.h5'
    or legacy h5). `include_top` adds global average pooling, Dropout(`dropout`), the 1x1
    convolution 'conv_preds' and the `classifier_activation` layer 'predictions'; otherwise
    `pooling` None, 'avg' or 'max' chooses the output. Inputs are expected in [-1, 1]: see
    `preprocess_input`.
    """
    _check_arguments(weights, include_top, classes)
    default_size = 224
    if input_shape is not None and len(input_shape) >= 2:
        if input_shape[0] == input_shape[1] and input_shape[0] in SIZES:
            default_size = input_shape[0]
    input_shape = imagenet_utils.obtain_input_shape(
        input_shape, default_size=default_size, min_size=32, require_flatten=include_top,
        weights=weights)
    rows, cols = input_shape[0], input_shape[1]
    if weights == "imagenet":
        rows = _check_imagenet(alpha, depth_multiplier, rows, cols)
    img_input, inputs = imagenet_utils.model_inputs(input_tensor, input_shape)

    x = _conv_block(img_input, 32, alpha, strides=(2, 2))
    for block_id, (filters, stride) in enumerate(BLOCKS, start=1):
        x = _depthwise_conv_block(x, filters, alpha, depth_multiplier,
                                  strides=(stride, stride), block_id=block_id)
    if include_top:
        x = layers.GlobalAveragePooling2D(keepdims=True)(x)
        x = layers.Dropout(dropout, name="dropout")(x)
        x = layers.Conv2D(classes, (1, 1), padding="same", name="conv_preds")(x)
        x = layers.Reshape((classes,), name="reshape_2")(x)
        _validate_activation(classifier_activation, weights)
        x = layers.Activation(activation=classifier_activation, name="predictions")(x)
    else:
        x = pool_features(x, pooling)
    model = Model(inputs, x, name=name if name is not None else f"mobilenet_{alpha:0.2f}_{rows}")
    if weights == "imagenet":
        suffix = "" if include_top else "_no_top"
        file_name = f"mobilenet_{ALPHAS[alpha]}_{rows}_tf{suffix}.h5"
        path = get_file(file_name, BASE_WEIGHT_PATH + file_name, cache_subdir="models")
        imagenet_utils.load_legacy_h5_weights(model, path)
    elif weights is not None:
        load_weights_file(model, weights)
    return model


@export("applications.mobilenet.preprocess_input", "keras.applications.mobilenet.preprocess_input")
def preprocess_input(x, data_format=None):
    """'tf' preprocessing: pixels in [0, 255] scaled to [-1, 1] (x / 127.5 - 1)."""
    return imagenet_utils.preprocess_input(x, data_format=data_format, mode="tf")


@export("applications.mobilenet.decode_predictions",
        "keras.applications.mobilenet.decode_predictions")
def decode_predictions(preds, top=5):
    """See `tf.keras.applications.imagenet_utils.decode_predictions`."""
    return imagenet_utils.decode_predictions(preds, top=top)
