"""Elementwise functions of one tensor (negative, abs, powers and roots, exp/log, trig and
hyperbolic functions, sigmoid and softplus, erf, rounding), each with its gradient rule beside it.

Complex inputs follow TF's convention: the gradient of a holomorphic f is g * conj(f'(z)), so the
rules conjugate what they multiply g by (`conj_or_self` is a no-op on real tensors). Every
differentiable op here accepts batched cotangents. tf.math re-exports them through
`minitf.ops.math`, which builds the binary arithmetic on top of them.
"""
import math as _pymath

import numpy as np

from minitf import dispatch, kernels
from minitf.errors import errors
from minitf.ops._core import (FLOATS, NUMERIC, SIGNED, Op, Tensor, thread_state, array_module, as_tensor,
                              record)
from minitf.ops._special import erf as _erf_any
from minitf.ops.constant import cast
from minitf.ops.gather import where
from minitf.api_export import export

__all__ = [
    "negative", "abs", "sign", "square", "reciprocal", "sqrt", "rsqrt", "exp", "expm1", "log", "log1p",
    "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh", "sigmoid", "softplus",
    "log_sigmoid", "erf", "floor", "ceil", "round", "rint",
]

# TF's floating-point-only ops: their dtype list is the one float guard (InvalidArgumentError)
FLOAT_OR_COMPLEX = FLOATS + ("complex64", "complex128")


def _unary(op, x, forward, grad):
    """Run `forward(xp, value)` after `op`'s dtype check; record `grad(g, x, y)` as the gradient."""
    if type(x) is not Tensor:
        try:
            x = as_tensor(x)
        except (TypeError, ValueError):  # a RaggedTensor: the op maps its values (minitf.dispatch)
            return dispatch.fallback(dispatch.mark_elementwise(lambda t: _unary(op, t, forward, grad), "unary"),
                                     (x,), {})
    v = x._value
    if v.dtype not in op.np_dtypes:
        op.check_dtype(x)
    y = Tensor(forward(array_module(v), v))
    if thread_state.active:
        record(op, (x,), (y,), lambda g: grad(g, x, y))
    return y


CONJ = Op("Conj", batchable=True)


def conj_or_self(t):
    """The complex conjugate of the tensor `t` (`t` itself when it is real); the gradient is the
    upstream gradient's conjugate. tf.math.conj (minitf.ops.complex_ops) checks, then calls this."""
    v = t._value
    if v.dtype.kind != "c":
        return t
    y = Tensor(array_module(v).conj(v))
    if thread_state.active:
        record(CONJ, (t,), (y,), conj_or_self)
    return y


# -- TF's fused gradients of sqrt, rsqrt and reciprocal ---------------------------------------

def _unless_no_upstream(y, g, formula):
    """`formula(conj(y), g)` on raw arrays, and 0 wherever g is 0, even where y is 0 or infinite
    (TF's SqrtGrad, RsqrtGrad and ReciprocalGrad kernels: a term with no upstream adds no NaN)."""
    yv, gv = y._value, g._value
    xp = array_module(yv)
    with np.errstate(all="ignore"):
        out = formula(xp.conj(yv) if yv.dtype.kind == "c" else yv, gv)
        return Tensor(xp.where(gv == 0, 0, out).astype(out.dtype, copy=False))


SQRT_GRAD = Op("SqrtGrad", batchable=True)


def _sqrt_grad(y, g):
    """0.5 * g / conj(y) from sqrt's output `y` (TF's SqrtGrad), itself differentiable."""
    out = _unless_no_upstream(y, g, lambda c, gv: 0.5 * gv / c)
    if thread_state.active:
        def grad(u):  # TF's SqrtGradGrad
            ga = u / y
            return (lambda: negative(conj_or_self(ga)) * out, lambda: 0.5 * ga)
        record(SQRT_GRAD, (y, g), (out,), grad)
    return out


RSQRT_GRAD = Op("RsqrtGrad", batchable=True)


