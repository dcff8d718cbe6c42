"""tnp's elementwise math: arithmetic, comparisons, logic, bitwise ops and unary functions.

Binary functions promote both operands to their tnp result type first (NumPy's rules, see
np_dtypes); transcendental unary functions turn integer and bool inputs into the default
float type (float64 unless prefer_float32). Bool operands of add/multiply/maximum/minimum are
combined logically, as NumPy does.
"""
import math

import numpy as np

from minitf.dtypes import dtypes
from minitf.errors import errors
from minitf.keras_ops import np_logic as KL
from minitf.keras_ops.core import keras_op, xp_of
from minitf.keras_ops import np_math as KM
from minitf.ops import array as A
from minitf.ops import compare as CMP
from minitf.ops import complex_ops as CX
from minitf.ops import constant as C
from minitf.ops import math as M
from minitf.ops import reduce as R
from minitf.ops.nn import relu
from minitf.tensor import Tensor
from minitf.numpy_ops import np_dtypes as D
from minitf.numpy_ops.np_dtypes import asarray, array, is_inexact, is_integer, is_tensor, result_type
from minitf.api_export import export

_FLOATS = (dtypes.bfloat16, dtypes.float16, dtypes.float32, dtypes.float64)


def _pair(x1, x2):
    """Both operands as tensors of their tnp result type."""
    dtype = result_type(x1, x2)
    if not (is_tensor(x1) and x1.dtype == dtype):
        x1 = array(x1, dtype=dtype, copy=False)
    if not (is_tensor(x2) and x2.dtype == dtype):
        x2 = array(x2, dtype=dtype, copy=False)
    return x1, x2


def _binary(fn, x1, x2):
    x1, x2 = _pair(x1, x2)
    return fn(x1, x2)


def _unary(fn, x, to_float=False):
    x = asarray(x)
    if to_float and not is_inexact(x.dtype):
        x = C.cast(x, result_type(float))
    return fn(x)


def _is_bool(x):
    return x.dtype == dtypes.bool


@export("experimental.numpy.add")
def add(x1, x2):
    """x1 + x2 after tnp promotion (logical or for bools)."""
    return _binary(lambda a, b: CMP.logical_or(a, b) if _is_bool(a) else M.add(a, b), x1, x2)


@export("experimental.numpy.subtract")
def subtract(x1, x2):
    """x1 - x2 after tnp promotion."""
    return _binary(M.subtract, x1, x2)


@export("experimental.numpy.multiply")
def multiply(x1, x2):
    """x1 * x2 after tnp promotion (logical and for bools)."""
    return _binary(lambda a, b: CMP.logical_and(a, b) if _is_bool(a) else M.multiply(a, b), x1, x2)


@export("experimental.numpy.true_divide")
def true_divide(x1, x2):
    """x1 / x2 after tnp promotion; integers divide to a float (TF's truediv), bools to the
    default float."""
    def f(a, b):
        if _is_bool(a):
            a, b = C.cast(a, result_type(float)), C.cast(b, result_type(float))
        return M.truediv(a, b)
    return _binary(f, x1, x2)


@export("experimental.numpy.divide")
def divide(x1, x2):
    """Same as true_divide."""
    return true_divide(x1, x2)


def _int8_bools(fn):
    def f(a, b):
        if _is_bool(a):
            a, b = C.cast(a, dtypes.int8), C.cast(b, dtypes.int8)
        return fn(a, b)
    return f


@export("experimental.numpy.floor_divide")
def floor_divide(x1, x2):
    """x1 // x2 after tnp promotion (bools computed as int8)."""
    return _binary(_int8_bools(M.floordiv), x1, x2)


@export("experimental.numpy.mod")
def mod(x1, x2):
    """x1 % x2 with the divisor's sign (floor modulo) after tnp promotion."""
    return _binary(_int8_bools(M.floormod), x1, x2)


@export("experimental.numpy.remainder")
def remainder(x1, x2):
    """Same as mod."""
    return mod(x1, x2)


@export("experimental.numpy.divmod")
def divmod(x1, x2):  # noqa: A001 (NumPy's name)
    """(floor_divide(x1, x2), mod(x1, x2))."""
    return floor_divide(x1, x2), mod(x1, x2)


