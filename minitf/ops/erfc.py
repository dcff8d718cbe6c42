"""tf.math.erfc, the complementary error function, accurate in its tail (computed directly, not
as 1 - erf), with TF's gradient rule beside it."""
import math as _pymath

from minitf.ops._core import FLOATS, Op
from minitf.ops._special import erfc as _erfc_any
from minitf.ops.math_unary import _unary, exp, negative, square
from minitf.api_export import export

__all__ = ["erfc"]

ERFC = Op("Erfc", batchable=True, dtypes=FLOATS)  # TF has no complex kernel
_MINUS_ERF_COEF = -2.0 / _pymath.sqrt(_pymath.pi)


@export("math.erfc")
def erfc(x, name=None):
    """1 - erf(x), elementwise, without cancellation for large x."""
    return _unary(ERFC, x, _erfc_any, lambda g, x, y: g * _MINUS_ERF_COEF * exp(negative(square(x))))
