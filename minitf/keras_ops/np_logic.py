"""keras.ops (numpy-like): comparisons, logic, bitwise ops, where/select/clip, NaN and infinity
tests, and the complex-part helpers (real, imag, conj, angle)."""
import numpy as np

from minitf.errors import errors
from minitf.keras_core import config
from minitf.keras_ops.core import convert, keras_op, xp_of
from minitf.keras_ops.dtypes import result_type
from minitf.keras_ops.np_math import strong_pair, weak_pair
from minitf.ops import array as array_ops
from minitf.ops import compare as CMP
from minitf.ops import constant as constant_ops
from minitf.ops import creation as creation_ops
from minitf.ops import math as math_ops
from minitf.ops import reduce as reduce_ops
from minitf.ops.gather import where as tf_where
from minitf.tensor import Tensor
from minitf.api_export import export, export_value

__all__ = ["equal", "not_equal", "less", "less_equal", "greater", "greater_equal", "logical_and",
           "logical_or", "logical_not", "logical_xor", "bitwise_and", "bitwise_or", "bitwise_xor",
           "bitwise_invert", "bitwise_not", "bitwise_left_shift", "bitwise_right_shift",
           "left_shift", "right_shift", "isnan", "isinf", "isfinite", "isneginf", "isposinf",
           "isreal", "isclose", "allclose", "signbit", "nextafter", "gcd", "lcm", "clip",
           "nan_to_num", "real", "imag", "conj", "conjugate", "angle", "where", "select"]


def _compare(fn, doc, name):
    def op(x1, x2):
        return fn(*strong_pair(x1, x2))
    op.__doc__, op.__name__, op.__qualname__ = doc, name, name
    return keras_op(op)


equal = _compare(CMP.equal, "x1 == x2, elementwise (after Keras' dtype promotion).", "equal")
export_value("equal", "keras.ops.equal", "keras.ops.numpy.equal")
not_equal = _compare(CMP.not_equal, "x1 != x2, elementwise.", "not_equal")
export_value("not_equal", "keras.ops.not_equal", "keras.ops.numpy.not_equal")
less = _compare(CMP.less, "x1 < x2, elementwise.", "less")
export_value("less", "keras.ops.less", "keras.ops.numpy.less")
less_equal = _compare(CMP.less_equal, "x1 <= x2, elementwise.", "less_equal")
export_value("less_equal", "keras.ops.less_equal", "keras.ops.numpy.less_equal")
greater = _compare(CMP.greater, "x1 > x2, elementwise.", "greater")
export_value("greater", "keras.ops.greater", "keras.ops.numpy.greater")
greater_equal = _compare(CMP.greater_equal, "x1 >= x2, elementwise.", "greater_equal")
export_value("greater_equal", "keras.ops.greater_equal", "keras.ops.numpy.greater_equal")


def _bools(*xs):
    return [constant_ops.cast(convert(x), "bool") for x in xs]


@export("keras.ops.logical_and", "keras.ops.numpy.logical_and")
@keras_op
def logical_and(x1, x2):
    """x1 and x2, elementwise, on their truth values."""
    return CMP.logical_and(*_bools(x1, x2))


@export("keras.ops.logical_or", "keras.ops.numpy.logical_or")
@keras_op
def logical_or(x1, x2):
    """x1 or x2, elementwise, on their truth values."""
    return CMP.logical_or(*_bools(x1, x2))


@export("keras.ops.logical_xor", "keras.ops.numpy.logical_xor")
@keras_op
def logical_xor(x1, x2):
    """x1 xor x2, elementwise, on their truth values."""
    return CMP.logical_xor(*_bools(x1, x2))


@export("keras.ops.logical_not", "keras.ops.numpy.logical_not")
@keras_op
def logical_not(x):
    """not x, elementwise, on its truth values."""
    return CMP.logical_not(*_bools(x))


