"""Elementwise math: arithmetic, unary functions, comparisons and logic, each with its gradient.

Binary ops broadcast like numpy; the tape sums gradients back to each input's shape, so the
rules here are written for the broadcast shape. All ops here accept batched cotangents.
"""
import math as _pymath

from minitf import dtypes, errors
from minitf.ops._core import (Tensor, Variable, _KERNEL_NP, _read, _state, record, register_batchable,
                              array_module, as_tensor, binary, check_kernel_dtype, shape_errors,
                              incompatible_shapes)

__all__ = [
    "add", "subtract", "multiply", "divide", "truediv", "floordiv", "floor_div", "floormod", "mod",
    "pow", "negative", "abs", "sign", "square", "sqrt", "rsqrt", "exp", "log", "log1p", "expm1",
    "sin", "cos", "tan", "asin", "acos", "atan", "tanh", "sinh", "cosh", "sigmoid", "softplus",
    "log_sigmoid", "erf", "maximum", "minimum", "squared_difference", "divide_no_nan", "reciprocal",
    "floor", "ceil", "round", "rint", "equal", "not_equal", "less", "less_equal", "greater",
    "greater_equal", "logical_and", "logical_or", "logical_not", "logical_xor", "is_nan",
    "is_finite", "is_inf", "clip_by_value", "add_n", "scalar_mul", "xlogy", "bitwise_and",
    "bitwise_or", "bitwise_xor", "invert", "real_div", "atan2",
]


def _float_only(x, op_name):
    """TF's floating-point-only ops reject other dtypes at the op's attr check."""
    if x._value.dtype.kind not in "fc":
        if op_name == "Reciprocal" and x._value.dtype.kind == "i":  # declared, but no kernel
            raise errors.NotFoundError(
                None, None, f"Could not find a kernel for {op_name} with dtype {x.dtype.name}. Cast "
                            f"the input with tf.cast(x, tf.float32). [Op:{op_name}]")
        raise errors.invalid_argument(
            op_name, f"Value for attr 'T' of {x.dtype.name} is not in the list of allowed values "
                     f"(floating-point and complex types); cast the input with tf.cast(x, tf.float32)")


def _unary(op_name, x, forward, grad, float_only=True):
    """Run `forward(xp, value)`; record `grad(g, x, y)` as the gradient."""
    if type(x) is not Tensor:
        x = as_tensor(x)
    v = x._value
    if float_only and v.dtype.kind not in "fc":
        _float_only(x, op_name)
    allowed = _KERNEL_NP.get(op_name)
    if allowed is not None and v.dtype not in allowed:
        check_kernel_dtype(x, op_name)
    y = Tensor(forward(array_module(v), v))
    if _state.active:
        record(op_name, (x,), (y,), lambda g: grad(g, x, y))
    return y


# -- arithmetic ------------------------------------------------------------------------------

def add(x, y, name=None):
    """x + y, elementwise with broadcasting (string tensors concatenate).

    As in TF, `x` is converted first and `y` follows its dtype where it can, so
    `tf.add(2, tf.Variable(1.0))` is a dtype mismatch while `2 + tf.Variable(1.0)` is not.
    """
    x, y = binary(x, y, "AddV2", hint=True)
    try:
        z = Tensor(x._value + y._value)
    except ValueError as e:
        raise incompatible_shapes("AddV2", e, x, y) from None
    if _state.active:
        record("AddV2", (x, y), (z,), lambda g: (g, g))
    return z


def subtract(x, y, name=None):
    """x - y, elementwise with broadcasting."""
    x, y = binary(x, y, "Sub")
    try:
        z = Tensor(x._value - y._value)
    except ValueError as e:
        raise incompatible_shapes("Sub", e, x, y) from None
    if _state.active:
        record("Sub", (x, y), (z,), lambda g: (g, lambda: negative(g)))
    return z


