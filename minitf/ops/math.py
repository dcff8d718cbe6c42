"""Elementwise binary arithmetic (add, multiply, divisions, pow, maximum, ...), clip_by_value and
add_n, each with its gradient rule beside it.

Binary ops broadcast like numpy; the tape sums gradients back to each input's shape, so the
rules here are written for the broadcast shape. Complex operands follow TF's convention (the
gradient of a holomorphic f is g * conj(df/dz)). Every differentiable op here accepts batched
cotangents. tf.math's functions of one tensor (`minitf.ops.math_unary`) and its comparisons,
logic and bitwise ops (`minitf.ops.compare`) are defined below this module and re-exported here.
"""
from minitf import dispatch
from minitf.errors import errors
from minitf.backend import coerce_to_module
from minitf.ops._core import (FLOATS, NUMERIC, REAL, SIGNED, Op, Tensor, Variable, thread_state, array_module,
                              as_tensor, binary, record)
from minitf.ops.array import where
from minitf.ops.compare import (  # noqa: F401 (tf.math's comparisons, logic and bitwise ops)
    bitwise_and, bitwise_or, bitwise_xor, equal, greater, greater_equal, invert, is_finite, is_inf,
    is_nan, less, less_equal, logical_and, logical_not, logical_or, logical_xor, not_equal)
from minitf.ops.constant import cast
from minitf.ops.arg_checks import converted, named
from minitf.recording import stop_recording_all
from minitf.ops.math_unary import (  # noqa: F401 (tf.math's functions of one tensor)
    FLOAT_OR_COMPLEX, conj_or_self, abs, acos, asin, atan, ceil, cos, cosh, erf, exp, expm1, floor, log, log1p,
    log_sigmoid, negative, reciprocal, rint, round, rsqrt, sigmoid, sign, sin, sinh, softplus, sqrt,
    square, tan, tanh)
from minitf.api_export import export, export_value

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


def _to_float(x, y):
    """Integer operands of a division cast to float (int8/16 -> float32, int32/64 -> float64)."""
    target = "float32" if x._value.dtype.itemsize <= 2 else "float64"
    return cast(x, target), cast(y, target)


# -- arithmetic ------------------------------------------------------------------------------

ADD = Op("AddV2", batchable=True, dtypes=NUMERIC + ("string",))


@export("add", "math.add")
def add(x, y, name=None):
    """x + y, elementwise with broadcasting (string tensors concatenate).

    As in TF, `x` is converted first and `y` follows its dtype where it can, so
    `tf.add(2, tf.Variable(1.0))` is a dtype mismatch while `2 + tf.Variable(1.0)` is not.

    Args:
      x: a tensor, variable or Python/numpy value.
      y: a value of the same dtype, broadcastable against `x`.
      name: ignored (graph names do not exist in eager mode).

    Returns:
      The sum, of the operands' dtype and broadcast shape.

    Raises:
      InvalidArgumentError: the dtypes differ, have no kernel, or the shapes do not broadcast.
    """
    try:
        x, y = binary(x, y, ADD, hint=True)
    except (TypeError, ValueError) as e:  # a RaggedTensor operand: see minitf.dispatch
        if not (dispatch.is_dispatchable(x) or dispatch.is_dispatchable(y)):
            raise named(e, "tf.add") from None
        return dispatch.fallback(add, (x, y), {})
    try:
        raw = x._value + y._value
    except ValueError as e:
        raise ADD.shape_error(e, x, y) from None
    if raw.__class__ is bytes:  # two scalar strings: numpy returns the joined bytes themselves
        raw = array_module(x._value).array(raw, dtype=object)
    z = Tensor(raw)
    if thread_state.active:
        record(ADD, (x, y), (z,), lambda g: (g, g))
    return z


SUB = Op("Sub", batchable=True, dtypes=NUMERIC)


@export("subtract", "math.subtract")
def subtract(x, y, name=None):
    """x - y, elementwise with broadcasting."""
    try:
        x, y = binary(x, y, SUB)
    except (TypeError, ValueError):  # a RaggedTensor operand: see minitf.dispatch
        return dispatch.fallback(subtract, (x, y), {})
    try:
        z = Tensor(x._value - y._value)
    except ValueError as e:
        raise SUB.shape_error(e, x, y) from None
    if thread_state.active:
        record(SUB, (x, y), (z,), lambda g: (g, lambda: negative(g)))
    return z


