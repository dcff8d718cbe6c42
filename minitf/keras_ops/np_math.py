"""keras.ops (numpy-like): elementwise arithmetic, powers, exponentials and trigonometry.

Dtypes follow Keras 3 on TensorFlow: binary ops promote with `result_type`, where Python
scalars are weak (`int8_tensor + 1` stays int8, `int_tensor * 0.5` becomes float32);
transcendental functions of integers give `floatx()` (int64 too), of floats keep the float.
"""
import math

import numpy as np

from minitf.errors import errors
from minitf.keras_core import config
from minitf.keras_ops.core import convert, keras_op
from minitf.keras_ops.dtypes import result_type
from minitf.ops import array as array_ops
from minitf.ops import compare as CMP
from minitf.ops import constant as constant_ops
from minitf.ops import math as math_ops
from minitf.ops.gather import where as tf_where
from minitf.api_export import export, export_value

__all__ = ["add", "subtract", "multiply", "divide", "true_divide", "divide_no_nan", "power",
           "floor_divide", "mod", "fmod", "maximum", "minimum", "fmax", "fmin", "negative",
           "absolute", "abs", "fabs", "square", "sqrt", "cbrt", "reciprocal", "sign", "exp",
           "exp2", "expm1", "log", "log10", "log2", "log1p", "logaddexp", "logaddexp2", "sin",
           "cos", "tan", "arcsin", "arccos", "arctan", "arctan2", "sinh", "cosh", "tanh",
           "arcsinh", "arccosh", "arctanh", "sinc", "hypot", "deg2rad", "rad2deg", "floor",
           "ceil", "round", "trunc", "ldexp", "heaviside", "i0", "float_dtype_of", "weak_pair"]


def weak_pair(x1, x2, *extra):
    """Both operands converted to their Keras result type (Python ints and floats weak)."""
    if not isinstance(x1, (int, float)):
        x1 = convert(x1)
    if not isinstance(x2, (int, float)):
        x2 = convert(x2)
    dtype = result_type(getattr(x1, "dtype", type(x1)), getattr(x2, "dtype", type(x2)), *extra)
    return convert(x1, dtype), convert(x2, dtype)


def strong_pair(x1, x2, *extra):
    """Both operands converted to tensors first, then to their common Keras dtype."""
    x1, x2 = convert(x1), convert(x2)
    dtype = result_type(x1.dtype, x2.dtype, *extra)
    return convert(x1, dtype), convert(x2, dtype)


def float_dtype_of(x):
    """The float dtype a transcendental function of `x` computes in (int64 -> floatx)."""
    name = x.dtype.name
    return config.floatx() if name == "int64" else result_type(name, float)


def _float(x):
    x = convert(x)
    return convert(x, float_dtype_of(x))


def _floatx_if_int(x):
    x = convert(x)
    name = x.dtype.name
    if "int" in name or name == "bool":
        return constant_ops.cast(x, config.floatx())
    return x


def _wide_float(name, bools=True):
    """Ints up to 32 bits (and bool, unless `bools` is False) -> floatx, int64 -> float64."""
    if name == "bool" and not bools:
        raise errors.invalid_argument("Abs", "Value for attr 'T' of bool is not in the list of "
                                             "allowed values: bfloat16, half, float, double, "
                                             "int8, int16, int32, int64; cast the bools first")
    if name in ("bool", "int8", "int16", "int32", "uint8", "uint16", "uint32"):
        return config.floatx()
    if name == "int64":
        return "float64"
    return name


# -- arithmetic -------------------------------------------------------------------------------

def _bias_like(x1, x2):
    """Keras on TF adds a 'bias' x2 (one non-1 dimension matching x1's first or last axis) with
    tf.nn.bias_add: along x1's last axis if it matches, else along axis 1."""
    dims = [int(d) for d in x2.shape if d > 1]
    if len(dims) != 1 or x1.shape.rank <= 1:
        return None
    first, last = int(x1.shape[1]), int(x1.shape[-1])
    if dims[0] not in (first, last):
        return None
    bias = array_ops.squeeze(x2) if x2.shape.rank > 1 else x2
    if bias.shape.rank != 1:
        raise errors.invalid_argument("BiasAdd", f"Biases must be 1D: {list(bias.shape)}")
    if last == dims[0]:
        return math_ops.add(x1, bias)
    return math_ops.add(x1, array_ops.reshape(bias, [1, dims[0]] + [1] * (x1.shape.rank - 2)))