def multiply(x, y, name=None):
    """x * y, elementwise with broadcasting."""
    x, y = binary(x, y, "Mul")
    try:
        z = Tensor(x._value * y._value)
    except ValueError as e:
        raise incompatible_shapes("Mul", e, x, y) from None
    if _state.active:
        record("Mul", (x, y), (z,), lambda g: (lambda: g * y, lambda: g * x))
    return z


def scalar_mul(scalar, x, name=None):
    """A scalar times a tensor."""
    return multiply(scalar, x)


def truediv(x, y, name=None):
    """x / y. Integer inputs are first cast to float (int8/16 -> float32, int32/64 -> float64).

    Operands of two dtypes, or bool operands, raise TypeError as TF's Python layer does.
    """
    try:
        x, y = binary(x, y, "RealDiv", hint=True)
    except errors.InvalidArgumentError as e:
        raise TypeError(f"truediv: `x` and `y` must have the same dtype ({e.message}).") from None
    if x._value.dtype.kind == "b" or x.dtype.name == "string":
        raise TypeError(f"Invalid dtype {x.dtype!r} in __truediv__; cast to a numeric dtype first.")
    if x._value.dtype.kind in "iu":
        from minitf.ops.constant import cast
        target = "float32" if x._value.dtype.itemsize <= 2 else "float64"
        x, y = cast(x, target), cast(y, target)
    try:
        z = Tensor(x._value / y._value)
    except ValueError as e:
        raise incompatible_shapes("RealDiv", e, x, y) from None
    if _state.active:
        record("RealDiv", (x, y), (z,), lambda g: (lambda: g / y, lambda: negative(g) * z / y))
    return z


def divide(x, y, name=None):
    """x / y (Python 3 division); a non-tensor `x` takes `y`'s dtype first."""
    if not isinstance(x, (Tensor, Variable)) and isinstance(y, (Tensor, Variable)):
        x = as_tensor(x, dtype=y.dtype)
    return truediv(x, y)


def real_div(x, y, name=None):
    """x / y for tensors of one floating dtype."""
    return truediv(x, y)


def divide_no_nan(x, y, name=None):
    """x / y, but 0 wherever y is 0. Integers are cast to float first, as in tf.math.truediv."""
    if not isinstance(x, (Tensor, Variable)) and isinstance(y, (Tensor, Variable)):
        x = as_tensor(x, dtype=y.dtype)  # as tf.divide: a Python x takes y's dtype
    try:
        x, y = binary(x, y, "div_no_nan", hint=True)
    except errors.InvalidArgumentError as e:
        raise TypeError(f"divide_no_nan: `x` and `y` must have the same dtype ({e.message}).") from None
    if x._value.dtype.kind in "bO":
        raise TypeError(f"Invalid dtype {x.dtype!r} in divide_no_nan; cast to a numeric dtype first.")
    if x._value.dtype.kind in "iu":
        from minitf.ops.constant import cast
        target = "float32" if x._value.dtype.itemsize <= 2 else "float64"
        x, y = cast(x, target), cast(y, target)
    check_kernel_dtype(x, "DivNoNan")
    xp = array_module(x._value)
    safe = xp.where(y._value == 0, 1, y._value).astype(y._value.dtype)
    try:
        z = Tensor(xp.where(y._value == 0, 0, x._value / safe).astype(x._value.dtype))
    except ValueError as e:
        raise incompatible_shapes("DivNoNan", e, x, y) from None
    if _state.active:
        record("DivNoNan", (x, y), (z,),
               lambda g: (lambda: divide_no_nan(g, y), lambda: divide_no_nan(negative(g) * z, y)))
    return z


