"""tnp's shape manipulation, reductions, indexing helpers, sorting and linear algebra.

Reductions follow TF's tnp: sum/prod of small integers and bools accumulate in int64 (NumPy's
default int), mean/std/var of integers in the default float, max/min keep the dtype.
"""
import builtins

import numpy as np

from minitf.dtypes import dtypes
from minitf.errors import errors
from minitf.keras_ops import np_index
from minitf.keras_ops import np_linalg as KLA
from minitf.ops import array as A
from minitf.ops import compare as CMP
from minitf.ops import constant as C
from minitf.ops import linalg as LA
from minitf.ops import math as M
from minitf.ops import reduce as R
from minitf.ops import reorder as RO
from minitf.numpy_ops import np_dtypes as D
from minitf.numpy_ops import np_math as NM
from minitf.numpy_ops.np_creation import diagonal, full
from minitf.numpy_ops.np_dtypes import array, asarray, is_inexact, is_integer, is_tensor, promote, result_type
from minitf.api_export import export

# -- reductions ---------------------------------------------------------------------------------

_TO_INT, _TO_FLOAT = 0, 1


def _axis(axis):
    if isinstance(axis, tuple):
        return list(axis)
    return axis


def _reduce(fn, a, axis=None, dtype=None, keepdims=None, promote_int=_TO_INT, bool_fn=None,
            preserve_bool=False):
    if dtype:
        dtype = result_type(dtype)
    keepdims = bool(keepdims)
    a = asarray(a, dtype=dtype)
    if bool_fn is not None and (dtype == dtypes.bool or (preserve_bool and a.dtype == dtypes.bool)):
        return bool_fn(a, axis=_axis(axis), keepdims=keepdims)
    if dtype is None and (is_integer(a.dtype) or a.dtype == dtypes.bool):
        if promote_int == _TO_INT:
            np_t = D.np_dtype(a.dtype)
            signed = np_t == np.bool_ or np.issubdtype(np_t, np.signedinteger)
            bits = 8 if np_t == np.bool_ else np.iinfo(np_t).bits
            if bits < np.iinfo(np.int_).bits:
                a = C.cast(a, np.int_ if signed else np.uint)
        elif promote_int == _TO_FLOAT:
            a = C.cast(a, result_type(float))
    return fn(a, axis=_axis(axis), keepdims=keepdims)


@export("experimental.numpy.sum")
def sum(a, axis=None, dtype=None, keepdims=None):  # noqa: A001 (NumPy's name)
    """Sum over `axis` (all when None); small ints and bools add up in int64."""
    return _reduce(R.reduce_sum, a, axis, dtype, keepdims, bool_fn=R.reduce_any)


@export("experimental.numpy.prod")
def prod(a, axis=None, dtype=None, keepdims=None):
    """Product over `axis` (all when None); small ints and bools multiply in int64."""
    return _reduce(R.reduce_prod, a, axis, dtype, keepdims, bool_fn=R.reduce_all)


@export("experimental.numpy.mean")
def mean(a, axis=None, dtype=None, out=None, keepdims=None):
    """Mean over `axis`; integers average in the default float."""
    if out is not None:
        raise ValueError("Setting out is not supported.")
    return _reduce(R.reduce_mean, a, axis, dtype, keepdims, promote_int=_TO_FLOAT)


@export("experimental.numpy.amax")
def amax(a, axis=None, out=None, keepdims=None):
    """Largest element over `axis`, in a's dtype (any for bools)."""
    if out is not None:
        raise ValueError("Setting out is not supported.")
    return _reduce(R.reduce_max, a, axis, None, keepdims, promote_int=None, bool_fn=R.reduce_any,
                   preserve_bool=True)


@export("experimental.numpy.amin")
def amin(a, axis=None, out=None, keepdims=None):
    """Smallest element over `axis`, in a's dtype (all for bools)."""
    if out is not None:
        raise ValueError("Setting out is not supported.")
    return _reduce(R.reduce_min, a, axis, None, keepdims, promote_int=None, bool_fn=R.reduce_all,
                   preserve_bool=True)


@export("experimental.numpy.max")
def max(a, axis=None, keepdims=None):  # noqa: A001 (NumPy's name)
    """Same as amax."""
    return amax(a, axis=axis, keepdims=keepdims)


@export("experimental.numpy.min")
def min(a, axis=None, keepdims=None):  # noqa: A001 (NumPy's name)
    """Same as amin."""
    return amin(a, axis=axis, keepdims=keepdims)


