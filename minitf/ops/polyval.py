"""tf.math.polyval: a polynomial evaluated by Horner's rule with tensor operations, as TF composes
it (so gradients reach both the coefficients and x)."""
from minitf import dispatch
from minitf.ops._core import as_tensor
from minitf.ops.creation import zeros_like
from minitf.ops.math import add, multiply
from minitf.api_export import export

__all__ = ["polyval"]


@export("math.polyval")
@dispatch.add_dispatch_support
def polyval(coeffs, x, name=None):
    """coeffs[0] * x**(n-1) + ... + coeffs[n-1], elementwise in x (coefficients may be tensors
    that broadcast against x). `coeffs` must be a Python list; an empty list gives zeros like x.
    Each coefficient is converted on its own, so its dtype must match x's."""
    if not isinstance(coeffs, list):
        raise ValueError(f"Argument coeffs must be list type. Received type {type(coeffs)}.")
    x = as_tensor(x)
    if not coeffs:
        return zeros_like(x)
    coeffs = [as_tensor(c) for c in coeffs]
    p = coeffs[0]
    for c in coeffs[1:]:
        p = add(c, multiply(p, x))
    return p