def floordiv(x, y, name=None):
    """Division rounded toward negative infinity (no gradient)."""
    x, y = binary(x, y, "FloorDiv")
    if x._value.dtype.kind == "c":
        raise errors.NotFoundError(None, None, f"Could not find a FloorDiv kernel for {x.dtype.name}; "
                                               f"floor division is not defined for complex numbers. "
                                               f"[Op:FloorDiv]")
    xp = array_module(x._value)
    with shape_errors("FloorDiv", x, y):
        if x._value.dtype.kind in "iu":
            _check_int_zero(y, "FloorDiv")
            return Tensor(xp.floor_divide(x._value, y._value))
        return Tensor(xp.floor(x._value / y._value))


floor_div = floordiv


def _check_int_zero(y, op_name):
    if (y._value == 0).any():
        raise errors.invalid_argument(op_name, "Integer division by zero")


def floormod(x, y, name=None):
    """Remainder of floor division; the result has the sign of y."""
    x, y = binary(x, y, "FloorMod")
    xp = array_module(x._value)
    if x._value.dtype.kind in "iu":
        _check_int_zero(y, "FloorMod")
    try:
        z = Tensor(xp.mod(x._value, y._value))
    except ValueError as e:
        raise incompatible_shapes("FloorMod", e, x, y) from None
    if _state.active and x._value.dtype.kind == "f":
        record("FloorMod", (x, y), (z,), lambda g: (g, lambda: negative(g) * floor(x / y)))
    return z


mod = floormod


def pow(x, y, name=None):  # noqa: A001 (TF's name)
    """x raised to the power y, elementwise."""
    x, y = binary(x, y, "Pow")
    xp = array_module(x._value)
    if x._value.dtype.kind in "iu" and (y._value < 0).any():
        raise errors.invalid_argument("Pow", "Integers to negative integer powers are not allowed")
    try:
        z = Tensor(xp.power(x._value, y._value))
    except ValueError as e:
        raise incompatible_shapes("Pow", e, x, y) from None
    if _state.active:
        def grad(g):
            def dx():
                return g * y * pow(x, y - 1)

            def dy():
                positive = greater(x, 0)
                safe_x = where_(positive, x, 1)
                return g * z * where_(positive, log(safe_x), 0)
            return dx, dy
        record("Pow", (x, y), (z,), grad)
    return z


def where_(cond, a, b):
    """Elementwise choice used by gradient rules (the public tf.where lives in array ops)."""
    from minitf.ops.array import where
    return where(cond, a, b)


def negative(x, name=None):
    """-x, elementwise."""
    return _unary("Neg", x, lambda xp, v: -v, lambda g, x, y: negative(g), float_only=False)


def abs(x, name=None):  # noqa: A001
    """|x|, elementwise."""
    return _unary("Abs", x, lambda xp, v: xp.abs(v), lambda g, x, y: g * sign(x), float_only=False)


def sign(x, name=None):
    """-1, 0 or 1 by the sign of x (zero gradient)."""
    return _unary("Sign", x, lambda xp, v: xp.sign(v), lambda g, x, y: g * 0, float_only=False)


def square(x, name=None):
    """x * x, elementwise."""
    return _unary("Square", x, lambda xp, v: v * v, lambda g, x, y: g * (2 * x), float_only=False)


def squared_difference(x, y, name=None):
    """(x - y)^2, elementwise."""
    x, y = binary(x, y, "SquaredDifference")
    return square(subtract(x, y))


def reciprocal(x, name=None):
    """1 / x, elementwise."""
    return _unary("Reciprocal", x, lambda xp, v: 1 / v, lambda g, x, y: negative(g) * y * y)


def sqrt(x, name=None):
    """Square root, elementwise."""
    return _unary("Sqrt", x, lambda xp, v: xp.sqrt(v), lambda g, x, y: g * 0.5 / y)


def rsqrt(x, name=None):
    """1 / sqrt(x), elementwise."""
    return _unary("Rsqrt", x, lambda xp, v: 1 / xp.sqrt(v), lambda g, x, y: g * (-0.5) * y * y * y)


def exp(x, name=None):
    """e^x, elementwise."""
    return _unary("Exp", x, lambda xp, v: xp.exp(v), lambda g, x, y: g * y)