@export("experimental.numpy.all")
def all(a, axis=None, keepdims=None):  # noqa: A001 (NumPy's name)
    """Whether every element over `axis` is true."""
    return R.reduce_all(asarray(a, dtype=bool), axis=_axis(axis), keepdims=bool(keepdims))


@export("experimental.numpy.any")
def any(a, axis=None, keepdims=None):  # noqa: A001 (NumPy's name)
    """Whether some element over `axis` is true."""
    return R.reduce_any(asarray(a, dtype=bool), axis=_axis(axis), keepdims=bool(keepdims))


@export("experimental.numpy.var")
def var(a, axis=None, dtype=None, out=None, ddof=0, keepdims=None):
    """Variance over `axis` with `ddof` degrees of freedom removed; integers in the default float."""
    if out is not None:
        raise ValueError("Setting out is not supported.")
    working = result_type(a, dtype) if dtype else None

    def fn(t, axis, keepdims):
        if ddof == 0:
            return R.reduce_variance(t, axis=axis, keepdims=keepdims)
        centered = M.subtract(t, R.reduce_mean(t, axis=axis, keepdims=True))
        squares = R.reduce_sum(M.square(centered), axis=axis, keepdims=keepdims)
        n = int(np.prod(t.shape.as_list())) if axis is None else int(
            np.prod([t.shape[i] for i in np.atleast_1d(axis)]))
        return M.truediv(squares, C.constant(n - ddof, dtype=t.dtype))
    result = _reduce(fn, a, axis, working, keepdims, promote_int=_TO_FLOAT)
    return C.cast(result, result_type(dtype)) if dtype else result


@export("experimental.numpy.std")
def std(a, axis=None, keepdims=None):
    """Standard deviation over `axis`; integers in the default float."""
    return _reduce(R.reduce_std, a, axis, None, keepdims, promote_int=_TO_FLOAT)


def _nan_reduction(name, reduction, init):
    def f(a, axis=None, dtype=None, keepdims=False):
        a = array(a)
        fill = array(init, dtype=a.dtype)
        return reduction(NM.where(NM.isnan(a), fill, a), axis=axis, dtype=dtype, keepdims=keepdims)
    f.__name__ = f.__qualname__ = name
    f.__doc__ = f"{reduction.__name__} with NaNs counted as {init}."
    return export("experimental.numpy." + name)(f)


nansum = _nan_reduction("nansum", sum, 0)
nanprod = _nan_reduction("nanprod", prod, 1)


@export("experimental.numpy.nanmean")
def nanmean(a, axis=None, dtype=None, keepdims=None):
    """Mean over `axis` leaving NaNs out."""
    a = array(a)
    if a.dtype == dtypes.bool or is_integer(a.dtype):
        return mean(a, axis=axis, dtype=dtype, keepdims=keepdims)
    keep = NM.logical_not(NM.isnan(a))
    dtype = dtype or a.dtype
    count = sum(keep, axis=axis, dtype=dtype, keepdims=keepdims)
    return nansum(a, axis=axis, dtype=dtype, keepdims=keepdims) / count


@export("experimental.numpy.ptp")
def ptp(a, axis=None, keepdims=None):
    """max - min over `axis`."""
    return amax(a, axis=axis, keepdims=keepdims) - amin(a, axis=axis, keepdims=keepdims)


@export("experimental.numpy.average")
def average(a, axis=None, weights=None, returned=False):
    """Weighted mean over `axis` (weights 1-d along it, or a's shape); with `returned`, also
    the weights' sum."""
    if axis is not None and not isinstance(axis, int):
        raise ValueError(f"Argument `axis` must be an integer. Received axis={axis} (of type {type(axis)})")
    a = array(a)
    default_float = result_type(float)
    if weights is None:
        if not is_inexact(a.dtype):
            a = C.cast(a, result_type(a.dtype, default_float))
        avg = R.reduce_mean(a, axis=axis)
        if returned:
            count = int(np.prod(a.shape.as_list())) if axis is None else a.shape[axis]
            wsum = C.constant(count, dtype=a.dtype)
    else:
        out = result_type(a.dtype, weights) if is_inexact(a.dtype) else result_type(a.dtype, weights, default_float)
        a, weights = array(a, out), array(weights, out)
        if axis is None or a.shape.rank == weights.shape.rank:
            if a.shape.as_list() != weights.shape.as_list():
                raise errors.InvalidArgumentError(None, None, f"tnp.average: weights of shape {weights.shape} differ from a's shape {a.shape}.")
            wsum = R.reduce_sum(weights, axis=axis)
            avg = M.truediv(R.reduce_sum(M.multiply(a, weights), axis=axis), wsum)
        else:
            if weights.shape.rank != 1:
                raise errors.InvalidArgumentError(None, None, "tnp.average: 1-d weights are needed when their shape differs from a's.")
            wsum = R.reduce_sum(weights)
            avg = M.truediv(LA.tensordot(a, weights, [[axis], [0]]), wsum)
    if returned:
        return avg, A.broadcast_to(wsum, A.shape(avg))
    return avg