@export("experimental.numpy.maximum")
def maximum(x1, x2):
    """Elementwise maximum after tnp promotion (logical or for bools); NaN wins."""
    if (isinstance(x2, (int, float)) and not isinstance(x2, bool) and x2 == 0 and is_tensor(x1)
            and x1.dtype != dtypes.bool):
        return relu(x1)
    return _binary(lambda a, b: CMP.logical_or(a, b) if _is_bool(a) else M.maximum(a, b), x1, x2)


@export("experimental.numpy.minimum")
def minimum(x1, x2):
    """Elementwise minimum after tnp promotion (logical and for bools); NaN wins."""
    return _binary(lambda a, b: CMP.logical_and(a, b) if _is_bool(a) else M.minimum(a, b), x1, x2)


@export("experimental.numpy.clip")
def clip(a, a_min, a_max):
    """`a` limited to [a_min, a_max] (either bound may be None, not both), all three promoted."""
    if a_min is None and a_max is None:
        raise ValueError("tnp.clip: not more than one of `a_min` and `a_max` may be `None`.")
    if a_min is None:
        return minimum(a, a_max)
    if a_max is None:
        return maximum(a, a_min)
    a, a_min, a_max = D.promote(a, a_min, a_max)
    shape = np.broadcast_shapes(*(tuple(t.shape.as_list()) for t in (a, a_min, a_max)))
    return M.clip_by_value(*(A.broadcast_to(t, shape) for t in (a, a_min, a_max)))


@export("experimental.numpy.power")
def power(x1, x2):
    """x1 ** x2 after tnp promotion."""
    return _binary(M.pow, x1, x2)


@export("experimental.numpy.float_power")
def float_power(x1, x2):
    """Same as power (TF's tnp does not widen to float64 first)."""
    return power(x1, x2)


@export("experimental.numpy.arctan2")
def arctan2(x1, x2):
    """The angle of the point (x2, x1), after tnp promotion."""
    return _binary(M.atan2, x1, x2)


@export("experimental.numpy.nextafter")
def nextafter(x1, x2):
    """The next float after x1 towards x2, after tnp promotion."""
    def f(a, b):
        if a.dtype not in (dtypes.float32, dtypes.float64):
            raise errors.InvalidArgumentError(
                None, None, f"tnp.nextafter: no kernel for dtype {a.dtype.name}; NextAfter takes float32 "
                "or float64 (cast the operands first).")
        return _nextafter(a, b)
    return _binary(f, x1, x2)


@keras_op
def _nextafter(a, b):
    """np.nextafter in a's own float dtype (keras.ops.nextafter computes in float64, which
    changes float32 results); one graph node when traced, no gradient (TF has none)."""
    xp = xp_of(a)
    try:
        va, vb = xp.broadcast_arrays(a._value, b._value)
    except ValueError:
        raise errors.invalid_argument("NextAfter", f"Incompatible shapes: {list(a.shape)} vs. {list(b.shape)}") from None
    return Tensor(xp.asarray(xp.nextafter(va, vb)))


@export("experimental.numpy.heaviside")
def heaviside(x1, x2):
    """0 where x1 < 0, 1 where x1 > 0, x2 where x1 == 0; integer results become floats."""
    def f(a, b):
        zero, one = C.constant(0, dtype=b.dtype), C.constant(1, dtype=b.dtype)
        return A.where(CMP.less(a, 0), zero, A.where(CMP.greater(a, 0), one, b))
    y = _binary(f, x1, x2)
    if not is_inexact(y.dtype):
        y = C.cast(y, result_type(float))
    return y


@export("experimental.numpy.hypot")
def hypot(x1, x2):
    """sqrt(x1**2 + x2**2)."""
    return sqrt(square(x1) + square(x2))


@export("experimental.numpy.logaddexp")
def logaddexp(x1, x2):
    """log(exp(x1) + exp(x2)) without overflow."""
    amax = maximum(x1, x2)
    delta = x1 - x2
    return where(isnan(delta), x1 + x2, amax + log1p(exp(-abs(delta))))


