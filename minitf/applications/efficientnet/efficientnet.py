"""tf.keras.applications.efficientnet: EfficientNetB0 ... B7 (Tan & Le, 2019) built layer for
layer as Keras 3 builds them (in-model Rescaling + Normalization, stem, MBConv blocks with
squeeze-and-excitation named block1a_ ... block7x_, top), so Keras' published ImageNet weight
files load into them. The variants differ only in width, depth, input size and dropout."""
import copy
import math

from minitf import layers
from minitf.applications.imagenet_utils import imagenet_utils
from minitf.applications._common import correct_pad, load_weights_file, pool_features
from minitf.models.model import Model
from minitf.api_export import export, export_value

__all__ = ["EfficientNetB0", "EfficientNetB1", "EfficientNetB2", "EfficientNetB3",
           "EfficientNetB4", "EfficientNetB5", "EfficientNetB6", "EfficientNetB7",
           "preprocess_input", "decode_predictions"]

BASE_WEIGHTS_PATH = "https://storage.googleapis.com/keras-applications/"
WEIGHTS_HASHES = {  # md5 of (with top, without top), as published in Keras' source
    "b0": ("902e53a9f72be733fc0bcb005b3ebbac", "50bc09e76180e00e4465e1a485ddc09d"),
    "b1": ("1d254153d4ab51201f1646940f018540", "74c4e6b3e1f6a1eea24c589628592432"),
    "b2": ("b15cce36ff4dcbd00b6dd88e7857a6ad", "111f8e2ac8aa800a7a99e3239f7bfb39"),
    "b3": ("ffd1fdc53d0ce67064dc6a9c7960ede0", "af6d107764bb5b1abb91932881670226"),
    "b4": ("18c95ad55216b8f92d7e70b3a046e2fc", "ebc24e6d6c33eaebbd558eafbeedf1ba"),
    "b5": ("ace28f2a6363774853a83a0b21b9421a", "38879255a25d3c92d5e44e04ae6cec6f"),
    "b6": ("165f6e37dce68623721b423839de8be5", "9ecce42647a20130c1f39a5d4cb75743"),
    "b7": ("8c03f828fec3ef71311cd463b6759d99", "cbcfe4450ddf6f3ad90b1b398090fe4a"),
}
# (width coefficient, depth coefficient, default input side, top dropout rate)
VARIANTS = {"b0": (1.0, 1.0, 224, 0.2), "b1": (1.0, 1.1, 240, 0.2), "b2": (1.1, 1.2, 260, 0.3),
            "b3": (1.2, 1.4, 300, 0.3), "b4": (1.4, 1.8, 380, 0.4), "b5": (1.6, 2.2, 456, 0.4),
            "b6": (1.8, 2.6, 528, 0.5), "b7": (2.0, 3.1, 600, 0.5)}
# The seven B0 stages: kernel, repeats, filters in/out, expansion, first stride (all have
# squeeze-and-excitation ratio 0.25 and identity skips).
DEFAULT_BLOCKS_ARGS = [
    {"kernel_size": k, "repeats": r, "filters_in": fi, "filters_out": fo, "expand_ratio": e,
     "id_skip": True, "strides": s, "se_ratio": 0.25}
    for k, r, fi, fo, e, s in ((3, 1, 32, 16, 1, 1), (3, 2, 16, 24, 6, 2), (5, 2, 24, 40, 6, 2),
                               (3, 3, 40, 80, 6, 2), (5, 3, 80, 112, 6, 1),
                               (5, 4, 112, 192, 6, 2), (3, 1, 192, 320, 6, 1))]
CONV_KERNEL_INITIALIZER = {"class_name": "VarianceScaling",
                           "config": {"scale": 2.0, "mode": "fan_out",
                                      "distribution": "truncated_normal"}}
DENSE_KERNEL_INITIALIZER = {"class_name": "VarianceScaling",
                            "config": {"scale": 1.0 / 3.0, "mode": "fan_out",
                                       "distribution": "uniform"}}
