"""keras.ops (numpy-like): gathers by index, sorting, searching, counting and set membership."""
import numpy as np

from minitf.errors import errors
from minitf.keras_ops.core import canonical_axis, convert, keras_op, np_dtype, xp_of
from minitf.keras_ops.dtypes import result_type
from minitf.keras_ops.np_shape import swapaxes
from minitf.ops import array as array_ops
from minitf.ops import compare as CMP
from minitf.ops import constant as constant_ops
from minitf.ops import math as math_ops
from minitf.ops import nn as nn_ops
from minitf.ops import reduce as reduce_ops
from minitf.ops.gather import where as tf_where
from minitf.tensor import Tensor
from minitf.api_export import export

__all__ = ["take", "take_along_axis", "nonzero", "searchsorted", "digitize", "sort", "argsort",
           "argpartition", "unique", "bincount", "histogram", "isin", "unravel_index"]


@export("keras.ops.take", "keras.ops.numpy.take")
@keras_op
def take(x, indices, axis=None):
    """The elements of `x` at `indices` along `axis` (of the flattened x for None); negative
    indices count from the end."""
    x = convert(x)
    if axis is None:
        x, axis = array_ops.reshape(x, [-1]), 0
    indices = convert(indices)
    size = int(x.shape[axis])
    indices = tf_where(CMP.less(indices, 0), math_ops.add(indices, constant_ops.cast(size, indices.dtype)), indices)
    return array_ops.gather(x, indices, axis=axis)


@export("keras.ops.take_along_axis", "keras.ops.numpy.take_along_axis")
@keras_op
def take_along_axis(x, indices, axis=None):
    """The elements of `x` picked by `indices` along `axis` (numpy's take_along_axis; the
    other axes broadcast)."""
    x = convert(x)
    indices = convert(indices, "int64")
    if axis is None:
        if indices.shape.rank != 1:
            raise ValueError(f"`indices` must be 1D if axis=None. Received: indices.shape="
                             f"{tuple(indices.shape)}")
        return take_along_axis(array_ops.reshape(x, [-1]), indices, 0)
    rank = x.shape.rank
    if indices.shape.rank != rank:
        raise ValueError(f"`x` and `indices` must have the same number of dimensions, but "
                         f"received x.shape={tuple(x.shape)} and indices.shape="
                         f"{tuple(indices.shape)}.")
    static_axis = axis
    axis = axis + rank if axis < 0 else axis
    if not 0 <= axis < rank:
        raise ValueError(f"Invalid axis: {static_axis} for input rank: {rank}")
    xs, ids = list(x.shape), list(indices.shape)
    xs_b, ids_b = list(xs), list(ids)
    xs_b[axis] = ids_b[axis] = 1
    try:
        common = list(np.broadcast_shapes(tuple(xs_b), tuple(ids_b)))
    except ValueError:
        raise ValueError(f"Cannot broadcast shape {tuple(xs)} and {tuple(ids)} (take_along_axis "
                         f"along axis {static_axis}).") from None
    x = array_ops.broadcast_to(x, common[:axis] + [xs[axis]] + common[axis + 1:])
    indices = array_ops.broadcast_to(indices, common[:axis] + [ids[axis]] + common[axis + 1:])
    indices = tf_where(CMP.less(indices, 0), math_ops.add(indices, xs[axis]), indices)
    x = swapaxes(x, axis, -1)
    indices = swapaxes(indices, axis, -1)
    out_shape = list(indices.shape)
    flat_x = array_ops.reshape(x, [-1, xs[axis]])
    flat_i = array_ops.reshape(indices, [-1, out_shape[-1]])
    result = array_ops.reshape(array_ops.gather(flat_x, flat_i, batch_dims=1), out_shape)
    return swapaxes(result, axis, -1)


@export("keras.ops.nonzero", "keras.ops.numpy.nonzero")
@keras_op
def nonzero(x):
    """The indices of the nonzero elements, one int32 vector per axis."""
    x = convert(x)
    found = tf_where(constant_ops.cast(x, "bool"))
    return [constant_ops.cast(found[:, i], "int32") for i in range(x.shape.rank)]