def _rsqrt_grad(y, g):
    """-0.5 * g * conj(y)^3 from rsqrt's output `y` (TF's RsqrtGrad), itself differentiable."""
    out = _unless_no_upstream(y, g, lambda c, gv: -0.5 * (gv * c) * (c * c))
    if thread_state.active:  # TF's RsqrtGradGrad
        record(RSQRT_GRAD, (y, g), (out,), lambda u: (lambda: -1.5 * conj_or_self(u) * g * square(conj_or_self(y)),
                                                      lambda: _rsqrt_grad(conj_or_self(y), u)))
    return out


RECIPROCAL_GRAD = Op("ReciprocalGrad", batchable=True)


def _reciprocal_grad(y, g):
    """-conj(y)^2 * g from reciprocal's output `y` (TF's ReciprocalGrad), itself differentiable."""
    out = _unless_no_upstream(y, g, lambda c, gv: (-c * c) * gv)
    if thread_state.active:  # TF's ReciprocalGradGrad
        record(RECIPROCAL_GRAD, (y, g), (out,), lambda u: (lambda: conj_or_self(u) * -2.0 * g * conj_or_self(y),
                                                           lambda: _reciprocal_grad(conj_or_self(y), u)))
    return out


NEG = Op("Neg", batchable=True, dtypes=SIGNED)


@export("negative", "math.negative")
def negative(x, name=None):
    """-x, elementwise."""
    return _unary(NEG, x, lambda xp, v: -v, lambda g, x, y: negative(g))


ABS = Op("Abs", batchable=True, dtypes=SIGNED)


@export("abs", "math.abs")
def abs(x, name=None):  # noqa: A001
    """|x|, elementwise (a real tensor for a complex x, as TF's ComplexAbs)."""
    return _unary(ABS, x, lambda xp, v: xp.abs(v),
                  lambda g, x, y: _complex_abs_grad(x, y, g) if x._value.dtype.kind == "c" else g * sign(x))


def _nonzero_divide(num, den, zero):
    """num / den, and 0 where the bool tensor `zero` holds (den 0 there; no NaN reaches the
    gradients)."""
    xp = array_module(den._value)
    safe = where(zero, Tensor(xp.ones_like(den._value)), den)
    out = num / safe
    return where(zero, Tensor(xp.zeros_like(out._value)), out)


def _complex_abs_grad(x, y, g):
    """TF's ComplexAbs gradient: g * x / |x| (0 where x is 0), for the real upstream g."""
    zero = Tensor(y._value == 0)
    return _nonzero_divide(cast(g, x.dtype) * x, cast(y, x.dtype), zero)


SIGN = Op("Sign", batchable=True, dtypes=SIGNED)


@export("sign", "math.sign")
def sign(x, name=None):
    """-1, 0 or 1 by the sign of x (zero gradient); x / |x| (0 at 0) for a complex x, differentiable
    as TF computes it (div_no_nan(x, complex(|x|)))."""
    if type(x) is not Tensor:
        try:
            x = as_tensor(x)
        except (TypeError, ValueError):  # a RaggedTensor or a graph value (minitf.dispatch)
            return dispatch.fallback(sign, (x,), {})
    if x._value.dtype.kind == "c":
        return _nonzero_divide(x, cast(abs(x), x.dtype), Tensor(x._value == 0))
    return _unary(SIGN, x, lambda xp, v: xp.sign(v), lambda g, x, y: g * 0)


SQUARE = Op("Square", batchable=True, dtypes=NUMERIC)


@export("square", "math.square")
def square(x, name=None):
    """x * x, elementwise."""
    return _unary(SQUARE, x, lambda xp, v: v * v, lambda g, x, y: g * (conj_or_self(x) * 2))


RECIPROCAL = Op("Reciprocal", batchable=True, dtypes=FLOAT_OR_COMPLEX)