def expm1(x, name=None):
    """e^x - 1, accurate for small x."""
    return _unary("Expm1", x, lambda xp, v: xp.expm1(v), lambda g, x, y: g * (y + 1))


def log(x, name=None):
    """Natural logarithm, elementwise."""
    return _unary("Log", x, lambda xp, v: xp.log(v), lambda g, x, y: g / x)


def log1p(x, name=None):
    """log(1 + x), accurate for small x."""
    return _unary("Log1p", x, lambda xp, v: xp.log1p(v), lambda g, x, y: g / (x + 1))


def xlogy(x, y, name=None):
    """x * log(y), and 0 where x is 0."""
    x, y = binary(x, y, "Xlogy")
    check_kernel_dtype(x, "Xlogy")
    zero = equal(x, 0)
    return where_(zero, x * 0, x * log(where_(zero, 1, y)))


def sin(x, name=None):
    """Sine, elementwise."""
    return _unary("Sin", x, lambda xp, v: xp.sin(v), lambda g, x, y: g * cos(x))


def cos(x, name=None):
    """Cosine, elementwise."""
    return _unary("Cos", x, lambda xp, v: xp.cos(v), lambda g, x, y: negative(g) * sin(x))


def tan(x, name=None):
    """Tangent, elementwise."""
    return _unary("Tan", x, lambda xp, v: xp.tan(v), lambda g, x, y: g * (1 + y * y))


def asin(x, name=None):
    """Inverse sine, elementwise."""
    return _unary("Asin", x, lambda xp, v: xp.arcsin(v), lambda g, x, y: g * rsqrt(1 - x * x))


def acos(x, name=None):
    """Inverse cosine, elementwise."""
    return _unary("Acos", x, lambda xp, v: xp.arccos(v), lambda g, x, y: negative(g) * rsqrt(1 - x * x))


def atan(x, name=None):
    """Inverse tangent, elementwise."""
    return _unary("Atan", x, lambda xp, v: xp.arctan(v), lambda g, x, y: g / (1 + x * x))


def atan2(y, x, name=None):
    """Angle of the point (x, y), elementwise."""
    y, x = binary(y, x, "Atan2")
    check_kernel_dtype(y, "Atan2")
    with shape_errors("Atan2", y, x):
        z = Tensor(array_module(y._value).arctan2(y._value, x._value))
    if _state.active:
        def grad(g):
            d = x * x + y * y
            return (lambda: g * x / d, lambda: negative(g) * y / d)
        record("Atan2", (y, x), (z,), grad)
    return z


def sinh(x, name=None):
    """Hyperbolic sine, elementwise."""
    return _unary("Sinh", x, lambda xp, v: xp.sinh(v), lambda g, x, y: g * cosh(x))


def cosh(x, name=None):
    """Hyperbolic cosine, elementwise."""
    return _unary("Cosh", x, lambda xp, v: xp.cosh(v), lambda g, x, y: g * sinh(x))


def tanh(x, name=None):
    """Hyperbolic tangent, elementwise."""
    # written out rather than through _unary: tanh is on the hot path of small models
    if type(x) is not Tensor:
        x = as_tensor(x)
    v = x._value
    if v.dtype.kind not in "fc":
        _float_only(x, "Tanh")
    y = Tensor(array_module(v).tanh(v))
    if _state.active:
        record("Tanh", (x,), (y,), lambda g: _tanh_grad(y, g))
    return y


def _tanh_grad(y, g):
    """g * (1 - y^2) in one pass (TF's TanhGrad), itself differentiable."""
    v = y._value
    out = Tensor(g._value * (1 - v * v))
    if _state.active:
        record("TanhGrad", (y, g), (out,),
               lambda u: (lambda: u * g * y * -2.0, lambda: _tanh_grad(y, u)))
    return out