@export("experimental.numpy.logaddexp2")
def logaddexp2(x1, x2):
    """log2(2**x1 + 2**x2) without overflow."""
    amax = maximum(x1, x2)
    delta = x1 - x2
    return where(isnan(delta), x1 + x2, amax + log1p(exp2(-abs(delta))) / np.log(2))


@export("experimental.numpy.nonzero")
def nonzero(a):
    """The indices of a's nonzero elements, one int64 Tensor per dimension."""
    a = asarray(a)
    if a.shape.rank == 0:
        a = A.reshape(a, [1])
    if a.shape.rank is None:
        raise ValueError("tnp.nonzero: the rank of `a` is unknown, so the number of arrays to return is unknown.")
    return A.unstack(A.where(C.cast(a, dtypes.bool)), a.shape.rank, axis=1)


@export("experimental.numpy.where")
def where(condition, x=None, y=None):
    """x where condition holds, else y (x and y promoted together); with neither, nonzero(condition)."""
    condition = asarray(condition, dtype=np.bool_)
    if x is None and y is None:
        return nonzero(condition)
    if x is not None and y is not None:
        x, y = D.promote(x, y)
        return A.where(condition, x, y)
    raise ValueError("tnp.where: both x and y must be given, or neither (to get nonzero(condition)).")


@export("experimental.numpy.isclose")
def isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """|a - b| <= atol + rtol * |b| elementwise (exact equality for integers)."""
    def f(a, b):
        if is_inexact(a.dtype):
            real = _real_dtype(a.dtype)
            close = M.abs(a - b) <= C.constant(atol, dtype=real) + C.constant(rtol, dtype=real) * M.abs(b)
            if equal_nan:
                close = close | (CMP.is_nan(a) & CMP.is_nan(b))
            return close
        return a == b
    return _binary(f, a, b)


@export("experimental.numpy.allclose")
def allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """True when isclose holds everywhere (a 0-d bool Tensor)."""
    return R.reduce_all(isclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan))


def _need_integers(name, a, b):
    if not (is_integer(a.dtype) and is_integer(b.dtype)):
        raise ValueError(f"Arguments to {name} must be integers; got dtypes {a.dtype.name} and {b.dtype.name}.")
    try:
        np.broadcast_shapes(tuple(a.shape.as_list()), tuple(b.shape.as_list()))
    except (ValueError, TypeError):
        raise errors.InvalidArgumentError(None, None, f"tnp.{name}: Incompatible shapes: {a.shape} vs. {b.shape} "
                                          "[Op:BroadcastArgs]") from None
    if a.dtype.is_unsigned:  # TF's tnp takes Abs first, which has no unsigned kernel
        raise errors.InvalidArgumentError(
            None, None, f"tnp.{name}: no Abs kernel for {a.dtype.name}; cast to a signed integer dtype first. [Op:Abs]")


@export("experimental.numpy.gcd")
def gcd(x1, x2):
    """Greatest common divisor of integers (non-negative)."""
    def f(a, b):
        _need_integers("gcd", a, b)
        return KL.gcd(a, b)
    return _binary(f, x1, x2)


@export("experimental.numpy.lcm")
def lcm(x1, x2):
    """Least common multiple of integers (non-negative; 0 when either is 0)."""
    def f(a, b):
        _need_integers("lcm", a, b)
        return KL.lcm(a, b)
    return _binary(f, x1, x2)


def _bitwise(fn, x1, x2):
    def f(a, b):
        if _is_bool(a):
            return C.cast(fn(C.cast(a, dtypes.int8), C.cast(b, dtypes.int8)), dtypes.bool)
        return fn(a, b)
    return _binary(f, x1, x2)


@export("experimental.numpy.bitwise_and")
def bitwise_and(x1, x2):
    """x1 & x2 for integers and bools, after tnp promotion."""
    return _bitwise(CMP.bitwise_and, x1, x2)


@export("experimental.numpy.bitwise_or")
def bitwise_or(x1, x2):
    """x1 | x2 for integers and bools, after tnp promotion."""
    return _bitwise(CMP.bitwise_or, x1, x2)


@export("experimental.numpy.bitwise_xor")
def bitwise_xor(x1, x2):
    """x1 ^ x2 for integers and bools, after tnp promotion."""
    return _bitwise(CMP.bitwise_xor, x1, x2)