@export("math.reciprocal")
@dispatch.add_dispatch_support(elementwise="unary")
def reciprocal(x, name=None):
    """1 / x, elementwise."""
    x = as_tensor(x)
    if x._value.dtype.kind == "i":  # TF declares integer Reciprocal but registers no kernel
        raise errors.NotFoundError(
            None, None, f"Could not find a kernel for Reciprocal with dtype {x.dtype.name}. Cast "
                        f"the input with tf.cast(x, tf.float32). [Op:Reciprocal]")
    return _unary(RECIPROCAL, x, lambda xp, v: 1 / v, lambda g, x, y: _reciprocal_grad(y, g))


SQRT = Op("Sqrt", batchable=True, dtypes=FLOAT_OR_COMPLEX)


@export("sqrt", "math.sqrt")
def sqrt(x, name=None):
    """Square root, elementwise."""
    return _unary(SQRT, x, lambda xp, v: xp.sqrt(v), lambda g, x, y: _sqrt_grad(y, g))


RSQRT = Op("Rsqrt", batchable=True, dtypes=FLOAT_OR_COMPLEX)


@export("math.rsqrt")
def rsqrt(x, name=None):
    """1 / sqrt(x), elementwise."""
    return _unary(RSQRT, x, lambda xp, v: 1 / xp.sqrt(v), lambda g, x, y: _rsqrt_grad(y, g))


EXP = Op("Exp", batchable=True, dtypes=FLOAT_OR_COMPLEX)


@export("exp", "math.exp")
def exp(x, name=None):
    """e^x, elementwise."""
    return _unary(EXP, x, lambda xp, v: xp.exp(v), lambda g, x, y: g * conj_or_self(y))


EXPM1 = Op("Expm1", batchable=True, dtypes=FLOAT_OR_COMPLEX)


@export("math.expm1")
def expm1(x, name=None):
    """e^x - 1, accurate for small x."""
    return _unary(EXPM1, x, lambda xp, v: xp.expm1(v), lambda g, x, y: g * exp(conj_or_self(x)))


LOG = Op("Log", batchable=True, dtypes=FLOAT_OR_COMPLEX)


@export("math.log")
def log(x, name=None):
    """Natural logarithm, elementwise."""
    return _unary(LOG, x, lambda xp, v: xp.log(v), lambda g, x, y: g / conj_or_self(x))


LOG1P = Op("Log1p", batchable=True, dtypes=FLOAT_OR_COMPLEX)


@export("math.log1p")
def log1p(x, name=None):
    """log(1 + x), accurate for small x."""
    return _unary(LOG1P, x, lambda xp, v: xp.log1p(v), lambda g, x, y: g / (conj_or_self(x) + 1))


SIN = Op("Sin", batchable=True, dtypes=FLOAT_OR_COMPLEX)


@export("sin", "math.sin")
def sin(x, name=None):
    """Sine, elementwise."""
    return _unary(SIN, x, lambda xp, v: xp.sin(v), lambda g, x, y: g * cos(conj_or_self(x)))


COS = Op("Cos", batchable=True, dtypes=FLOAT_OR_COMPLEX)


@export("cos", "math.cos")
def cos(x, name=None):
    """Cosine, elementwise."""
    return _unary(COS, x, lambda xp, v: xp.cos(v), lambda g, x, y: negative(g) * sin(conj_or_self(x)))


TAN = Op("Tan", batchable=True, dtypes=FLOAT_OR_COMPLEX)


@export("tan", "math.tan")
def tan(x, name=None):
    """Tangent, elementwise."""
    return _unary(TAN, x, lambda xp, v: xp.tan(v), lambda g, x, y: g * (1 + square(conj_or_self(y))))


ASIN = Op("Asin", batchable=True, dtypes=FLOAT_OR_COMPLEX)


@export("asin", "math.asin")
def asin(x, name=None):
    """Inverse sine, elementwise."""
    return _unary(ASIN, x, lambda xp, v: xp.arcsin(v), lambda g, x, y: g * rsqrt(1 - square(conj_or_self(x))))