def _promote_to_int(a):
    if is_integer(a.dtype):
        out = np.promote_types(D.np_dtype(a.dtype), int)
        if out != D.np_dtype(a.dtype):
            a = asarray(a, dtype=out)
    return a


def _cumulative(fn, a, axis, dtype):
    a = asarray(a, dtype=dtype)
    if dtype is None:
        a = _promote_to_int(a)
    if axis is None:
        a, axis = A.reshape(a, [-1]), 0
    elif axis < 0:
        axis += a.shape.rank
    return fn(a, axis)


@export("experimental.numpy.cumsum")
def cumsum(a, axis=None, dtype=None):
    """Running sum along `axis` (of the flattened a when None)."""
    return _cumulative(R.cumsum, a, axis, dtype)


@export("experimental.numpy.cumprod")
def cumprod(a, axis=None, dtype=None):
    """Running product along `axis` (of the flattened a when None)."""
    return _cumulative(R.cumprod, a, axis, dtype)


@export("experimental.numpy.count_nonzero")
def count_nonzero(a, axis=None):
    """The number of nonzero elements over `axis` (int64)."""
    return R.count_nonzero(array(a), axis=_axis(axis))


def _argminmax(fn, a, axis):
    a = array(a)
    a = A.reshape(a, [-1]) if axis is None else (A.reshape(a, [1]) if a.shape.rank == 0 else a)
    return fn(a, axis=axis)


@export("experimental.numpy.argmax")
def argmax(a, axis=None):
    """Index of the largest element along `axis` (of the flattened a when None)."""
    return _argminmax(R.argmax, a, axis)


@export("experimental.numpy.argmin")
def argmin(a, axis=None):
    """Index of the smallest element along `axis` (of the flattened a when None)."""
    return _argminmax(R.argmin, a, axis)


# -- shape manipulation --------------------------------------------------------------------------

@export("experimental.numpy.reshape")
def reshape(a, newshape, order="C"):
    """a with shape `newshape` (one -1 inferred), read in C or Fortran order."""
    if order not in {"C", "F"}:
        raise ValueError(f"Unsupported order argument {order}")
    a = asarray(a)
    if isinstance(newshape, (int, np.integer)):
        newshape = [newshape]
    if order == "F":
        return A.transpose(A.reshape(A.transpose(a), list(newshape)[::-1]))
    return A.reshape(a, newshape)


def reshape_method(a, *newshape, **kwargs):
    """Tensor.reshape under NumPy behaviour: `t.reshape(2, 3)` or `t.reshape((2, 3))`."""
    order = kwargs.pop("order", "C")
    if kwargs:
        raise ValueError(f"Unsupported arguments: {kwargs.keys()}")
    if len(newshape) == 1 and not isinstance(newshape[0], int):
        newshape = newshape[0]
    return reshape(a, newshape, order=order)


@export("experimental.numpy.ravel")
def ravel(a):
    """a flattened to 1-d."""
    return A.reshape(asarray(a), [-1])


@export("experimental.numpy.flatten")
def flatten(a, order="C"):
    """a flattened to 1-d, in row-major (C, A, K) or column-major (F) order."""
    a = asarray(a)
    if order in ("C", "A", "K"):
        return A.reshape(a, [-1])
    if order == "F":
        return A.reshape(A.transpose(a), [-1])
    raise ValueError("order can only be C, A, K (all row major) or F (column major).")


@export("experimental.numpy.transpose")
def transpose(a, axes=None):
    """a with its axes reversed, or permuted by `axes`."""
    a = asarray(a)
    return A.transpose(a, perm=None if axes is None else [int(i) for i in np.asarray(axes).ravel()])


@export("experimental.numpy.expand_dims")
def expand_dims(a, axis):
    """a with a new length-1 axis at `axis`."""
    return A.expand_dims(asarray(a), axis=axis)


@export("experimental.numpy.squeeze")
def squeeze(a, axis=None):
    """a without its length-1 axes (or only `axis`)."""
    return A.squeeze(asarray(a), axis)


@export("experimental.numpy.swapaxes")
def swapaxes(a, axis1, axis2):
    """a with axes axis1 and axis2 exchanged."""
    a = asarray(a)
    rank = a.shape.rank
    axis1, axis2 = axis1 % rank if rank else axis1, axis2 % rank if rank else axis2
    perm = list(builtins.range(rank))
    perm[axis1], perm[axis2] = axis2, axis1
    return A.transpose(a, perm)


