"""tf.keras.backend: Keras' global settings (float type, epsilon, image layout, clear_session)
and the backend functions TF 2.21's tf.keras.backend still exports (Keras 2's, from
keras.src.legacy.backend), with TF's dtypes and results. Re-exports only: the settings live in
minitf.keras_core.config (the bottom of the Keras tier, which every Keras module may import), the
functions in minitf.keras_ops.legacy*, dtypes and config.

`on_clear_session(reset)` registers a function clear_session() runs (minitf's own hook).
"""
from minitf.keras_core.config import on_clear_session  # noqa: F401
from minitf.keras_ops.nn_ctc import (ctc_batch_cost, ctc_label_dense_to_sparse,  # noqa: F401
                                     legacy_ctc_decode as ctc_decode)
from minitf.keras_core.config import (  # noqa: F401,A004
    backend, clear_session, epsilon, floatx, image_data_format, set_epsilon, set_floatx,
    set_image_data_format)
from minitf.keras_ops.dtypes import (  # noqa: F401,A004
    is_float_dtype, is_int_dtype, result_type, standardize_dtype)
from minitf.keras_ops.legacy import (  # noqa: F401,A004
    abs, all, any, arange, argmax, argmin, batch_dot, batch_flatten, cast, clip, concatenate, cos,
    cumprod, cumsum, dot, elu, equal, exp, expand_dims, flatten, foldl, foldr, gather, greater,
    greater_equal, hard_sigmoid, in_top_k, l2_normalize, less, less_equal, log, map_fn, max,
    maximum, mean, min, minimum, ndim, not_equal, one_hot, ones_like, permute_dimensions, pow,
    prod, relu, repeat, repeat_elements, reshape, reverse, round, shape, sigmoid, sign, sin,
    softmax, softplus, softsign, sqrt, square, squeeze, stack, std, stop_gradient, sum, switch,
    tanh, tile, transpose, var, zeros_like)
from minitf.keras_ops.legacy_nn import (  # noqa: F401,A004
    batch_normalization, bias_add, binary_crossentropy, binary_focal_crossentropy,
    categorical_crossentropy, categorical_focal_crossentropy, conv1d, conv2d, conv2d_transpose,
    conv3d, depthwise_conv2d, pool2d, pool3d, resize_images, resize_volumes, rnn, separable_conv2d,
    sparse_categorical_crossentropy, spatial_2d_padding, spatial_3d_padding, temporal_padding)
from minitf.keras_ops.legacy_state import (  # noqa: F401,A004
    batch_get_value, batch_set_value, cast_to_floatx, constant, count_params, dropout, dtype, eval,
    eye, get_uid, get_value, gradients, int_shape, is_keras_tensor, is_sparse,
    moving_average_update, name_scope, ones, random_bernoulli, random_normal,
    random_normal_variable, random_uniform, random_uniform_variable, set_value, to_dense,
    truncated_normal, update, update_add, update_sub, variable, zeros)

__all__ = [
    "abs", "all", "any", "arange", "argmax", "argmin", "backend", "batch_dot", "batch_flatten",
    "batch_get_value", "batch_normalization", "batch_set_value", "bias_add", "binary_crossentropy",
    "binary_focal_crossentropy", "cast", "cast_to_floatx", "categorical_crossentropy",
    "categorical_focal_crossentropy", "clear_session", "clip", "concatenate", "constant", "conv1d",
    "conv2d", "conv2d_transpose", "conv3d", "cos", "count_params", "ctc_batch_cost", "ctc_decode",
    "ctc_label_dense_to_sparse", "cumprod", "cumsum", "depthwise_conv2d", "dot", "dropout",
    "dtype", "elu", "epsilon", "equal", "eval", "exp", "expand_dims", "eye", "flatten", "floatx",
    "foldl", "foldr", "gather", "get_uid", "get_value", "gradients", "greater", "greater_equal",
    "hard_sigmoid", "image_data_format", "in_top_k", "int_shape", "is_float_dtype", "is_int_dtype",
    "is_keras_tensor", "is_sparse", "l2_normalize", "less", "less_equal", "log", "map_fn", "max",
    "maximum", "mean", "min", "minimum", "moving_average_update", "name_scope", "ndim",
    "not_equal", "one_hot", "ones", "ones_like", "permute_dimensions", "pool2d", "pool3d", "pow",
    "prod", "random_bernoulli", "random_normal", "random_normal_variable", "random_uniform",
    "random_uniform_variable", "relu", "repeat", "repeat_elements", "reshape", "resize_images",
    "resize_volumes", "result_type", "reverse", "rnn", "round", "separable_conv2d", "set_epsilon",
    "set_floatx", "set_image_data_format", "set_value", "shape", "sigmoid", "sign", "sin",
    "softmax", "softplus", "softsign", "sparse_categorical_crossentropy", "spatial_2d_padding",
    "spatial_3d_padding", "sqrt", "square", "squeeze", "stack", "standardize_dtype", "std",
    "stop_gradient", "sum", "switch", "tanh", "temporal_padding", "tile", "to_dense", "transpose",
    "truncated_normal", "update", "update_add", "update_sub", "var", "variable", "zeros",
    "zeros_like"]