MUL = Op("Mul", batchable=True, dtypes=NUMERIC)


@export("multiply", "math.multiply")
def multiply(x, y, name=None):
    """x * y, elementwise with broadcasting.

    Args:
      x: a tensor, variable or Python/numpy value.
      y: a value of the same dtype, broadcastable against `x`.
      name: ignored.

    Returns:
      The product, of the operands' dtype and broadcast shape.

    Raises:
      InvalidArgumentError: the dtypes differ, have no kernel, or the shapes do not broadcast.
    """
    try:
        x, y = binary(x, y, MUL)
    except (TypeError, ValueError):  # a RaggedTensor operand: see minitf.dispatch
        return dispatch.fallback(multiply, (x, y), {})
    try:
        z = Tensor(x._value * y._value)
    except ValueError as e:
        raise MUL.shape_error(e, x, y) from None
    if thread_state.active:
        record(MUL, (x, y), (z,), lambda g: (lambda: g * conj_or_self(y), lambda: conj_or_self(x) * g))
    return z


@export("scalar_mul", "math.scalar_mul")
@dispatch.add_dispatch_support
def scalar_mul(scalar, x, name=None):
    """A scalar times a tensor."""
    return multiply(scalar, x)


REAL_DIV = Op("RealDiv", batchable=True, dtypes=NUMERIC)


@export("truediv", "math.truediv")
def truediv(x, y, name=None):
    """x / y. Integer inputs are first cast to float (int8/16 -> float32, int32/64 -> float64).

    Operands of two dtypes, or bool operands, raise TypeError as TF's Python layer does.
    """
    try:
        x, y = binary(x, y, REAL_DIV, hint=True)
    except errors.InvalidArgumentError as e:
        raise TypeError(f"truediv: `x` and `y` must have the same dtype ({e.message}).") from None
    except (TypeError, ValueError):  # a RaggedTensor operand: see minitf.dispatch
        return dispatch.fallback(truediv, (x, y), {})
    if x._value.dtype.kind == "b" or x.dtype.name == "string":
        raise TypeError(f"Invalid dtype {x.dtype!r} in __truediv__; cast to a numeric dtype first.")
    if x._value.dtype.kind in "iu":
        x, y = _to_float(x, y)
    try:
        z = Tensor(x._value / y._value)
    except ValueError as e:
        raise REAL_DIV.shape_error(e, x, y) from None
    if thread_state.active:
        record(REAL_DIV, (x, y), (z,),
               lambda g: (lambda: g / conj_or_self(y), lambda: negative(g) * conj_or_self(z) / conj_or_self(y)))
    return z


@export("divide", "math.divide")
@dispatch.add_dispatch_support
def divide(x, y, name=None):
    """x / y (Python 3 division); a non-tensor `x` takes `y`'s dtype first."""
    if not isinstance(x, (Tensor, Variable)) and isinstance(y, (Tensor, Variable)):
        x = as_tensor(x, dtype=y.dtype)
    return truediv(x, y)


@dispatch.add_dispatch_support
def real_div(x, y, name=None):
    """x / y for tensors of one floating dtype."""
    return truediv(x, y)


DIV_NO_NAN = Op("DivNoNan", batchable=True, dtypes=FLOAT_OR_COMPLEX)


@export("math.divide_no_nan")
@dispatch.add_dispatch_support(elementwise="binary")
def divide_no_nan(x, y, name=None):
    """x / y, but 0 wherever y is 0. Integers are cast to float first, as in tf.math.truediv."""
    if not isinstance(x, (Tensor, Variable)) and isinstance(y, (Tensor, Variable)):
        x = as_tensor(x, dtype=y.dtype)  # as tf.divide: a Python x takes y's dtype
    try:
        x, y = binary(x, y, REAL_DIV, hint=True)  # converts as truediv; DivNoNan's check is below
    except errors.InvalidArgumentError as e:
        raise TypeError(f"divide_no_nan: `x` and `y` must have one numeric dtype ({e.message}).") from None
    if x._value.dtype.kind in "iu":
        x, y = _to_float(x, y)
    DIV_NO_NAN.check_dtype(x)
    xp = array_module(x._value)
    safe = xp.where(y._value == 0, 1, y._value).astype(y._value.dtype)
    try:
        z = Tensor(xp.where(y._value == 0, 0, x._value / safe).astype(x._value.dtype))
    except ValueError as e:
        raise DIV_NO_NAN.shape_error(e, x, y) from None
    if thread_state.active:
        record(DIV_NO_NAN, (x, y), (z,),
               lambda g: (lambda: divide_no_nan(g, conj_or_self(y)),
                          lambda: divide_no_nan(negative(g) * conj_or_self(z), conj_or_self(y))))
    return z