@export("experimental.numpy.moveaxis")
def moveaxis(a, source, destination):
    """a with the axes `source` moved to positions `destination`, the others in order."""
    if not source and not destination:
        return a
    a = asarray(a)
    source = (source,) if isinstance(source, int) else tuple(source)
    destination = (destination,) if isinstance(destination, int) else tuple(destination)
    if len(source) != len(destination):
        raise ValueError("The lengths of source and destination must equal")
    rank = a.shape.rank
    source = tuple(s + rank if s < 0 else s for s in source)
    destination = tuple(d + rank if d < 0 else d for d in destination)
    perm = [i for i in builtins.range(rank) if i not in source]
    for dest, src in sorted(zip(destination, source)):
        if dest > len(perm):  # TF's tnp asserts here
            raise AssertionError(f"tnp.moveaxis: destination {destination} is out of range for an array of rank {rank}.")
        perm.insert(dest, src)
    return A.transpose(a, perm)


@export("experimental.numpy.broadcast_to")
def broadcast_to(array, shape):  # noqa: A002 (NumPy's name)
    """`array` broadcast to `shape`."""
    return full(shape, array)


@export("experimental.numpy.broadcast_arrays")
def broadcast_arrays(*args, **kwargs):
    """The arguments broadcast to their common shape."""
    if kwargs.pop("subok", False):
        raise ValueError("subok=True is not supported.")
    if kwargs:
        raise ValueError(f"Received unsupported arguments {kwargs.keys()}")
    args = [asarray(arg) for arg in args]
    if len(args) <= 1:
        return args
    shape = np.broadcast_shapes(*(tuple(t.shape.as_list()) for t in args))
    return [A.broadcast_to(t, shape) for t in args]


def _atleast(n, arys):
    out = []
    for x in arys:
        x = asarray(x)
        shape = x.shape.as_list()
        if len(shape) < n:
            if n == 3 and len(shape) == 1:
                shape = [1] + shape + [1]
            elif n == 3 and len(shape) == 2:
                shape = shape + [1]
            else:
                shape = [1] * (n - len(shape)) + shape
            x = A.reshape(x, shape)
        out.append(x)
    return out[0] if len(out) == 1 else out


@export("experimental.numpy.atleast_1d")
def atleast_1d(*arys):
    """Each argument with at least one dimension."""
    return _atleast(1, arys)


@export("experimental.numpy.atleast_2d")
def atleast_2d(*arys):
    """Each argument with at least two dimensions (new ones in front)."""
    return _atleast(2, arys)


@export("experimental.numpy.atleast_3d")
def atleast_3d(*arys):
    """Each argument with at least three dimensions (NumPy's placement: (N,) -> (1, N, 1))."""
    return _atleast(3, arys)


@export("experimental.numpy.concatenate")
def concatenate(arys, axis=0):
    """The arrays joined along `axis`, promoted to their common dtype."""
    if not isinstance(arys, (list, tuple)):
        arys = [arys]
    if not arys:
        raise ValueError(f"Need at least one array to concatenate. Received empty input: arys={arys}")
    dtype = result_type(*arys)
    return A.concat([array(x, dtype=dtype) for x in arys], axis)


@export("experimental.numpy.append")
def append(arr, values, axis=None):
    """arr and values joined along `axis` (both flattened when None)."""
    if axis is None:
        return concatenate([ravel(arr), ravel(values)], 0)
    return concatenate([arr, values], axis=axis)


@export("experimental.numpy.stack")
def stack(arrays, axis=0):
    """The arrays joined along a new axis `axis`."""
    if is_tensor(arrays):
        arrays = asarray(arrays)
        return arrays if axis == 0 else swapaxes(arrays, 0, axis)
    return A.stack(promote(*arrays), axis)


@export("experimental.numpy.hstack")
def hstack(tup):
    """The arrays joined along axis 1 (axis 0 for 1-d arrays)."""
    arrays = promote(*[atleast_1d(a) for a in tup])
    return A.concat(arrays, axis=0 if arrays[0].shape.rank == 1 else 1)


@export("experimental.numpy.vstack")
def vstack(tup):
    """The arrays, as at least 2-d, joined along axis 0."""
    return A.concat(promote(*[atleast_2d(a) for a in tup]), axis=0)


@export("experimental.numpy.dstack")
def dstack(tup):
    """The arrays, as at least 3-d, joined along axis 2."""
    return A.concat(promote(*[atleast_3d(a) for a in tup]), axis=2)


