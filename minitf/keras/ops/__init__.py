"""tf.keras.ops: Keras 3's backend-neutral operations, as Keras on TensorFlow runs them.

Re-exports only; the functions live in minitf.keras_ops (one module per family). They take
tensors, variables, numpy arrays and Python data, return minitf tensors, and promote dtypes with
Keras' rules (`keras.backend.result_type`). Given a symbolic KerasTensor they add a node to the
functional graph instead. The namespaces `nn`, `numpy`, `linalg` and `image` are submodules.

Not provided: eig (no general eigensolver in minitf; eigh covers symmetric matrices).
"""
from minitf.keras_ops.control import (  # noqa: F401,A004
    associative_scan, cond, custom_gradient, fori_loop, map, scan, switch, vectorize,
    vectorized_map, while_loop)
from minitf.keras_ops.core import (  # noqa: F401,A004
    cast, convert_to_numpy, convert_to_tensor, dtype, is_tensor, saturate_cast, scatter,
    scatter_update, shape, slice, slice_update, stop_gradient, unstack)
from minitf.keras_ops.einops import (  # noqa: F401,A004
    rearrange)
from minitf.keras_ops.fft import (  # noqa: F401,A004
    fft, fft2, ifft2, irfft, istft, rfft, stft)
from minitf.keras_ops.linalg import (  # noqa: F401,A004
    cholesky, cholesky_inverse, det, eigh, inv, jvp, lstsq, lu_factor, matrix_rank, norm, pinv, qr,
    solve, solve_triangular, svd)
from minitf.keras_ops.math_ops import (  # noqa: F401,A004
    segment_max, segment_min, segment_prod, segment_sum)
from minitf.keras_ops.nn_ctc import ctc_decode, ctc_loss  # noqa: F401
from minitf.keras_ops.math_ops import (  # noqa: F401,A004
    cdist, erf, erfc, erfinv, extract_sequences, in_top_k, logdet, logsumexp, rsqrt, top_k,
    view_as_complex, view_as_real)
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
from minitf.keras_ops.np_create import (  # noqa: F401,A004
    arange, bartlett, blackman, diag, diagflat, diagonal, empty, empty_like, eye, full, full_like,
    geomspace, hamming, hanning, identity, kaiser, linspace, logspace, meshgrid, ones, ones_like,
    trace, tri, tril, triu, vander, zeros, zeros_like)
from minitf.keras_ops.np_index import (  # noqa: F401,A004
    argpartition, argsort, bincount, digitize, histogram, isin, nonzero, searchsorted, sort, take,
    take_along_axis, unique, unravel_index)
from minitf.keras_ops.np_linalg import (  # noqa: F401,A004
    corrcoef, correlate, cross, diff, dot, einsum, inner, kron, matmul, outer, slogdet, tensordot,
    trapezoid, vdot)
from minitf.keras_ops.np_logic import (  # noqa: F401,A004
    allclose, angle, bitwise_and, bitwise_invert, bitwise_left_shift, bitwise_not, bitwise_or,
    bitwise_right_shift, bitwise_xor, clip, conj, conjugate, equal, gcd, greater, greater_equal,
    imag, isclose, isfinite, isinf, isnan, isneginf, isposinf, isreal, lcm, left_shift, less,
    less_equal, logical_and, logical_not, logical_or, logical_xor, nan_to_num, nextafter,
    not_equal, real, right_shift, select, signbit, where)
from minitf.keras_ops.np_math import (  # noqa: F401,A004
    abs, absolute, add, arccos, arccosh, arcsin, arcsinh, arctan, arctan2, arctanh, cbrt, ceil,
    cos, cosh, deg2rad, divide, divide_no_nan, exp, exp2, expm1, fabs, floor, floor_divide, fmax,
    fmin, fmod, heaviside, hypot, i0, ldexp, log, log10, log1p, log2, logaddexp, logaddexp2,
    maximum, minimum, mod, multiply, negative, power, rad2deg, reciprocal, round, sign, sin, sinc,
    sinh, sqrt, square, subtract, tan, tanh, true_divide, trunc)
from minitf.keras_ops.np_reduce import (  # noqa: F401,A004
    all, amax, amin, any, argmax, argmin, average, count_nonzero, cumprod, cumsum, max, mean,
    median, min, nanargmax, nanargmin, nancumprod, nancumsum, nanmax, nanmean, nanmedian, nanmin,
    nanpercentile, nanprod, nanquantile, nanstd, nansum, nanvar, percentile, prod, ptp, quantile,
    std, sum, var)
from minitf.keras_ops.np_shape import (  # noqa: F401,A004
    append, array, array_split, broadcast_to, concatenate, copy, dsplit, dstack, expand_dims, flip,
    fliplr, flipud, get_item, hsplit, hstack, moveaxis, ndim, pad, ravel, repeat, reshape, roll,
    rot90, size, split, squeeze, stack, swapaxes, tile, transpose, view, vsplit, vstack)
from minitf.keras.ops import image, linalg, nn, numpy  # noqa: F401,E402 (the sub-namespaces)

