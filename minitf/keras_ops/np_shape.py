"""keras.ops (numpy-like): reshaping, transposing, joining, splitting, tiling, flipping, padding
and indexing with `[]`."""
import numpy as np

from minitf.dtypes import dtypes as tf_dtypes
from minitf.keras_ops.core import axis_tuple, canonical_axis, convert, keras_op, xp_of
from minitf.keras_ops.dtypes import result_type, standardize_dtype
from minitf.ops import array as array_ops
from minitf.ops import constant as constant_ops
from minitf.ops.indexing import getitem
from minitf.tensor import Tensor
from minitf.api_export import export

__all__ = ["reshape", "transpose", "moveaxis", "swapaxes", "expand_dims", "squeeze", "ravel",
           "broadcast_to", "concatenate", "stack", "hstack", "vstack", "dstack", "append",
           "split", "array_split", "hsplit", "vsplit", "dsplit", "tile", "repeat", "flip",
           "fliplr", "flipud", "roll", "rot90", "pad", "get_item", "size", "ndim", "copy",
           "array", "view"]


@export("keras.ops.reshape", "keras.ops.numpy.reshape")
@keras_op
def reshape(x, newshape):
    """`x` with shape `newshape` (one dimension may be -1)."""
    if not constant_ops.is_tensor(newshape):
        try:
            newshape = tuple(newshape)
        except TypeError:
            newshape = (newshape,)
        dims = [d for d in newshape if isinstance(d, (int, np.integer))]
        if any(d < -1 for d in dims):
            raise ValueError(f"Each dimension in `newshape` must be a non-negative integer, or "
                             f"`-1` for a single unknown dimension. Received: newshape={newshape}.")
        if sum(1 for d in dims if d == -1) > 1:
            raise ValueError(f"There must be at most one unknown dimension (-1) in `newshape`. "
                             f"Received: newshape={newshape}.")
        newshape = list(newshape)
    return array_ops.reshape(convert(x), newshape)


@export("keras.ops.transpose", "keras.ops.numpy.transpose")
@keras_op
def transpose(x, axes=None):
    """`x` with its axes permuted by `axes` (reversed by default)."""
    x = convert(x)
    if axes:
        axes = tuple(canonical_axis(a, x.shape.rank) for a in axes)
        if len(set(axes)) != len(axes):
            raise ValueError(f"`axes` must be a valid permutation of the input dimensions (no "
                             f"duplicates). Received: axes={list(axes)} for input of rank "
                             f"{x.shape.rank}.")
        axes = list(axes)
    return array_ops.transpose(x, perm=axes)


@export("keras.ops.moveaxis", "keras.ops.numpy.moveaxis")
@keras_op
def moveaxis(x, source, destination):
    """`x` with the axes `source` moved to positions `destination`."""
    x = convert(x)
    ndim = x.shape.rank
    src = tuple(canonical_axis(a, ndim) for a in axis_tuple(source))
    dst = tuple(canonical_axis(a, ndim) for a in axis_tuple(destination))
    if len(src) != len(dst):
        raise ValueError(f"Inconsistent number of `source` and `destination`. Received: "
                         f"source={source}, destination={destination}")
    if src == dst:
        return x
    perm = [i for i in range(ndim) if i not in src]
    for d, s in sorted(zip(dst, src)):
        perm.insert(d, s)
    return array_ops.transpose(x, perm)


@export("keras.ops.swapaxes", "keras.ops.numpy.swapaxes")
@keras_op
def swapaxes(x, axis1, axis2):
    """`x` with axes `axis1` and `axis2` exchanged."""
    x = convert(x)
    a1, a2 = canonical_axis(axis1, x.shape.rank), canonical_axis(axis2, x.shape.rank)
    if a1 == a2:
        return x
    perm = list(range(x.shape.rank))
    perm[a1], perm[a2] = a2, a1
    return array_ops.transpose(x, perm)


@export("keras.ops.expand_dims", "keras.ops.numpy.expand_dims")
@keras_op
def expand_dims(x, axis):
    """`x` with new size-1 axes at `axis` (an int or a tuple)."""
    x = convert(x)
    axes = axis_tuple(axis)
    out_ndim = x.shape.rank + len(axes)
    for a in sorted(canonical_axis(a, out_ndim) for a in axes):
        x = array_ops.expand_dims(x, a)
    return x