@export("keras.ops.searchsorted", "keras.ops.numpy.searchsorted")
@keras_op
def searchsorted(sorted_sequence, values, side="left"):
    """Where `values` would be inserted into the 1-D `sorted_sequence` to keep it sorted."""
    sorted_sequence, values = convert(sorted_sequence), convert(values)
    if sorted_sequence.shape.rank != 1:
        raise ValueError(f"`searchsorted` only supports 1-D sorted sequences. You can use "
                         f"`keras.ops.vectorized_map` to extend it to N-D sequences. Received: "
                         f"sorted_sequence.shape={tuple(sorted_sequence.shape)}")
    if side not in ("left", "right"):
        raise ValueError(f"side must be either 'right' or 'left'. Saw: {side}.")
    if values.dtype != sorted_sequence.dtype:
        raise errors.invalid_argument(
            "LowerBound" if side == "left" else "UpperBound",
            f"cannot compute {'LowerBound' if side == 'left' else 'UpperBound'} as input #1 "
            f"was expected to be a {sorted_sequence.dtype.name} tensor but is a "
            f"{values.dtype.name} tensor; cast one of them")
    if values.shape.rank == 0:
        raise errors.invalid_argument("StridedSlice", "slice index -1 of dimension 0 out of "
                                                      "bounds: `values` must have at least one "
                                                      "dimension")
    if values.shape.rank > 1:
        raise errors.invalid_argument("LowerBound" if side == "left" else "UpperBound",
                                      f"sorted_sequence of shape {list(sorted_sequence.shape)} "
                                      f"and values of shape {list(values.shape)} must have the "
                                      f"same leading dimensions")
    xp = xp_of(values)
    out = xp.searchsorted(sorted_sequence._value, values._value, side=side)
    return Tensor(xp.asarray(out).astype("int32"))


@export("keras.ops.digitize", "keras.ops.numpy.digitize")
@keras_op
def digitize(x, bins):
    """The index of the bin each element falls in: i with bins[i-1] <= x < bins[i]."""
    x = convert(x)
    edges = np.asarray([float(b) for b in bins], dtype=np.float32)
    name = x.dtype.name
    if name in ("bool", "int8", "int16", "uint8", "uint16"):
        x = constant_ops.cast(x, "int32")
    elif name == "uint32":
        x = constant_ops.cast(x, "int64")
    elif name in ("bfloat16", "float16"):
        x = constant_ops.cast(x, "float32")
    xp = xp_of(x)
    out = xp.searchsorted(xp.asarray(edges.astype(np.float64)), x._value.astype("float64"),
                          side="right")
    return Tensor(xp.asarray(out).astype("int32"))


@export("keras.ops.sort", "keras.ops.numpy.sort")
@keras_op
def sort(x, axis=-1):
    """`x` sorted ascending along `axis` (of the flattened x for None)."""
    x = convert(x)
    name = x.dtype.name
    if axis is None:
        x, axis = array_ops.reshape(x, [-1]), 0
    if name == "bool":
        return constant_ops.cast(array_ops.sort(constant_ops.cast(x, "int8"), axis=axis), "bool")
    return array_ops.sort(x, axis=axis)


@export("keras.ops.argsort", "keras.ops.numpy.argsort")
@keras_op
def argsort(x, axis=-1):
    """The indices that sort `x` ascending along `axis` (of the flattened x for None)."""
    x = convert(x)
    if x.dtype.name == "bool":
        x = constant_ops.cast(x, "uint8")
    if x.shape.rank == 0:
        return constant_ops.constant([0], dtype="int32")
    if axis is None:
        x, axis = array_ops.reshape(x, [-1]), 0
    # TF's ascending argsort negates and takes top_k, which keeps ties in index order: stable
    return array_ops.argsort(x, axis=axis, stable=True)


