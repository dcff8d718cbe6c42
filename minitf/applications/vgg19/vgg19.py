"""tf.keras.applications.vgg19: the VGG19 network (Simonyan & Zisserman, 2014) with Keras' layer
names, so the published Keras ImageNet weights load into it."""
from minitf import layers
from minitf.applications.imagenet_utils import imagenet_utils
from minitf.models.model import Model
from minitf.api_export import export

__all__ = ["VGG19", "preprocess_input", "decode_predictions"]

WEIGHTS_PATH = ("https://storage.googleapis.com/tensorflow/keras-applications/vgg19/"
                "vgg19_weights_tf_dim_ordering_tf_kernels.h5")
WEIGHTS_PATH_NO_TOP = ("https://storage.googleapis.com/tensorflow/keras-applications/vgg19/"
                       "vgg19_weights_tf_dim_ordering_tf_kernels_notop.h5")
WEIGHTS_HASH = "cbe5617147190e668d6c5d5026f83318"  # md5, as published in Keras' source
WEIGHTS_HASH_NO_TOP = "253f8cb515780f3b799900260a226db6"

# (filters, number of 3x3 convolutions) of the five blocks
BLOCKS = ((64, 2), (128, 2), (256, 4), (512, 4), (512, 4))


@export("applications.VGG19", "applications.vgg19.VGG19", "keras.applications.VGG19",
        "keras.applications.vgg19.VGG19")
def VGG19(include_top=True, weights="imagenet", input_tensor=None, input_shape=None,  # noqa: N802
          pooling=None, classes=1000, classifier_activation="softmax", name="vgg19"):
    """The VGG19 model as a functional Model named `name`.

    `weights`: None (random initialisation), 'imagenet' (downloaded once through
    `tf.keras.utils.get_file` and cached) or the path of a Keras 2 h5 weights file.
    `include_top` adds flatten/fc1/fc2/predictions (then the input must be 224x224 with
    ImageNet weights); otherwise `pooling` None, 'avg' or 'max' chooses the output.
    Layers are named block1_conv1 ... block5_pool as in Keras.
    """
    imagenet_utils.check_weights_argument(weights, include_top, classes, classifier_activation)
    input_shape = imagenet_utils.obtain_input_shape(input_shape, default_size=224, min_size=32,
                                                    require_flatten=include_top,
                                                    weights=weights)
    img_input, inputs = imagenet_utils.model_inputs(input_tensor, input_shape)
    x = img_input
    for block, (filters, convs) in enumerate(BLOCKS, start=1):
        for i in range(1, convs + 1):
            x = layers.Conv2D(filters, (3, 3), activation="relu", padding="same",
                              name=f"block{block}_conv{i}")(x)
        x = layers.MaxPooling2D((2, 2), strides=(2, 2), name=f"block{block}_pool")(x)
    if include_top:
        x = layers.Flatten(name="flatten")(x)
        x = layers.Dense(4096, activation="relu", name="fc1")(x)
        x = layers.Dense(4096, activation="relu", name="fc2")(x)
        x = layers.Dense(classes, activation=classifier_activation, name="predictions")(x)
    elif pooling == "avg":
        x = layers.GlobalAveragePooling2D()(x)
    elif pooling == "max":
        x = layers.GlobalMaxPooling2D()(x)
    model = Model(inputs, x, name=name)
    if weights is not None:
        path = imagenet_utils.resolve_weights(weights, include_top, WEIGHTS_PATH,
                                              WEIGHTS_PATH_NO_TOP, WEIGHTS_HASH,
                                              WEIGHTS_HASH_NO_TOP)
        imagenet_utils.load_legacy_h5_weights(model, path)
    return model


@export("applications.vgg19.preprocess_input", "keras.applications.vgg19.preprocess_input")
def preprocess_input(x, data_format=None):
    """'caffe' preprocessing: RGB in [0, 255] -> BGR minus the ImageNet channel means."""
    return imagenet_utils.preprocess_input(x, data_format=data_format, mode="caffe")


@export("applications.vgg19.decode_predictions", "keras.applications.vgg19.decode_predictions")
def decode_predictions(preds, top=5):
    """See `tf.keras.applications.imagenet_utils.decode_predictions`."""
    return imagenet_utils.decode_predictions(preds, top=top)