@export("keras.ops.squeeze", "keras.ops.numpy.squeeze")
@keras_op
def squeeze(x, axis=None):
    """`x` without its size-1 axes (only those in `axis` when given)."""
    x = convert(x)
    axes = axis_tuple(axis)
    shape = list(x.shape)
    if axes is not None:
        for a in axes:
            if shape[a] != 1:
                raise ValueError(f"Cannot squeeze axis={a}, because the dimension is not 1.")
        axes = sorted(canonical_axis(a, len(shape)) for a in axes)
    return array_ops.squeeze(x, axis=axes)


@export("keras.ops.ravel", "keras.ops.numpy.ravel")
@keras_op
def ravel(x):
    """`x` flattened to one dimension."""
    return array_ops.reshape(convert(x), [-1])


@export("keras.ops.broadcast_to", "keras.ops.numpy.broadcast_to")
@keras_op
def broadcast_to(x, shape):
    """`x` broadcast to `shape`."""
    return array_ops.broadcast_to(x, shape)


def _common(xs):
    xs = [convert(x) for x in xs]
    names = {x.dtype.name for x in xs}
    if len(names) > 1:
        dtype = result_type(*names)
        xs = [constant_ops.cast(x, dtype) for x in xs]
    return xs


def _weak_common(xs):
    """Like `_common`, with Python scalars weak (Keras' hstack/vstack/stack)."""
    kinds = {getattr(x, "dtype", type(x)) for x in xs}
    if len(kinds) > 1:
        dtype = result_type(*kinds)
        return [convert(x, dtype) for x in xs]
    return list(xs)


@export("keras.ops.concatenate", "keras.ops.numpy.concatenate")
@keras_op
def concatenate(xs, axis=0):
    """The tensors `xs` joined along `axis` (dtypes promoted to a common one)."""
    return array_ops.concat(_common(xs), axis=axis)


@export("keras.ops.stack", "keras.ops.numpy.stack")
@keras_op
def stack(x, axis=0):
    """The tensors `x` stacked along a new axis."""
    return array_ops.stack(_weak_common(x), axis=axis)


@export("keras.ops.hstack", "keras.ops.numpy.hstack")
@keras_op
def hstack(xs):
    """The tensors joined along axis 1 (axis 0 for 1-D tensors)."""
    xs = _weak_common(xs)
    first = convert(xs[0])
    return array_ops.concat(xs, axis=0 if first.shape.rank == 1 else 1)


@export("keras.ops.vstack", "keras.ops.numpy.vstack")
@keras_op
def vstack(xs):
    """The tensors joined along axis 0."""
    return array_ops.concat(_weak_common(xs), axis=0)


@export("keras.ops.dstack", "keras.ops.numpy.dstack")
@keras_op
def dstack(xs):
    """The tensors joined along axis 2 (scalars, vectors and matrices lifted to 3-D first)."""
    xs = [convert(x) for x in xs]
    if len(xs) > 1:
        xs = _common(xs)
    lifted = []
    for x in xs:
        rank = x.shape.rank
        if rank == 0:
            x = array_ops.reshape(x, [1, 1, 1])
        elif rank == 1:
            x = array_ops.expand_dims(array_ops.expand_dims(x, 0), 2)
        elif rank == 2:
            x = array_ops.expand_dims(x, 2)
        lifted.append(x)
    return array_ops.concat(lifted, axis=2)


@export("keras.ops.append", "keras.ops.numpy.append")
@keras_op
def append(x1, x2, axis=None):
    """x2 appended to x1 along `axis` (both flattened for None)."""
    x1, x2 = _common([x1, x2])
    if axis is None:
        return array_ops.concat([array_ops.reshape(x1, [-1]), array_ops.reshape(x2, [-1])], axis=0)
    return array_ops.concat([x1, x2], axis=axis)


@export("keras.ops.split", "keras.ops.numpy.split")
@keras_op
def split(x, indices_or_sections, axis=0):
    """`x` cut into equal sections (an int) or at the given indices along `axis`."""
    x = convert(x)
    if isinstance(indices_or_sections, int):
        return array_ops.split(x, indices_or_sections, axis=axis)
    total = int(x.shape[axis])
    cuts = [int(i) for i in (indices_or_sections.numpy() if constant_ops.is_tensor(indices_or_sections)
                             else indices_or_sections)]
    sizes = [cuts[0]] + [b - a for a, b in zip(cuts, cuts[1:])] + [total - cuts[-1]] \
        if cuts else [total]
    return array_ops.split(x, sizes, axis=axis)