@export("keras.ops.add", "keras.ops.numpy.add")
@keras_op
def add(x1, x2):
    """x1 + x2, elementwise, with Keras' dtype promotion (a bias-like x2 is added along x1's
    channel axis, as Keras on TF does)."""
    x1, x2 = weak_pair(x1, x2)
    out = _bias_like(x1, x2)
    return math_ops.add(x1, x2) if out is None else out


@export("keras.ops.subtract", "keras.ops.numpy.subtract")
@keras_op
def subtract(x1, x2):
    """x1 - x2, elementwise."""
    return math_ops.subtract(*weak_pair(x1, x2))


@export("keras.ops.multiply", "keras.ops.numpy.multiply")
@keras_op
def multiply(x1, x2):
    """x1 * x2, elementwise."""
    return math_ops.multiply(*weak_pair(x1, x2))


@export("keras.ops.divide", "keras.ops.numpy.divide")
@keras_op
def divide(x1, x2):
    """x1 / x2, elementwise, always in a float type."""
    return math_ops.divide(*weak_pair(x1, x2, float))


@export("keras.ops.true_divide", "keras.ops.numpy.true_divide")
@keras_op
def true_divide(x1, x2):
    """Alias of `divide`."""
    return math_ops.divide(*weak_pair(x1, x2, float))


@export("keras.ops.divide_no_nan", "keras.ops.numpy.divide_no_nan")
@keras_op
def divide_no_nan(x1, x2):
    """x1 / x2, with 0 where x2 is 0."""
    return math_ops.divide_no_nan(*weak_pair(x1, x2, float))


@export("keras.ops.power", "keras.ops.numpy.power")
@keras_op
def power(x1, x2):
    """x1 ** x2, elementwise (unsigned types compute in int32)."""
    if not isinstance(x1, (int, float)):
        x1 = convert(x1)
    if not isinstance(x2, (int, float)):
        x2 = convert(x2)
    dtype = result_type(getattr(x1, "dtype", type(x1)), getattr(x2, "dtype", type(x2)))
    if "uint" in dtype:
        return constant_ops.cast(math_ops.pow(convert(x1, "int32"), convert(x2, "int32")), dtype)
    return math_ops.pow(convert(x1, dtype), convert(x2, dtype))


@export("keras.ops.floor_divide", "keras.ops.numpy.floor_divide")
@keras_op
def floor_divide(x1, x2):
    """x1 // x2, elementwise."""
    return math_ops.floordiv(*weak_pair(x1, x2))


@export("keras.ops.mod", "keras.ops.numpy.mod")
@keras_op
def mod(x1, x2):
    """The remainder of x1 / x2 with the sign of x2 (bools compute in int32)."""
    x1, x2 = convert(x1), convert(x2)
    dtype = result_type(x1.dtype, x2.dtype)
    if dtype == "bool":
        dtype = "int32"
    return math_ops.floormod(convert(x1, dtype), convert(x2, dtype))


@export("keras.ops.fmod", "keras.ops.numpy.fmod")
@keras_op
def fmod(x1, x2):
    """The remainder of x1 / x2 with the sign of x1 (C's fmod)."""
    x1, x2 = convert(x1), convert(x2)
    dtype = result_type(x1.dtype, x2.dtype)
    if dtype == "bool":
        dtype = "int32"
    compute = "int32" if dtype in ("uint8", "uint16", "uint32") else dtype
    x1, x2 = convert(x1, compute), convert(x2, compute)
    out = math_ops.multiply(math_ops.sign(x1), math_ops.floormod(math_ops.abs(x1), math_ops.abs(x2)))
    return constant_ops.cast(out, dtype)


@export("keras.ops.maximum", "keras.ops.numpy.maximum")
@keras_op
def maximum(x1, x2):
    """The elementwise maximum (NaN wins)."""
    return math_ops.maximum(*weak_pair(x1, x2))


@export("keras.ops.minimum", "keras.ops.numpy.minimum")
@keras_op
def minimum(x1, x2):
    """The elementwise minimum (NaN wins)."""
    return math_ops.minimum(*weak_pair(x1, x2))