def _boundaries_to_sizes(a, boundaries, axis):
    if axis >= len(a.shape):
        raise ValueError(f"axis {axis} is out of bound for shape {a.shape}")
    total, sizes, used, prev = a.shape[axis], [], 0, 0
    for i, b in enumerate(boundaries):
        size = b - prev
        if size < 0:
            raise ValueError(f"The {i}-th boundary {b} is smaller than the previous boundary {prev}")
        size = builtins.min(size, builtins.max(0, total - used))
        sizes.append(size)
        used += size
        prev = b
    sizes.append(builtins.max(0, total - used))
    return sizes


@export("experimental.numpy.split")
def split(ary, indices_or_sections, axis=0):
    """ary split along `axis` into equal sections, or at the given indices."""
    ary = asarray(ary)
    if ary.shape.rank == 0 and isinstance(indices_or_sections, int):
        raise errors.InvalidArgumentError(None, None, f"tnp.split: cannot split a scalar along axis {axis}; "
                                          "-input rank(-0) <= split_dim < input rank (0). [Op:Split]")
    if not isinstance(indices_or_sections, int):
        indices_or_sections = _boundaries_to_sizes(ary, indices_or_sections, axis)
    return A.split(ary, indices_or_sections, axis=axis)


def _split_on(name, axis):
    def f(ary, indices_or_sections):
        new_axis = 0 if axis == 1 and asarray(ary).shape.rank == 1 else axis
        if isinstance(indices_or_sections, int):
            size = ary.shape[new_axis]  # as TF: the input's own shape (a list or scalar has none)
            if size is not None and size % indices_or_sections:
                raise ValueError("array split does not result in an equal division")
        return split(ary, indices_or_sections, axis=new_axis)
    f.__name__ = f.__qualname__ = name
    f.__doc__ = f"split along axis {axis}" + (" (axis 0 for 1-d arrays)." if axis == 1 else ".")
    return export("experimental.numpy." + name)(f)


vsplit = _split_on("vsplit", 0)
hsplit = _split_on("hsplit", 1)
dsplit = _split_on("dsplit", 2)


@export("experimental.numpy.tile")
def tile(a, reps):
    """a repeated `reps` times along each axis (reps and a's rank padded with ones in front)."""
    a = array(a)
    reps = [int(r) for r in np.asarray(reps).reshape(-1)]
    shape = a.shape.as_list()
    rank = builtins.max(len(shape), len(reps))
    reps = [1] * (rank - len(reps)) + reps
    a = A.reshape(a, [1] * (rank - len(shape)) + shape)
    return A.tile(a, reps)


@export("experimental.numpy.repeat")
def repeat(a, repeats, axis=None):
    """Each element repeated `repeats` times along `axis` (of the flattened a when None)."""
    a = asarray(a)
    if a.shape.rank == 0 and axis is None:
        a = A.reshape(a, [1])
    if axis is not None and a.shape.rank:
        a.shape.as_list()[axis]  # as TF: an axis out of range raises IndexError
    return A.repeat(a, asarray(repeats), axis)


@export("experimental.numpy.flip")
def flip(m, axis=None):
    """m with the order of elements along `axis` (all axes when None) reversed."""
    m = asarray(m)
    rank = m.shape.rank
    if axis is None:
        return RO.reverse(m, list(builtins.range(rank)))
    if rank == 0 or 0 in m.shape.as_list():
        return m  # as TF: nothing to flip
    if not -rank <= axis < rank:
        raise errors.InvalidArgumentError(
            None, None, f"tnp.flip: axis {axis} is out of bounds for an array of rank {rank}.")
    return RO.reverse(m, [axis % rank])


@export("experimental.numpy.flipud")
def flipud(m):
    """flip along axis 0."""
    return flip(m, 0)


@export("experimental.numpy.fliplr")
def fliplr(m):
    """flip along axis 1."""
    return flip(m, 1)


@export("experimental.numpy.roll")
def roll(a, shift, axis=None):
    """a rotated by `shift` along `axis` (the flattened a when None)."""
    a = asarray(a)
    if axis is not None:
        return RO.roll(a, shift, axis)
    return A.reshape(RO.roll(A.reshape(a, [-1]), shift, 0), A.shape(a))


@export("experimental.numpy.rot90")
def rot90(m, k=1, axes=(0, 1)):
    """m rotated by 90 degrees k times in the plane of `axes`."""
    m = asarray(m)
    rank = m.shape.rank
    ax1, ax2 = (ax % rank for ax in axes)
    k = k % 4
    if k == 0:
        return m
    if k == 2:
        return flip(flip(m, ax1), ax2)
    perm = list(builtins.range(rank))
    perm[ax1], perm[ax2] = ax2, ax1
    if k == 1:
        return transpose(flip(m, ax2), perm)
    return flip(transpose(m, perm), ax2)