@export("experimental.numpy.bitwise_not")
def bitwise_not(x):
    """~x: bits flipped for integers, logical not for bools."""
    return _unary(lambda t: CMP.logical_not(t) if _is_bool(t) else CMP.invert(t), x)


def _float_unary(name, fn, doc):
    def f(x):
        return _unary(fn, x, True)
    f.__name__ = f.__qualname__ = name
    f.__doc__ = doc
    return export("experimental.numpy." + name)(f)


log = _float_unary("log", M.log, "Natural logarithm; integers become the default float first.")
exp = _float_unary("exp", M.exp, "e ** x; integers become the default float first.")
sqrt = _float_unary("sqrt", M.sqrt, "Square root; integers become the default float first.")
ceil = _float_unary("ceil", M.ceil, "Smallest integer >= x, as a float.")
floor = _float_unary("floor", M.floor, "Largest integer <= x, as a float.")
sin = _float_unary("sin", M.sin, "Sine; integers become the default float first.")
cos = _float_unary("cos", M.cos, "Cosine; integers become the default float first.")
tan = _float_unary("tan", M.tan, "Tangent; integers become the default float first.")
sinh = _float_unary("sinh", M.sinh, "Hyperbolic sine; integers become the default float first.")
cosh = _float_unary("cosh", M.cosh, "Hyperbolic cosine; integers become the default float first.")
tanh = _float_unary("tanh", M.tanh, "Hyperbolic tangent; integers become the default float first.")
arcsin = _float_unary("arcsin", M.asin, "Inverse sine; integers become the default float first.")
arccos = _float_unary("arccos", M.acos, "Inverse cosine; integers become the default float first.")
arctan = _float_unary("arctan", M.atan, "Inverse tangent; integers become the default float first.")
arcsinh = _float_unary("arcsinh", KM.arcsinh, "Inverse hyperbolic sine.")
def _arccosh(t):
    # log(x + sqrt(x+1) sqrt(x-1)), and log(x) + log(2) where that would overflow, as TF's kernel
    one = C.constant(1, t.dtype)
    big = C.constant(1.0 / np.sqrt(np.finfo(D.np_dtype(t.dtype)).eps), t.dtype)
    large = CMP.greater_equal(t, big)
    safe = A.where(large, A.ones_like(t), t)
    small = M.log(M.add(safe, M.multiply(M.sqrt(M.add(safe, one)), M.sqrt(M.subtract(safe, one)))))
    huge = M.add(M.log(A.where(large, t, A.ones_like(t))), C.constant(np.log(2.0), t.dtype))
    return A.where(large, huge, small)


arccosh = _float_unary("arccosh", _arccosh, "Inverse hyperbolic cosine (NaN below 1).")
arctanh = _float_unary("arctanh", KM.arctanh, "Inverse hyperbolic tangent.")
expm1 = _float_unary("expm1", M.expm1, "exp(x) - 1, accurate near 0.")
log1p = _float_unary("log1p", M.log1p, "log(1 + x), accurate near 0.")
isnan = _float_unary("isnan", CMP.is_nan, "True where x is NaN.")
isfinite = _float_unary("isfinite", CMP.is_finite, "True where x is neither infinite nor NaN.")
deg2rad = _float_unary("deg2rad", lambda t: t * (np.pi / 180.0),
                       "Degrees to radians.")
fix = _float_unary("fix", lambda t: A.where(CMP.less(t, 0), M.ceil(t), M.floor(t)),
                   "Round towards zero, as a float.")
exp2 = _float_unary("exp2", lambda t: 2 ** t, "2 ** x.")


def _sinc(t):
    pi_t = t * np.pi
    return A.where(t == 0, A.ones_like(t), M.sin(pi_t) / pi_t)


sinc = _float_unary("sinc", _sinc, "sin(pi x) / (pi x), 1 at 0.")


def _real_dtype(dtype):
    return {dtypes.complex64: dtypes.float32, dtypes.complex128: dtypes.float64}.get(dtype, dtype)


def _cbrt(t):
    root = M.abs(t) ** (1.0 / 3)
    return A.where(t < 0, -root, root)


