"""tf.keras.ops.nn: activations, convolutions, pooling, normalizations, crossentropies and
attention of keras.ops (re-exports only). Implemented in minitf.keras_ops.nn_*."""
from minitf.keras_ops.nn_ctc import ctc_decode, ctc_loss  # noqa: F401
from minitf.keras_ops.nn_activations import (  # noqa: F401,A004
    celu, elu, gelu, glu, hard_shrink, hard_sigmoid, hard_silu, hard_swish, hard_tanh, leaky_relu,
    log_sigmoid, log_softmax, relu, relu6, selu, sigmoid, silu, soft_shrink, softmax, softplus,
    softsign, sparse_plus, sparse_sigmoid, sparsemax, squareplus, swish, tanh_shrink, threshold)
from minitf.keras_ops.nn_conv import (  # noqa: F401,A004
    adaptive_average_pool, adaptive_max_pool, average_pool, conv, conv_transpose, depth_to_space,
    depthwise_conv, fold, max_pool, separable_conv, space_to_depth, unfold)
from minitf.keras_ops.nn_misc import (  # noqa: F401,A004
    batch_normalization, binary_crossentropy, categorical_crossentropy, dot_product_attention,
    layer_normalization, moments, multi_hot, normalize, one_hot, polar, psnr, rms_normalization,
    sparse_categorical_crossentropy)

__all__ = [
    "adaptive_average_pool", "adaptive_max_pool", "average_pool", "batch_normalization",
    "binary_crossentropy", "categorical_crossentropy", "celu", "conv", "conv_transpose",
    "ctc_decode", "ctc_loss", "depth_to_space", "depthwise_conv", "dot_product_attention", "elu",
    "fold", "gelu", "glu", "hard_shrink", "hard_sigmoid", "hard_silu", "hard_swish", "hard_tanh",
    "layer_normalization", "leaky_relu", "log_sigmoid", "log_softmax", "max_pool", "moments",
    "multi_hot", "normalize", "one_hot", "polar", "psnr", "relu", "relu6", "rms_normalization",
    "selu", "separable_conv", "sigmoid", "silu", "soft_shrink", "softmax", "softplus", "softsign",
    "space_to_depth", "sparse_categorical_crossentropy", "sparse_plus", "sparse_sigmoid",
    "sparsemax", "squareplus", "swish", "tanh_shrink", "threshold", "unfold"]
