"""tf.keras.applications.resnet (and .resnet50): ResNet50/101/152 v1 (He et al., 2015) built
layer for layer as Keras 3 builds them (conv1, stacks conv2 ... conv5 of bottleneck blocks
named conv{stack}_block{i}_...), so Keras' published ImageNet weight files load into them."""
from minitf import layers
from minitf.applications.imagenet_utils import imagenet_utils
from minitf.applications._common import load_weights_file, pool_features
from minitf.models.model import Model
from minitf.api_export import export

__all__ = ["ResNet50", "ResNet101", "ResNet152", "preprocess_input", "decode_predictions"]

BASE_WEIGHTS_PATH = "https://storage.googleapis.com/tensorflow/keras-applications/resnet/"
WEIGHTS_HASHES = {  # md5 of (with top, without top), as published in Keras' source
    "resnet50": ("2cb95161c43110f7111970584f804107", "4d473c1dd8becc155b73f8504c6f6626"),
    "resnet101": ("f1aeb4b969a6efcfb50fad2f0c20cfc5", "88cf7a10940856eca736dc7b7e228a21"),
    "resnet152": ("100835be76be38e30d865e96f2aaae62", "ee4c566cf9a93f14d82f913c2dc6dd0c"),
}
BN_AXIS = 3
BN_EPSILON = 1.001e-5
# blocks per stack conv2 ... conv5 (bottleneck widths 64, 128, 256, 512)
DEPTHS = {"resnet50": (3, 4, 6, 3), "resnet101": (3, 4, 23, 3), "resnet152": (3, 8, 36, 3)}


def residual_block_v1(x, filters, kernel_size=3, stride=1, conv_shortcut=True, name=None):
    """Bottleneck block: 1x1 (strided) -> 3x3 -> 1x1 with 4*filters outputs, each with
    BatchNormalization, added to the identity or to a 1x1 projection shortcut, then relu."""
    if conv_shortcut:
        shortcut = layers.Conv2D(4 * filters, 1, strides=stride, name=f"{name}_0_conv")(x)
        shortcut = layers.BatchNormalization(axis=BN_AXIS, epsilon=BN_EPSILON,
                                             name=f"{name}_0_bn")(shortcut)
    else:
        shortcut = x
    x = layers.Conv2D(filters, 1, strides=stride, name=f"{name}_1_conv")(x)
    x = layers.BatchNormalization(axis=BN_AXIS, epsilon=BN_EPSILON, name=f"{name}_1_bn")(x)
    x = layers.Activation("relu", name=f"{name}_1_relu")(x)
    x = layers.Conv2D(filters, kernel_size, padding="SAME", name=f"{name}_2_conv")(x)
    x = layers.BatchNormalization(axis=BN_AXIS, epsilon=BN_EPSILON, name=f"{name}_2_bn")(x)
    x = layers.Activation("relu", name=f"{name}_2_relu")(x)
    x = layers.Conv2D(4 * filters, 1, name=f"{name}_3_conv")(x)
    x = layers.BatchNormalization(axis=BN_AXIS, epsilon=BN_EPSILON, name=f"{name}_3_bn")(x)
    x = layers.Add(name=f"{name}_add")([shortcut, x])
    return layers.Activation("relu", name=f"{name}_out")(x)


def stack_residual_blocks_v1(x, filters, blocks, stride1=2, name=None):
    """`blocks` bottleneck blocks; the first projects the shortcut and strides by `stride1`."""
    x = residual_block_v1(x, filters, stride=stride1, name=f"{name}_block1")
    for i in range(2, blocks + 1):
        x = residual_block_v1(x, filters, conv_shortcut=False, name=f"{name}_block{i}")
    return x