def _nan_ignoring(fn, x1, x2):
    x1, x2 = weak_pair(x1, x2)
    if "float" not in x1.dtype.name:
        return fn(x1, x2)
    nan1, nan2 = CMP.is_nan(x1), CMP.is_nan(x2)
    out = fn(x1, x2)
    out = tf_where(CMP.logical_and(nan1, CMP.logical_not(nan2)), x2, out)
    return tf_where(CMP.logical_and(nan2, CMP.logical_not(nan1)), x1, out)


@export("keras.ops.fmax", "keras.ops.numpy.fmax")
@keras_op
def fmax(x1, x2):
    """The elementwise maximum, ignoring a NaN on one side."""
    return _nan_ignoring(math_ops.maximum, x1, x2)


@export("keras.ops.fmin", "keras.ops.numpy.fmin")
@keras_op
def fmin(x1, x2):
    """The elementwise minimum, ignoring a NaN on one side."""
    return _nan_ignoring(math_ops.minimum, x1, x2)


@export("keras.ops.negative", "keras.ops.numpy.negative")
@keras_op
def negative(x):
    """-x, elementwise."""
    return math_ops.negative(convert(x))


@export("keras.ops.absolute", "keras.ops.numpy.absolute")
@keras_op
def absolute(x):
    """|x|, elementwise (unsigned and bool tensors come back unchanged)."""
    x = convert(x)
    if "uint" in x.dtype.name or x.dtype.name == "bool":
        return x
    return math_ops.abs(x)


@export("keras.ops.abs", "keras.ops.numpy.abs")
@keras_op
def abs(x):  # noqa: A001 (Keras' name)
    """Alias of `absolute`."""
    return absolute(x)


@export("keras.ops.fabs", "keras.ops.numpy.fabs")
@keras_op
def fabs(x):
    """|x| in a float type (ints and bools give floatx)."""
    x = convert(x)
    if "complex" in x.dtype.name:
        raise TypeError(f"fabs does not support complex inputs. Received: x.dtype={x.dtype.name}")
    return math_ops.abs(_floatx_if_int(x))


@export("keras.ops.square", "keras.ops.numpy.square")
@keras_op
def square(x):
    """x * x, elementwise (bools compute in int32)."""
    x = convert(x)
    if x.dtype.name == "bool":
        x = constant_ops.cast(x, "int32")
    return math_ops.square(x)


@export("keras.ops.sqrt", "keras.ops.numpy.sqrt")
@keras_op
def sqrt(x):
    """The square root, in a float type."""
    return math_ops.sqrt(_float(x))


@export("keras.ops.cbrt", "keras.ops.numpy.cbrt")
@keras_op
def cbrt(x):
    """The real cube root (int64 computes in float64, other ints in floatx)."""
    x = convert(x)
    name = x.dtype.name
    if name == "int64":
        x = constant_ops.cast(x, "float64")
    elif name not in ("bfloat16", "float16", "float64"):
        x = constant_ops.cast(x, config.floatx())
    return math_ops.multiply(math_ops.sign(x), math_ops.pow(math_ops.abs(x), constant_ops.constant(1.0 / 3.0, dtype=x.dtype)))


@export("keras.ops.reciprocal", "keras.ops.numpy.reciprocal")
@keras_op
def reciprocal(x):
    """1 / x, elementwise."""
    return math_ops.reciprocal(convert(x))


@export("keras.ops.sign", "keras.ops.numpy.sign")
@keras_op
def sign(x):
    """-1, 0 or 1 by the sign of x (unsigned types compute in int32)."""
    x = convert(x)
    name = x.dtype.name
    if name in ("uint8", "uint16", "uint32"):
        return constant_ops.cast(math_ops.sign(constant_ops.cast(x, "int32")), name)
    return math_ops.sign(x)


@export("keras.ops.exp", "keras.ops.numpy.exp")
@keras_op
def exp(x):
    """e ** x (ints and bools give floatx)."""
    return math_ops.exp(_floatx_if_int(x))


@export("keras.ops.exp2", "keras.ops.numpy.exp2")
@keras_op
def exp2(x):
    """2 ** x (ints and bools give floatx)."""
    x = _floatx_if_int(x)
    return math_ops.pow(constant_ops.constant(2.0, dtype=x.dtype), x)


@export("keras.ops.expm1", "keras.ops.numpy.expm1")
@keras_op
def expm1(x):
    """e ** x - 1, accurate near 0."""
    return math_ops.expm1(_floatx_if_int(x))