@export("experimental.numpy.pad")
def pad(array, pad_width, mode, **kwargs):  # noqa: A002 (NumPy's name)
    """array padded by `pad_width` in mode 'constant' (constant_values), 'reflect' or 'symmetric'."""
    if mode not in ("constant", "reflect", "symmetric"):
        raise ValueError("Unsupported padding mode: " + str(mode))
    a = asarray(array)
    widths = asarray(pad_width, dtype=dtypes.int32)
    return A.pad(a, widths, mode=mode.upper(), constant_values=kwargs.get("constant_values", 0))


@export("experimental.numpy.shape")
def shape(a):
    """a's shape, a TensorShape."""
    return asarray(a).shape


@export("experimental.numpy.ndim")
def ndim(a):
    """a's number of dimensions."""
    return asarray(a).ndim


@export("experimental.numpy.isscalar")
def isscalar(num):
    """True for 0-d arrays and Python scalars."""
    return ndim(num) == 0


@export("experimental.numpy.size")
def size(x, axis=None):
    """The number of elements of x."""
    if axis is not None:
        raise NotImplementedError("axis argument is not supported in the current `np.size` implementation")
    if isinstance(x, (int, float, np.int32, np.int64, np.float32, np.float64)):
        return 1
    x = asarray(x)
    if x.shape.is_fully_defined():
        return np.prod(x.shape.as_list(), dtype=int)
    return A.size(x)


# -- indexing helpers -----------------------------------------------------------------------------

@export("experimental.numpy.take")
def take(a, indices, axis=None, out=None, mode="clip"):
    """Elements of a at `indices` along `axis` (of the flattened a when None); out-of-range
    indices are clipped ('clip') or wrapped ('wrap')."""
    if out is not None:
        raise ValueError("out argument is not supported in take.")
    if mode not in {"raise", "clip", "wrap"}:
        raise ValueError(f"Invalid mode '{mode}' for take")
    a = asarray(a)
    indices = asarray(indices)
    if axis is None:
        a, axis = A.reshape(a, [-1]), 0
    if a.shape.rank == 0:
        raise errors.InvalidArgumentError(None, None, f"tnp.take: a scalar has no axis {axis} to take from; "
                                          "pass axis=None or an array of rank >= 1. [Op:StridedSlice]")
    n = C.constant(a.shape[axis], dtype=indices.dtype)
    if mode == "clip":
        indices = M.clip_by_value(indices, C.constant(0, indices.dtype), M.subtract(n, C.constant(1, indices.dtype)))
    elif mode == "wrap":
        indices = M.floormod(indices, n)
    else:
        raise ValueError("The 'raise' mode to take is not supported.")
    return A.gather(a, indices, axis=axis)


@export("experimental.numpy.take_along_axis")
def take_along_axis(arr, indices, axis):
    """arr's elements picked along `axis` by `indices` (broadcast against arr elsewhere)."""
    arr = asarray(arr)
    indices = asarray(indices)
    if axis is None:
        return take_along_axis(ravel(arr), indices, 0)
    if arr.shape.rank == 0:
        raise errors.InvalidArgumentError(
            None, None, "tnp.take_along_axis: `arr` is a scalar, which has no axis to take along; "
            "Indices and updates specified for empty output shape [Op:TensorScatterUpdate]")
    return np_index.take_along_axis(arr, indices, axis=axis)


@export("experimental.numpy.compress")
def compress(condition, a, axis=None):
    """The slices of a along `axis` where 1-d `condition` holds (missing entries count False)."""
    condition = asarray(condition, dtype=bool)
    a = asarray(a)
    if condition.ndim != 1:
        raise ValueError("condition must be a 1-d array.")
    if a.ndim == 0:
        a = ravel(a)
    if axis is None:
        a, axis = ravel(a), 0
    if axis < 0:
        axis += a.ndim
    if not 0 <= axis < a.ndim:  # TF's tnp asserts here
        raise AssertionError(f"tnp.compress: axis {axis} is out of range for an array of rank {a.ndim}.")
    if condition.shape[0] < a.shape[axis]:
        condition = A.concat([condition, A.fill([a.shape[axis] - condition.shape[0]], False)], axis=0)
    return A.boolean_mask(a, condition, axis=axis)