@export("keras.ops.argpartition", "keras.ops.numpy.argpartition")
@keras_op
def argpartition(x, kth, axis=-1):
    """Indices that partition `x` along `axis`: the kth+1 smallest first (Keras' algorithm on
    TF, which compares the values as int32)."""
    x = convert(x, "int32")
    original_axis = axis
    if axis is None:
        x, axis = array_ops.reshape(x, [-1]), 0
    x = swapaxes(x, axis, -1)
    n = int(x.shape[-1])
    kth = min(max(int(kth), 0), n - 1)
    bottom = nn_ops.top_k(math_ops.negative(x), kth + 1).indices
    mask = reduce_ops.reduce_sum(array_ops.one_hot(bottom, n, dtype="int32"), axis=0)
    found = tf_where(mask)
    cleared = array_ops.tensor_scatter_nd_update(x, found, array_ops.zeros([int(found.shape[0])], "int32"))
    top = nn_ops.top_k(cleared, n - kth - 1).indices
    out = array_ops.concat([bottom, top], axis=-1)
    if original_axis is None:
        return out
    return swapaxes(out, -1, axis)


def _first_seen_order(first_index):
    return np.argsort(first_index, kind="stable")


@export("keras.ops.unique", "keras.ops.numpy.unique")
@keras_op
def unique(x, sorted=True, return_index=False, return_inverse=False, return_counts=False,  # noqa: A002
           axis=None, size=None, fill_value=None):
    """The distinct values of `x` (sorted, or in order of first appearance), with optionally
    the index of each one's first occurrence, the inverse map and the counts."""
    x = convert(x)
    host = x.numpy()
    flat = axis is None
    if flat:
        values, first, inverse, counts = np.unique(host.reshape(-1), return_index=True,
                                                   return_inverse=True, return_counts=True)
        axis = 0
    else:
        axis = canonical_axis(axis, host.ndim)
        values, first, inverse, counts = np.unique(host, return_index=True, return_inverse=True,
                                                   return_counts=True, axis=axis)
    inverse = inverse.reshape(-1)
    if not sorted:
        order = _first_seen_order(first)
        values = np.take(values, order, axis=axis)
        first, counts = first[order], counts[order]
        inverse = np.argsort(order)[inverse]
    if size is not None:
        n = values.shape[axis]
        keep = min(n, size)
        values = np.take(values, np.arange(keep), axis=axis)
        first, counts = first[:keep], counts[:keep]
        extra = max(0, size - n)
        widths = [(0, 0)] * values.ndim
        widths[axis] = (0, extra)
        fill = 0 if fill_value is None else fill_value
        values = np.pad(values, widths, constant_values=np.asarray(fill).astype(values.dtype))
        first = np.pad(first, (0, extra), constant_values=1)
        counts = np.pad(counts, (0, extra), constant_values=0)
    if return_inverse and flat:
        inverse = inverse.reshape(host.shape)
    xp = xp_of(x)
    results = [Tensor(xp.asarray(values.astype(host.dtype)))]
    if return_index:
        results.append(Tensor(xp.asarray(first.astype(np.int32))))
    if return_inverse:
        results.append(Tensor(xp.asarray(inverse.astype(np.int32))))
    if return_counts:
        results.append(Tensor(xp.asarray(counts.astype(np.int32))))
    return tuple(results) if len(results) > 1 else results[0]


@export("keras.ops.bincount", "keras.ops.numpy.bincount")
@keras_op
def bincount(x, weights=None, minlength=0, sparse=False):
    """How often each value 0, 1, 2, ... occurs in the non-negative ints `x` (per row of a 2-D
    x), or the sum of `weights` at each value."""
    if sparse:
        raise NotImplementedError("bincount(sparse=True) is not supported by minitf; "
                                  "use sparse=False.")
    x = convert(x)
    kinds = [x.dtype]
    if x.dtype.name not in ("int32", "int64"):
        x = constant_ops.cast(x, "int32")
    if weights is not None:
        weights = convert(weights)
        kinds.append(weights.dtype)
        dtype = result_type(*kinds)
    else:
        dtype = "int32"
    host = x.numpy()
    if host.size and host.min() < 0:
        raise errors.invalid_argument("Bincount", "Input arr must be non-negative!")
    if host.ndim not in (1, 2):
        raise errors.invalid_argument("Bincount", f"Shape must be at most rank 2 but is rank "
                                                  f"{host.ndim}")
    length = max(int(host.max()) + 1 if host.size else 0, int(minlength))
    w = None if weights is None else weights.numpy()
    if host.ndim == 1:
        out = np.bincount(host, weights=w, minlength=length)
    else:
        out = np.stack([np.bincount(r, weights=None if w is None else w[i], minlength=length)
                        for i, r in enumerate(host)]) if host.shape[0] else \
            np.zeros((0, length))
    xp = xp_of(x)
    return Tensor(xp.asarray(out.astype(np_dtype(dtype))))