cbrt = _float_unary("cbrt", _cbrt, "Cube root (negative for negative x).")


@export("experimental.numpy.rad2deg")
def rad2deg(x):
    """Radians to degrees."""
    return x * (180.0 / np.pi)


@export("experimental.numpy.abs")
def abs(x):  # noqa: A001 (NumPy's name)
    """|x|, keeping the dtype (complex gives its real dtype)."""
    return _unary(M.abs, x)


@export("experimental.numpy.absolute")
def absolute(x):
    """Same as abs."""
    return abs(x)


@export("experimental.numpy.fabs")
def fabs(x):
    """Same as abs."""
    return abs(x)


@export("experimental.numpy.negative")
def negative(x):
    """-x."""
    return _unary(M.negative, x)


@export("experimental.numpy.positive")
def positive(x):
    """x, as a tensor."""
    return _unary(lambda t: t, x)


@export("experimental.numpy.reciprocal")
def reciprocal(x):
    """1 / x, keeping the dtype."""
    return _unary(M.reciprocal, x)


@export("experimental.numpy.square")
def square(x):
    """x * x, keeping the dtype."""
    return _unary(M.square, x)


@export("experimental.numpy.conj")
def conj(x):
    """Complex conjugate (real inputs unchanged)."""
    return _unary(CX.conj, x)


@export("experimental.numpy.conjugate")
def conjugate(x):
    """Same as conj."""
    return conj(x)


@export("experimental.numpy.signbit")
def signbit(x):
    """True where x < 0 (False for bools)."""
    return _unary(lambda t: A.fill(A.shape(t), False) if _is_bool(t) else CMP.less(t, C.constant(0, t.dtype)), x)


@export("experimental.numpy.sign")
def sign(x, out=None, where=None, **kwargs):
    """-1, 0 or 1 with x's sign (NaN stays NaN)."""
    if out:
        raise ValueError("tf.numpy doesnt support setting out.")
    if where:
        raise ValueError("tf.numpy doesnt support setting where.")
    if kwargs:
        raise ValueError(f"tf.numpy doesnt support setting {kwargs.keys()}")
    return M.sign(asarray(x))


@export("experimental.numpy.angle")
def angle(z, deg=False):
    """The argument of complex z (pi for negative reals, 0 otherwise), in radians or degrees."""
    def f(t):
        if t.dtype in _FLOATS:  # as TF: the constants' own dtype, float32
            return A.where(t < 0, C.constant(np.pi, dtypes.float32), C.constant(0.0, dtypes.float32))
        return CX.angle(t)
    y = _unary(f, z, True)
    return rad2deg(y) if deg else y


@export("experimental.numpy.isinf")
def isinf(x):
    """True where x is +inf or -inf; a Python False for non-float tensors, as TF."""
    if x.dtype.is_floating:
        return _unary(CMP.is_inf, x, True)
    return False


@export("experimental.numpy.isposinf")
def isposinf(x):
    """True where x is +inf; a Python False for non-float tensors, as TF."""
    if x.dtype.is_floating:
        return x == A.fill(A.shape(x), C.constant(np.inf, x.dtype))
    return False


@export("experimental.numpy.isneginf")
def isneginf(x):
    """True where x is -inf; a Python False for non-float tensors, as TF."""
    if x.dtype.is_floating:
        return x == A.fill(A.shape(x), C.constant(-np.inf, x.dtype))
    return False


@export("experimental.numpy.log2")
def log2(x):
    """Base-2 logarithm."""
    return log(x) / np.log(2)


@export("experimental.numpy.log10")
def log10(x):
    """Base-10 logarithm."""
    return log(x) / np.log(10)


@export("experimental.numpy.real")
def real(val):
    """The real part (real inputs unchanged)."""
    val = asarray(val)
    if val.dtype == dtypes.bool or val.dtype == dtypes.string:
        raise TypeError(f"tnp.real: input must be a numeric tensor, but got tensor with dtype {val.dtype.name}")
    return CX.real(val) if val.dtype.is_complex else val


@export("experimental.numpy.imag")
def imag(val):
    """The imaginary part (zeros for real inputs)."""
    val = asarray(val)
    return CX.imag(val) if val.dtype.is_complex else A.zeros_like(val)


