"""tf.keras.applications.inception_v3: Inception v3 (Szegedy et al., 2015) with Keras' layer
structure (conv + BatchNormalization(scale=False) + relu units, blocks mixed0 ... mixed10), so
the published Keras ImageNet weights load into it."""
from minitf import layers
from minitf.applications.imagenet_utils import imagenet_utils
from minitf.applications._common import pool_features
from minitf.models.model import Model
from minitf.api_export import export

__all__ = ["InceptionV3", "preprocess_input", "decode_predictions"]

WEIGHTS_PATH = ("https://storage.googleapis.com/tensorflow/keras-applications/inception_v3/"
                "inception_v3_weights_tf_dim_ordering_tf_kernels.h5")
WEIGHTS_PATH_NO_TOP = ("https://storage.googleapis.com/tensorflow/keras-applications/"
                       "inception_v3/inception_v3_weights_tf_dim_ordering_tf_kernels_notop.h5")
WEIGHTS_HASH = "9a0d58056eeedaa3f26cb7ebd46da564"  # md5, as published in Keras' source
WEIGHTS_HASH_NO_TOP = "bcbd6486424b2319ff4ef7d526e38f63"
CHANNEL_AXIS = 3


def conv2d_bn(x, filters, num_row, num_col, padding="same", strides=(1, 1), name=None):
    """Conv2D without bias, BatchNormalization without scale, then relu (Keras' unit)."""
    conv_name = f"{name}_conv" if name else None
    bn_name = f"{name}_bn" if name else None
    x = layers.Conv2D(filters, (num_row, num_col), strides=strides, padding=padding,
                      use_bias=False, name=conv_name)(x)
    x = layers.BatchNormalization(axis=CHANNEL_AXIS, scale=False, name=bn_name)(x)
    return layers.Activation("relu", name=name)(x)


def _avg_pool_branch(x, filters):
    pooled = layers.AveragePooling2D((3, 3), strides=(1, 1), padding="same")(x)
    return conv2d_bn(pooled, filters, 1, 1)


def _block_35(x, pool_filters, name):
    """mixed0-2: 1x1, 5x5, double 3x3 and pooled branches on the 35x35 grid."""
    b1 = conv2d_bn(x, 64, 1, 1)
    b5 = conv2d_bn(conv2d_bn(x, 48, 1, 1), 64, 5, 5)
    b3 = conv2d_bn(conv2d_bn(conv2d_bn(x, 64, 1, 1), 96, 3, 3), 96, 3, 3)
    bp = _avg_pool_branch(x, pool_filters)
    return layers.Concatenate(axis=CHANNEL_AXIS, name=name)([b1, b5, b3, bp])


def _reduce_35(x):
    """mixed3: strided 3x3, strided double 3x3 and max-pooled branches (35 -> 17)."""
    b3 = conv2d_bn(x, 384, 3, 3, strides=(2, 2), padding="valid")
    bd = conv2d_bn(conv2d_bn(x, 64, 1, 1), 96, 3, 3)
    bd = conv2d_bn(bd, 96, 3, 3, strides=(2, 2), padding="valid")
    bp = layers.MaxPooling2D((3, 3), strides=(2, 2))(x)
    return layers.Concatenate(axis=CHANNEL_AXIS, name="mixed3")([b3, bd, bp])


def _block_17(x, width, name):
    """mixed4-7: factorised 7x7 branches with `width` inner filters on the 17x17 grid."""
    b1 = conv2d_bn(x, 192, 1, 1)
    b7 = conv2d_bn(x, width, 1, 1)
    b7 = conv2d_bn(b7, width, 1, 7)
    b7 = conv2d_bn(b7, 192, 7, 1)
    bd = conv2d_bn(x, width, 1, 1)
    bd = conv2d_bn(bd, width, 7, 1)
    bd = conv2d_bn(bd, width, 1, 7)
    bd = conv2d_bn(bd, width, 7, 1)
    bd = conv2d_bn(bd, 192, 1, 7)
    bp = _avg_pool_branch(x, 192)
    return layers.Concatenate(axis=CHANNEL_AXIS, name=name)([b1, b7, bd, bp])


def _reduce_17(x):
    """mixed8: strided 3x3 and 7x7-then-strided-3x3 branches plus max pooling (17 -> 8)."""
    b3 = conv2d_bn(x, 192, 1, 1)
    b3 = conv2d_bn(b3, 320, 3, 3, strides=(2, 2), padding="valid")
    b7 = conv2d_bn(x, 192, 1, 1)
    b7 = conv2d_bn(b7, 192, 1, 7)
    b7 = conv2d_bn(b7, 192, 7, 1)
    b7 = conv2d_bn(b7, 192, 3, 3, strides=(2, 2), padding="valid")
    bp = layers.MaxPooling2D((3, 3), strides=(2, 2))(x)
    return layers.Concatenate(axis=CHANNEL_AXIS, name="mixed8")([b3, b7, bp])