@export("keras.ops.bitwise_and", "keras.ops.numpy.bitwise_and")
@keras_op
def bitwise_and(x, y):
    """The bitwise AND of two integer (or bool) tensors."""
    return CMP.bitwise_and(*strong_pair(x, y))


@export("keras.ops.bitwise_or", "keras.ops.numpy.bitwise_or")
@keras_op
def bitwise_or(x, y):
    """The bitwise OR of two integer (or bool) tensors."""
    return CMP.bitwise_or(*strong_pair(x, y))


@export("keras.ops.bitwise_xor", "keras.ops.numpy.bitwise_xor")
@keras_op
def bitwise_xor(x, y):
    """The bitwise XOR of two integer (or bool) tensors."""
    return CMP.bitwise_xor(*strong_pair(x, y))


@export("keras.ops.bitwise_invert", "keras.ops.numpy.bitwise_invert")
@keras_op
def bitwise_invert(x):
    """The bitwise NOT of an integer tensor."""
    return CMP.invert(convert(x))


@export("keras.ops.bitwise_not", "keras.ops.numpy.bitwise_not")
@keras_op
def bitwise_not(x):
    """Alias of `bitwise_invert`."""
    return CMP.invert(convert(x))


def _shift(x, y, left):
    x = convert(x)
    if not isinstance(y, int):
        x, y = strong_pair(x, y)
    else:
        y = convert(y, x.dtype.name)
    if not (x.dtype.is_integer and y.dtype.is_integer):
        raise TypeError(f"{'left' if left else 'right'}_shift needs integer tensors; received "
                        f"dtypes {x.dtype.name} and {y.dtype.name}.")
    xp = xp_of(x)
    fn = xp.left_shift if left else xp.right_shift
    with np.errstate(all="ignore"):
        return Tensor(xp.asarray(fn(x._value, y._value.astype(x._value.dtype))))


@export("keras.ops.bitwise_left_shift", "keras.ops.numpy.bitwise_left_shift")
@keras_op
def bitwise_left_shift(x, y):
    """x shifted left by y bits."""
    return _shift(x, y, True)


@export("keras.ops.left_shift", "keras.ops.numpy.left_shift")
@keras_op
def left_shift(x, y):
    """Alias of `bitwise_left_shift`."""
    return _shift(x, y, True)


@export("keras.ops.bitwise_right_shift", "keras.ops.numpy.bitwise_right_shift")
@keras_op
def bitwise_right_shift(x, y):
    """x shifted right by y bits (arithmetic shift for signed types)."""
    return _shift(x, y, False)


@export("keras.ops.right_shift", "keras.ops.numpy.right_shift")
@keras_op
def right_shift(x, y):
    """Alias of `bitwise_right_shift`."""
    return _shift(x, y, False)


def _not_float(x):
    return not (x.dtype.is_floating or x.dtype.is_complex)


@export("keras.ops.isnan", "keras.ops.numpy.isnan")
@keras_op
def isnan(x):
    """Whether each element is NaN (never for ints and bools)."""
    x = convert(x)
    return creation_ops.zeros(x.shape, "bool") if _not_float(x) else CMP.is_nan(x)


@export("keras.ops.isinf", "keras.ops.numpy.isinf")
@keras_op
def isinf(x):
    """Whether each element is +-infinity."""
    x = convert(x)
    return creation_ops.zeros(x.shape, "bool") if _not_float(x) else CMP.is_inf(x)


@export("keras.ops.isfinite", "keras.ops.numpy.isfinite")
@keras_op
def isfinite(x):
    """Whether each element is neither NaN nor infinite."""
    x = convert(x)
    return creation_ops.ones(x.shape, "bool") if _not_float(x) else CMP.is_finite(x)


@export("keras.ops.isneginf", "keras.ops.numpy.isneginf")
@keras_op
def isneginf(x):
    """Whether each element is -infinity."""
    x = convert(x)
    if _not_float(x):
        return creation_ops.zeros(x.shape, "bool")
    return CMP.equal(x, constant_ops.constant(-np.inf, dtype=x.dtype))


