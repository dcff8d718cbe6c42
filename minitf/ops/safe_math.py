"""TF's "no NaN" arithmetic: products, quotients and logarithm products that are 0 where one
operand is 0 (tf.math.multiply_no_nan, reciprocal_no_nan, xdivy, xlog1py), each with TF's
gradient rule beside it. The underlying quotient helper `_xdivy` lives with xlogy in
`minitf.ops.math`, whose gradient uses it."""
import numpy as np

from minitf import dispatch
from minitf.ops._core import Op, Tensor, Variable, thread_state, array_module, as_tensor, binary, record
from minitf.ops.constant import cast
from minitf.convert import convert_to_tensor
from minitf.ops.compare import equal, logical_not
from minitf.ops.math import DIV_NO_NAN, FLOAT_OR_COMPLEX, XDIVY, _xdivy, divide_no_nan, log1p, where
from minitf.recording import stop_recording_all
from minitf.api_export import export

__all__ = ["multiply_no_nan", "reciprocal_no_nan", "xdivy", "xlog1py"]


MUL_NO_NAN = Op("MulNoNan", batchable=True, dtypes=FLOAT_OR_COMPLEX)


@export("math.multiply_no_nan")
@dispatch.add_dispatch_support(elementwise="binary")
def multiply_no_nan(x, y, name=None):
    """x * y, but 0 wherever y is 0, even where x is infinite or NaN.

    As TF's, `x` is converted first and `y` must take its dtype (a different tensor dtype is a
    ValueError). Floating and complex dtypes only.
    """
    x = as_tensor(x)
    y = convert_to_tensor(y, dtype=x.dtype)  # TF's ValueError when y's dtype differs
    MUL_NO_NAN.check_dtype(x)
    xv, yv = x._value, y._value
    xp = array_module(xv)
    try:
        with np.errstate(invalid="ignore"):  # inf * 0 is replaced by the 0 it should be
            z = Tensor(xp.where(yv == 0, xp.zeros((), xv.dtype), xv * yv).astype(xv.dtype, copy=False))
    except ValueError as e:
        raise MUL_NO_NAN.shape_error(e, x, y) from None
    if thread_state.active:  # TF's rule: both partials are themselves "no NaN" products
        record(MUL_NO_NAN, (x, y), (z,), lambda g: (lambda: multiply_no_nan(g, y),
                                                    lambda: multiply_no_nan(x, g)))
    return z


@export("math.reciprocal_no_nan")
@dispatch.add_dispatch_support(elementwise="unary")
def reciprocal_no_nan(x, name=None):
    """1 / x, but 0 wherever x is 0 (TF's DivNoNan of a one; its gradient follows). Integer
    inputs are refused (InvalidArgumentError), as TF's are."""
    x = as_tensor(x)
    DIV_NO_NAN.check_dtype(x)
    return divide_no_nan(cast(1, x.dtype), x)


@export("math.xdivy")
@dispatch.add_dispatch_support(elementwise="binary")
def xdivy(x, y, name=None):
    """x / y, and 0 where x is 0 (even where y is 0 too)."""
    x, y = binary(x, y, XDIVY)
    try:
        return _xdivy(x, y)
    except ValueError as e:
        raise XDIVY.shape_error(e, x, y) from None


XLOG1PY = Op("Xlog1py", batchable=True, dtypes=FLOAT_OR_COMPLEX)


@export("math.xlog1py")
@dispatch.add_dispatch_support(elementwise="binary")
def xlog1py(x, y, name=None):
    """x * log(1 + y), and 0 where x is 0 (even where y is -1 or NaN)."""
    x, y = binary(x, y, XLOG1PY)
    zero = equal(x, 0)
    try:
        with stop_recording_all():
            z = where(zero, x * 0, x * log1p(where(zero, cast(0, y.dtype), y)))
    except ValueError as e:
        raise XLOG1PY.shape_error(e, x, y) from None
    if thread_state.active:  # TF's rule: log1p(y) where x != 0, and x / (1 + y)
        record(XLOG1PY, (x, y), (z,),
               lambda g: (lambda: xlog1py(cast(logical_not(zero), x.dtype), y) * g,
                          lambda: _xdivy(x, y + cast(1, y.dtype)) * g))
    return z