IMAGENET_STDDEV_RGB = [0.229, 0.224, 0.225]
BN_AXIS = 3


def block(inputs, activation="swish", drop_rate=0.0, name="", filters_in=32, filters_out=16,
          kernel_size=3, strides=1, expand_ratio=1, se_ratio=0.0, id_skip=True):
    """MBConv block: 1x1 expansion (when expand_ratio != 1), depthwise conv, squeeze-and-
    excitation, linear 1x1 projection, and an identity skip with per-sample stochastic depth
    (Dropout with noise_shape (None, 1, 1, 1)) when the shape is kept."""
    filters = filters_in * expand_ratio
    if expand_ratio != 1:
        x = layers.Conv2D(filters, 1, padding="same", use_bias=False,
                          kernel_initializer=CONV_KERNEL_INITIALIZER, name=f"{name}expand_conv")(inputs)
        x = layers.BatchNormalization(axis=BN_AXIS, name=f"{name}expand_bn")(x)
        x = layers.Activation(activation, name=f"{name}expand_activation")(x)
    else:
        x = inputs
    if strides == 2:
        x = layers.ZeroPadding2D(padding=correct_pad(x, kernel_size), name=f"{name}dwconv_pad")(x)
        conv_pad = "valid"
    else:
        conv_pad = "same"
    x = layers.DepthwiseConv2D(kernel_size, strides=strides, padding=conv_pad, use_bias=False,
                               depthwise_initializer=CONV_KERNEL_INITIALIZER,
                               name=f"{name}dwconv")(x)
    x = layers.BatchNormalization(axis=BN_AXIS, name=f"{name}bn")(x)
    x = layers.Activation(activation, name=f"{name}activation")(x)
    if 0 < se_ratio <= 1:
        filters_se = max(1, int(filters_in * se_ratio))
        se = layers.GlobalAveragePooling2D(name=f"{name}se_squeeze")(x)
        se = layers.Reshape((1, 1, filters), name=f"{name}se_reshape")(se)
        se = layers.Conv2D(filters_se, 1, padding="same", activation=activation,
                           kernel_initializer=CONV_KERNEL_INITIALIZER, name=f"{name}se_reduce")(se)
        se = layers.Conv2D(filters, 1, padding="same", activation="sigmoid",
                           kernel_initializer=CONV_KERNEL_INITIALIZER, name=f"{name}se_expand")(se)
        x = layers.multiply([x, se], name=f"{name}se_excite")
    x = layers.Conv2D(filters_out, 1, padding="same", use_bias=False,
                      kernel_initializer=CONV_KERNEL_INITIALIZER, name=f"{name}project_conv")(x)
    x = layers.BatchNormalization(axis=BN_AXIS, name=f"{name}project_bn")(x)
    if id_skip and strides == 1 and filters_in == filters_out:
        if drop_rate > 0:
            x = layers.Dropout(drop_rate, noise_shape=(None, 1, 1, 1), name=f"{name}drop")(x)
        x = layers.add([x, inputs], name=f"{name}add")
    return x


