"""tf.keras.ops.numpy: the numpy-like functions of keras.ops (re-exports only; every name is the
object `keras.ops` exports too). Implemented in minitf.keras_ops.np_*."""
from minitf.keras_ops.control import (  # noqa: F401,A004
    vectorize)
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

__all__ = [
    "abs", "absolute", "add", "all", "allclose", "amax", "amin", "angle", "any", "append",
    "arange", "arccos", "arccosh", "arcsin", "arcsinh", "arctan", "arctan2", "arctanh", "argmax",
    "argmin", "argpartition", "argsort", "array", "array_split", "average", "bartlett", "bincount",
    "bitwise_and", "bitwise_invert", "bitwise_left_shift", "bitwise_not", "bitwise_or",
    "bitwise_right_shift", "bitwise_xor", "blackman", "broadcast_to", "cbrt", "ceil", "clip",
    "concatenate", "conj", "conjugate", "copy", "corrcoef", "correlate", "cos", "cosh",
    "count_nonzero", "cross", "cumprod", "cumsum", "deg2rad", "diag", "diagflat", "diagonal",
    "diff", "digitize", "divide", "divide_no_nan", "dot", "dsplit", "dstack", "einsum", "empty",
    "empty_like", "equal", "exp", "exp2", "expand_dims", "expm1", "eye", "fabs", "flip", "fliplr",
    "flipud", "floor", "floor_divide", "fmax", "fmin", "fmod", "full", "full_like", "gcd",
    "geomspace", "get_item", "greater", "greater_equal", "hamming", "hanning", "heaviside",
    "histogram", "hsplit", "hstack", "hypot", "i0", "identity", "imag", "inner", "isclose",
    "isfinite", "isin", "isinf", "isnan", "isneginf", "isposinf", "isreal", "kaiser", "kron",
    "lcm", "ldexp", "left_shift", "less", "less_equal", "linspace", "log", "log10", "log1p",
    "log2", "logaddexp", "logaddexp2", "logical_and", "logical_not", "logical_or", "logical_xor",
    "logspace", "matmul", "max", "maximum", "mean", "median", "meshgrid", "min", "minimum", "mod",
    "moveaxis", "multiply", "nan_to_num", "nanargmax", "nanargmin", "nancumprod", "nancumsum",
    "nanmax", "nanmean", "nanmedian", "nanmin", "nanpercentile", "nanprod", "nanquantile",
    "nanstd", "nansum", "nanvar", "ndim", "negative", "nextafter", "nonzero", "not_equal", "ones",
    "ones_like", "outer", "pad", "percentile", "power", "prod", "ptp", "quantile", "rad2deg",
    "ravel", "real", "reciprocal", "repeat", "reshape", "right_shift", "roll", "rot90", "round",
    "searchsorted", "select", "sign", "signbit", "sin", "sinc", "sinh", "size", "slogdet", "sort",
    "split", "sqrt", "square", "squeeze", "stack", "std", "subtract", "sum", "swapaxes", "take",
    "take_along_axis", "tan", "tanh", "tensordot", "tile", "trace", "transpose", "trapezoid",
    "tri", "tril", "triu", "true_divide", "trunc", "unique", "unravel_index", "vander", "var",
    "vdot", "vectorize", "view", "vsplit", "vstack", "where", "zeros", "zeros_like"]