ACOS = Op("Acos", batchable=True, dtypes=FLOAT_OR_COMPLEX)


@export("acos", "math.acos")
def acos(x, name=None):
    """Inverse cosine, elementwise."""
    return _unary(ACOS, x, lambda xp, v: xp.arccos(v),
                  lambda g, x, y: negative(g) * rsqrt(1 - square(conj_or_self(x))))


ATAN = Op("Atan", batchable=True, dtypes=FLOAT_OR_COMPLEX)


@export("atan", "math.atan")
def atan(x, name=None):
    """Inverse tangent, elementwise."""
    return _unary(ATAN, x, lambda xp, v: xp.arctan(v), lambda g, x, y: g / (1 + square(conj_or_self(x))))


SINH = Op("Sinh", batchable=True, dtypes=FLOAT_OR_COMPLEX)


@export("sinh", "math.sinh")
def sinh(x, name=None):
    """Hyperbolic sine, elementwise."""
    return _unary(SINH, x, lambda xp, v: xp.sinh(v), lambda g, x, y: g * cosh(conj_or_self(x)))


COSH = Op("Cosh", batchable=True, dtypes=FLOAT_OR_COMPLEX)


@export("cosh", "math.cosh")
def cosh(x, name=None):
    """Hyperbolic cosine, elementwise."""
    return _unary(COSH, x, lambda xp, v: xp.cosh(v), lambda g, x, y: g * sinh(conj_or_self(x)))


TANH = Op("Tanh", batchable=True, dtypes=FLOAT_OR_COMPLEX)


@export("tanh", "math.tanh", "nn.tanh")
def tanh(x, name=None):
    """Hyperbolic tangent, elementwise.

    Args:
      x: a floating-point or complex tensor (or a value converting to one).
      name: ignored.

    Returns:
      tanh(x), of x's dtype and shape; its gradient is g * (1 - tanh(x)^2).

    Raises:
      InvalidArgumentError: x has an integer, bool or string dtype.
    """
    # written out rather than through _unary: tanh is on the hot path of small models
    if type(x) is not Tensor:
        try:
            x = as_tensor(x)
        except (TypeError, ValueError):  # a RaggedTensor: the op maps its values (minitf.dispatch)
            return dispatch.fallback(tanh, (x,), {})
    v = x._value
    if v.dtype not in TANH.np_dtypes:
        TANH.check_dtype(x)
    y = Tensor(array_module(v).tanh(v))
    if thread_state.active:
        record(TANH, (x,), (y,), lambda g: _tanh_grad(conj_or_self(y), g))
    return y


TANH_GRAD = Op("TanhGrad", batchable=True)


def _tanh_grad(y, g):
    """g * (1 - y^2) in one pass (TF's TanhGrad, given conj(tanh(x)) for a complex x), itself
    differentiable (TF's TanhGradGrad)."""
    v = y._value
    out = Tensor(kernels.for_module(array_module(v)).tanh_grad(v, g._value))
    if thread_state.active:
        record(TANH_GRAD, (y, g), (out,),
               lambda u: (lambda: u * -2.0 * conj_or_self(g) * conj_or_self(y), lambda: _tanh_grad(conj_or_self(y), u)))
    return out


SIGMOID = Op("Sigmoid", batchable=True, dtypes=FLOAT_OR_COMPLEX)


@export("sigmoid", "math.sigmoid", "nn.sigmoid")
def sigmoid(x, name=None):
    """Logistic function 1 / (1 + e^-x), elementwise, computed without overflow."""
    return _unary(SIGMOID, x, _sigmoid_values, lambda g, x, y: _sigmoid_grad(conj_or_self(y), g))


def _sigmoid_values(xp, v):
    if v.dtype.kind == "c":  # TF's formula (the real kernel's e^-|v| trick drops the imaginary part)
        return 1 / (1 + xp.exp(-v))
    return kernels.for_module(xp).sigmoid(v)