@export("experimental.numpy.select")
def select(condlist, choicelist, default=0):
    """For each element, the choice of the first condition that holds, else `default`."""
    if len(condlist) != len(choicelist):
        raise ValueError(f"condlist must have length equal to choicelist ({len(condlist)} vs {len(choicelist)})")
    if not condlist:
        raise ValueError("condlist must be non-empty")
    choices = promote(default, *choicelist)
    output = choices[0]
    for cond, choice in zip(condlist[::-1], choices[1:][::-1]):
        output = NM.where(cond, choice, output)
    return output


@export("experimental.numpy.ix_")
def ix_(*args):
    """Open mesh index arrays from 1-d integer or bool sequences."""
    n = len(args)
    out = []
    for i, a in enumerate(args):
        a = asarray(a)
        if a.shape.rank != 1:
            raise ValueError(f"Arguments must be 1-d, got arg {i} of rank {a.shape.rank}")
        shape = [1] * n
        shape[i] = -1
        if a.dtype == dtypes.bool:
            out.append(A.reshape(NM.nonzero(a)[0], shape))
        elif a.dtype.is_integer:
            out.append(A.reshape(a, shape))
        else:
            raise ValueError(f"Only integer and bool dtypes are supported, got {a.dtype}")
    return out


@export("experimental.numpy.sort")
def sort(a, axis=-1, kind="quicksort", order=None):
    """a sorted ascending along `axis` (of the flattened a when None)."""
    if kind != "quicksort":
        raise ValueError(f'Invalid value for argument `kind`. Only kind="quicksort" is supported. Received: kind={kind}')
    if order is not None:
        raise ValueError("The `order` argument is not supported. Pass order=None")
    a = array(a)
    if axis is None:
        return RO.sort(A.reshape(a, [-1]), 0)
    return RO.sort(a, axis)


@export("experimental.numpy.argsort")
def argsort(a, axis=-1, kind="quicksort", order=None):
    """Indices that sort a along `axis` (int64); kind 'stable' keeps ties in order."""
    if kind not in ("quicksort", "stable"):
        raise ValueError('Invalid value for argument `kind`. Only kind="quicksort" and kind="stable" '
                         f"are supported. Received: kind={kind}")
    if order is not None:
        raise ValueError("The `order` argument is not supported. Pass order=None")
    a = array(a)
    if a.dtype.is_complex:
        raise TypeError(f"argsort does not support complex64/complex128 dtypes. Received dtype: {a.dtype}")
    if a.shape.rank == 0:
        out = C.constant([0])
    else:
        if axis is None:
            a, axis = A.reshape(a, [-1]), 0
        out = RO.argsort(a, axis, stable=kind == "stable")
    return array(out, dtype=np.intp)


# -- linear algebra -------------------------------------------------------------------------------

def _dot_last(a, b):
    return LA.tensordot(a, b, [[-1 % a.shape.rank], [(-1 if b.shape.rank == 1 else -2) % b.shape.rank]])


@export("experimental.numpy.dot")
def dot(a, b):
    """Dot product: a * b for scalars, else a's last axis against b's last (1-d b) or
    second-to-last axis."""
    a, b = NM._pair(a, b)
    if a.shape.rank == 0 or b.shape.rank == 0:
        return a * b
    return _dot_last(a, b)


@export("experimental.numpy.matmul")
def matmul(x1, x2):
    """Matrix product with NumPy's rules for 1-d operands and batch broadcasting; bad shapes
    raise ValueError, as TF's tnp."""
    x1, x2 = NM._pair(x1, x2)
    if x1.shape.rank == 0 or x2.shape.rank == 0:
        raise ValueError(f"matmul: input operands must be at least 1-d; got shapes {x1.shape} and {x2.shape}.")
    inner1 = x1.shape[0] if x1.shape.rank == 1 else x1.shape[-1]
    inner2 = x2.shape[0] if x2.shape.rank == 1 else x2.shape[-2]
    if inner1 is not None and inner2 is not None and inner1 != inner2:
        # checked here so a traced call raises what an eager one does (TF's shape inference)
        raise ValueError(f"Matrix size-incompatible: In[0]: {x1.shape}, In[1]: {x2.shape}; tnp.matmul contracts "
                         f"{inner1} values of the first operand with {inner2} of the second.")
    try:
        if x2.shape.rank == 1:
            return LA.tensordot(x1, x2, 1) if x1.shape.rank > 0 else M.multiply(x1, x2)
        if x1.shape.rank == 1:
            return LA.tensordot(x1, x2, [[0], [x2.shape.rank - 2]])
        return LA.matmul(x1, x2)
    except Exception as exc:  # TF's tnp turns the kernel's shape errors into ValueError
        if type(exc).__name__ == "InvalidArgumentError":
            raise ValueError(str(exc)) from None
        raise