def _block_8(x, index):
    """mixed9-10: expanded-filter-bank block on the 8x8 grid."""
    b1 = conv2d_bn(x, 320, 1, 1)
    b3 = conv2d_bn(x, 384, 1, 1)
    b3 = layers.Concatenate(axis=CHANNEL_AXIS, name=f"mixed9_{index}")(
        [conv2d_bn(b3, 384, 1, 3), conv2d_bn(b3, 384, 3, 1)])
    bd = conv2d_bn(conv2d_bn(x, 448, 1, 1), 384, 3, 3)
    bd = layers.Concatenate(axis=CHANNEL_AXIS)([conv2d_bn(bd, 384, 1, 3),
                                                conv2d_bn(bd, 384, 3, 1)])
    bp = _avg_pool_branch(x, 192)
    return layers.Concatenate(axis=CHANNEL_AXIS, name=f"mixed{9 + index}")([b1, b3, bd, bp])


@export("applications.InceptionV3", "applications.inception_v3.InceptionV3",
        "keras.applications.InceptionV3", "keras.applications.inception_v3.InceptionV3")
def InceptionV3(include_top=True, weights="imagenet", input_tensor=None,  # noqa: N802
                input_shape=None, pooling=None, classes=1000, classifier_activation="softmax"):
    """The Inception v3 model as a functional Model named 'inception_v3'.

    Default input 299x299x3, smallest 75x75. `weights`: None, 'imagenet' (downloaded once
    through `tf.keras.utils.get_file` and cached) or the path of a Keras 2 h5 weights file.
    `include_top` adds avg_pool + predictions; otherwise `pooling` None, 'avg' or 'max'.
    """
    imagenet_utils.check_weights_argument(weights, include_top, classes, classifier_activation)
    input_shape = imagenet_utils.obtain_input_shape(input_shape, default_size=299, min_size=75,
                                                    require_flatten=include_top,
                                                    weights=weights)
    img_input, inputs = imagenet_utils.model_inputs(input_tensor, input_shape)
    x = conv2d_bn(img_input, 32, 3, 3, strides=(2, 2), padding="valid")
    x = conv2d_bn(x, 32, 3, 3, padding="valid")
    x = conv2d_bn(x, 64, 3, 3)
    x = layers.MaxPooling2D((3, 3), strides=(2, 2))(x)
    x = conv2d_bn(x, 80, 1, 1, padding="valid")
    x = conv2d_bn(x, 192, 3, 3, padding="valid")
    x = layers.MaxPooling2D((3, 3), strides=(2, 2))(x)
    x = _block_35(x, 32, "mixed0")
    x = _block_35(x, 64, "mixed1")
    x = _block_35(x, 64, "mixed2")
    x = _reduce_35(x)
    for index, width in enumerate((128, 160, 160, 192)):
        x = _block_17(x, width, f"mixed{4 + index}")
    x = _reduce_17(x)
    x = _block_8(x, 0)
    x = _block_8(x, 1)
    if include_top:
        x = layers.GlobalAveragePooling2D(name="avg_pool")(x)
        x = layers.Dense(classes, activation=classifier_activation, name="predictions")(x)
    else:
        x = pool_features(x, pooling)
    model = Model(inputs, x, name="inception_v3")
    if weights is not None:
        path = imagenet_utils.resolve_weights(weights, include_top, WEIGHTS_PATH,
                                              WEIGHTS_PATH_NO_TOP, WEIGHTS_HASH,
                                              WEIGHTS_HASH_NO_TOP)
        imagenet_utils.load_legacy_h5_weights(model, path)
    return model


@export("applications.inception_v3.preprocess_input",
        "keras.applications.inception_v3.preprocess_input")
def preprocess_input(x, data_format=None):
    """'tf' preprocessing: pixels in [0, 255] scaled to [-1, 1]."""
    return imagenet_utils.preprocess_input(x, data_format=data_format, mode="tf")


@export("applications.inception_v3.decode_predictions",
        "keras.applications.inception_v3.decode_predictions")
def decode_predictions(preds, top=5):
    """See `tf.keras.applications.imagenet_utils.decode_predictions`."""
    return imagenet_utils.decode_predictions(preds, top=top)