__all__ = [
    "abs", "absolute", "adaptive_average_pool", "adaptive_max_pool", "add", "all", "allclose",
    "amax", "amin", "angle", "any", "append", "arange", "arccos", "arccosh", "arcsin", "arcsinh",
    "arctan", "arctan2", "arctanh", "argmax", "argmin", "argpartition", "argsort", "array",
    "array_split", "associative_scan", "average", "average_pool", "bartlett",
    "batch_normalization", "binary_crossentropy", "bincount", "bitwise_and", "bitwise_invert",
    "bitwise_left_shift", "bitwise_not", "bitwise_or", "bitwise_right_shift", "bitwise_xor",
    "blackman", "broadcast_to", "cast", "categorical_crossentropy", "cbrt", "cdist", "ceil",
    "celu", "cholesky", "cholesky_inverse", "clip", "concatenate", "cond", "conj", "conjugate",
    "conv", "conv_transpose", "convert_to_numpy", "convert_to_tensor", "copy", "corrcoef",
    "correlate", "cos", "cosh", "count_nonzero", "cross", "ctc_decode", "ctc_loss", "cumprod",
    "cumsum", "custom_gradient", "deg2rad", "depth_to_space", "depthwise_conv", "det", "diag",
    "diagflat", "diagonal", "diff", "digitize", "divide", "divide_no_nan", "dot",
    "dot_product_attention", "dsplit", "dstack", "dtype", "eigh", "einsum", "elu", "empty",
    "empty_like", "equal", "erf", "erfc", "erfinv", "exp", "exp2", "expand_dims", "expm1",
    "extract_sequences", "eye", "fabs", "fft", "fft2", "flip", "fliplr", "flipud", "floor",
    "floor_divide", "fmax", "fmin", "fmod", "fold", "fori_loop", "full", "full_like", "gcd",
    "gelu", "geomspace", "get_item", "glu", "greater", "greater_equal", "hamming", "hanning",
    "hard_shrink", "hard_sigmoid", "hard_silu", "hard_swish", "hard_tanh", "heaviside",
    "histogram", "hsplit", "hstack", "hypot", "i0", "identity", "ifft2", "imag", "in_top_k",
    "inner", "inv", "irfft", "is_tensor", "isclose", "isfinite", "isin", "isinf", "isnan",
    "isneginf", "isposinf", "isreal", "istft", "jvp", "kaiser", "kron", "layer_normalization",
    "lcm", "ldexp", "leaky_relu", "left_shift", "less", "less_equal", "linspace", "log", "log10",
    "log1p", "log2", "log_sigmoid", "log_softmax", "logaddexp", "logaddexp2", "logdet",
    "logical_and", "logical_not", "logical_or", "logical_xor", "logspace", "logsumexp", "lstsq",
    "lu_factor", "map", "matmul", "matrix_rank", "max", "max_pool", "maximum", "mean", "median",
    "meshgrid", "min", "minimum", "mod", "moments", "moveaxis", "multi_hot", "multiply",
    "nan_to_num", "nanargmax", "nanargmin", "nancumprod", "nancumsum", "nanmax", "nanmean",
    "nanmedian", "nanmin", "nanpercentile", "nanprod", "nanquantile", "nanstd", "nansum", "nanvar",
    "ndim", "negative", "nextafter", "nonzero", "norm", "normalize", "not_equal", "one_hot",
    "ones", "ones_like", "outer", "pad", "percentile", "pinv", "polar", "power", "prod", "psnr",
    "ptp", "qr", "quantile", "rad2deg", "ravel", "real", "rearrange", "reciprocal", "relu",
    "relu6", "repeat", "reshape", "rfft", "right_shift", "rms_normalization", "roll", "rot90",
    "round", "rsqrt", "saturate_cast", "scan", "scatter", "scatter_update", "searchsorted",
    "segment_max", "segment_min", "segment_prod", "segment_sum", "select", "selu",
    "separable_conv", "shape", "sigmoid", "sign", "signbit", "silu", "sin", "sinc", "sinh", "size",
    "slice", "slice_update", "slogdet", "soft_shrink", "softmax", "softplus", "softsign", "solve",
    "solve_triangular", "sort", "space_to_depth", "sparse_categorical_crossentropy", "sparse_plus",
    "sparse_sigmoid", "sparsemax", "split", "sqrt", "square", "squareplus", "squeeze", "stack",
    "std", "stft", "stop_gradient", "subtract", "sum", "svd", "swapaxes", "swish", "switch",
    "take", "take_along_axis", "tan", "tanh", "tanh_shrink", "tensordot", "threshold", "tile",
    "top_k", "trace", "transpose", "trapezoid", "tri", "tril", "triu", "true_divide", "trunc",
    "unfold", "unique", "unravel_index", "unstack", "vander", "var", "vdot", "vectorize",
    "vectorized_map", "view", "view_as_complex", "view_as_real", "vsplit", "vstack", "where",
    "while_loop", "zeros", "zeros_like"]