def _check_int_zero(y, op):
    if (y._value == 0).any():
        raise op.invalid("Integer division by zero")


FLOOR_DIV = Op("FloorDiv", dtypes=NUMERIC)


@export("math.floordiv")
@dispatch.add_dispatch_support(elementwise="binary")
def floordiv(x, y, name=None):
    """Division rounded toward negative infinity (no gradient)."""
    x, y = binary(x, y, FLOOR_DIV)
    kind = x._value.dtype.kind
    if kind == "c":
        raise errors.NotFoundError(None, None, f"Could not find a FloorDiv kernel for {x.dtype.name}; "
                                               f"floor division is not defined for complex numbers. "
                                               f"[Op:FloorDiv]")
    if kind in "iu":
        _check_int_zero(y, FLOOR_DIV)
    xp = array_module(x._value)
    try:
        if kind in "iu":
            return Tensor(xp.floor_divide(x._value, y._value))
        return Tensor(xp.floor(x._value / y._value))
    except ValueError as e:
        raise FLOOR_DIV.shape_error(e, x, y) from None


floor_div = floordiv

FLOOR_MOD = Op("FloorMod", batchable=True, dtypes=REAL)


@export("math.floormod", "math.mod")
@dispatch.add_dispatch_support(elementwise="binary")
def floormod(x, y, name=None):
    """Remainder of floor division; the result has the sign of y."""
    x, y = binary(x, y, FLOOR_MOD)
    xp = array_module(x._value)
    if x._value.dtype.kind in "iu":
        _check_int_zero(y, FLOOR_MOD)
    try:
        z = Tensor(xp.mod(x._value, y._value))
    except ValueError as e:
        raise FLOOR_MOD.shape_error(e, x, y) from None
    if thread_state.active and x._value.dtype.kind == "f":
        record(FLOOR_MOD, (x, y), (z,), lambda g: (g, lambda: negative(g) * floor(x / y)))
    return z


mod = floormod

POW = Op("Pow", batchable=True, dtypes=SIGNED)


@export("pow", "math.pow")
@dispatch.add_dispatch_support(elementwise="binary")
def pow(x, y, name=None):  # noqa: A001 (TF's name)
    """x raised to the power y, elementwise."""
    x, y = binary(x, y, POW)
    xp = array_module(x._value)
    if x._value.dtype.kind in "iu" and (y._value < 0).any():
        raise POW.invalid("Integers to negative integer powers are not allowed")
    try:
        z = Tensor(xp.power(x._value, y._value))
    except ValueError as e:
        raise POW.shape_error(e, x, y) from None
    if thread_state.active:
        def grad(g):  # TF's: conj(y) * conj(x)^(conj(y) - 1), and conj(z) * log(conj(x))
            cx, cy = conj_or_self(x), conj_or_self(y)

            def dx():
                return g * cy * pow(cx, cy - 1)

            def dy():
                # x = 0 (and a negative real x) gives 0, not log's -inf (NaN)
                mask = not_equal(cx, 0) if x._value.dtype.kind == "c" else greater(cx, 0)
                safe_x = where(mask, cx, 1)
                return g * conj_or_self(z) * where(mask, log(safe_x), 0)
            return dx, dy
        record(POW, (x, y), (z,), grad)
    return z


SQUARED_DIFFERENCE = Op("SquaredDifference", dtypes=FLOATS + ("int32", "int64", "complex64", "complex128"))