def sigmoid(x, name=None):
    """Logistic function 1 / (1 + e^-x), elementwise, computed without overflow."""
    def forward(xp, v):
        # exp of a non-positive number never overflows
        e = xp.exp(-xp.abs(v))
        return xp.where(v >= 0, 1 / (1 + e), e / (1 + e)).astype(v.dtype)
    return _unary("Sigmoid", x, forward, lambda g, x, y: _sigmoid_grad(y, g))


def _sigmoid_grad(y, g):
    """g * y * (1 - y) in one pass (TF's SigmoidGrad), itself differentiable."""
    v = y._value
    out = Tensor(g._value * v * (1 - v))
    if _state.active:
        record("SigmoidGrad", (y, g), (out,),
               lambda u: (lambda: u * g * (1 - 2 * y), lambda: _sigmoid_grad(y, u)))
    return out


def softplus(x, name=None):
    """log(1 + e^x), elementwise, stable for large |x|."""
    return _unary("Softplus", x, lambda xp, v: xp.logaddexp(v, 0).astype(v.dtype),
                  lambda g, x, y: g * sigmoid(x))


def log_sigmoid(x, name=None):
    """log(sigmoid(x)) = -softplus(-x), stable."""
    return negative(softplus(negative(x)))


def erf(x, name=None):
    """The Gauss error function, elementwise."""
    def forward(xp, v):
        from minitf.ops._special import erf as erf_any
        return erf_any(xp, v)
    coef = 2.0 / _pymath.sqrt(_pymath.pi)
    return _unary("Erf", x, forward, lambda g, x, y: g * coef * exp(negative(square(x))))


def maximum(x, y, name=None):
    """The larger of x and y, elementwise (ties send the gradient to x)."""
    x, y = binary(x, y, "Maximum")
    try:
        z = Tensor(array_module(x._value).maximum(x._value, y._value))
    except ValueError as e:
        raise incompatible_shapes("Maximum", e, x, y) from None
    if _state.active:
        def grad(g):
            mask = greater_equal(x, y)
            return (lambda: where_(mask, g, g * 0), lambda: where_(mask, g * 0, g))
        record("Maximum", (x, y), (z,), grad)
    return z


def minimum(x, y, name=None):
    """The smaller of x and y, elementwise (ties send the gradient to x)."""
    x, y = binary(x, y, "Minimum")
    try:
        z = Tensor(array_module(x._value).minimum(x._value, y._value))
    except ValueError as e:
        raise incompatible_shapes("Minimum", e, x, y) from None
    if _state.active:
        def grad(g):
            mask = less_equal(x, y)
            return (lambda: where_(mask, g, g * 0), lambda: where_(mask, g * 0, g))
        record("Minimum", (x, y), (z,), grad)
    return z


def clip_by_value(t, clip_value_min, clip_value_max, name=None):
    """Values of `t` limited to [clip_value_min, clip_value_max]; gradient flows only inside."""
    t = as_tensor(t)
    check_kernel_dtype(t, "ClipByValue")
    lo = as_tensor(clip_value_min, dtype=None if isinstance(clip_value_min, Tensor) else t.dtype)
    hi = as_tensor(clip_value_max, dtype=None if isinstance(clip_value_max, Tensor) else t.dtype)
    xp = array_module(t._value)
    with shape_errors("ClipByValue", t, lo, hi):
        z = Tensor(xp.minimum(xp.maximum(t._value, lo._value), hi._value).astype(t._value.dtype))
    if tuple(z._value.shape) != tuple(t._value.shape):
        raise errors.invalid_argument("ClipByValue", f"clip bounds of shapes {list(lo.shape)} and "
                                                     f"{list(hi.shape)} must broadcast to t's shape {list(t.shape)}")
    if _state.active:
        def grad(g):
            inside = logical_and(greater_equal(t, lo), less_equal(t, hi))
            return (lambda: where_(inside, g, g * 0), None, None)
        record("ClipByValue", (t, lo, hi), (z,), grad)
    return z