@export("keras.ops.log", "keras.ops.numpy.log")
@keras_op
def log(x):
    """The natural logarithm, in a float type."""
    return math_ops.log(_float(x))


@export("keras.ops.log10", "keras.ops.numpy.log10")
@keras_op
def log10(x):
    """The base-10 logarithm."""
    x = _float(x)
    return math_ops.divide(math_ops.log(x), math_ops.log(constant_ops.constant(10, dtype=x.dtype)))


@export("keras.ops.log2", "keras.ops.numpy.log2")
@keras_op
def log2(x):
    """The base-2 logarithm."""
    x = _float(x)
    return math_ops.divide(math_ops.log(x), math_ops.log(constant_ops.constant(2, dtype=x.dtype)))


@export("keras.ops.log1p", "keras.ops.numpy.log1p")
@keras_op
def log1p(x):
    """log(1 + x), accurate near 0."""
    return math_ops.log1p(_float(x))


@export("keras.ops.logaddexp", "keras.ops.numpy.logaddexp")
@keras_op
def logaddexp(x1, x2):
    """log(exp(x1) + exp(x2)) without overflow."""
    x1, x2 = strong_pair(x1, x2, float)
    delta = math_ops.subtract(x1, x2)
    safe = math_ops.add(math_ops.maximum(x1, x2), math_ops.log1p(math_ops.exp(math_ops.negative(math_ops.abs(delta)))))
    return tf_where(CMP.is_nan(delta), math_ops.add(x1, x2), safe)


@export("keras.ops.logaddexp2", "keras.ops.numpy.logaddexp2")
@keras_op
def logaddexp2(x1, x2):
    """log2(2 ** x1 + 2 ** x2) without overflow."""
    x1, x2 = strong_pair(x1, x2, float)
    delta = math_ops.subtract(x1, x2)
    ln2 = constant_ops.cast(constant_ops.constant(math.log(2.0), dtype="float32"), x1.dtype)  # Keras: float32 log(2)
    tail = math_ops.divide(math_ops.log1p(math_ops.exp(math_ops.multiply(math_ops.negative(math_ops.abs(delta)), ln2))), ln2)
    return tf_where(CMP.is_nan(delta), math_ops.add(x1, x2), math_ops.add(math_ops.maximum(x1, x2), tail))


def _trig(fn, doc):
    def op(x):
        return fn(_float(x))
    op.__doc__ = doc
    return op


sin = keras_op(_trig(math_ops.sin, "The sine, in a float type."))
export_value("sin", "keras.ops.sin", "keras.ops.numpy.sin")
cos = keras_op(_trig(math_ops.cos, "The cosine, in a float type."))
export_value("cos", "keras.ops.cos", "keras.ops.numpy.cos")
tan = keras_op(_trig(math_ops.tan, "The tangent, in a float type."))
export_value("tan", "keras.ops.tan", "keras.ops.numpy.tan")
arcsin = keras_op(_trig(math_ops.asin, "The inverse sine, in a float type."))
export_value("arcsin", "keras.ops.arcsin", "keras.ops.numpy.arcsin")
arccos = keras_op(_trig(math_ops.acos, "The inverse cosine, in a float type."))
export_value("arccos", "keras.ops.arccos", "keras.ops.numpy.arccos")
arctan = keras_op(_trig(math_ops.atan, "The inverse tangent, in a float type."))
export_value("arctan", "keras.ops.arctan", "keras.ops.numpy.arctan")
sinh = keras_op(_trig(math_ops.sinh, "The hyperbolic sine, in a float type."))
export_value("sinh", "keras.ops.sinh", "keras.ops.numpy.sinh")
cosh = keras_op(_trig(math_ops.cosh, "The hyperbolic cosine, in a float type."))
export_value("cosh", "keras.ops.cosh", "keras.ops.numpy.cosh")
tanh = keras_op(_trig(math_ops.tanh, "The hyperbolic tangent, in a float type."))
export_value("tanh", "keras.ops.tanh", "keras.ops.numpy.tanh")
for _f, _n in ((sin, "sin"), (cos, "cos"), (tan, "tan"), (arcsin, "arcsin"), (arccos, "arccos"),
               (arctan, "arctan"), (sinh, "sinh"), (cosh, "cosh"), (tanh, "tanh")):
    _f.__name__ = _f.__qualname__ = _n


