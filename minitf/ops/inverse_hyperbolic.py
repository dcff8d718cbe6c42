"""The inverse hyperbolic functions (tf.math.acosh, asinh, atanh and their tf.* aliases), each
with TF's gradient rule beside it; complex gradients conjugate as the rest of
`minitf.ops.math_unary` does."""
import numpy as np

from minitf.ops._core import Op
from minitf.ops.math_unary import FLOAT_OR_COMPLEX, _unary, conj_or_self, cosh, reciprocal, sinh, square
from minitf.api_export import export

__all__ = ["acosh", "asinh", "atanh"]


def _arccosh(xp, v):
    with np.errstate(invalid="ignore"):  # NaN below 1, as TF
        return xp.arccosh(v)


ACOSH = Op("Acosh", batchable=True, dtypes=FLOAT_OR_COMPLEX)


@export("acosh", "math.acosh")
def acosh(x, name=None):
    """Inverse hyperbolic cosine, elementwise (NaN below 1 for real inputs)."""
    # TF's rule reads the output: d acosh(x) = 1 / sinh(acosh(x))
    return _unary(ACOSH, x, _arccosh, lambda g, x, y: g / sinh(conj_or_self(y)))


ASINH = Op("Asinh", batchable=True, dtypes=FLOAT_OR_COMPLEX)


@export("asinh", "math.asinh")
def asinh(x, name=None):
    """Inverse hyperbolic sine, elementwise."""
    return _unary(ASINH, x, lambda xp, v: xp.arcsinh(v), lambda g, x, y: g / cosh(conj_or_self(y)))


def _arctanh(xp, v):
    with np.errstate(divide="ignore", invalid="ignore"):  # +-inf at +-1 and NaN beyond, as TF
        return xp.arctanh(v)


ATANH = Op("Atanh", batchable=True, dtypes=FLOAT_OR_COMPLEX)


@export("atanh", "math.atanh")
def atanh(x, name=None):
    """Inverse hyperbolic tangent, elementwise (+-inf at +-1, NaN beyond for real inputs)."""
    return _unary(ATANH, x, _arctanh,
                  lambda g, x, y: g * reciprocal(1 - square(conj_or_self(x))))