@export("math.squared_difference")
@dispatch.add_dispatch_support(elementwise="binary")
def squared_difference(x, y, name=None):
    """(x - y)^2, elementwise."""
    x, y = binary(x, y, SQUARED_DIFFERENCE)
    if x._value.dtype.kind != "c":
        return square(subtract(x, y))
    d = subtract(x, y)  # TF: conj(x - y) * (x - y), a real value, with the gradient 2 g (x - y)
    z = Tensor(array_module(d._value).conj(d._value) * d._value)
    if thread_state.active:
        def grad(g):
            gx = 2.0 * g * d
            return gx, lambda: negative(gx)
        record(SQUARED_DIFFERENCE, (x, y), (z,), grad)
    return z


XLOGY = Op("Xlogy", batchable=True, dtypes=FLOAT_OR_COMPLEX)


@export("math.xlogy")
@dispatch.add_dispatch_support(elementwise="binary")
def xlogy(x, y, name=None):
    """x * log(y), and 0 where x is 0."""
    x, y = binary(x, y, XLOGY)
    zero = equal(x, 0)
    with stop_recording_all():
        z = where(zero, x * 0, x * log(where(zero, 1, y)))
    if thread_state.active:  # TF's: log(y) and x / y (0 where x is 0), not conjugated
        record(XLOGY, (x, y), (z,), lambda g: (lambda: xlogy(cast(logical_not(zero), x.dtype), y) * g,
                                               lambda: _xdivy(x, y) * g))
    return z


XDIVY = Op("Xdivy", batchable=True, dtypes=FLOAT_OR_COMPLEX)


def _xdivy(x, y):
    """x / y, and 0 where x is 0 (TF's Xdivy, which xlogy's gradient uses), with TF's rule."""
    zero = equal(x, 0)
    with stop_recording_all():
        z = where(zero, x * 0, x / where(zero, 1, y))
    if thread_state.active:
        record(XDIVY, (x, y), (z,), lambda g: (lambda: _xdivy(cast(logical_not(zero), x.dtype), y) * g,
                                               lambda: _xdivy(negative(x), pow(y, 2)) * g))
    return z


ATAN2 = Op("Atan2", batchable=True, dtypes=FLOATS)


@export("atan2", "math.atan2")
@dispatch.add_dispatch_support(elementwise="binary")
def atan2(y, x, name=None):
    """Angle of the point (x, y), elementwise."""
    y, x = binary(y, x, ATAN2)
    try:
        z = Tensor(array_module(y._value).arctan2(y._value, x._value))
    except ValueError as e:
        raise ATAN2.shape_error(e, y, x) from None
    if thread_state.active:
        def grad(g):
            d = x * x + y * y
            return (lambda: g * x / d, lambda: negative(g) * y / d)
        record(ATAN2, (y, x), (z,), grad)
    return z


MAXIMUM = Op("Maximum", batchable=True, dtypes=REAL)


@export("maximum", "math.maximum")
@dispatch.add_dispatch_support(elementwise="binary")
def maximum(x, y, name=None):
    """The larger of x and y, elementwise (ties send the gradient to x)."""
    x, y = binary(x, y, MAXIMUM)
    try:
        z = Tensor(array_module(x._value).maximum(x._value, y._value))
    except ValueError as e:
        raise MAXIMUM.shape_error(e, x, y) from None
    if thread_state.active:
        def grad(g):
            mask = greater_equal(x, y)
            return (lambda: where(mask, g, g * 0), lambda: where(mask, g * 0, g))
        record(MAXIMUM, (x, y), (z,), grad)
    return z


MINIMUM = Op("Minimum", batchable=True, dtypes=REAL)


@export("minimum", "math.minimum")
@dispatch.add_dispatch_support(elementwise="binary")
def minimum(x, y, name=None):
    """The smaller of x and y, elementwise (ties send the gradient to x)."""
    x, y = binary(x, y, MINIMUM)
    try:
        z = Tensor(array_module(x._value).minimum(x._value, y._value))
    except ValueError as e:
        raise MINIMUM.shape_error(e, x, y) from None
    if thread_state.active:
        def grad(g):
            mask = less_equal(x, y)
            return (lambda: where(mask, g, g * 0), lambda: where(mask, g * 0, g))
        record(MINIMUM, (x, y), (z,), grad)
    return z


CLIP_BY_VALUE = Op("ClipByValue", batchable=True, dtypes=REAL)