@export("keras.ops.isposinf", "keras.ops.numpy.isposinf")
@keras_op
def isposinf(x):
    """Whether each element is +infinity."""
    x = convert(x)
    if _not_float(x):
        return creation_ops.zeros(x.shape, "bool")
    return CMP.equal(x, constant_ops.constant(np.inf, dtype=x.dtype))


@export("keras.ops.isreal", "keras.ops.numpy.isreal")
@keras_op
def isreal(x):
    """Whether each element has a zero imaginary part (always true for real dtypes)."""
    x = convert(x)
    if x.dtype.is_complex:
        return Tensor(xp_of(x).imag(x._value) == 0)
    return creation_ops.ones(x.shape, "bool")


@export("keras.ops.isclose", "keras.ops.numpy.isclose")
@keras_op
def isclose(x1, x2, rtol=1e-5, atol=1e-8, equal_nan=False):
    """|x1 - x2| <= atol + rtol * |x2|, elementwise (exact equality for ints)."""
    x1, x2 = strong_pair(x1, x2)
    if "float" not in x1.dtype.name:
        return CMP.equal(x1, x2)
    out = CMP.less_equal(math_ops.abs(math_ops.subtract(x1, x2)), math_ops.add(math_ops.multiply(math_ops.abs(x2), rtol), atol))
    if equal_nan:
        out = CMP.logical_or(out, CMP.logical_and(CMP.is_nan(x1), CMP.is_nan(x2)))
    return out


@export("keras.ops.allclose", "keras.ops.numpy.allclose")
@keras_op
def allclose(x1, x2, rtol=1e-5, atol=1e-8, equal_nan=False):
    """Whether every element of x1 is close to x2 (see `isclose`; equal infinities count)."""
    x1, x2 = strong_pair(x1, x2)
    if "float" not in x1.dtype.name:
        return reduce_ops.reduce_all(CMP.equal(x1, x2))
    finite = CMP.logical_and(CMP.is_finite(x1), CMP.is_finite(x2))
    close = CMP.less_equal(math_ops.abs(math_ops.subtract(x1, x2)), math_ops.add(math_ops.multiply(math_ops.abs(x2), rtol), atol))
    out = CMP.logical_or(CMP.logical_and(finite, close), CMP.equal(x1, x2))
    if equal_nan:
        out = CMP.logical_or(out, CMP.logical_and(CMP.is_nan(x1), CMP.is_nan(x2)))
    return reduce_ops.reduce_all(out)


@export("keras.ops.signbit", "keras.ops.numpy.signbit")
@keras_op
def signbit(x):
    """Whether the sign bit is set (true for -0.0; floats are read as float32, as Keras does)."""
    x = convert(x)
    name = x.dtype.name
    if name == "bool":
        return creation_ops.zeros(x.shape, "bool")
    if "int" in name:
        return CMP.less(x, 0)
    xp = xp_of(x)
    return Tensor(xp.signbit(x._value.astype("float32")))


@export("keras.ops.nextafter", "keras.ops.numpy.nextafter")
@keras_op
def nextafter(x1, x2):
    """The next representable float after x1 toward x2 (computed in float64, as Keras does)."""
    x1, x2 = convert(x1), convert(x2)
    dtype = result_type(x1.dtype, x2.dtype, float)
    xp = xp_of(x1)
    try:
        a, b = xp.broadcast_arrays(x1._value.astype("float64"), x2._value.astype("float64"))
    except ValueError:
        raise errors.invalid_argument("NextAfter", f"Incompatible shapes: {list(x1.shape)} vs. "
                                                   f"{list(x2.shape)}") from None
    return constant_ops.cast(Tensor(xp.nextafter(a, b)), dtype)