def _resnet(weights_name, name, include_top, weights, input_tensor, input_shape, pooling,
            classes, classifier_activation):
    """The ResNet v1 body shared by ResNet50/101/152 (Keras' `ResNet(preact=False,
    use_bias=True)`)."""
    imagenet_utils.check_weights_argument(weights, include_top, classes, classifier_activation)
    input_shape = imagenet_utils.obtain_input_shape(input_shape, default_size=224, min_size=32,
                                                    require_flatten=include_top,
                                                    weights=weights)
    img_input, inputs = imagenet_utils.model_inputs(input_tensor, input_shape)
    x = layers.ZeroPadding2D(padding=((3, 3), (3, 3)), name="conv1_pad")(img_input)
    x = layers.Conv2D(64, 7, strides=2, use_bias=True, name="conv1_conv")(x)
    x = layers.BatchNormalization(axis=BN_AXIS, epsilon=BN_EPSILON, name="conv1_bn")(x)
    x = layers.Activation("relu", name="conv1_relu")(x)
    x = layers.ZeroPadding2D(padding=((1, 1), (1, 1)), name="pool1_pad")(x)
    x = layers.MaxPooling2D(3, strides=2, name="pool1_pool")(x)
    for stack, (filters, blocks) in enumerate(zip((64, 128, 256, 512), DEPTHS[weights_name])):
        x = stack_residual_blocks_v1(x, filters, blocks, stride1=1 if stack == 0 else 2,
                                     name=f"conv{stack + 2}")
    if include_top:
        x = layers.GlobalAveragePooling2D(name="avg_pool")(x)
        x = layers.Dense(classes, activation=classifier_activation, name="predictions")(x)
    else:
        x = pool_features(x, pooling, "avg_pool", "max_pool")
    model = Model(inputs, x, name=name)
    if weights == "imagenet":
        file_name = f"{weights_name}_weights_tf_dim_ordering_tf_kernels.h5"
        path = imagenet_utils.resolve_weights(
            weights, include_top, BASE_WEIGHTS_PATH + file_name,
            BASE_WEIGHTS_PATH + file_name.replace(".h5", "_notop.h5"),
            *WEIGHTS_HASHES[weights_name])
        imagenet_utils.load_legacy_h5_weights(model, path)
    elif weights is not None:
        load_weights_file(model, weights)
    return model


@export("applications.ResNet50", "applications.resnet.ResNet50", "applications.resnet50.ResNet50",
        "keras.applications.ResNet50", "keras.applications.resnet.ResNet50",
        "keras.applications.resnet50.ResNet50")
def ResNet50(include_top=True, weights="imagenet", input_tensor=None, input_shape=None,  # noqa: N802
             pooling=None, classes=1000, classifier_activation="softmax", name="resnet50"):
    """ResNet50 v1 as a functional Model named `name` (3, 4, 6, 3 bottleneck blocks).

    Default input 224x224x3, smallest 32x32. `weights`: None, 'imagenet' (downloaded once
    through `tf.keras.utils.get_file` and cached) or the path of a Keras weights file.
    `include_top` adds 'avg_pool' and the 'predictions' Dense layer; otherwise `pooling` None,
    'avg' or 'max' chooses the output. Inputs are expected 'caffe'-style: see
    `preprocess_input`.
    """
    return _resnet("resnet50", name, include_top, weights, input_tensor, input_shape, pooling,
                   classes, classifier_activation)


@export("applications.ResNet101", "applications.resnet.ResNet101", "keras.applications.ResNet101",
        "keras.applications.resnet.ResNet101")
def ResNet101(include_top=True, weights="imagenet", input_tensor=None, input_shape=None,  # noqa: N802
              pooling=None, classes=1000, classifier_activation="softmax", name="resnet101"):
    """ResNet101 v1 (3, 4, 23, 3 bottleneck blocks); arguments as for `ResNet50`."""
    return _resnet("resnet101", name, include_top, weights, input_tensor, input_shape, pooling,
                   classes, classifier_activation)


@export("applications.ResNet152", "applications.resnet.ResNet152", "keras.applications.ResNet152",
        "keras.applications.resnet.ResNet152")
def ResNet152(include_top=True, weights="imagenet", input_tensor=None, input_shape=None,  # noqa: N802
              pooling=None, classes=1000, classifier_activation="softmax", name="resnet152"):
    """ResNet152 v1 (3, 8, 36, 3 bottleneck blocks); arguments as for `ResNet50`."""
    return _resnet("resnet152", name, include_top, weights, input_tensor, input_shape, pooling,
                   classes, classifier_activation)


@export("applications.resnet.preprocess_input", "applications.resnet50.preprocess_input",
        "keras.applications.resnet.preprocess_input",
        "keras.applications.resnet50.preprocess_input")
def preprocess_input(x, data_format=None):
    """'caffe' preprocessing: RGB in [0, 255] -> BGR minus the ImageNet channel means."""
    return imagenet_utils.preprocess_input(x, data_format=data_format, mode="caffe")


@export("applications.resnet.decode_predictions", "applications.resnet50.decode_predictions",
        "keras.applications.resnet.decode_predictions",
        "keras.applications.resnet50.decode_predictions")
def decode_predictions(preds, top=5):
    """See `tf.keras.applications.imagenet_utils.decode_predictions`."""
    return imagenet_utils.decode_predictions(preds, top=top)