def floor(x, name=None):
    """Largest integer not greater than x, elementwise (no gradient)."""
    x = as_tensor(x)
    check_kernel_dtype(x, "Floor")
    return Tensor(array_module(x._value).floor(x._value))


def ceil(x, name=None):
    """Smallest integer not less than x, elementwise (no gradient)."""
    x = as_tensor(x)
    check_kernel_dtype(x, "Ceil")
    return Tensor(array_module(x._value).ceil(x._value))


def round(x, name=None):  # noqa: A001
    """Round half to even, elementwise (no gradient); integer tensors come back as they are."""
    x = as_tensor(x)
    if x._value.dtype.kind in "iu":
        return x
    if x._value.dtype.kind == "c":
        raise errors.NotFoundError(None, None, f"Could not find a Round kernel for {x.dtype.name}; round "
                                               f"the real and imaginary parts separately. [Op:Round]")
    check_kernel_dtype(x, "Round")
    return Tensor(array_module(x._value).round(x._value))


def rint(x, name=None):
    """Round half to even, elementwise; float32/float64 only (TF has no float16 or integer Rint kernel)."""
    x = as_tensor(x)
    if x._value.dtype == "float16":
        raise errors.NotFoundError(None, None, "Could not find a Rint kernel for float16 on this device; "
                                               "cast to float32 or use tf.round. [Op:Rint]")
    check_kernel_dtype(x, "Rint")
    return Tensor(array_module(x._value).rint(x._value))


def add_n(inputs, name=None):
    """Sum of a list of tensors of the same shape and dtype."""
    if not inputs:
        raise ValueError("add_n needs at least one input tensor.")
    tensors = [as_tensor(t) for t in inputs]
    shapes = {tuple(t._value.shape) for t in tensors}
    if len(shapes) > 1:
        raise errors.invalid_argument("AddN", f"Inputs to add_n must all have the same shape, got "
                                              f"{sorted(shapes)}")
    total = tensors[0]
    for t in tensors[1:]:
        total = add(total, t)
    return total if len(tensors) > 1 else tensors[0]


# -- comparisons and logic (no gradients) -----------------------------------------------------

def _compare(op_name, x, y, fn):
    x, y = binary(x, y, op_name)
    with shape_errors(op_name, x, y):
        return Tensor(fn(array_module(x._value), x._value, y._value))


def equal(x, y, name=None):
    """x == y, elementwise (a bool tensor)."""
    return _compare("Equal", x, y, lambda xp, a, b: xp.equal(a, b))


def not_equal(x, y, name=None):
    """x != y, elementwise."""
    return _compare("NotEqual", x, y, lambda xp, a, b: xp.not_equal(a, b))


def less(x, y, name=None):
    """x < y, elementwise."""
    return _compare("Less", x, y, lambda xp, a, b: xp.less(a, b))


def less_equal(x, y, name=None):
    """x <= y, elementwise."""
    return _compare("LessEqual", x, y, lambda xp, a, b: xp.less_equal(a, b))


def greater(x, y, name=None):
    """x > y, elementwise."""
    return _compare("Greater", x, y, lambda xp, a, b: xp.greater(a, b))


def greater_equal(x, y, name=None):
    """x >= y, elementwise."""
    return _compare("GreaterEqual", x, y, lambda xp, a, b: xp.greater_equal(a, b))


def _to_bool(x):
    """Input of a logical op: Python values must convert to bool (TypeError otherwise)."""
    t = _read(x)
    return as_tensor(t, dtype=None if isinstance(t, Tensor) else dtypes.bool)


def _as_bool(t, op_name, index):
    """Tensor input #index of a logical op, which must already be bool (InvalidArgumentError)."""
    t = _to_bool(t)
    if t._value.dtype.kind != "b":
        raise errors.invalid_argument(
            op_name, f"cannot compute {op_name} as input #{index}(zero-based) was expected to be a bool "
                     f"tensor but is a {t.dtype.name} tensor; compare or cast it to tf.bool first")
    return t


