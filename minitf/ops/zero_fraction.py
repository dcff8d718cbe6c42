"""tf.math.zero_fraction (tf.nn.zero_fraction): the fraction of a tensor's elements that are zero,
as float32 (NaN for an empty tensor), as TF computes it from a count of non-zeros."""
import numpy as np

from minitf import dispatch
from minitf.ops._core import Tensor, array_module, as_tensor
from minitf.api_export import export

__all__ = ["zero_fraction"]


@export("math.zero_fraction", "nn.zero_fraction")
@dispatch.add_dispatch_support
def zero_fraction(value, name=None):
    """The fraction of elements of `value` equal to its dtype's zero (False, "" for strings).
    NaN is not zero; an empty tensor gives NaN. Returns a float32 scalar."""
    value = as_tensor(value)
    v = value._value
    xp = array_module(v)
    if v.dtype.kind in "OSU":
        nonzero = sum(1 for s in v.reshape(-1).tolist() if s not in (b"", ""))
    else:
        nonzero = int(xp.count_nonzero(v))
    size = v.size
    zeros = xp.asarray(size - nonzero, "float32")
    with np.errstate(invalid="ignore"):  # 0 / 0: NaN for an empty tensor, as TF
        return Tensor(zeros / xp.asarray(size, "float32"))