def _asinh(x):
    a = math_ops.abs(x)
    big = math_ops.add(math_ops.log(a), constant_ops.constant(math.log(2.0), dtype=x.dtype))
    huge = CMP.greater(a, constant_ops.constant(np.sqrt(np.finfo(x.dtype.as_numpy_dtype).max) / 2,
                                     dtype=x.dtype))
    safe = tf_where(huge, constant_ops.constant(1.0, dtype=x.dtype), a)
    # log1p(a + a^2 / (1 + sqrt(a^2 + 1))) keeps precision near 0; log(2a) where a^2 overflows
    inner = math_ops.add(safe, math_ops.divide(math_ops.square(safe), math_ops.add(math_ops.sqrt(math_ops.add(math_ops.square(safe), 1.0)), 1.0)))
    return math_ops.multiply(math_ops.sign(x), tf_where(huge, big, math_ops.log1p(inner)))


@export("keras.ops.arcsinh", "keras.ops.numpy.arcsinh")
@keras_op
def arcsinh(x):
    """The inverse hyperbolic sine, in a float type."""
    return _asinh(_float(x))


@export("keras.ops.arccosh", "keras.ops.numpy.arccosh")
@keras_op
def arccosh(x):
    """The inverse hyperbolic cosine (NaN below 1), in a float type."""
    x = _float(x)
    return math_ops.log(math_ops.add(x, math_ops.multiply(math_ops.sqrt(math_ops.subtract(x, 1.0)), math_ops.sqrt(math_ops.add(x, 1.0)))))


@export("keras.ops.arctanh", "keras.ops.numpy.arctanh")
@keras_op
def arctanh(x):
    """The inverse hyperbolic tangent (NaN outside [-1, 1]), in a float type."""
    x = _float(x)
    return math_ops.multiply(math_ops.log1p(math_ops.divide(math_ops.multiply(x, 2.0), math_ops.subtract(1.0, x))), 0.5)


@export("keras.ops.arctan2", "keras.ops.numpy.arctan2")
@keras_op
def arctan2(x1, x2):
    """The angle of the point (x2, x1), in a float type."""
    return math_ops.atan2(*strong_pair(x1, x2, float))


@export("keras.ops.sinc", "keras.ops.numpy.sinc")
@keras_op
def sinc(x):
    """sin(pi x) / (pi x), with 1 at 0."""
    x = _float(x)
    pix = math_ops.multiply(x, constant_ops.constant(np.pi, dtype=x.dtype))
    zero = CMP.equal(x, 0)
    safe = tf_where(zero, constant_ops.constant(1.0, dtype=x.dtype), pix)
    return tf_where(zero, constant_ops.constant(1.0, dtype=x.dtype), math_ops.divide(math_ops.sin(safe), safe))


@export("keras.ops.hypot", "keras.ops.numpy.hypot")
@keras_op
def hypot(x1, x2):
    """sqrt(x1**2 + x2**2) without overflow."""
    x1, x2 = convert(x1), convert(x2)
    dtype = _wide_float(result_type(x1.dtype, x2.dtype), bools=False)
    x1, x2 = constant_ops.cast(x1, dtype), constant_ops.cast(x2, dtype)
    a1, a2 = math_ops.abs(x1), math_ops.abs(x2)
    big, small = math_ops.maximum(a1, a2), math_ops.minimum(a1, a2)
    ratio = math_ops.divide_no_nan(small, big)
    return math_ops.multiply(big, math_ops.sqrt(math_ops.add(math_ops.square(ratio), 1.0)))


@export("keras.ops.deg2rad", "keras.ops.numpy.deg2rad")
@keras_op
def deg2rad(x):
    """Degrees to radians."""
    x = convert(x)
    x = constant_ops.cast(x, _wide_float(x.dtype.name))
    return math_ops.multiply(x, constant_ops.constant(math.pi, dtype=x.dtype) / constant_ops.constant(180.0, dtype=x.dtype))


@export("keras.ops.rad2deg", "keras.ops.numpy.rad2deg")
@keras_op
def rad2deg(x):
    """Radians to degrees."""
    x = convert(x)
    x = constant_ops.cast(x, _wide_float(x.dtype.name))
    return math_ops.multiply(x, constant_ops.constant(180.0, dtype=x.dtype) / constant_ops.constant(math.pi, dtype=x.dtype))


@export("keras.ops.floor", "keras.ops.numpy.floor")
@keras_op
def floor(x):
    """The largest integer not above x, in a float type."""
    return math_ops.floor(_float(x))