def _integer_pair(x1, x2, name):
    x1, x2 = convert(x1), convert(x2)
    dtype = result_type(x1.dtype, x2.dtype)
    x1, x2 = constant_ops.cast(x1, dtype), constant_ops.cast(x2, dtype)
    if not x1.dtype.is_integer:
        raise TypeError(f"Arguments to {name} must be integers. Received: x1.dtype="
                        f"{x1.dtype.name}, x2.dtype={x2.dtype.name}")
    return x1, x2


@export("keras.ops.gcd", "keras.ops.numpy.gcd")
@keras_op
def gcd(x1, x2):
    """The greatest common divisor of two integer tensors (non-negative)."""
    x1, x2 = _integer_pair(x1, x2, "gcd")
    xp = xp_of(x1)
    return Tensor(xp.asarray(xp.gcd(x1._value, x2._value)).astype(x1._value.dtype))


@export("keras.ops.lcm", "keras.ops.numpy.lcm")
@keras_op
def lcm(x1, x2):
    """The least common multiple of two integer tensors (0 when either is 0)."""
    x1, x2 = _integer_pair(x1, x2, "lcm")
    xp = xp_of(x1)
    a, b = x1._value, x2._value
    if not x1.dtype.name.startswith("uint"):
        a, b = xp.abs(a), xp.abs(b)
    g = xp.gcd(a, b)
    with np.errstate(all="ignore"):
        out = xp.where(g == 0, 0, a * (b // xp.where(g == 0, 1, g)))
    return Tensor(xp.asarray(out).astype(a.dtype))


def _need_dtype(x, name):
    if not hasattr(x, "dtype"):
        raise AttributeError(f"keras.ops.{name} needs `x` with a dtype (a tensor or an array), "
                             f"as Keras on TensorFlow does; received a "
                             f"{type(x).__name__}: '{type(x).__name__}' object has no attribute "
                             f"'dtype'")


@export("keras.ops.clip", "keras.ops.numpy.clip")
@keras_op
def clip(x, x_min, x_max):
    """x limited to [x_min, x_max] (bools compute in int32)."""
    _need_dtype(x, "clip")
    x = convert(x)
    if x.dtype.name == "bool":
        x = constant_ops.cast(x, "int32")
    low = x_min if constant_ops.is_tensor(x_min) else constant_ops.convert_to_tensor(x_min, dtype=x.dtype)
    high = x_max if constant_ops.is_tensor(x_max) else constant_ops.convert_to_tensor(x_max, dtype=x.dtype)
    # tf.clip_by_value takes the minimum first, so x_min wins where the bounds cross
    return math_ops.maximum(math_ops.minimum(x, high), low)


@export("keras.ops.nan_to_num", "keras.ops.numpy.nan_to_num")
@keras_op
def nan_to_num(x, nan=0.0, posinf=None, neginf=None):
    """x with NaN, +inf and -inf replaced (by `nan`, the dtype's max and min by default)."""
    x = convert(x)
    if _not_float(x):
        return x
    info = np.finfo(x.dtype.as_numpy_dtype)
    x = tf_where(CMP.is_nan(x), constant_ops.constant(nan, dtype=x.dtype), x)
    high = constant_ops.constant(info.max if posinf is None else posinf, dtype=x.dtype)
    x = tf_where(CMP.logical_and(CMP.is_inf(x), CMP.greater(x, 0)), high, x)
    low = constant_ops.constant(info.min if neginf is None else neginf, dtype=x.dtype)
    return tf_where(CMP.logical_and(CMP.is_inf(x), CMP.less(x, 0)), low, x)


@export("keras.ops.real", "keras.ops.numpy.real")
@keras_op
def real(x):
    """The real part (a real tensor comes back unchanged)."""
    x = convert(x)
    if x.dtype.is_complex:
        return Tensor(xp_of(x).real(x._value).copy())
    return x


@export("keras.ops.imag", "keras.ops.numpy.imag")
@keras_op
def imag(x):
    """The imaginary part (zeros for a real tensor)."""
    x = convert(x)
    if x.dtype.is_complex:
        return Tensor(xp_of(x).imag(x._value).copy())
    return creation_ops.zeros_like(x)


@export("keras.ops.conjugate", "keras.ops.numpy.conjugate")
@keras_op
def conjugate(x):
    """The complex conjugate (a real tensor comes back unchanged)."""
    x = convert(x)
    if x.dtype.is_complex:
        return Tensor(xp_of(x).conj(x._value))
    return x


@export("keras.ops.conj", "keras.ops.numpy.conj")
@keras_op
def conj(x):
    """Alias of `conjugate`."""
    return conjugate(x)


@export("keras.ops.angle", "keras.ops.numpy.angle")
@keras_op
def angle(x):
    """The argument of each element (pi for negative reals, 0 otherwise), in a float type."""
    x = convert(x)
    if x.dtype.is_complex:
        return Tensor(xp_of(x).angle(x._value))
    dtype = config.floatx() if x.dtype.name == "int64" else result_type(x.dtype, float)
    x = constant_ops.cast(x, dtype)
    return tf_where(CMP.less(x, 0), math_ops.add(array_ops.zeros_like(x), np.pi), array_ops.zeros_like(x))


@export("keras.ops.where", "keras.ops.numpy.where")
@keras_op
def where(condition, x1=None, x2=None):
    """x1 where `condition` holds, else x2; with neither, the indices where it holds."""
    if (x1 is None) != (x2 is None):
        raise ValueError("`x1` and `x2` either both should be `None` or both should have "
                         "non-None value.")
    condition = constant_ops.cast(convert(condition), "bool")
    if x1 is None:
        from_nonzero = tf_where(condition)
        return [constant_ops.cast(col, "int32") for col in _columns(from_nonzero, condition.shape.rank)]
    x1, x2 = weak_pair(x1, x2)
    return tf_where(condition, x1, x2)


def _columns(indices, rank):
    return [indices[:, i] for i in range(rank)]


@export("keras.ops.select", "keras.ops.numpy.select")
@keras_op
def select(condlist, choicelist, default=0):
    """For each element, the choice of the first condition that holds, else `default`."""
    if not isinstance(condlist, (list, tuple)) or not isinstance(choicelist, (list, tuple)):
        raise ValueError(f"condlist and choicelist must be lists. Received: type(condlist) = "
                         f"{type(condlist)}, type(choicelist) = {type(choicelist)}")
    if not condlist or not choicelist:
        raise ValueError(f"condlist and choicelist must not be empty. Received: condlist = "
                         f"{condlist}, choicelist = {choicelist}")
    if len(condlist) != len(choicelist):
        raise ValueError(f"condlist and choicelist must have the same length; received "
                         f"{len(condlist)} and {len(choicelist)}.")
    choices = [convert(c) for c in choicelist]
    # tf.experimental.numpy.select promotes as numpy does; a Python default is weak
    dtype = np.result_type(*[c.dtype.as_numpy_dtype for c in choices])
    if isinstance(default, bool):
        dtype = np.result_type(dtype, np.bool_)
    elif isinstance(default, int):
        dtype = np.dtype("int64") if dtype.kind == "b" else dtype
    elif isinstance(default, float):
        dtype = dtype if dtype.kind == "f" else np.dtype("float64")
    else:
        default = convert(default)
        dtype = np.result_type(dtype, default.dtype.as_numpy_dtype)
    dtype = dtype.name
    out = array_ops.broadcast_to(constant_ops.cast(convert(default), dtype), list(choices[0].shape))
    for cond, choice in reversed(list(zip(condlist, choices))):
        out = tf_where(constant_ops.cast(convert(cond), "bool"), constant_ops.cast(choice, dtype), out)
    return out