def _logical(op_name, x, y, fn):
    if isinstance(x, (Tensor, Variable)) and isinstance(y, (Tensor, Variable)):
        x, y = _as_bool(x, op_name, 0), _as_bool(y, op_name, 1)
    else:
        # as TF's eager conversion: a Python scalar that is not a bool fails first (TypeError);
        # otherwise each input is converted to bool in turn, tensors too (an int tensor is a
        # ValueError, a list of ints a TypeError)
        for v in (x, y):
            if isinstance(v, (int, float, complex, str)) and not isinstance(v, bool):
                as_tensor(v, dtype=dtypes.bool)
        x, y = as_tensor(_read(x), dtype=dtypes.bool), as_tensor(_read(y), dtype=dtypes.bool)
    with shape_errors(op_name, x, y):
        return Tensor(fn(array_module(x._value), x._value, y._value))


def logical_and(x, y, name=None):
    """Elementwise AND of bool tensors."""
    return _logical("LogicalAnd", x, y, lambda xp, a, b: xp.logical_and(a, b))


def logical_or(x, y, name=None):
    """Elementwise OR of bool tensors."""
    return _logical("LogicalOr", x, y, lambda xp, a, b: xp.logical_or(a, b))


def logical_xor(x, y, name=None):
    """Elementwise XOR of bool tensors."""
    return _logical("LogicalXor", x, y, lambda xp, a, b: xp.logical_xor(a, b))


def logical_not(x, name=None):
    """Elementwise NOT of a bool tensor."""
    x = _as_bool(x, "LogicalNot", 0)
    return Tensor(array_module(x._value).logical_not(x._value))


def bitwise_and(x, y, name=None):
    """Elementwise bitwise AND of integer tensors."""
    x, y = binary(x, y, "BitwiseAnd")
    with shape_errors("BitwiseAnd", x, y):
        return Tensor(x._value & y._value)


def bitwise_or(x, y, name=None):
    """Elementwise bitwise OR of integer tensors."""
    x, y = binary(x, y, "BitwiseOr")
    with shape_errors("BitwiseOr", x, y):
        return Tensor(x._value | y._value)


def bitwise_xor(x, y, name=None):
    """Elementwise bitwise XOR of integer tensors."""
    x, y = binary(x, y, "BitwiseXor")
    with shape_errors("BitwiseXor", x, y):
        return Tensor(x._value ^ y._value)


def invert(x, name=None):
    """Elementwise bitwise NOT of an integer tensor (`~` on a bool tensor is logical_not)."""
    x = as_tensor(x)
    check_kernel_dtype(x, "Invert")
    return Tensor(~x._value)


def is_nan(x, name=None):
    """True where x is NaN."""
    x = as_tensor(x)
    check_kernel_dtype(x, "IsNan")
    return Tensor(array_module(x._value).isnan(x._value))


def is_finite(x, name=None):
    """True where x is neither infinite nor NaN."""
    x = as_tensor(x)
    check_kernel_dtype(x, "IsFinite")
    return Tensor(array_module(x._value).isfinite(x._value))


def is_inf(x, name=None):
    """True where x is +inf or -inf."""
    x = as_tensor(x)
    check_kernel_dtype(x, "IsInf")
    return Tensor(array_module(x._value).isinf(x._value))


register_batchable(
    "AddV2", "Sub", "Mul", "RealDiv", "DivNoNan", "FloorMod", "Pow", "Neg", "Abs", "Sign", "Square",
    "Reciprocal", "Sqrt", "Rsqrt", "Exp", "Expm1", "Log", "Log1p", "Sin", "Cos", "Tan", "Asin",
    "Acos", "Atan", "Atan2", "Sinh", "Cosh", "Tanh", "TanhGrad", "Sigmoid", "SigmoidGrad",
    "Softplus", "Erf", "Maximum", "Minimum", "ClipByValue",
)