@export("keras.ops.array_split", "keras.ops.numpy.array_split")
@keras_op
def array_split(x, indices_or_sections, axis=0):
    """`x` cut into `indices_or_sections` nearly equal parts along `axis` (the first ones one
    longer when it does not divide evenly)."""
    if not isinstance(indices_or_sections, int):
        raise TypeError(f"Argument `indices_or_sections` must be of type `int`. Received: "
                        f"indices_or_sections={indices_or_sections}")
    if indices_or_sections <= 0:
        raise ValueError(f"Argument `indices_or_sections` must be a positive integer. Received: "
                         f"indices_or_sections={indices_or_sections}")
    if not isinstance(axis, int):
        raise TypeError(f"Argument `axis` must be of type `int`. Received: {axis}")
    x = convert(x)
    total = int(x.shape[axis])
    base, extra = divmod(total, indices_or_sections)
    sizes = [base + 1] * extra + [base] * (indices_or_sections - extra)
    return array_ops.split(x, sizes, axis=axis)


@export("keras.ops.hsplit", "keras.ops.numpy.hsplit")
@keras_op
def hsplit(x, indices_or_sections):
    """`split` along axis 1 (axis 0 for 1-D tensors)."""
    x = convert(x)
    return split(x, indices_or_sections, axis=0 if x.shape.rank == 1 else 1)


@export("keras.ops.vsplit", "keras.ops.numpy.vsplit")
@keras_op
def vsplit(x, indices_or_sections):
    """`split` along axis 0."""
    return split(x, indices_or_sections, axis=0)


@export("keras.ops.dsplit", "keras.ops.numpy.dsplit")
@keras_op
def dsplit(x, indices_or_sections):
    """`split` along axis 2."""
    return split(x, indices_or_sections, axis=2)


@export("keras.ops.tile", "keras.ops.numpy.tile")
@keras_op
def tile(x, repeats):
    """`x` repeated `repeats` times along each axis (new leading axes when repeats is longer)."""
    x = convert(x)
    reps = [repeats] if isinstance(repeats, int) else \
        [int(r.numpy()) if constant_ops.is_tensor(r) and r.shape.rank == 0 else int(r) for r in repeats]
    if len(reps) < x.shape.rank:
        reps = [1] * (x.shape.rank - len(reps)) + reps
    while len(reps) > x.shape.rank:
        x = array_ops.expand_dims(x, 0)
    return array_ops.tile(x, reps)


@export("keras.ops.repeat", "keras.ops.numpy.repeat")
@keras_op
def repeat(x, repeats, axis=None):
    """Each element of `x` repeated `repeats` times along `axis` (flattened for None)."""
    x = convert(x)
    if x.dtype.name == "uint16":
        return constant_ops.cast(array_ops.repeat(constant_ops.cast(x, "uint32"), repeats, axis=axis), "uint16")
    return array_ops.repeat(x, repeats, axis=axis)


@export("keras.ops.flip", "keras.ops.numpy.flip")
@keras_op
def flip(x, axis=None):
    """`x` reversed along `axis` (along every axis for None)."""
    x = convert(x)
    rank = x.shape.rank
    axes = list(range(rank)) if axis is None else \
        [canonical_axis(a, rank) for a in axis_tuple(axis)]
    return array_ops.reverse(x, axes)


@export("keras.ops.fliplr", "keras.ops.numpy.fliplr")
@keras_op
def fliplr(x):
    """`x` reversed along axis 1."""
    return array_ops.reverse(convert(x), [1])


@export("keras.ops.flipud", "keras.ops.numpy.flipud")
@keras_op
def flipud(x):
    """`x` reversed along axis 0."""
    return array_ops.reverse(convert(x), [0])


@export("keras.ops.roll", "keras.ops.numpy.roll")
@keras_op
def roll(x, shift, axis=None):
    """`x` rolled by `shift` along `axis` (over the flattened tensor for None)."""
    x = convert(x)
    if axis is not None:
        return array_ops.roll(x, shift=shift, axis=axis)
    return array_ops.reshape(array_ops.roll(array_ops.reshape(x, [-1]), shift, 0), list(x.shape))


@export("keras.ops.rot90", "keras.ops.numpy.rot90")
@keras_op
def rot90(array, k=1, axes=(0, 1)):
    """`array` rotated by 90 degrees `k` times in the plane of `axes`."""
    array = convert(array)
    rank = array.shape.rank
    if rank < 2:
        raise ValueError(f"Input array must have at least 2 dimensions. Received: "
                         f"array.ndim={rank}")
    if len(axes) != 2 or axes[0] == axes[1]:
        raise ValueError(f"Invalid axes: {axes}. Axes must be a tuple of two different dimensions.")
    k = k % 4
    if k == 0:
        return array
    a0, a1 = (a if a >= 0 else a + rank for a in axes)
    if k == 2:
        return array_ops.reverse(array, [a0, a1])
    perm = list(range(rank))
    perm[a0], perm[a1] = perm[a1], perm[a0]
    if k == 1:
        return array_ops.transpose(array_ops.reverse(array, [a1]), perm)
    return array_ops.reverse(array_ops.transpose(array, perm), [a1])


