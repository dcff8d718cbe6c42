"""tf.math.invert_permutation: the inverse of a permutation of 0..n-1 (not differentiable)."""
from minitf import dispatch
from minitf.ops._core import Op, Tensor, Variable, array_module, as_tensor
from minitf.convert import convert_to_tensor
from minitf.api_export import export

__all__ = ["invert_permutation"]

INVERT_PERMUTATION = Op("InvertPermutation", dtypes=("int32", "int64"))


@export("math.invert_permutation")
@dispatch.add_dispatch_support
def invert_permutation(x, name=None):
    """y with y[x[i]] = i, for a 1-D `x` holding each of 0..n-1 once (int32 or int64).

    A value out of range or repeated is an InvalidArgumentError, as in TF.
    """
    if not isinstance(x, (Tensor, Variable)):
        x = convert_to_tensor(x, dtype_hint="int32")  # [] is an empty int32 vector, as in TF
    x = as_tensor(x)
    INVERT_PERMUTATION.check_dtype(x)
    v = x._value
    if v.ndim != 1:
        raise INVERT_PERMUTATION.invalid(f"invert_permutation expects a 1D vector, got shape {list(v.shape)}")
    xp = array_module(v)
    n = v.shape[0]
    bad = (v < 0) | (v >= n)
    if bool(bad.any()):
        raise INVERT_PERMUTATION.invalid(f"{int(v[bad][0])} is not between 0 and {n}; pass a permutation of "
                                         f"0..{n - 1}")
    out = xp.full((n,), -1, v.dtype)
    out[v] = xp.arange(n, dtype=v.dtype)
    if n and bool((out < 0).any()):
        counts = xp.bincount(v.astype("int64"), minlength=n)
        raise INVERT_PERMUTATION.invalid(f"{int(xp.argmax(counts > 1))} is duplicated in the input; pass a "
                                         f"permutation of 0..{n - 1}")
    return Tensor(out)