SIGMOID_GRAD = Op("SigmoidGrad", batchable=True)


def _sigmoid_grad(y, g):
    """g * y * (1 - y) in one pass (TF's SigmoidGrad, given conj(sigmoid(x)) for a complex x),
    itself differentiable (TF's SigmoidGradGrad)."""
    v = y._value
    out = Tensor(kernels.for_module(array_module(v)).sigmoid_grad(v, g._value))
    if thread_state.active:
        def grad(u):
            gb = u * conj_or_self(g)
            return (lambda: gb - 2.0 * gb * conj_or_self(y), lambda: _sigmoid_grad(conj_or_self(y), u))
        record(SIGMOID_GRAD, (y, g), (out,), grad)
    return out


SOFTPLUS = Op("Softplus", batchable=True, dtypes=FLOATS)  # TF has no complex kernel


@export("math.softplus", "nn.softplus")
def softplus(x, name=None):
    """log(1 + e^x), elementwise, stable for large |x|."""
    return _unary(SOFTPLUS, x, lambda xp, v: xp.logaddexp(v, 0).astype(v.dtype),
                  lambda g, x, y: g * sigmoid(x))


@export("math.log_sigmoid")
def log_sigmoid(x, name=None):
    """log(sigmoid(x)) = -softplus(-x), stable."""
    return negative(softplus(negative(x)))


ERF = Op("Erf", batchable=True, dtypes=FLOATS)  # TF has no complex kernel
_ERF_COEF = 2.0 / _pymath.sqrt(_pymath.pi)


@export("math.erf")
def erf(x, name=None):
    """The Gauss error function, elementwise."""
    return _unary(ERF, x, _erf_any, lambda g, x, y: g * _ERF_COEF * exp(negative(square(x))))


# -- rounding (no gradients) -------------------------------------------------------------------

FLOOR = Op("Floor", dtypes=FLOATS)


@export("floor", "math.floor")
@dispatch.add_dispatch_support(elementwise="unary")
def floor(x, name=None):
    """Largest integer not greater than x, elementwise (no gradient)."""
    x = as_tensor(x)
    FLOOR.check_dtype(x)
    return Tensor(array_module(x._value).floor(x._value))


CEIL = Op("Ceil", dtypes=FLOATS)


@export("math.ceil")
@dispatch.add_dispatch_support(elementwise="unary")
def ceil(x, name=None):
    """Smallest integer not less than x, elementwise (no gradient)."""
    x = as_tensor(x)
    CEIL.check_dtype(x)
    return Tensor(array_module(x._value).ceil(x._value))


ROUND = Op("Round", dtypes=SIGNED)


@export("round", "math.round")
@dispatch.add_dispatch_support(elementwise="unary")
def round(x, name=None):  # noqa: A001
    """Round half to even, elementwise (no gradient); integer tensors come back as they are."""
    x = as_tensor(x)
    if x._value.dtype.kind in "iu":
        return x
    if x._value.dtype.kind == "c":
        raise errors.NotFoundError(None, None, f"Could not find a Round kernel for {x.dtype.name}; round "
                                               f"the real and imaginary parts separately. [Op:Round]")
    ROUND.check_dtype(x)
    return Tensor(array_module(x._value).round(x._value))


RINT = Op("Rint", dtypes=FLOATS)


@export("math.rint")
@dispatch.add_dispatch_support(elementwise="unary")
def rint(x, name=None):
    """Round half to even, elementwise; float32/float64 only (TF has no float16 or integer Rint kernel)."""
    x = as_tensor(x)
    if x._value.dtype == "float16":
        raise errors.NotFoundError(None, None, "Could not find a Rint kernel for float16 on this device; "
                                               "cast to float32 or use tf.round. [Op:Rint]")
    RINT.check_dtype(x)
    return Tensor(array_module(x._value).rint(x._value))


dispatch.mark_elementwise(tanh, "unary")
dispatch.mark_elementwise(sign, "unary")