@export("keras.ops.ceil", "keras.ops.numpy.ceil")
@keras_op
def ceil(x):
    """The smallest integer not below x, in a float type."""
    return math_ops.ceil(_float(x))


@export("keras.ops.round", "keras.ops.numpy.round")
@keras_op
def round(x, decimals=0):  # noqa: A001 (Keras' name)
    """x rounded half to even to `decimals` places (negative: to tens, hundreds, ...)."""
    if decimals == 0:
        return math_ops.round(convert(x))
    if not hasattr(x, "dtype"):
        raise AttributeError(f"keras.ops.round with decimals needs `x` with a dtype (a tensor or "
                             f"an array), as Keras on TensorFlow does; received a "
                             f"{type(x).__name__}: '{type(x).__name__}' object has no attribute "
                             f"'dtype'")
    x = convert(x)
    dtype = x.dtype
    if dtype.is_integer:
        if decimals > 0:
            return x
        factor = constant_ops.constant(math.pow(10, decimals), dtype=config.floatx())
        x = constant_ops.cast(x, config.floatx())
    else:
        # as tf.cast(python_float, dtype): the factor passes through float32 first
        factor = constant_ops.cast(constant_ops.constant(math.pow(10, decimals), dtype="float32"), dtype)
    return constant_ops.cast(math_ops.divide(math_ops.round(math_ops.multiply(x, factor)), factor), dtype)


@export("keras.ops.trunc", "keras.ops.numpy.trunc")
@keras_op
def trunc(x):
    """x rounded toward zero (ints and bools unchanged)."""
    x = convert(x)
    if x.dtype.name == "bool" or "int" in x.dtype.name:
        return x
    return tf_where(CMP.less(x, 0), math_ops.ceil(x), math_ops.floor(x))


@export("keras.ops.ldexp", "keras.ops.numpy.ldexp")
@keras_op
def ldexp(x1, x2):
    """x1 * 2 ** x2; `x2` must be an integer tensor."""
    x1, x2 = convert(x1), convert(x2)
    dtype = result_type(x1.dtype, x2.dtype, float)
    if x2.dtype.name not in ("uint8", "uint16", "uint32", "uint64", "int8", "int16", "int32",
                             "int64"):
        raise TypeError(f"ldexp exponent must be an integer type. Received: x2 dtype={x2.dtype}")
    x1 = constant_ops.cast(x1, dtype)
    x2 = constant_ops.cast(x2, dtype)
    out = math_ops.multiply(x1, math_ops.pow(constant_ops.constant(2.0, dtype=dtype), x2))
    keep = CMP.logical_or(CMP.is_inf(x1), CMP.equal(x1, 0))
    return tf_where(keep, x1, out)


@export("keras.ops.heaviside", "keras.ops.numpy.heaviside")
@keras_op
def heaviside(x1, x2):
    """0 where x1 < 0, 1 where x1 > 0, x2 where x1 == 0."""
    x1, x2 = convert(x1), convert(x2)
    dtype = _wide_float(result_type(x1.dtype, x2.dtype), bools=False)
    x1, x2 = constant_ops.cast(x1, dtype), constant_ops.cast(x2, dtype)
    zeros, ones = array_ops.zeros_like(x1), array_ops.ones_like(x1)
    return tf_where(CMP.less(x1, 0), zeros, tf_where(CMP.greater(x1, 0), ones, math_ops.add(zeros, x2)))


@export("keras.ops.i0", "keras.ops.numpy.i0")
@keras_op
def i0(x):
    """The modified Bessel function of the first kind, order 0."""
    x = convert(x)
    name = x.dtype.name
    dtype = "float64" if name in ("int64", "float64") else (
        name if name in ("bfloat16", "float16") else config.floatx())
    x = constant_ops.cast(x, "float32" if dtype in ("bfloat16", "float16") else dtype)
    # sum_k (x^2/4)^k / (k!)^2: all terms positive, enough of them for the largest |x|
    top = float(np.max(np.abs(x.numpy()), initial=0.0))
    quarter = math_ops.multiply(math_ops.square(x), 0.25)
    term = array_ops.ones_like(x)
    total = term
    for k in range(1, int(top) + 30):
        term = math_ops.divide(math_ops.multiply(term, quarter), float(k * k))
        total = math_ops.add(total, term)
    return constant_ops.cast(total, dtype)
