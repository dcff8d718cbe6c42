"""tf.math.bincount: counts (or summed weights) of each non-negative integer, over a whole
tensor or along its last axis (TF's DenseBincount; not differentiable, as in TF)."""
import numpy as np

from minitf import dispatch, dtypes
from minitf.ops._core import Op, Tensor, array_module, as_tensor
from minitf.ops.constant import cast
from minitf.convert import convert_to_tensor
from minitf.api_export import export

__all__ = ["bincount"]

DENSE_BINCOUNT = Op("DenseBincount", dtypes=("int32", "int64", "float32", "float64"))
_INDEX_DTYPES = ("int32", "int64")


def _length(value, arr, what):
    """`minlength`/`maxlength` as a Python int in `arr`'s dtype (TF converts it to that dtype, so
    a float is a TypeError)."""
    t = convert_to_tensor(value, dtype=arr.dtype)
    if t.shape.rank != 0:
        raise DENSE_BINCOUNT.invalid(f"bincount: `{what}` must be a scalar, got shape {t.shape}")
    return int(t._value)


@export("math.bincount")
@dispatch.add_dispatch_support
def bincount(arr, weights=None, minlength=None, maxlength=None, dtype=dtypes.int32, name=None, axis=None,
             binary_output=False):
    """How often each value 0, 1, ... occurs in `arr` (or the sum of `weights` where it occurs).

    The result has length max(arr) + 1, raised to `minlength` and capped at `maxlength` (values at
    or beyond the cap are dropped). `axis=None`/0 counts over the flattened tensor; `axis=-1`
    counts each row of a rank-2 `arr` separately. `binary_output=True` gives 1 where a value
    occurs. Without weights the result has `dtype`; with weights, the weights' dtype (int32,
    int64, float32 or float64). Non-integer `arr` is cast to int32; negative values are an
    InvalidArgumentError.
    """
    arr = as_tensor(arr)
    if weights is not None:
        weights = as_tensor(weights)
        if binary_output:
            raise ValueError("Arguments `binary_output` and `weights` are mutually exclusive. "
                             "Please specify only one.")
    if not arr.dtype.is_integer:
        arr = cast(arr, "int32")
    if axis is None:
        axis = 0
    if axis not in (0, -1):
        raise ValueError(f"Unsupported value for argument axis={axis}. Only 0 and -1 are currently "
                         f"supported.")
    av = arr._value
    xp = array_module(av)
    # TF computes the size in arr's own dtype, so max + 1 wraps for the dtype's largest value
    size = 0
    if av.size:
        with np.errstate(over="ignore"):
            size = int(av.max() + av.dtype.type(1))
    if minlength is not None:
        size = max(_length(minlength, arr, "minlength"), size)
    if maxlength is not None:
        size = min(_length(maxlength, arr, "maxlength"), size)
    if axis == 0:
        av = av.reshape(-1)
        if weights is not None:
            weights = Tensor(weights._value.reshape(-1))
    out_dtype = weights.dtype if weights is not None else dtypes.as_dtype(dtype)
    probe = Tensor(xp.zeros((0,), out_dtype.as_numpy_dtype))
    DENSE_BINCOUNT.check_dtype(probe)
    if av.dtype.name not in _INDEX_DTYPES:
        raise DENSE_BINCOUNT.invalid(f"Value for attr 'Tidx' of {arr.dtype.name} is not in the list of allowed "
                                     f"values: int32, int64; cast `arr` to int32 or int64")
    if av.ndim > 2:
        raise DENSE_BINCOUNT.invalid(f"bincount: Shape must be at most rank 2 but is rank {av.ndim}; "
                                     f"use axis=None to count over all elements")
    if size < 0:
        raise DENSE_BINCOUNT.invalid(f"bincount: size ({size}) must be non-negative; check minlength/maxlength "
                                     f"and that max(arr) + 1 fits arr's dtype")
    wv = None
    if weights is not None and weights._value.size:
        wv = weights._value
        if wv.shape != av.shape:
            raise DENSE_BINCOUNT.invalid(
                f"bincount: `weights` must be the same shape as `arr` or a length-0 `Tensor`, in which case "
                f"it acts as all weights equal to 1. Received {list(wv.shape)} for arr of shape {list(av.shape)}")
    if av.size and bool((av < 0).any()):
        raise DENSE_BINCOUNT.invalid(f"bincount: Input arr must be non-negative! Negative input value found: "
                                     f"{int(av.min())}")
    rows = av.shape[0] if av.ndim == 2 else None
    flat = av.reshape(-1).astype("int64")
    keep = flat < size
    index = flat[keep]
    if rows is not None:
        index = index + (xp.arange(rows, dtype="int64").repeat(av.shape[1])[keep] * size)
    np_out = out_dtype.as_numpy_dtype
    out = xp.zeros(((rows or 1) * size,), np_out)
    if binary_output:
        out[index] = 1
    elif wv is None:
        xp.add.at(out, index, np_out(1))
    else:
        xp.add.at(out, index, wv.reshape(-1)[keep].astype(np_out))
    return Tensor(out.reshape((rows, size)) if rows is not None else out)