@export("clip_by_value")
@dispatch.add_dispatch_support
def clip_by_value(t, clip_value_min, clip_value_max, name=None):
    """Values of `t` limited to [clip_value_min, clip_value_max]; gradient flows only inside."""
    t = t if type(t) is Tensor else converted(t, "tf.clip_by_value", "t")
    # TF computes maximum(minimum(t, max), min): the max bound converts first, and wins on min > max
    hi = converted(clip_value_max, "tf.clip_by_value", "clip_value_max",
                   None if isinstance(clip_value_max, Tensor) else t.dtype)
    lo = converted(clip_value_min, "tf.clip_by_value", "clip_value_min",
                   None if isinstance(clip_value_min, Tensor) else t.dtype)
    CLIP_BY_VALUE.check_dtype(t)
    for label, bound in (("clip_value_min", lo), ("clip_value_max", hi)):
        if bound.dtype != t.dtype:
            raise CLIP_BY_VALUE.invalid(f"tf.clip_by_value: {label} is a {bound.dtype.name} tensor, t is "
                                        f"{t.dtype.name}; cast the bound to t's dtype")
    xp = array_module(t._value)
    lo_value, hi_value = coerce_to_module(lo._value, xp), coerce_to_module(hi._value, xp)
    try:
        z = Tensor(xp.maximum(xp.minimum(t._value, hi_value), lo_value).astype(t._value.dtype))
    except ValueError as e:
        raise CLIP_BY_VALUE.shape_error(e, t, lo, hi) from None
    if tuple(z._value.shape) != tuple(t._value.shape):
        raise CLIP_BY_VALUE.invalid(f"clip bounds of shapes {list(lo.shape)} and {list(hi.shape)} must "
                                    f"broadcast to t's shape {list(t.shape)}")
    if thread_state.active:
        def grad(g):
            inside = logical_and(greater_equal(t, lo), less_equal(t, hi))
            return (lambda: where(inside, g, g * 0), None, None)
        record(CLIP_BY_VALUE, (t, lo, hi), (z,), grad)
    return z


ADD_N = Op("AddN")


@export("add_n", "math.add_n")
@dispatch.add_dispatch_support(elementwise="list")
def add_n(inputs, name=None):
    """Sum of a list of tensors of the same shape and dtype."""
    if not inputs:
        raise ValueError("add_n needs at least one input tensor.")
    tensors = [as_tensor(t) for t in inputs]
    shapes = {tuple(t._value.shape) for t in tensors}
    if len(shapes) > 1:
        raise ADD_N.invalid(f"Inputs to add_n must all have the same shape, got {sorted(shapes)}")
    total = tensors[0]
    for t in tensors[1:]:
        total = add(total, t)
    return total if len(tensors) > 1 else tensors[0]


# tf.math's comparisons and logic come from minitf.ops.compare; here they learn ragged operands
for _name in ("equal", "not_equal", "less", "less_equal", "greater", "greater_equal", "logical_and",
              "logical_or", "logical_xor", "bitwise_and", "bitwise_or", "bitwise_xor"):
    globals()[_name] = dispatch.add_dispatch_support(globals()[_name], elementwise="binary")
for _name in ("logical_not", "invert", "is_finite", "is_inf", "is_nan"):
    globals()[_name] = dispatch.add_dispatch_support(globals()[_name], elementwise="unary")
for _fn in (add, subtract, multiply, truediv):
    dispatch.mark_elementwise(_fn, "binary")
del _name, _fn
export_value("logical_xor", "math.logical_xor")
export_value("is_nan", "math.is_nan")
export_value("is_inf", "math.is_inf")
export_value("is_finite", "math.is_finite")
export_value("invert", "bitwise.invert")
export_value("bitwise_xor", "bitwise.bitwise_xor")
export_value("bitwise_or", "bitwise.bitwise_or")
export_value("bitwise_and", "bitwise.bitwise_and")
export_value("not_equal", "not_equal", "math.not_equal")
export_value("logical_or", "logical_or", "math.logical_or")
export_value("logical_not", "logical_not", "math.logical_not")
export_value("logical_and", "logical_and", "math.logical_and")
export_value("less_equal", "less_equal", "math.less_equal")
export_value("less", "less", "math.less")
export_value("greater_equal", "greater_equal", "math.greater_equal")
export_value("greater", "greater", "math.greater")
export_value("equal", "equal", "math.equal")