@export("keras.ops.histogram", "keras.ops.numpy.histogram")
@keras_op
def histogram(x, bins=10, range=None):  # noqa: A002 (numpy's name)
    """Counts of the 1-D `x` in `bins` equal bins over `range` (min..max by default), and the
    bin edges."""
    if not isinstance(bins, int):
        raise TypeError(f"Argument `bins` must be of type `int`. Received: bins={bins}")
    if bins < 0:
        raise ValueError(f"Argument `bins` should be a non-negative integer. Received: bins={bins}")
    if range:
        if len(range) < 2 or not isinstance(range, tuple):
            raise ValueError(f"Argument `range` must be a tuple of two elements. Received: "
                             f"range={range}")
        if range[1] < range[0]:
            raise ValueError(f"The second element of `range` must be greater than the first. "
                             f"Received: range={range}")
    x = convert(x)
    if x.shape.rank > 1:
        raise ValueError(f"Input tensor must be 1-dimensional. Received: input.shape="
                         f"{tuple(x.shape)}")
    if range is None:
        low, high = reduce_ops.reduce_min(x), reduce_ops.reduce_max(x)
    else:
        low, high = range
    x = array_ops.boolean_mask(x, CMP.logical_and(CMP.greater_equal(x, low), CMP.less_equal(x, high)))
    edges = constant_ops.cast(array_ops.linspace(constant_ops.cast(convert(low), "float32") if not constant_ops.is_tensor(low) else low,
                              high, bins + 1), x.dtype)
    xp = xp_of(x)
    idx = xp.searchsorted(edges._value[1:-1], x._value, side="right")
    counts = xp.bincount(idx.reshape(-1), minlength=bins)[:bins].astype(x._value.dtype)
    return Tensor(counts), edges


@export("keras.ops.isin", "keras.ops.numpy.isin")
@keras_op
def isin(x1, x2, assume_unique=False, invert=False):
    """Whether each element of x1 occurs in x2."""
    x1, x2 = convert(x1), convert(x2)
    dtype = result_type(x1.dtype, x2.dtype)
    x1, x2 = constant_ops.cast(x1, dtype), constant_ops.cast(x2, dtype)
    xp = xp_of(x1)
    out = xp.isin(x1._value, x2._value, invert=invert)
    return Tensor(xp.asarray(out))


@export("keras.ops.unravel_index", "keras.ops.numpy.unravel_index")
@keras_op
def unravel_index(indices, shape):
    """The coordinates in an array of `shape` of each flat index, one tensor per axis."""
    indices = constant_ops.convert_to_tensor(indices)
    if any(d is None for d in shape):
        raise ValueError(f"`shape` argument cannot contain `None`. Received: shape={shape}")
    coords = []
    rest = indices
    for dim in reversed(shape):
        coords.append(constant_ops.cast(math_ops.floormod(rest, dim), indices.dtype))
        rest = math_ops.floordiv(rest, dim)
    if indices.shape.rank == 1:
        return tuple(reversed(coords))
    # Keras reads the dimensions in the opposite order for non-1-D indices
    coords, rest = [], indices
    for dim in shape:
        coords.append(array_ops.reshape(constant_ops.cast(math_ops.floormod(rest, dim), indices.dtype), list(indices.shape)))
        rest = math_ops.floordiv(rest, dim)
    return tuple(reversed(coords))