@export("experimental.numpy.tensordot")
def tensordot(a, b, axes=2):
    """Sum of products over the given axes of a and b (the last/first `axes` when an int)."""
    a, b = NM._pair(a, b)
    return LA.tensordot(a, b, axes)


@export("experimental.numpy.inner")
def inner(a, b):
    """Sum of products over the last axes (a * b when either is a scalar)."""
    a, b = NM._pair(a, b)
    if a.shape.rank == 0 or b.shape.rank == 0:
        return a * b
    return LA.tensordot(a, b, [[a.shape.rank - 1], [b.shape.rank - 1]])


@export("experimental.numpy.outer")
def outer(a, b):
    """The outer product of the flattened a and b."""
    a, b = NM._pair(a, b)
    return A.reshape(a, [-1, 1]) * A.reshape(b, [-1])


@export("experimental.numpy.vdot")
def vdot(a, b):
    """Dot product of the flattened a and b (a conjugated when complex)."""
    a, b = promote(a, b)
    a, b = A.reshape(a, [-1]), A.reshape(b, [-1])
    if a.dtype.is_complex:
        a = NM.conj(a)
    return dot(a, b)


@export("experimental.numpy.kron")
def kron(a, b):
    """The Kronecker product of a and b."""
    a, b = promote(a, b)
    return KLA.kron(a, b)


@export("experimental.numpy.cross")
def cross(a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    """Cross product of 2- or 3-vectors along the given axes."""
    a, b = NM._pair(a, b)
    return KLA.cross(a, b, axisa=axisa, axisb=axisb, axisc=axisc, axis=axis)


@export("experimental.numpy.einsum")
def einsum(subscripts, *operands, **kwargs):
    """Einstein summation; operands promoted to a common dtype (casting='safe') or used as they
    are (casting='no')."""
    casting = kwargs.get("casting", "safe")
    optimize = kwargs.get("optimize", False)
    if casting == "safe":
        operands = promote(*operands)
    elif casting == "no":
        operands = [asarray(x) for x in operands]
    else:
        raise ValueError('Invalid value for argument `casting`. Expected casting="safe" or casting="no". '
                         f"Received: casting={casting}")
    if optimize not in (False, True, "greedy", "optimal"):
        raise ValueError('Invalid value for argument `optimize`. Expected one of {True, "greedy", "optimal"}. '
                         f"Received: optimize={optimize}")
    return LA.einsum(subscripts, *operands)


@export("experimental.numpy.trace")
def trace(a, offset=0, axis1=0, axis2=1, dtype=None):
    """Sum of the `offset` diagonal of the matrices in axes axis1, axis2."""
    if dtype:
        dtype = result_type(dtype)
    a = asarray(a, dtype)
    rank = a.shape.rank
    if offset == 0 and rank is not None and axis1 in (-2, rank - 2) and axis2 in (-1, rank - 1):
        return R.reduce_sum(diagonal(a, 0, -2, -1), axis=-1)  # TF's tnp keeps a's dtype on this path
    return sum(diagonal(a, offset, axis1, axis2), -1, dtype)


@export("experimental.numpy.diff")
def diff(a, n=1, axis=-1):
    """The n-th discrete difference along `axis` (not-equal for bools)."""
    a = asarray(a)
    nd = a.shape.rank
    if (axis + nd if axis < 0 else axis) >= nd:
        raise ValueError(f"Argument `axis` (received axis={axis}) is out of bounds for input {a} of rank {nd}.")
    if n < 0:
        raise ValueError(f"Argument `order` must be a non-negative integer. Received: axis={n}")
    hi = [slice(None)] * nd
    lo = [slice(None)] * nd
    hi[axis], lo[axis] = slice(1, None), slice(None, -1)
    op = CMP.not_equal if a.dtype == dtypes.bool else M.subtract
    for _ in builtins.range(n):
        a = op(a[tuple(hi)], a[tuple(lo)])
    return a


@export("experimental.numpy.polyval")
def polyval(p, x):
    """The polynomial with coefficients p (highest power first) at x."""
    p, x = NM._pair(p, x)
    if p.shape.rank == 0:
        p = A.reshape(p, [1])
    coeffs = A.unstack(p)
    y = coeffs[0]
    for c in coeffs[1:]:
        y = M.add(M.multiply(y, x), c)
    if len(coeffs) == 1:
        y = A.broadcast_to(coeffs[0], A.shape(x))
    return y


@export("experimental.numpy.copy")
def copy(a):
    """A new tensor with a's value (on the current device)."""
    return array(a, copy=True)