@export("experimental.numpy.iscomplex")
def iscomplex(x):
    """True where the imaginary part is nonzero."""
    return imag(x) != 0


@export("experimental.numpy.isreal")
def isreal(x):
    """True where the imaginary part is zero."""
    return imag(x) == 0


@export("experimental.numpy.iscomplexobj")
def iscomplexobj(x):
    """Whether x's dtype is complex (a Python bool)."""
    return np.issubdtype(D.np_dtype(array(x).dtype), np.complexfloating)


@export("experimental.numpy.isrealobj")
def isrealobj(x):
    """Whether x's dtype is not complex (a Python bool)."""
    return not iscomplexobj(x)


def _comparison(fn, x1, x2, bool_as_int=False):
    dtype = result_type(x1, x2)
    x1, x2 = array(x1, dtype=dtype), array(x2, dtype=dtype)
    if bool_as_int and x1.dtype == dtypes.bool:
        x1, x2 = C.cast(x1, dtypes.int32), C.cast(x2, dtypes.int32)
    return fn(x1, x2)


@export("experimental.numpy.equal")
def equal(x1, x2):
    """x1 == x2 elementwise, after tnp promotion."""
    return _comparison(CMP.equal, x1, x2)


@export("experimental.numpy.not_equal")
def not_equal(x1, x2):
    """x1 != x2 elementwise, after tnp promotion."""
    return _comparison(CMP.not_equal, x1, x2)


@export("experimental.numpy.greater")
def greater(x1, x2):
    """x1 > x2 elementwise, after tnp promotion."""
    return _comparison(CMP.greater, x1, x2, True)


@export("experimental.numpy.greater_equal")
def greater_equal(x1, x2):
    """x1 >= x2 elementwise, after tnp promotion."""
    return _comparison(CMP.greater_equal, x1, x2, True)


@export("experimental.numpy.less")
def less(x1, x2):
    """x1 < x2 elementwise, after tnp promotion."""
    return _comparison(CMP.less, x1, x2, True)


@export("experimental.numpy.less_equal")
def less_equal(x1, x2):
    """x1 <= x2 elementwise, after tnp promotion."""
    return _comparison(CMP.less_equal, x1, x2, True)


@export("experimental.numpy.array_equal")
def array_equal(a1, a2):
    """True when both have one shape and equal elements (a 0-d bool Tensor)."""
    def f(x1, x2):
        if x1.shape.as_list() != x2.shape.as_list():
            return C.constant(False)
        return R.reduce_all(CMP.equal(x1, x2))
    return _comparison(f, a1, a2)


def _logical(fn, x1, x2):
    return fn(array(x1, dtype=np.bool_), array(x2, dtype=np.bool_))


@export("experimental.numpy.logical_and")
def logical_and(x1, x2):
    """x1 and x2, elementwise on their truth values."""
    return _logical(CMP.logical_and, x1, x2)


@export("experimental.numpy.logical_or")
def logical_or(x1, x2):
    """x1 or x2, elementwise on their truth values."""
    return _logical(CMP.logical_or, x1, x2)


@export("experimental.numpy.logical_xor")
def logical_xor(x1, x2):
    """x1 xor x2, elementwise on their truth values."""
    return _logical(CMP.logical_xor, x1, x2)


@export("experimental.numpy.logical_not")
def logical_not(x):
    """not x, elementwise on its truth values."""
    return CMP.logical_not(array(x, dtype=np.bool_))


@export("experimental.numpy.around")
def around(a, decimals=0):
    """Round half to even at `decimals` places, keeping the dtype (integers round through
    the default float)."""
    a = asarray(a)
    dtype = a.dtype
    factor = math.pow(10, decimals)
    if not is_inexact(dtype):
        a = C.cast(a, result_type(float))
    factor = C.constant(factor, dtype=a.dtype)
    return C.cast(M.truediv(M.round(M.multiply(a, factor)), factor), dtype)


@export("experimental.numpy.round")
def round(a, decimals=0):  # noqa: A001 (NumPy's name)
    """Same as around."""
    return around(a, decimals=decimals)