def _pad_width(pad_width):
    if isinstance(pad_width, int):
        return ((pad_width, pad_width),)
    if isinstance(pad_width, (tuple, list)) and isinstance(pad_width[0], int):
        return (tuple(pad_width),)
    first = len(pad_width[0])
    out = []
    for pair in pad_width:
        if len(pair) != first:
            raise ValueError(f"`pad_width` should be a list of tuples of length 1 or 2. "
                             f"Received: pad_width={pad_width}")
        out.append((pair[0], pair[0]) if len(pair) == 1 else tuple(pair))
    return tuple(out)


@export("keras.ops.pad", "keras.ops.numpy.pad")
@keras_op
def pad(x, pad_width, mode="constant", constant_values=None):
    """`x` padded by `pad_width` ((before, after) per axis) with `mode` ('constant', 'reflect'
    or 'symmetric')."""
    widths = _pad_width(pad_width)
    x = convert(x)
    if len(widths) > 1 and len(widths) != x.shape.rank:
        raise ValueError(f"`pad_width` must have the same length as `x.shape`. Received: "
                         f"pad_width={widths} (of length {len(widths)}) and x.shape="
                         f"{tuple(x.shape)} (of length {x.shape.rank})")
    kwargs = {}
    if constant_values is not None:
        if mode != "constant":
            raise ValueError(f"Argument `constant_values` can only be provided when `mode == "
                             f"'constant'`. Received: mode={mode}")
        kwargs["constant_values"] = constant_values
    if x.dtype.name == "bool":  # minitf's pad has no bool kernel: pad as int8
        if "constant_values" in kwargs:
            kwargs["constant_values"] = constant_ops.cast(convert(kwargs["constant_values"]), "int8")
        out = array_ops.pad(constant_ops.cast(x, "int8"), convert(list(widths), "int32"), mode.upper(), **kwargs)
        return constant_ops.cast(out, "bool")
    return array_ops.pad(x, convert(list(widths), "int32"), mode.upper(), **kwargs)


@export("keras.ops.get_item", "keras.ops.numpy.get_item")
@keras_op
def get_item(x, key):
    """`x[key]`."""
    return getitem(convert(x), key)


@export("keras.ops.size", "keras.ops.numpy.size")
@keras_op
def size(x):
    """The number of elements of `x`, as an int32 tensor."""
    return array_ops.size(convert(x))


@export("keras.ops.ndim", "keras.ops.numpy.ndim")
def ndim(x):
    """The rank of `x`, as a Python int."""
    return convert(x).shape.rank


@export("keras.ops.copy", "keras.ops.numpy.copy")
@keras_op
def copy(x):
    """A copy of `x`."""
    return constant_ops.identity(convert(x))


@export("keras.ops.array", "keras.ops.numpy.array")
@keras_op
def array(x, dtype=None):
    """`x` as a tensor of `dtype`."""
    dtype = None if dtype is None else standardize_dtype(dtype)
    if constant_ops.is_tensor(x) and (dtype is None or x.dtype.name == dtype):
        return x
    return convert(x, dtype)


@export("keras.ops.view", "keras.ops.numpy.view")
@keras_op
def view(x, dtype=None):
    """The bytes of `x` reinterpreted as `dtype` (the last axis grows or shrinks by the ratio
    of the item sizes)."""
    x = convert(x)
    new = tf_dtypes.as_dtype(standardize_dtype(dtype) if dtype else x.dtype.name)
    old_size, new_size = x.dtype.size, new.size
    shape = list(x.shape)
    last = shape[-1] if shape else -1
    if (last == -1 and old_size != new_size) or (last * old_size % new_size != 0):
        raise ValueError(f"Cannot view array of shape {tuple(shape)} and dtype {x.dtype.name} "
                         f"as dtype {new.name} because the total number of bytes is not "
                         f"divisible by the new itemsize.")
    xp = xp_of(x)
    raw = xp.ascontiguousarray(x._value)
    return Tensor(raw.view(new.as_numpy_dtype))