def EfficientNet(width_coefficient, depth_coefficient, default_size, dropout_rate=0.2,  # noqa: N802
                 drop_connect_rate=0.2, depth_divisor=8, activation="swish",
                 blocks_args="default", name="efficientnet", include_top=True,
                 weights="imagenet", input_tensor=None, input_shape=None, pooling=None,
                 classes=1000, classifier_activation="softmax", weights_name=None):
    """The EfficientNet family's builder (Keras' `EfficientNet`): filters scaled by
    `width_coefficient` (rounded to `depth_divisor`), block repeats by `depth_coefficient`,
    stochastic depth rising linearly to `drop_connect_rate` over the blocks."""
    if blocks_args == "default":
        blocks_args = DEFAULT_BLOCKS_ARGS
    imagenet_utils.check_weights_argument(weights, include_top, classes, classifier_activation)
    input_shape = imagenet_utils.obtain_input_shape(input_shape, default_size=default_size,
                                                    min_size=32, require_flatten=include_top,
                                                    weights=weights)
    img_input, inputs = imagenet_utils.model_inputs(input_tensor, input_shape)

    def round_filters(filters, divisor=depth_divisor):
        filters *= width_coefficient
        new_filters = max(divisor, int(filters + divisor / 2) // divisor * divisor)
        if new_filters < 0.9 * filters:  # never round down by more than 10%
            new_filters += divisor
        return int(new_filters)

    def round_repeats(repeats):
        return int(math.ceil(depth_coefficient * repeats))

    # The inputs are raw [0, 255] pixels: scaling and normalisation live in the model (the
    # mean and variance are weights of the Normalization layer, filled by the weights file).
    x = layers.Rescaling(1.0 / 255.0)(img_input)
    x = layers.Normalization(axis=BN_AXIS)(x)
    if weights == "imagenet":
        # Keras' published files need this extra factor (1 / sqrt of the ImageNet stddev)
        x = layers.Rescaling([1.0 / math.sqrt(s) for s in IMAGENET_STDDEV_RGB])(x)
    x = layers.ZeroPadding2D(padding=correct_pad(x, 3), name="stem_conv_pad")(x)
    x = layers.Conv2D(round_filters(32), 3, strides=2, padding="valid", use_bias=False,
                      kernel_initializer=CONV_KERNEL_INITIALIZER, name="stem_conv")(x)
    x = layers.BatchNormalization(axis=BN_AXIS, name="stem_bn")(x)
    x = layers.Activation(activation, name="stem_activation")(x)

    blocks_args = copy.deepcopy(blocks_args)
    b = 0
    blocks = float(sum(round_repeats(args["repeats"]) for args in blocks_args))
    for i, args in enumerate(blocks_args):
        if args["repeats"] <= 0:
            raise ValueError(f"The number of repeats in `EfficientNet` must be > 0. Received: "
                             f"repeats={args['repeats']} in block {i + 1}")
        args["filters_in"] = round_filters(args["filters_in"])
        args["filters_out"] = round_filters(args["filters_out"])
        for j in range(round_repeats(args.pop("repeats"))):
            if j > 0:  # only a stage's first block strides and changes width
                args["strides"] = 1
                args["filters_in"] = args["filters_out"]
            x = block(x, activation, drop_connect_rate * b / blocks,
                      name=f"block{i + 1}{chr(j + 97)}_", **args)
            b += 1

    x = layers.Conv2D(round_filters(1280), 1, padding="same", use_bias=False,
                      kernel_initializer=CONV_KERNEL_INITIALIZER, name="top_conv")(x)
    x = layers.BatchNormalization(axis=BN_AXIS, name="top_bn")(x)
    x = layers.Activation(activation, name="top_activation")(x)
    if include_top:
        x = layers.GlobalAveragePooling2D(name="avg_pool")(x)
        if dropout_rate > 0:
            x = layers.Dropout(dropout_rate, name="top_dropout")(x)
        x = layers.Dense(classes, activation=classifier_activation,
                         kernel_initializer=DENSE_KERNEL_INITIALIZER, name="predictions")(x)
    else:
        x = pool_features(x, pooling, "avg_pool", "max_pool")
    model = Model(inputs, x, name=name)
    if weights == "imagenet":
        url = BASE_WEIGHTS_PATH + name
        path = imagenet_utils.resolve_weights(weights, include_top, url + ".h5",
                                              url + "_notop.h5", *WEIGHTS_HASHES[weights_name])
        imagenet_utils.load_legacy_h5_weights(model, path)
    elif weights is not None:
        load_weights_file(model, weights)
    return model


def _variant(key):
    width, depth, size, dropout = VARIANTS[key]

    def build(include_top=True, weights="imagenet", input_tensor=None, input_shape=None,
              pooling=None, classes=1000, classifier_activation="softmax",
              name=f"efficientnet{key}"):
        return EfficientNet(width, depth, size, dropout, name=name, include_top=include_top,
                            weights=weights, input_tensor=input_tensor, input_shape=input_shape,
                            pooling=pooling, classes=classes,
                            classifier_activation=classifier_activation, weights_name=key)

    build.__name__ = build.__qualname__ = f"EfficientNet{key.upper()}"
    build.__doc__ = (
        f"EfficientNet{key.upper()} as a functional Model named 'efficientnet{key}' (width x{width}, "
        f"depth x{depth}, default input {size}x{size}x3, top dropout {dropout}).\n\n"
        f"    `weights`: None, 'imagenet' (downloaded once through `tf.keras.utils.get_file` and "
        f"cached) or the path of a Keras weights file. `include_top` adds 'avg_pool', "
        f"'top_dropout' and 'predictions'; otherwise `pooling` None, 'avg' or 'max' chooses the "
        f"output. The model takes raw [0, 255] pixels: it rescales and normalises them itself.\n")
    return build


EfficientNetB0 = _variant("b0")
export_value("EfficientNetB0", "applications.EfficientNetB0",
             "applications.efficientnet.EfficientNetB0", "keras.applications.EfficientNetB0",
             "keras.applications.efficientnet.EfficientNetB0")
EfficientNetB1 = _variant("b1")
export_value("EfficientNetB1", "applications.EfficientNetB1",
             "applications.efficientnet.EfficientNetB1", "keras.applications.EfficientNetB1",
             "keras.applications.efficientnet.EfficientNetB1")
EfficientNetB2 = _variant("b2")
export_value("EfficientNetB2", "applications.EfficientNetB2",
             "applications.efficientnet.EfficientNetB2", "keras.applications.EfficientNetB2",
             "keras.applications.efficientnet.EfficientNetB2")
EfficientNetB3 = _variant("b3")
export_value("EfficientNetB3", "applications.EfficientNetB3",
             "applications.efficientnet.EfficientNetB3", "keras.applications.EfficientNetB3",
             "keras.applications.efficientnet.EfficientNetB3")
EfficientNetB4 = _variant("b4")
export_value("EfficientNetB4", "applications.EfficientNetB4",
             "applications.efficientnet.EfficientNetB4", "keras.applications.EfficientNetB4",
             "keras.applications.efficientnet.EfficientNetB4")
EfficientNetB5 = _variant("b5")
export_value("EfficientNetB5", "applications.EfficientNetB5",
             "applications.efficientnet.EfficientNetB5", "keras.applications.EfficientNetB5",
             "keras.applications.efficientnet.EfficientNetB5")
EfficientNetB6 = _variant("b6")
export_value("EfficientNetB6", "applications.EfficientNetB6",
             "applications.efficientnet.EfficientNetB6", "keras.applications.EfficientNetB6",
             "keras.applications.efficientnet.EfficientNetB6")
EfficientNetB7 = _variant("b7")
export_value("EfficientNetB7", "applications.EfficientNetB7",
             "applications.efficientnet.EfficientNetB7", "keras.applications.EfficientNetB7",
             "keras.applications.efficientnet.EfficientNetB7")


@export("applications.efficientnet.preprocess_input",
        "keras.applications.efficientnet.preprocess_input")
def preprocess_input(x, data_format=None):
    """Returns `x` unchanged: EfficientNet models rescale and normalise inside the model; kept
    so code written for the other applications runs as is."""
    return x


@export("applications.efficientnet.decode_predictions",
        "keras.applications.efficientnet.decode_predictions")
def decode_predictions(preds, top=5):
    """See `tf.keras.applications.imagenet_utils.decode_predictions`."""
    return imagenet_utils.decode_predictions(preds, top=top)
